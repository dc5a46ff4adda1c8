//! Kokoro-82M assembled: phoneme tokens and a voice's style vector in,
//! 24 kHz audio and per-token durations out. Weights load from the
//! engine's `kokoro.safetensors` (memory-mapped), module paths mirroring
//! the weight names so the file and this code explain each other.

use std::path::Path;
use std::sync::Arc;

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Linear, VarBuilder};

use super::albert::Albert;
use super::config::Config;
use super::decoder::Decoder;
use super::layers::{building_in, linear, Precision};
use super::prosody::{durations_from_logits, expand_by_durations, heard_frames, spoken_tokens, ProsodyPredictor};
use super::reading::{Reading, ReadingCache, ReadingKey, READING_CACHE_BYTES};
use super::source::SourceNoise;
use super::text_encoder::TextEncoder;
use revoice_core::error::{Error, Result};

/// The network.
pub struct KokoroModel {
    cfg: Config,
    bert: Albert,
    bert_encoder: Linear,
    predictor: ProsodyPredictor,
    text_encoder: TextEncoder,
    decoder: Decoder,
    device: Device,
    precision: Precision,
    /// The latest lines' readings, shared by lines that differ in timbre alone.
    readings: ReadingCache,
}

/// Every intermediate of one pass (batch dimension 1), for tests and profiling.
pub struct Trace {
    pub bert: Tensor,
    pub d_en: Tensor,
    pub pred_text: Tensor,
    pub duration_logits: Tensor,
    /// The speed used (chosen from the logits when the pass had a target length).
    pub speed: f32,
    pub durations: Vec<usize>,
    pub en: Tensor,
    pub f0: Tensor,
    pub n: Tensor,
    pub t_en: Tensor,
    pub asr: Tensor,
    pub decoder: super::decoder::DecoderTrace,
    pub generator: super::generator::GeneratorOutput,
    /// Wall time per stage, in order.
    pub timings: Vec<(&'static str, std::time::Duration)>,
}

fn model_error(what: &str, e: candle_core::Error) -> Error {
    Error::InvalidInput { input: "Kokoro model".into(), reason: format!("{what}: {e}") }
}

impl KokoroModel {
    /// Loads the weights file (`kokoro.safetensors`) in the fastest
    /// precision this CPU runs.
    pub fn load(weights: &Path) -> Result<KokoroModel> {
        Self::load_in(weights, Precision::fastest())
    }

    /// Loads the weights file with the convolutions in `precision` (f32
    /// where the CPU has no int8 path).
    pub fn load_in(weights: &Path, precision: Precision) -> Result<KokoroModel> {
        let precision = if precision == Precision::Int8 { Precision::fastest() } else { precision };
        if !weights.is_file() {
            return Err(Error::InvalidInput { input: weights.display().to_string(), reason: "missing: run `revoice models install`".into() });
        }
        let device = Device::Cpu;
        // SAFETY: the file is the installer's output and is not modified while mapped.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &device) }.map_err(|e| Error::InvalidInput {
            input: weights.display().to_string(),
            reason: format!("not a readable weights file ({e}): run `revoice models install --force`"),
        })?;
        let cfg = Config::v1_0();
        let build = || -> candle_core::Result<KokoroModel> {
            Ok(KokoroModel {
                bert: Albert::new(&cfg.albert, vb.pp("bert"))?,
                bert_encoder: linear(vb.pp("bert_encoder"))?,
                predictor: ProsodyPredictor::new(&cfg, vb.pp("predictor"))?,
                text_encoder: TextEncoder::new(&cfg, vb.pp("text_encoder"))?,
                decoder: Decoder::new(&cfg, vb.pp("decoder"))?,
                cfg: cfg.clone(),
                device: device.clone(),
                precision,
                readings: ReadingCache::new(READING_CACHE_BYTES),
            })
        };
        building_in(precision, build).map_err(|e| Error::InvalidInput {
            input: weights.display().to_string(),
            reason: format!("weights do not fit Kokoro v1.0 ({e}): run `revoice models install --force`"),
        })
    }

    /// The arithmetic its convolutions run in.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The int8 kernel its convolutions run on; `None` when they run in f32.
    pub fn int8_kernel(&self) -> Option<super::quantized_conv::Int8Kernel> {
        match self.precision {
            Precision::Int8 => super::quantized_conv::Int8Kernel::detect(),
            Precision::F32 => None,
        }
    }

    /// True when ALBERT's linears multiply in bf16 (the int8 model on a CPU
    /// with AVX-512 BF16; see `dense.rs`).
    pub fn albert_bf16(&self) -> bool {
        super::dense::bf16_in(self.precision)
    }

    /// The arithmetic as render keys name it: `F32`, `Int8-bf16` (AVX-512
    /// VNNI convolutions, bf16 ALBERT), `Int8` (VNNI, f32 ALBERT) or
    /// `Int8-avx2` (7-bit weights): each gives slightly different audio.
    pub fn arithmetic(&self) -> &'static str {
        use super::quantized_conv::Int8Kernel;
        match (self.precision, self.int8_kernel()) {
            (Precision::Int8, Some(Int8Kernel::Avx2)) => "Int8-avx2",
            (Precision::Int8, _) if self.albert_bf16() => "Int8-bf16",
            (Precision::Int8, _) => "Int8",
            (Precision::F32, _) => "F32",
        }
    }

    /// The model's hyperparameters.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// One pass with every intermediate kept. `tokens` include the leading
    /// and trailing pad (0); `style` is a voice row of 256 values.
    pub fn trace(&self, tokens: &[u32], style: &[f32], speed: f32, noise: SourceNoise) -> Result<Trace> {
        self.trace_paced(tokens, style, Pace::Speed(speed), noise)
    }

    fn trace_paced(&self, tokens: &[u32], style: &[f32], pace: Pace, noise: SourceNoise) -> Result<Trace> {
        self.trace_inner(tokens, style, pace, noise).map_err(|e| model_error("synthesis failed", e))
    }

    fn trace_inner(&self, tokens: &[u32], style: &[f32], pace: Pace, noise: SourceNoise) -> candle_core::Result<Trace> {
        let half = self.cfg.style_dim;
        let mut laps = Laps::start();
        let (reading, front) = self.read(tokens, &style[half..2 * half], pace, &mut laps)?;
        let (decoder, generator) = self.voice(&reading, &style[..half], 0.0, noise, &mut laps)?;
        let Reading { speed, durations, f0, n, asr } = reading;
        let ReadingTrace { bert, d_en, pred_text, duration_logits, en, t_en } = front;
        Ok(Trace { bert, d_en, pred_text, duration_logits, speed, durations, en, f0, n, t_en, asr, decoder, generator, timings: laps.0 })
    }

    /// The stages before the timbre has a say: `tokens` read with the
    /// `prosody` half of a style at `pace`.
    fn read(&self, tokens: &[u32], prosody: &[f32], pace: Pace, laps: &mut Laps) -> candle_core::Result<(Reading, ReadingTrace)> {
        let t = tokens.len();
        let ids = Tensor::from_slice(tokens, (1, t), &self.device)?;
        let (Timing { bert, d_en, pred_text, duration_logits, speed, durations }, Curves { en, f0, n }) = self.intonation(&ids, tokens, prosody, pace, laps)?;
        let t_en = self.text_encoder.forward(&ids, &[t])?;
        let asr = expand_by_durations(&t_en, &durations)?;
        laps.lap("text encoder");
        Ok((Reading { speed, durations, f0, n, asr }, ReadingTrace { bert, d_en, pred_text, duration_logits, en, t_en }))
    }

    /// A line's timing and its pitch and energy curves: everything of its
    /// reading but the text encoder. A pace in seconds is met by the heard
    /// span (the energy curve's), refined once from the spoken tokens'.
    fn intonation(&self, ids: &Tensor, tokens: &[u32], prosody: &[f32], pace: Pace, laps: &mut Laps) -> candle_core::Result<(Timing, Curves)> {
        let prosody_style = Tensor::from_slice(prosody, (1, prosody.len()), &self.device)?;
        let spoken = spoken_tokens(tokens);
        let mut timing = self.timing(ids, spoken.clone(), &prosody_style, pace, laps)?;
        let mut curves = self.curves(&timing, &prosody_style)?;
        if let Pace::Seconds(seconds) = pace {
            let wanted = seconds / self.seconds_per_frame();
            let heard = heard_frames(&curves.n)?;
            if heard > 0.0 && (heard - wanted).abs() >= 1.0 {
                let spoken_frames = timing.durations[spoken.clone()].iter().sum::<usize>() as f32;
                timing.speed = speed_for_frames(&timing.duration_logits, spoken, (spoken_frames + wanted - heard).max(1.0))?;
                timing.durations = durations_from_logits(&timing.duration_logits, timing.speed)?;
                curves = self.curves(&timing, &prosody_style)?;
            }
        }
        laps.lap("f0 and energy");
        Ok((timing, curves))
    }

    /// The pitch and energy curves of a line's frames.
    fn curves(&self, timing: &Timing, prosody_style: &Tensor) -> candle_core::Result<Curves> {
        let en = expand_by_durations(&timing.pred_text.transpose(1, 2)?.contiguous()?, &timing.durations)?;
        let (f0, n) = self.predictor.f0_and_energy(&en, prosody_style)?;
        Ok(Curves { en, f0, n })
    }

    /// The stages that decide how long a line lasts: ALBERT, the duration
    /// predictor and the speed the pace asks for (no pitch, no audio). A
    /// pace in seconds is met by the `spoken` tokens, the silence around
    /// them left as the model reads it.
    fn timing(&self, ids: &Tensor, spoken: std::ops::Range<usize>, prosody_style: &Tensor, pace: Pace, laps: &mut Laps) -> candle_core::Result<Timing> {
        let t = ids.dim(1)?;
        let bert = self.bert.forward(ids, &[t])?;
        let d_en = self.bert_encoder.forward(&bert)?.transpose(1, 2)?.contiguous()?;
        laps.lap("albert");
        let pred_text = self.predictor.encode(&d_en, prosody_style)?;
        let duration_logits = self.predictor.duration_logits(&pred_text)?;
        let speed = match pace {
            Pace::Speed(speed) => speed,
            Pace::Seconds(seconds) => speed_for_frames(&duration_logits, spoken, (seconds / self.seconds_per_frame()).max(1.0))?,
        };
        let durations = durations_from_logits(&duration_logits, speed)?;
        laps.lap("durations");
        Ok(Timing { bert, d_en, pred_text, duration_logits, speed, durations })
    }

    /// Seconds of speech in `row` when rendered, without rendering it (a
    /// reading already cached answers at once): its energy curve's heard
    /// span, without the silence the model puts around a sentence.
    fn row_seconds(&self, row: &crate::speech::SpeechRow) -> Result<f32> {
        let pace = self.checked_pace(row)?;
        let half = self.cfg.style_dim;
        let heard = if let Some(reading) = self.readings.get(&reading_key(&row.tokens, &row.style[half..], pace)) {
            heard_frames(&reading.n)
        } else {
            let ids = Tensor::from_slice(&row.tokens, (1, row.tokens.len()), &self.device)
                .and_then(|ids| self.intonation(&ids, &row.tokens, &row.style[half..], pace, &mut Laps::start()));
            ids.and_then(|(_, curves)| heard_frames(&curves.n))
        };
        let frames = heard.map_err(|e| model_error("predicting a line's length failed", e))?;
        Ok(frames * self.seconds_per_frame())
    }

    /// The stages the `timbre` half of a style drives: the decoder and the
    /// generator, from a line's reading with its pitch moved by
    /// `pitch_semitones`.
    fn voice(
        &self,
        reading: &Reading,
        timbre: &[f32],
        pitch_semitones: f32,
        noise: SourceNoise,
        laps: &mut Laps,
    ) -> candle_core::Result<(super::decoder::DecoderTrace, super::generator::GeneratorOutput)> {
        let timbre = Tensor::from_slice(timbre, (1, timbre.len()), &self.device)?;
        let f0 = pitched(&reading.f0, pitch_semitones)?;
        let decoder = self.decoder.features(&reading.asr, &f0, &reading.n, &timbre)?;
        laps.lap("decoder");
        let f0_curve = f0.flatten_all()?.to_vec1::<f32>()?;
        let generator = self.decoder.generator.forward(&decoder.generator_input, &timbre, &f0_curve, noise)?;
        laps.lap("generator");
        Ok((decoder, generator))
    }

    /// The reading of `tokens` with the `prosody` half at `pace`: from the
    /// cache when a line read the same way lately, else read and kept.
    fn reading(&self, tokens: &[u32], prosody: &[f32], pace: Pace) -> candle_core::Result<Arc<Reading>> {
        let key = reading_key(tokens, prosody, pace);
        if let Some(reading) = self.readings.get(&key) {
            return Ok(reading);
        }
        let reading = Arc::new(self.read(tokens, prosody, pace, &mut Laps::start())?.0);
        self.readings.insert(key, reading.clone());
        Ok(reading)
    }

    /// The cache of readings, as it stands (for tests and benches).
    pub fn reading_cache(&self) -> &ReadingCache {
        &self.readings
    }

    /// The generator's filter half alone, from decoder features `[1, C, 2F]`,
    /// the timbre half of a style `[1, 128]` and a source spectrum `[1, 22, frames]`.
    pub fn generator_from_spectrum(&self, x: &Tensor, timbre: &Tensor, har: &Tensor) -> Result<(Tensor, Vec<f32>)> {
        self.decoder.generator.spectrum_to_audio(x, timbre, har).map_err(|e| model_error("generator failed", e))
    }

    /// The generator's view of a source signal: its `[1, 22, frames]` spectrum.
    pub fn source_spectrum(&self, source: &[f32]) -> Result<Tensor> {
        self.decoder.generator.spectrum_of(source, &self.device).map_err(|e| model_error("source spectrum failed", e))
    }

    /// Audio (24 kHz mono f32) and frames per token for one line.
    pub fn synthesize(&self, tokens: &[u32], style: &[f32], speed: f32, noise: SourceNoise) -> Result<(Vec<f32>, Vec<usize>)> {
        let trace = self.trace(tokens, style, speed, noise)?;
        Ok((trace.generator.audio, trace.durations))
    }

    /// Seconds of audio per duration frame.
    pub fn seconds_per_frame(&self) -> f32 {
        // Durations count text frames; each is two F0 frames.
        (2 * self.cfg.samples_per_f0_frame()) as f32 / self.cfg.sample_rate as f32
    }
}

/// What the stages before the timbre compute besides the reading, kept
/// in a [`Trace`].
struct ReadingTrace {
    bert: Tensor,
    d_en: Tensor,
    pred_text: Tensor,
    duration_logits: Tensor,
    en: Tensor,
    t_en: Tensor,
}

/// What [`KokoroModel::timing`] works out: a line's durations and the
/// stages before them.
/// A line's frames, and its pitch and energy curves over them.
struct Curves {
    en: Tensor,
    f0: Tensor,
    n: Tensor,
}

struct Timing {
    bert: Tensor,
    d_en: Tensor,
    pred_text: Tensor,
    duration_logits: Tensor,
    speed: f32,
    durations: Vec<usize>,
}

/// The reading cache's key for `tokens` read with `prosody` at `pace`.
/// A pitch curve (Hz) moved by `semitones`: every frame scaled alike, so
/// the line keeps its intonation in another register.
fn pitched(f0: &Tensor, semitones: f32) -> candle_core::Result<Tensor> {
    if semitones == 0.0 {
        return Ok(f0.clone());
    }
    f0.affine(2f64.powf(semitones as f64 / 12.0), 0.0)
}

fn reading_key(tokens: &[u32], prosody: &[f32], pace: Pace) -> ReadingKey {
    match pace {
        Pace::Speed(speed) => ReadingKey::new(tokens, prosody, false, speed),
        Pace::Seconds(seconds) => ReadingKey::new(tokens, prosody, true, seconds),
    }
}

/// Wall time per stage of one pass.
struct Laps(Vec<(&'static str, std::time::Duration)>, std::time::Instant);

impl Laps {
    fn start() -> Laps {
        Laps(Vec::new(), std::time::Instant::now())
    }

    fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.0.push((name, now - self.1));
        self.1 = now;
    }
}

/// How fast a pass speaks: a given speed, or whatever speed makes it last
/// about this many seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pace {
    Speed(f32),
    Seconds(f32),
}

/// The speed at which the `spoken` tokens' duration logits add up to about
/// `frames_wanted` frames (all tokens when none is spoken): frames fall as
/// speed rises, so bisect between generous bounds (per-token rounding
/// makes the total a step function).
fn speed_for_frames(logits: &Tensor, spoken: std::ops::Range<usize>, frames_wanted: f32) -> candle_core::Result<f32> {
    let spoken = if spoken.is_empty() { 0..logits.dim(1)? } else { spoken };
    let (mut lo, mut hi) = (0.25f32, 4.0f32);
    for _ in 0..24 {
        let mid = 0.5 * (lo + hi);
        let frames: usize = durations_from_logits(logits, mid)?[spoken.clone()].iter().sum();
        if frames as f32 > frames_wanted {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Kokoro as the engine's speech model.
impl crate::speech::SpeechModel for KokoroModel {
    fn id(&self) -> &str {
        "kokoro-82m-v1.0"
    }

    fn sample_rate(&self) -> u32 {
        self.cfg.sample_rate
    }

    fn max_phonemes(&self) -> usize {
        self.cfg.max_phonemes()
    }

    /// Rows render side by side on the rayon pool, each as its own pass
    /// (batch dimension 1): a row's arithmetic never depends on its
    /// neighbours, and the sequential parts of one pass (LSTMs, ALBERT's
    /// small matmuls) overlap with another row's convolutions.
    fn generate(&self, rows: &[crate::speech::SpeechRow]) -> Vec<Result<crate::speech::RowAudio>> {
        use rayon::prelude::*;
        rows.par_iter().map(|row| self.generate_row(row)).collect()
    }

    /// Streams with [`super::StreamPlan::PREVIEW`]: within the tolerance
    /// `tests/kokoro_stream.rs` holds it to.
    fn generate_streaming(
        &self,
        row: &crate::speech::SpeechRow,
        piece: &mut dyn FnMut(&[f32]) -> std::ops::ControlFlow<()>,
    ) -> Result<Option<crate::speech::RowAudio>> {
        self.stream_row(row, &super::StreamPlan::PREVIEW, piece)
    }

    /// From the durations alone: ALBERT and the duration predictor, about a
    /// tenth of a render.
    fn spoken_seconds(&self, rows: &[crate::speech::SpeechRow]) -> Vec<Result<f32>> {
        use rayon::prelude::*;
        rows.par_iter().map(|row| self.row_seconds(row)).collect()
    }

    fn voicing(&self, row: &crate::speech::SpeechRow) -> Option<Result<crate::speech::Voicing>> {
        Some(KokoroModel::voicing(self, row))
    }
}

impl KokoroModel {
    /// How fast `row` speaks, once it is checked to be one pass can take.
    fn checked_pace(&self, row: &crate::speech::SpeechRow) -> Result<Pace> {
        let phonemes = row.tokens.len().saturating_sub(2);
        if phonemes == 0 || phonemes > self.cfg.max_phonemes() {
            return Err(Error::InvalidInput {
                input: format!("a line of {phonemes} phonemes"),
                reason: format!("one pass takes 1 to {} phonemes; split the line", self.cfg.max_phonemes()),
            });
        }
        if row.style.len() != 2 * self.cfg.style_dim {
            return Err(Error::InvalidInput {
                input: "voice style".into(),
                reason: format!("has {} values, Kokoro needs {}", row.style.len(), 2 * self.cfg.style_dim),
            });
        }
        if !(0.25..=4.0).contains(&row.speed) || !row.speed.is_finite() {
            return Err(Error::InvalidInput { input: format!("speed {}", row.speed), reason: "must be between 0.25 and 4.0".into() });
        }
        Ok(match row.target_seconds {
            Some(seconds) if seconds > 0.0 => Pace::Seconds(seconds),
            _ => Pace::Speed(row.speed),
        })
    }

    fn generate_row(&self, row: &crate::speech::SpeechRow) -> Result<crate::speech::RowAudio> {
        let pace = self.checked_pace(row)?;
        let noise = row.seed.map_or(SourceNoise::Off, SourceNoise::Seeded);
        let half = self.cfg.style_dim;
        let pass = || -> candle_core::Result<(Arc<Reading>, Vec<f32>)> {
            let reading = self.reading(&row.tokens, &row.style[half..], pace)?;
            let (_, generator) = self.voice(&reading, &row.style[..half], row.pitch_semitones, noise, &mut Laps::start())?;
            Ok((reading, generator.audio))
        };
        let (reading, samples) = pass().map_err(|e| model_error("synthesis failed", e))?;
        Ok(self.row_audio(&reading, samples))
    }

    /// A row's audio: `samples` and what `reading` says of its tokens and speed.
    fn row_audio(&self, reading: &Reading, samples: Vec<f32>) -> crate::speech::RowAudio {
        let per_frame = self.seconds_per_frame();
        crate::speech::RowAudio {
            token_seconds: reading.durations.iter().map(|&d| d as f32 * per_frame).collect(),
            samples,
            sample_rate: self.cfg.sample_rate,
            speed: reading.speed,
        }
    }

    /// What the decoder and generator take for `row` before its timbre
    /// has a say (see [`super::differentiable`]): its reading and its
    /// harmonic source's spectrum.
    pub fn voicing(&self, row: &crate::speech::SpeechRow) -> Result<crate::speech::Voicing> {
        let pace = self.checked_pace(row)?;
        let noise = row.seed.map_or(SourceNoise::Off, SourceNoise::Seeded);
        let half = self.cfg.style_dim;
        let pass = || -> candle_core::Result<crate::speech::Voicing> {
            let reading = self.reading(&row.tokens, &row.style[half..], pace)?;
            let f0 = pitched(&reading.f0, row.pitch_semitones)?;
            let (har, _) = self.decoder.generator.source_spectrum(&f0.flatten_all()?.to_vec1::<f32>()?, noise, &self.device)?;
            Ok(crate::speech::Voicing { asr: reading.asr.clone(), f0, n: reading.n.clone(), har })
        };
        pass().map_err(|e| model_error("voicing failed", e))
    }

    /// Renders `row` as a stream cut by `plan` (see [`super::StreamPlan`]),
    /// handing its pieces to `piece` as they are ready. Returns the row as
    /// streamed, or `None` when `piece` stopped it. The pieces differ from
    /// the one-pass audio by the sketch's estimate of the norms' statistics.
    pub fn stream_row(
        &self,
        row: &crate::speech::SpeechRow,
        plan: &super::StreamPlan,
        piece: &mut dyn FnMut(&[f32]) -> std::ops::ControlFlow<()>,
    ) -> Result<Option<crate::speech::RowAudio>> {
        let pace = self.checked_pace(row)?;
        let noise = row.seed.map_or(SourceNoise::Off, SourceNoise::Seeded);
        let half = self.cfg.style_dim;
        let mut samples = Vec::new();
        let mut pass = || -> candle_core::Result<(Arc<Reading>, bool)> {
            let reading = self.reading(&row.tokens, &row.style[half..], pace)?;
            let timbre = Tensor::from_slice(&row.style[..half], (1, half), &self.device)?;
            let f0 = pitched(&reading.f0, row.pitch_semitones)?;
            let decoder = self.decoder.features(&reading.asr, &f0, &reading.n, &timbre)?;
            let generator = &self.decoder.generator;
            let (har, _) = generator.source_spectrum(&f0.flatten_all()?.to_vec1::<f32>()?, noise, &self.device)?;
            let energy = reading.n.flatten_all()?.to_vec1::<f32>()?;
            let finished = generator.stream(&decoder.generator_input, &timbre, &har, &energy, plan, &mut |audio| {
                samples.extend_from_slice(audio);
                piece(audio)
            })?;
            Ok((reading, finished))
        };
        let (reading, finished) = pass().map_err(|e| model_error("synthesis failed", e))?;
        Ok(finished.then(|| self.row_audio(&reading, samples)))
    }
}
