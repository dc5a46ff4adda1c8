//! The speaker encoder (GE2E, from Resemblyzer 0.1.4) that turns a recording
//! into a 256-d voice embedding: two clips of one speaker land close
//! together (cosine similarity), clips of different speakers further apart.
//!
//! Flow: samples at any rate → [`revoice_audio::resample`] to 16 kHz →
//! [`preprocess`] (volume up to -30 dBFS, long silences cut) → partial
//! windows of 1.6 s → [`mel`] frames → [`encoder::SpeakerNet`] (candle) →
//! one L2-normalised embedding per partial → their mean, normalised again.
//! The weights come from `<data>/models/resemblyzer-ge2e-0.1.4/encoder.safetensors`,
//! which the installer converts from the wheel's `pretrained.pt`
//! ([`checkpoint`]); nothing here runs Python.
//!
//! Parity: `tests/fixtures/ge2e/synthetic.safetensors` holds upstream's mel
//! frames, partial embeddings and embedding for a synthetic clip
//! (`scripts/dev/ge2e_reference.py`); the unit tests hold the port to them.
//! The one deliberate difference from upstream is the VAD (energy based,
//! see [`preprocess`]).

pub mod encoder;
pub mod mel;
pub mod preprocess;

use std::path::Path;

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::VarBuilder;

use crate::assets;
pub use encoder::{Config, SpeakerNet};
use mel::MelFrontEnd;
use revoice_core::error::{Error, Result};

/// The engine file with the encoder's weights.
pub const ENCODER_FILE: &str = "encoder.safetensors";
/// Embedding size.
pub const EMBEDDING_DIM: usize = 256;
/// Sample rate the encoder works at.
pub const SAMPLE_RATE: u32 = mel::SAMPLE_RATE;

/// An utterance's embedding and what it was made of.
#[derive(Debug, Clone, PartialEq)]
pub struct Utterance {
    /// The L2-normalised mean of the partial embeddings.
    pub embedding: Vec<f32>,
    /// One L2-normalised embedding per partial window.
    pub partials: Vec<Vec<f32>>,
    /// Seconds of audio the network saw (after silence trimming).
    pub seconds: f64,
}

/// The loaded encoder: network plus front end.
pub struct SpeakerEncoder {
    net: SpeakerNet,
    mel: MelFrontEnd,
}

fn model_error(what: &str, e: candle_core::Error) -> Error {
    Error::InvalidInput { input: "speaker encoder".into(), reason: format!("{what}: {e}") }
}

impl SpeakerEncoder {
    /// Loads the encoder installed in a data directory.
    pub fn load(data_dir: &Path) -> Result<SpeakerEncoder> {
        Self::load_file(&assets::SPEAKER_ENCODER.installed_dir(data_dir, "the speaker encoder")?.join(ENCODER_FILE))
    }

    /// Loads the encoder from its safetensors file.
    pub fn load_file(weights: &Path) -> Result<SpeakerEncoder> {
        let bytes = std::fs::read(weights).map_err(|e| Error::io("read", weights, e))?;
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu).map_err(|e| Error::InvalidInput {
            input: weights.display().to_string(),
            reason: format!("not a readable weights file ({e}): run `revoice models install --force`"),
        })?;
        let net = SpeakerNet::new(&Config::resemblyzer(), vb).map_err(|e| Error::InvalidInput {
            input: weights.display().to_string(),
            reason: format!("weights do not fit the GE2E encoder ({e}): run `revoice models install --force`"),
        })?;
        Ok(SpeakerEncoder { net, mel: MelFrontEnd::new() })
    }

    /// The network.
    pub fn net(&self) -> &SpeakerNet {
        &self.net
    }

    /// Mel frames `[frames][40]` of a 16 kHz clip, as the network sees them.
    pub fn mel_frames(&self, wav: &[f32]) -> Vec<f32> {
        self.mel.frames(wav)
    }

    /// Embeds a clip that is already at 16 kHz and preprocessed (Resemblyzer's
    /// `embed_utterance`): partial windows, mel frames, network, mean.
    pub fn embed_prepared(&self, wav: &[f32]) -> Result<Utterance> {
        if wav.is_empty() {
            return Err(Error::InvalidInput { input: "speaker encoder input".into(), reason: "no audio to embed".into() });
        }
        let slices = preprocess::partial_slices(wav.len());
        let needed = slices.last().expect("at least one partial").1 * mel::HOP;
        let mut padded = wav.to_vec();
        if padded.len() < needed {
            padded.resize(needed, 0.0);
        }
        let frames = self.mel.frames(&padded);
        let mut batch = Vec::with_capacity(slices.len() * preprocess::PARTIAL_FRAMES * mel::MEL_BANDS);
        for &(start, end) in &slices {
            batch.extend_from_slice(&frames[start * mel::MEL_BANDS..end * mel::MEL_BANDS]);
        }
        let mels = Tensor::from_vec(batch, (slices.len(), preprocess::PARTIAL_FRAMES, mel::MEL_BANDS), self.net.device())
            .map_err(|e| model_error("building the mel batch", e))?;
        let partials = self.net.forward(&mels).and_then(|t| t.to_vec2::<f32>()).map_err(|e| model_error("running the network", e))?;
        let mut mean = vec![0f32; EMBEDDING_DIM];
        for p in &partials {
            mean.iter_mut().zip(p).for_each(|(m, v)| *m += v / partials.len() as f32);
        }
        Ok(Utterance { embedding: l2_normalized(mean), partials, seconds: wav.len() as f64 / SAMPLE_RATE as f64 })
    }

    /// Embeds a clip at any rate: resampled to 16 kHz, volume-normalised,
    /// long silences cut, then [`Self::embed_prepared`].
    pub fn embed(&self, samples: &[f32], sample_rate: u32) -> Result<Utterance> {
        let wav = prepare(samples, sample_rate)?;
        self.embed_prepared(&wav)
    }
}

/// Resemblyzer's `preprocess_wav`: resample to 16 kHz, raise the volume to
/// -30 dBFS if quieter, cut long silences.
pub fn prepare(samples: &[f32], sample_rate: u32) -> Result<Vec<f32>> {
    let mut wav = revoice_audio::resample::resample(samples, sample_rate, SAMPLE_RATE)?;
    preprocess::normalize_volume(&mut wav);
    Ok(preprocess::trim_long_silences(&wav))
}

/// `v / |v|`; a zero vector stays zero.
pub fn l2_normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Cosine similarity of two embeddings.
pub fn cosine_similarity(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

#[cfg(test)]
mod tests;
