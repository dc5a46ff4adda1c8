//! Text to speech for the engine's faces: text → sentences → phonemes →
//! model rows → audio, sentence by sentence so the first audio is ready
//! after the first sentence. Owns the loaded model, voices and G2P.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::assets;
use crate::model::kokoro::convert::{VOCAB_FILE, VOICES_FILE, WEIGHTS_FILE};
use crate::model::kokoro::release::stock_voices;
use crate::model::kokoro::voices::{StockVoices, VoicePack};
use crate::model::kokoro::{KokoroModel, Precision};
use crate::model::speech::{SpeechModel, SpeechRow};
use crate::text::espeak::EspeakPhonemizer;
use crate::text::{Accent, EnglishPhonemizer, Tokenizer};

/// What to say and how.
#[derive(Debug, Clone, PartialEq)]
pub struct SayRequest {
    pub text: String,
    /// A stock voice (`af_heart`) or a blend (`af_heart:0.7,af_bella:0.3`).
    pub voice: String,
    pub speed: f32,
    /// Seed for the vocoder's noise; `None` renders without noise.
    pub seed: Option<u64>,
}

/// One synthesised sentence (or part of one).
#[derive(Debug, Clone, PartialEq)]
pub struct SpokenChunk {
    pub text: String,
    pub phonemes: String,
    pub samples: Vec<f32>,
    pub token_seconds: Vec<f32>,
}

/// A line ready for the model: where it came from and its resolved row.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedLine {
    pub text: String,
    pub phonemes: String,
    pub row: SpeechRow,
}

/// Loaded model, voices and text front end.
pub struct Synthesizer {
    model: std::sync::Arc<KokoroModel>,
    voices: StockVoices,
    tokenizer: Tokenizer,
    us: EnglishPhonemizer,
    gb: EnglishPhonemizer,
}

impl Synthesizer {
    /// Loads Kokoro from a data directory's installed model, in the
    /// fastest precision this CPU runs.
    pub fn load(data_dir: &Path) -> Result<Synthesizer> {
        Self::load_in(data_dir, Precision::fastest())
    }

    /// Loads Kokoro with its convolutions in `precision`.
    pub fn load_in(data_dir: &Path, precision: Precision) -> Result<Synthesizer> {
        let status = assets::KOKORO.status(data_dir);
        if !matches!(status.state, assets::AssetState::Installed { .. }) {
            return Err(Error::InvalidInput {
                input: status.dir.display().to_string(),
                reason: "Kokoro is not installed (or the install is damaged): run `revoice models install`".into(),
            });
        }
        let dir = status.dir;
        let model = KokoroModel::load_in(&dir.join(WEIGHTS_FILE), precision)?;
        let voices = StockVoices::load(&dir.join(VOICES_FILE))?;
        let vocab = crate::model::install::vocab::read(&dir.join(VOCAB_FILE))?;
        let tokenizer = Tokenizer::new(vocab, model.max_phonemes());
        Ok(Synthesizer { model: std::sync::Arc::new(model), voices, tokenizer, us: EnglishPhonemizer::new(Accent::Us), gb: EnglishPhonemizer::new(Accent::Gb) })
    }

    /// Output sample rate.
    pub fn sample_rate(&self) -> u32 {
        self.model.sample_rate()
    }

    /// Resolves a voice name or blend to its pack and its language.
    pub fn resolve_voice(&self, voice: &str) -> Result<(VoicePack, &'static str)> {
        let voice = if voice.trim().is_empty() || voice == "default" { "af_heart" } else { voice.trim() };
        let parts: Vec<(&str, f32)> = voice
            .split(',')
            .map(|part| match part.split_once(':') {
                Some((name, w)) => w
                    .trim()
                    .parse::<f32>()
                    .map(|w| (name.trim(), w))
                    .map_err(|_| Error::InvalidInput { input: format!("voice {voice:?}"), reason: format!("weight {w:?} is not a number") }),
                None => Ok((part.trim(), 1.0)),
            })
            .collect::<Result<_>>()?;
        let pack = if parts.len() == 1 { self.voices.get(parts[0].0)?.clone() } else { self.voices.blend(&parts)? };
        let language = stock_voices().into_iter().find(|v| v.name == parts[0].0).map(|v| v.language).unwrap_or("en-US");
        Ok((pack, language))
    }

    /// The loaded network.
    pub fn model(&self) -> &KokoroModel {
        &self.model
    }

    /// The model, shared (for a scheduler's owner thread).
    pub fn shared_model(&self) -> std::sync::Arc<KokoroModel> {
        self.model.clone()
    }

    /// Text → model rows: cleaned, split into sentences (and clauses when a
    /// sentence is longer than one pass), phonemized for the voice's
    /// language, tokenized, each with the voice's style for its length.
    pub fn prepare(&self, request: &SayRequest) -> Result<Vec<PreparedLine>> {
        self.prepare_as(request, None)
    }

    /// Like [`Self::prepare`], but reads the text as `language` instead of
    /// the voice's own: `en-US`/`en-GB` through the English G2P, a Kokoro
    /// language that espeak-ng reads (`es`, `fr`, ...) through its voice,
    /// and any other tag as an espeak-ng voice name (`de`, `cmn`, ...).
    pub fn prepare_as(&self, request: &SayRequest, language: Option<&'static str>) -> Result<Vec<PreparedLine>> {
        let (pack, voice_language) = self.resolve_voice(&request.voice)?;
        let asked = language.is_some();
        let language = language.unwrap_or(voice_language);
        let espeak = match language {
            "en-US" | "en-GB" => None,
            _ if asked => Some(EspeakPhonemizer::new(EspeakPhonemizer::voice_for(language).unwrap_or(language))),
            _ => EspeakPhonemizer::voice_for(language).map(EspeakPhonemizer::new),
        };
        let phonemize = |s: &str| -> Result<String> {
            match (language, &espeak) {
                ("en-US", _) => self.us.phonemize(s),
                ("en-GB", _) => self.gb.phonemize(s),
                (_, Some(e)) => e.phonemize(s),
                (other, None) => Err(Error::InvalidInput {
                    input: format!("voice {:?}", request.voice),
                    reason: format!(
                        "speaks {other}, which this build cannot read yet (it reads English, Spanish, French, Italian, Brazilian Portuguese and Hindi)"
                    ),
                }),
            }
        };
        let chunks = self.tokenizer.chunks(&request.text, phonemize)?;
        Ok(chunks
            .into_iter()
            .map(|chunk| PreparedLine {
                row: SpeechRow {
                    style: pack.style_for(chunk.tokens.len() - 2).to_vec(),
                    tokens: chunk.tokens,
                    speed: request.speed,
                    seed: request.seed,
                    target_seconds: None,
                },
                text: chunk.text,
                phonemes: chunk.phonemes,
            })
            .collect())
    }

    /// Says `request.text`, handing each sentence's audio to `on_chunk` as
    /// soon as it is ready. Returns the number of chunks.
    pub fn say(&self, request: &SayRequest, mut on_chunk: impl FnMut(SpokenChunk) -> Result<()>) -> Result<usize> {
        let lines = self.prepare(request)?;
        let count = lines.len();
        for line in lines {
            let audio = self.model.generate(std::slice::from_ref(&line.row)).pop().expect("one row in, one out")?;
            on_chunk(SpokenChunk { text: line.text, phonemes: line.phonemes, samples: audio.samples, token_seconds: audio.token_seconds })?;
        }
        Ok(count)
    }
}
