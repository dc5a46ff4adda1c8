//! How natural speech sounds, without a reference: DNSMOS P.835 (the
//! non-personalised model that PyPI's speechmos 0.0.1.1 ships), run
//! natively on candle. It predicts the opinion scores (1 to 5) that
//! listeners give a clip's speech signal, its background and the whole;
//! the signal score is the one that hears a voice's artefacts (buzz,
//! metallic or hoarse timbre). The fit keeps fitted voices natural by it.
//!
//! Flow, as speechmos scores a clip: samples at any rate → 16 kHz → peak
//! limited to 1 → repeated until at least one 9.01 s window long → windows
//! a second apart → [`net::DnsmosNet`] → each raw score through the
//! model's calibration polynomial → their mean. The weights come from
//! `<data>/models/dnsmos-p835-0.0.1.1/sig_bak_ovr.onnx`, the wheel's file
//! as it is; only its initializers are read ([`crate::onnx`]).
//!
//! Parity: `tests/fixtures/dnsmos/reference.json` holds onnxruntime's
//! scores for the Whisper fixtures' clips (`scripts/dev/naturalness_reference.py fixture`);
//! the tests hold the port to them.

pub mod net;

use std::path::Path;

use candle_core::Device;

use crate::assets;
use crate::onnx::OnnxModel;
pub use net::{DnsmosNet, WINDOW};
use revoice_core::error::{Error, Result};

/// Sample rate the model listens at.
pub const SAMPLE_RATE: u32 = 16_000;
/// Windows start a second apart.
const WINDOW_HOP: usize = SAMPLE_RATE as usize;
/// At most this many windows go through the network's Fourier step at
/// once (the convolutions take them one at a time).
const WINDOWS_AT_ONCE: usize = 4;

/// The calibration polynomials (highest power first) from raw scores to
/// the opinion scale: signal, background, overall (speechmos's numbers as
/// written).
#[allow(clippy::excessive_precision)]
const CALIBRATION: [[f32; 3]; 3] = [[-0.08397278, 1.22083953, 0.0052439], [-0.13166888, 1.60915514, -0.39604546], [-0.06766283, 1.11546468, 0.04602535]];

/// A clip's predicted opinion scores, each on the 1-5 scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Naturalness {
    /// The speech signal itself (P.835 SIG): distortion, artefacts.
    pub signal: f32,
    /// The background (P.835 BAK): noise.
    pub background: f32,
    /// The whole clip (P.835 OVRL).
    pub overall: f32,
}

/// The loaded judge. One clip is judged at a time (the network spreads
/// over the cores itself), so judging from several threads at once does
/// not hold several clips' activations.
pub struct NaturalnessJudge {
    net: std::sync::Mutex<DnsmosNet>,
}

fn no_audio() -> Error {
    Error::invalid("naturalness judge input", "no audio to judge")
}

fn calibrated(raw: [f32; 3]) -> [f32; 3] {
    let mut out = [0.0; 3];
    for ((o, x), [a, b, c]) in out.iter_mut().zip(raw).zip(CALIBRATION) {
        *o = (a * x + b) * x + c;
    }
    out
}

impl NaturalnessJudge {
    /// Loads the judge installed in a data directory.
    pub fn load(data_dir: &Path) -> Result<NaturalnessJudge> {
        Self::load_file(&assets::NATURALNESS.installed_dir(data_dir, "the naturalness judge")?.join(assets::NATURALNESS_FILE))
    }

    /// Loads the judge from the ONNX file.
    pub fn load_file(path: &Path) -> Result<NaturalnessJudge> {
        let model = OnnxModel::read(path)?;
        let net = DnsmosNet::new(&model, &Device::Cpu).map_err(|e| Error::InvalidInput {
            input: path.display().to_string(),
            reason: format!("not the DNSMOS P.835 model ({e}): run `revoice models install --force`"),
        })?;
        Ok(NaturalnessJudge { net: std::sync::Mutex::new(net) })
    }

    /// Scores a clip at `sample_rate` on its first window only (a clip
    /// shorter than a window repeated to fill it): a quicker judgement, the
    /// same as [`Self::score_16k`] for clips of up to 9 s, and of a longer
    /// clip's first 9 s.
    pub fn score_one_window(&self, samples: &[f32], sample_rate: u32) -> Result<Naturalness> {
        let audio = revoice_audio::resample::resample(samples, sample_rate, SAMPLE_RATE)?;
        let mut first = filled(&audio).ok_or_else(no_audio)?;
        first.truncate(WINDOW);
        self.judged(&[first])
    }

    /// Scores a clip at `sample_rate` as it is, without repeating it to
    /// fill a window (the first window of a longer one): the network's
    /// work in proportion to the clip (`benches/model.rs` times it), within
    /// about ±0.1 of [`Self::score_one_window`]. A short clip scores a
    /// little lower than the same voice at 9 s, so compare clips of about
    /// the same length. For ranking voices.
    pub fn score_clip(&self, samples: &[f32], sample_rate: u32) -> Result<Naturalness> {
        let audio = revoice_audio::resample::resample(samples, sample_rate, SAMPLE_RATE)?;
        let mut clip = peak_limited(&audio).ok_or_else(no_audio)?;
        while clip.len() < net::SHORTEST {
            clip.extend_from_within(..);
        }
        clip.truncate(WINDOW);
        self.judged(&[clip])
    }

    /// Scores a clip already at 16 kHz as speechmos does (every window).
    pub fn score_16k(&self, samples: &[f32]) -> Result<Naturalness> {
        let windows = windows(samples).ok_or_else(no_audio)?;
        self.judged(&windows)
    }

    /// The mean calibrated scores of whole windows.
    fn judged(&self, windows: &[Vec<f32>]) -> Result<Naturalness> {
        let net = self.net.lock().unwrap_or_else(|p| p.into_inner());
        let mut sums = [0.0f64; 3];
        for batch in windows.chunks(WINDOWS_AT_ONCE) {
            let views: Vec<&[f32]> = batch.iter().map(Vec::as_slice).collect();
            let raw =
                net.forward(&views).map_err(|e| Error::InvalidInput { input: "naturalness judge".into(), reason: format!("running the network: {e}") })?;
            for scores in raw {
                for (sum, s) in sums.iter_mut().zip(calibrated(scores)) {
                    *sum += s as f64;
                }
            }
        }
        let mean = |i: usize| (sums[i] / windows.len() as f64) as f32;
        Ok(Naturalness { signal: mean(0), background: mean(1), overall: mean(2) })
    }
}

/// The clip with its peak limited to 1; `None` for no audio.
fn peak_limited(samples: &[f32]) -> Option<Vec<f32>> {
    if samples.is_empty() {
        return None;
    }
    let peak = samples.iter().fold(0f32, |m, s| m.max(s.abs()));
    let gain = 1.0 / peak.max(1.0);
    Some(samples.iter().map(|s| s * gain).collect())
}

/// The clip peak-limited to 1 and repeated until it fills a window, as
/// speechmos prepares it; `None` for no audio.
fn filled(samples: &[f32]) -> Option<Vec<f32>> {
    let mut audio = peak_limited(samples)?;
    while audio.len() < WINDOW {
        audio.extend_from_within(..);
    }
    Some(audio)
}

/// The clip's windows as speechmos cuts them: peak-limited to 1, repeated
/// until it fills a window, then windows starting on whole seconds
/// (`floor(seconds) - 9.01`, truncated, + 1 of them). Like speechmos, a
/// window whose end, computed as `(i + 9.01) * 16000` in floating point,
/// rounds a sample short is left out (the 8th to 24th, for example), so
/// that long clips score as the reference scores them. `None` for no audio.
fn windows(samples: &[f32]) -> Option<Vec<Vec<f32>>> {
    let audio = filled(samples)?;
    let window_seconds = WINDOW as f64 / SAMPLE_RATE as f64;
    let seconds = (audio.len() / SAMPLE_RATE as usize) as f64;
    let count = ((seconds - window_seconds) as i64 + 1).max(1) as usize;
    let windows: Vec<Vec<f32>> = (0..count)
        .filter_map(|i| {
            let start = i * WINDOW_HOP;
            let end = ((i as f64 + window_seconds) * SAMPLE_RATE as f64) as usize;
            (end - start == WINDOW && end <= audio.len()).then(|| audio[start..end].to_vec())
        })
        .collect();
    (!windows.is_empty()).then_some(windows)
}

#[cfg(test)]
mod tests;
