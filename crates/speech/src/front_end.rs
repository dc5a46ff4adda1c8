//! The text and voice front end: what turns a line of text and a voice
//! into the rows a speech model renders. Text in a script its reading
//! cannot read is refused, naming the script (`text::script`). Text is
//! cleaned, split into
//! sentences (and clauses when a sentence is longer than one pass),
//! phonemized for the language it is read in (the English G2P, the
//! Mandarin G2P, the Japanese G2P over its installed dictionary, opened on
//! first use, or espeak-ng), tokenized, and given the voice's style vector for its
//! length. It holds no network: the same front end serves Kokoro and the
//! scripted model the engine's tests run on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::voice_spec::VoiceSpec;
use revoice_audio::tone::ToneCurve;
use revoice_core::error::{Error, Result};
use revoice_model::install::vocab::Vocab;
use revoice_model::kokoro::voices::{StockVoices, VoicePack};
use revoice_model::kokoro::{VOCAB_FILE, VOICES_FILE};
use revoice_model::speech::SpeechRow;
use revoice_text::espeak::EspeakPhonemizer;

/// The reading that goes through this build's Mandarin G2P.
const MANDARIN: &str = "zh";
/// The reading that goes through this build's Japanese G2P.
const JAPANESE: &str = "ja";
use revoice_text::japanese::JapaneseReader;
use revoice_text::pronounce::Pronunciations;
use revoice_text::{Accent, EnglishPhonemizer, Tokenizer};

/// What to say and how.
#[derive(Debug, Clone, PartialEq)]
pub struct SayRequest {
    pub text: String,
    /// A stock voice or a blend (a library voice must be resolved to its blend first).
    pub voice: VoiceSpec,
    pub speed: f32,
    /// Seed for the vocoder's noise; `None` renders without noise.
    pub seed: Option<u64>,
}

impl SayRequest {
    /// `text` in a stock voice or blend named by `voice`, at normal speed, without noise.
    pub fn new(text: impl Into<String>, voice: &str) -> Result<SayRequest> {
        Ok(SayRequest { text: text.into(), voice: VoiceSpec::parse_stock(voice)?, speed: 1.0, seed: None })
    }
}

/// A line ready for the model: where it came from and its resolved row.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedLine {
    pub text: String,
    pub phonemes: String,
    pub row: SpeechRow,
}

/// How a voice sounds: its style pack, the language it speaks, and a
/// fitted voice's tone match and register.
struct VoiceSound {
    pack: VoicePack,
    language: &'static str,
    tone: Option<Arc<ToneCurve>>,
    pitch_semitones: f32,
}

/// The stock voices' style packs, the phoneme vocabulary and the G2P.
pub struct FrontEnd {
    voices: StockVoices,
    tokenizer: Tokenizer,
    us: EnglishPhonemizer,
    gb: EnglishPhonemizer,
    /// Where the Japanese dictionary is installed, if this front end reads Japanese.
    japanese_dir: Option<PathBuf>,
    /// The Japanese reader once opened (a failed open is tried again next time).
    japanese: Mutex<Option<Arc<JapaneseReader>>>,
}

impl FrontEnd {
    /// Over `voices` and `vocab`, splitting text into rows of at most
    /// `max_phonemes` phonemes (the model's pass).
    pub fn new(voices: StockVoices, vocab: Vocab, max_phonemes: usize) -> FrontEnd {
        FrontEnd {
            voices,
            tokenizer: Tokenizer::new(vocab, max_phonemes),
            us: EnglishPhonemizer::new(Accent::Us),
            gb: EnglishPhonemizer::new(Accent::Gb),
            japanese_dir: None,
            japanese: Mutex::new(None),
        }
    }

    /// This front end, reading Japanese with the dictionary installed in `dir`.
    pub fn with_japanese_dictionary(mut self, dir: PathBuf) -> FrontEnd {
        self.japanese_dir = Some(dir);
        self
    }

    /// The Japanese reader, opened on first use.
    pub fn japanese_reader(&self) -> Result<Arc<JapaneseReader>> {
        let mut slot = self.japanese.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(reader) = slot.as_ref() {
            return Ok(reader.clone());
        }
        let dir = self.japanese_dir.as_ref().ok_or_else(|| Error::invalid("Japanese text", "this engine has no Japanese dictionary to read it with"))?;
        let reader = Arc::new(JapaneseReader::open(dir).map_err(|e| e.context("the Japanese dictionary (run `revoice models install`)".to_string()))?);
        *slot = Some(reader.clone());
        Ok(reader)
    }

    /// Kokoro's voice packs and vocabulary from its installed folder.
    pub fn load(model_dir: &Path, max_phonemes: usize) -> Result<FrontEnd> {
        let voices = StockVoices::load(&model_dir.join(VOICES_FILE))?;
        let vocab = revoice_model::install::vocab::read(&model_dir.join(VOCAB_FILE))?;
        Ok(FrontEnd::new(voices, vocab, max_phonemes))
    }

    /// The stock voices' packs.
    pub fn stock_voices(&self) -> &StockVoices {
        &self.voices
    }

    /// A stock voice's or blend's style pack, and the language it speaks
    /// (its leading voice's).
    pub fn voice_pack(&self, voice: &VoiceSpec) -> Result<(VoicePack, &'static str)> {
        let sound = self.voice_sound(voice)?;
        Ok((sound.pack, sound.language))
    }

    /// [`Self::voice_pack`], and a fitted voice's tone match and register.
    fn voice_sound(&self, voice: &VoiceSpec) -> Result<VoiceSound> {
        let language = voice.language().unwrap_or("en-US");
        if let Some(fitted) = voice.fitted() {
            let pitch_semitones = fitted.recipe.pitch_semitones.unwrap_or(0.0);
            return Ok(VoiceSound { pack: fitted.pack(&self.voices)?, language, tone: fitted.tone.clone(), pitch_semitones });
        }
        let parts =
            voice.stock_parts().ok_or_else(|| Error::internal(format!("voice {voice}"), "a library voice must be resolved to its blend before it speaks"))?;
        let pack = if parts.len() == 1 { self.voices.get(parts[0].0)?.clone() } else { self.voices.blend(&parts)? };
        Ok(VoiceSound { pack, language, tone: None, pitch_semitones: 0.0 })
    }

    /// Text → model rows, read in the voice's own language.
    pub fn prepare(&self, request: &SayRequest) -> Result<Vec<PreparedLine>> {
        self.prepare_as(request, None)
    }

    /// Like [`Self::prepare`], but reads the text as `reading` instead of
    /// the voice's own language: `en-US`/`en-GB` through the English G2P,
    /// anything else as an espeak-ng voice (`es`, `fr-fr`, `de`, `cmn`, ...).
    pub fn prepare_as(&self, request: &SayRequest, reading: Option<&'static str>) -> Result<Vec<PreparedLine>> {
        self.prepare_with(request, reading, &Pronunciations::default())
    }

    /// Like [`Self::prepare_as`], the words of `dictionary` said as its
    /// entries say (around the G2P of whichever language reads the text).
    pub fn prepare_with(&self, request: &SayRequest, reading: Option<&'static str>, dictionary: &Pronunciations) -> Result<Vec<PreparedLine>> {
        let VoiceSound { pack, language: voice_language, tone, pitch_semitones } = self.voice_sound(&request.voice)?;
        let reading = reading.or_else(|| revoice_text::language::voice_reading(voice_language));
        if let Some((script, letters)) = reading.and_then(|r| revoice_text::script::unreadable(&request.text, r)) {
            let reads: Vec<&str> = revoice_text::script::reads(reading.unwrap_or_default()).iter().map(|s| s.name()).collect();
            return Err(Error::invalid(
                format!("text {letters:?}"),
                format!(
                    "is in {} script, which voice {:?} reading {} cannot read (it reads {} script): choose a voice that speaks the text's language",
                    script.name(),
                    request.voice.to_string(),
                    reading.unwrap_or_default(),
                    reads.join(" and ")
                ),
            ));
        }
        let espeak = reading.filter(|r| !r.starts_with("en") && ![MANDARIN, JAPANESE].contains(r)).map(EspeakPhonemizer::new);
        let phonemize = |s: &str| -> Result<String> {
            match (reading, &espeak) {
                (Some("en-GB"), _) => self.gb.phonemize(s),
                (Some(r), _) if r.starts_with("en") => self.us.phonemize(s),
                (Some(MANDARIN), _) => revoice_text::mandarin::phonemize(s),
                (Some(JAPANESE), _) => self.japanese_reader()?.phonemize(s),
                (_, Some(e)) => e.phonemize(s),
                _ => Err(Error::invalid(
                    format!("voice {:?}", request.voice.to_string()),
                    format!("speaks {voice_language}, which this build cannot read yet (it reads English, Spanish, French, Italian, Brazilian Portuguese, Hindi, Mandarin Chinese and Japanese)"),
                )),
            }
        };
        let chunks = self.tokenizer.chunks(&request.text, |sentence| dictionary.phonemize(sentence, &phonemize))?;
        Ok(chunks
            .into_iter()
            .map(|chunk| PreparedLine {
                row: SpeechRow {
                    style: pack.style_for(chunk.tokens.len() - 2).to_vec(),
                    tokens: chunk.tokens,
                    speed: request.speed,
                    seed: request.seed,
                    target_seconds: None,
                    tone: tone.clone(),
                    pitch_semitones,
                },
                text: chunk.text,
                phonemes: chunk.phonemes,
            })
            .collect())
    }
}
