//! The engine's speech model interface. Callers resolve each row fully
//! (phoneme tokens, the voice's style vector, speed, seed, an optional
//! target duration) and get back PCM and per-token durations. A row's audio
//! depends only on the row: rendering rows together never changes them.

use std::ops::ControlFlow;
use std::sync::Arc;

use candle_core::Tensor;
use revoice_audio::tone::ToneCurve;
use revoice_core::error::Result;

/// One line to synthesise, fully resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeechRow {
    /// Token ids including the leading and trailing pad.
    pub tokens: Vec<u32>,
    /// The voice's style vector for this line (256 values for Kokoro).
    pub style: Vec<f32>,
    /// Speaking rate; 1.0 is the voice's natural pace.
    pub speed: f32,
    /// Seed for the vocoder's noise; `None` renders without noise.
    pub seed: Option<u64>,
    /// Fit the line's speech (without the silence the model puts around
    /// it) to this many seconds by choosing the speed.
    pub target_seconds: Option<f32>,
    /// A fitted voice's tone match, applied to the audio after the model
    /// (by whoever drives the model: the engine's scheduler).
    pub tone: Option<Arc<ToneCurve>>,
    /// Semitones the line's predicted pitch is moved by before the voice
    /// sounds it (a fitted voice's register); 0: as the model predicts.
    pub pitch_semitones: f32,
}

/// What one row became.
#[derive(Debug, Clone, PartialEq)]
pub struct RowAudio {
    /// Mono f32 PCM.
    pub samples: Vec<f32>,
    pub sample_rate: u32,
    /// Seconds each token lasts (pads included), summing to the audio's length.
    pub token_seconds: Vec<f32>,
    /// The speed actually used (differs from the row's when it had a target).
    pub speed: f32,
}

impl SpeechRow {
    /// The model's audio for this row finished: its tone match applied.
    pub fn finish(&self, mut audio: RowAudio) -> RowAudio {
        if let Some(tone) = &self.tone {
            audio.samples = tone.apply(&audio.samples, audio.sample_rate);
        }
        audio
    }

    /// This row's finished audio from `model`, handed to `piece` as it
    /// renders: streamed inside the row ([`SpeechModel::generate_streaming`]),
    /// or whole as one piece when the row has a tone match (it needs all of
    /// the row). `None` when `piece` stopped it.
    pub fn render_in_pieces(&self, model: &dyn SpeechModel, piece: &mut dyn FnMut(&[f32]) -> ControlFlow<()>) -> Result<Option<RowAudio>> {
        if self.tone.is_none() {
            return model.generate_streaming(self, piece);
        }
        let audio = self.finish(model.generate(std::slice::from_ref(self)).pop().expect("one row in, one out")?);
        Ok(piece(&audio.samples).is_continue().then_some(audio))
    }
}

/// What a differentiable decoder and generator take from a line's reading
/// (Kokoro's, [`crate::kokoro::differentiable`]): the text
/// aligned to frames, the pitch and energy curves, and the harmonic
/// source's spectrum. None of it depends on the timbre.
pub struct Voicing {
    /// `[1, channels, frames]`.
    pub asr: Tensor,
    /// `[1, 2 × frames]` each.
    pub f0: Tensor,
    pub n: Tensor,
    /// `[1, 2·bins, steps]`.
    pub har: Tensor,
}

/// A neural speech model the engine can drive.
pub trait SpeechModel: Send + Sync {
    /// Model id and revision, part of every synthesis key.
    fn id(&self) -> &str;
    /// Output sample rate.
    fn sample_rate(&self) -> u32;
    /// Most phonemes one row may hold.
    fn max_phonemes(&self) -> usize;
    /// Synthesises rows; each row succeeds or fails on its own.
    fn generate(&self, rows: &[SpeechRow]) -> Vec<Result<RowAudio>>;

    /// Synthesises one row, handing its audio to `piece` in order as it is
    /// ready, before the tone match (a toned row's caller applies the tone
    /// to the whole row, so it should call [`Self::generate`]). Returns the
    /// row as handed on, or `None` when `piece` stopped it. A model that
    /// cannot stream inside a row hands on the whole row at once; one that
    /// can may differ from [`Self::generate`] within its stated tolerance.
    fn generate_streaming(&self, row: &SpeechRow, piece: &mut dyn FnMut(&[f32]) -> ControlFlow<()>) -> Result<Option<RowAudio>> {
        let audio = self.generate(std::slice::from_ref(row)).pop().expect("one row in, one out")?;
        Ok(piece(&audio.samples).is_continue().then_some(audio))
    }

    /// Seconds of speech in each row when rendered, from its first sound
    /// to its last (the silence a model leaves around a sentence not
    /// counted), worked out without rendering where the model can (Kokoro:
    /// from its predicted durations). A model that cannot renders the rows
    /// and measures where the speech begins and ends.
    fn spoken_seconds(&self, rows: &[SpeechRow]) -> Vec<Result<f32>> {
        let speech = |a: RowAudio| revoice_audio::levels::speech_edges(&a.samples, a.sample_rate).map_or(0.0, |r| r.len() as f32 / a.sample_rate.max(1) as f32);
        self.generate(rows).into_iter().map(|r| r.map(speech)).collect()
    }

    /// What a differentiable decoder and generator take for `row` before
    /// its timbre has a say (see [`crate::kokoro::differentiable`]); `None`
    /// for a model that has none (only Kokoro does).
    fn voicing(&self, _row: &SpeechRow) -> Option<Result<Voicing>> {
        None
    }
}
