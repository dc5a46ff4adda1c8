//! A voice from a reference recording, by matching: the recording is
//! decoded, checked ([`super::quality`]), embedded with the speaker encoder,
//! and compared (cosine similarity) with every stock voice's embedding
//! ([`super::stock_embeddings`]). The result, a [`MatchedVoice`], is the
//! embedding, the ranked stock voices, and a blend of the closest few.
//!
//! This does not clone the speaker: Kokoro can only speak in its stock
//! voices and their mixtures, so the best it offers is the blend of stock
//! voices that sound most like the recording. The blend is a recipe over
//! stock packs (weights sum to one, see `model::kokoro::voices`), usable
//! anywhere a voice is (`revoice say --voice <blend>`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::quality::{self, QualityReport};
use super::stock_embeddings::StockEmbeddings;
use revoice_core::error::{Error, Result};
use revoice_model::assets;
use revoice_model::kokoro::voices::{StockVoices, VoicePack};
use revoice_model::speaker::{self, cosine_similarity, SpeakerEncoder};
use revoice_speech::voice_spec::VoiceSpec;

/// How many of the closest voices the blend mixes.
pub const BLEND_SIZE: usize = 3;
/// Softmax temperature over similarities for the blend weights: a voice
/// 0.05 less similar than another gets `1/e` of its weight.
pub const BLEND_TEMPERATURE: f32 = 0.05;

/// One stock voice and how close it is to the recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoiceMatch {
    pub voice: String,
    pub language: String,
    pub gender: String,
    /// Cosine similarity of the embeddings, in `[-1, 1]` (in practice
    /// `[0, 1]`: the encoder's embeddings are non-negative).
    pub similarity: f32,
}

/// One part of a blend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlendPart {
    pub voice: String,
    pub weight: f32,
}

/// The language a match is for when the caller names none.
pub const DEFAULT_LANGUAGE: &str = "en-US";

fn default_language() -> String {
    DEFAULT_LANGUAGE.to_string()
}

/// The voice artifact made from a reference recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredMatchedVoice")]
pub struct MatchedVoice {
    /// The recording's file name (or whatever named it).
    pub source: String,
    pub quality: QualityReport,
    /// Speaker encoder asset id.
    pub encoder: String,
    /// The stock embeddings' cache key the ranking was made against.
    pub stock_key: String,
    /// The recording's 256-d speaker embedding (L2-normalised).
    pub embedding: Vec<f32>,
    /// Every stock voice, most similar first.
    pub matches: Vec<VoiceMatch>,
    /// The language the voice was made for (it speaks it unless a line
    /// names another): the blend mixes only voices that speak it.
    pub language: String,
    /// The closest voices of that language mixed, weights summing to one.
    pub blend: Vec<BlendPart>,
    /// The voices fitted to the recording, one per language each was fitted
    /// to speak (one recording, several fits): in its language a fitted
    /// voice speaks instead of the blend.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fits: BTreeMap<String, super::fit::FittedVoice>,
}

/// A stored artifact as written by any version: before a voice held a fit
/// per language it held at most one, `fitted`, for its own language.
#[derive(Deserialize)]
struct StoredMatchedVoice {
    source: String,
    quality: QualityReport,
    encoder: String,
    stock_key: String,
    embedding: Vec<f32>,
    matches: Vec<VoiceMatch>,
    #[serde(default = "default_language")]
    language: String,
    blend: Vec<BlendPart>,
    #[serde(default)]
    fits: BTreeMap<String, super::fit::FittedVoice>,
    #[serde(default)]
    fitted: Option<super::fit::FittedVoice>,
}

impl From<StoredMatchedVoice> for MatchedVoice {
    fn from(stored: StoredMatchedVoice) -> MatchedVoice {
        let mut voice = MatchedVoice {
            source: stored.source,
            quality: stored.quality,
            encoder: stored.encoder,
            stock_key: stored.stock_key,
            embedding: stored.embedding,
            matches: stored.matches,
            language: stored.language,
            blend: stored.blend,
            fits: stored.fits,
        };
        if let Some(fitted) = stored.fitted {
            voice.add_fit(fitted);
        }
        voice
    }
}

/// Language tags compare without regard to case (`en-US`, `en-us`).
fn same_language(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

impl MatchedVoice {
    /// The blend as a voice spec: `af_bella:0.620,af_nicole:0.230,...`.
    pub fn blend_spec(&self) -> String {
        blend_spec(&self.blend)
    }

    /// The voice fitted to speak `language`, if one was: fitted for that
    /// very tag, or else for another variety of the language (a voice
    /// fitted for `en-US` speaks `en-GB` lines rather than a stock blend).
    pub fn fitted_in(&self, language: &str) -> Option<&super::fit::FittedVoice> {
        let exact = self.fits.iter().find(|(l, _)| same_language(l, language));
        let kin = || self.fits.iter().find(|(l, _)| revoice_text::language::speaks(l, language));
        exact.or_else(kin).map(|(_, f)| f)
    }

    /// Keeps a finished fit as the voice's fit for the language it was
    /// fitted to speak (replacing an earlier fit for that language).
    pub fn add_fit(&mut self, fitted: super::fit::FittedVoice) {
        self.fits.retain(|l, _| !same_language(l, &fitted.language));
        self.fits.insert(fitted.language.clone(), fitted);
    }

    /// The voice it speaks in its own language: the fitted voice once
    /// there is one, else the blend.
    pub fn speaking_voice(&self) -> Result<VoiceSpec> {
        self.speaking_voice_in(&self.language)
    }

    /// The voice it speaks in `language`: its fit for that language, else
    /// the blend of the closest stock voices that speak it. Refused when no
    /// stock voice speaks it.
    pub fn speaking_voice_in(&self, language: &str) -> Result<VoiceSpec> {
        if let Some(fitted) = self.fitted_in(language) {
            return Ok(VoiceSpec::from_fitted(&fitted.recipe, &fitted.held_out.best_stock));
        }
        if same_language(language, &self.language) && !self.blend.is_empty() {
            return VoiceSpec::parse_stock(&self.blend_spec());
        }
        let blend = blend_of(&self.matches, language);
        if blend.is_empty() {
            return Err(Error::invalid(format!("language {language:?}"), "no stock voice speaks it"));
        }
        VoiceSpec::parse_stock(&blend_spec(&blend))
    }

    /// `fitted` or `matched`: what kind of voice this is in its own language.
    pub fn kind(&self) -> &'static str {
        if self.fitted_in(&self.language).is_some() {
            "fitted"
        } else {
            "matched"
        }
    }

    /// The blended style pack from the stock packs.
    pub fn style_pack(&self, voices: &StockVoices) -> Result<VoicePack> {
        let parts: Vec<(&str, f32)> = self.blend.iter().map(|p| (p.voice.as_str(), p.weight)).collect();
        voices.blend(&parts)
    }

    /// Makes the voice speak `language`: its blend becomes the closest
    /// stock voices of that language. Refused when no stock voice speaks it.
    pub fn speak(&mut self, language: &str) -> Result<()> {
        let blend = blend_of(&self.matches, language);
        if blend.is_empty() {
            return Err(Error::invalid(format!("language {language:?}"), "no stock voice speaks it"));
        }
        self.language = language.to_string();
        self.blend = blend;
        Ok(())
    }

    /// The closest stock voice that speaks the voice's language.
    pub fn best_voice(&self) -> Option<&VoiceMatch> {
        self.matches.iter().find(|m| revoice_text::language::speaks(&m.language, &self.language))
    }

    /// Writes the artifact as JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        revoice_core::fsutil::write_atomically(path, &serde_json::to_vec_pretty(self).expect("artifact serialises"))
    }

    /// Reads an artifact written by [`Self::save`].
    pub fn load(path: &Path) -> Result<MatchedVoice> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        serde_json::from_str(&text).map_err(|e| Error::InvalidInput { input: path.display().to_string(), reason: format!("not a matched-voice file: {e}") })
    }
}

/// A blend as a voice spec: `af_bella:0.620,af_nicole:0.230,...`.
fn blend_spec(blend: &[BlendPart]) -> String {
    blend.iter().map(|p| format!("{}:{:.3}", p.voice, p.weight)).collect::<Vec<_>>().join(",")
}

/// Every stock voice ranked by similarity to `embedding`, best first.
pub fn rank(embedding: &[f32], stock: &StockEmbeddings) -> Vec<VoiceMatch> {
    let catalogue = revoice_model::kokoro::release::stock_voices();
    let mut matches: Vec<VoiceMatch> = stock
        .voices
        .iter()
        .map(|(name, e)| {
            let info = catalogue.iter().find(|v| &v.name == name);
            VoiceMatch {
                voice: name.clone(),
                language: info.map_or("?", |v| v.language).to_string(),
                gender: info.map_or("?", |v| v.gender).to_string(),
                similarity: cosine_similarity(embedding, e),
            }
        })
        .collect();
    matches.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.voice.cmp(&b.voice)));
    matches
}

/// Parts weighing less than this are left out of the blend.
pub const MIN_BLEND_WEIGHT: f32 = 0.05;

/// The blend of the [`BLEND_SIZE`] best matches that speak `language`
/// (a voice of another language would bring its accent), weighted by a
/// softmax of their similarities at [`BLEND_TEMPERATURE`]; parts under
/// [`MIN_BLEND_WEIGHT`] are dropped and the rest renormalised to sum to one.
pub fn blend_of(matches: &[VoiceMatch], language: &str) -> Vec<BlendPart> {
    let top: Vec<&VoiceMatch> = matches.iter().filter(|m| revoice_text::language::speaks(&m.language, language)).take(BLEND_SIZE).collect();
    let Some(best) = top.first().map(|m| m.similarity) else { return Vec::new() };
    let raw: Vec<f32> = top.iter().map(|m| ((m.similarity - best) / BLEND_TEMPERATURE).exp()).collect();
    let total: f32 = raw.iter().sum();
    let kept: Vec<(&VoiceMatch, f32)> = top.iter().copied().zip(raw).filter(|(_, w)| w / total >= MIN_BLEND_WEIGHT).collect();
    let kept_total: f32 = kept.iter().map(|(_, w)| w).sum();
    kept.into_iter().map(|(m, w)| BlendPart { voice: m.voice.clone(), weight: w / kept_total }).collect()
}

/// The speaker encoder and the stock voices' embeddings, ready to match
/// recordings.
pub struct VoiceMatcher {
    encoder: SpeakerEncoder,
    stock: StockEmbeddings,
}

impl VoiceMatcher {
    /// Loads the encoder and the stock embeddings (computing and caching them
    /// on first use, with `progress(done, total, voice)`).
    pub fn open(data_dir: &Path, progress: &(dyn Fn(usize, usize, &str) + Sync)) -> Result<VoiceMatcher> {
        let encoder = SpeakerEncoder::load(data_dir)?;
        let stock = StockEmbeddings::load_or_compute(data_dir, &encoder, progress)?;
        Ok(VoiceMatcher { encoder, stock })
    }

    /// From parts already loaded.
    pub fn new(encoder: SpeakerEncoder, stock: StockEmbeddings) -> VoiceMatcher {
        VoiceMatcher { encoder, stock }
    }

    /// The stock embeddings in use.
    pub fn stock(&self) -> &StockEmbeddings {
        &self.stock
    }

    /// The encoder in use.
    pub fn encoder(&self) -> &SpeakerEncoder {
        &self.encoder
    }

    /// Decodes an audio file and matches it.
    pub fn match_file(&self, path: &Path) -> Result<MatchedVoice> {
        let audio = revoice_audio::decode::decode_file(path)?;
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        // Errors about the recording name it by its full path.
        self.match_samples(&audio.samples, audio.sample_rate, &name).map_err(|e| match e {
            Error::InvalidInput { input, reason } if input == name => Error::InvalidInput { input: path.display().to_string(), reason },
            other => other,
        })
    }

    /// Matches mono samples at `sample_rate`; `source` names them in the
    /// artifact and in errors.
    pub fn match_samples(&self, samples: &[f32], sample_rate: u32, source: &str) -> Result<MatchedVoice> {
        let at16k = revoice_audio::resample::resample(samples, sample_rate, speaker::SAMPLE_RATE)?;
        let mut quality = quality::measure(samples, &at16k, source)?;
        let mut wav = at16k;
        speaker::preprocess::normalize_volume(&mut wav);
        let trimmed = speaker::preprocess::trim_long_silences(&wav);
        // A recording with no speech is all "long silence": it is heard whole.
        let wav = if trimmed.is_empty() { wav } else { trimmed };
        let mut embedding = self.encoder.embed_prepared(&wav)?.embedding;
        if !embedding.iter().all(|v| v.is_finite()) || embedding.iter().all(|&v| v == 0.0) {
            // Nothing the encoder could hear: the match stands on the default voice.
            let default = revoice_text::language::LANGUAGES[0].default_voice;
            embedding = self.stock.voices.iter().find(|(name, _)| name == default).map(|(_, e)| e.clone()).unwrap_or_else(|| vec![0.0; embedding.len()]);
            quality.warnings.push(format!("no voice could be heard in it: it speaks as {default}"));
        }
        let matches = rank(&embedding, &self.stock);
        let blend = blend_of(&matches, DEFAULT_LANGUAGE);
        Ok(MatchedVoice {
            source: source.to_string(),
            quality,
            encoder: assets::SPEAKER_ENCODER.id.to_string(),
            stock_key: self.stock.key.clone(),
            embedding,
            matches,
            language: DEFAULT_LANGUAGE.to_string(),
            blend,
            fits: BTreeMap::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stock() -> StockEmbeddings {
        let unit = |i: usize| (0..4).map(|j| if j == i { 1.0 } else { 0.1 }).collect::<Vec<f32>>();
        StockEmbeddings {
            key: "test".into(),
            voices: vec![("af_heart".into(), unit(0)), ("am_adam".into(), unit(1)), ("bf_emma".into(), unit(2)), ("jf_alpha".into(), unit(3))],
        }
    }

    #[test]
    fn the_blend_mixes_only_voices_of_its_language_even_when_others_rank_higher() {
        // Closest to jf_alpha (Japanese), then am_adam and af_heart.
        let ranked = rank(&[0.6, 0.8, 0.0, 1.0], &stock());
        assert_eq!(ranked[0].voice, "jf_alpha");
        let blend = blend_of(&ranked, "en-GB");
        assert!(blend.iter().all(|p| p.voice != "jf_alpha"), "{blend:?}");
        assert_eq!(blend[0].voice, "am_adam");
        assert_eq!(blend_of(&ranked, "ja")[0].voice, "jf_alpha");
    }

    #[test]
    fn voices_are_ranked_most_similar_first_with_their_catalogue_details() {
        let ranked = rank(&[0.2, 1.0, 0.5, 0.0], &stock());
        let names: Vec<&str> = ranked.iter().map(|m| m.voice.as_str()).collect();
        assert_eq!(names, ["am_adam", "bf_emma", "af_heart", "jf_alpha"]);
        assert_eq!((ranked[0].language.as_str(), ranked[0].gender.as_str()), ("en-US", "male"));
        assert!(ranked.windows(2).all(|w| w[0].similarity >= w[1].similarity));
    }

    #[test]
    fn the_blend_weights_the_closest_voices_by_similarity_and_sums_to_one() {
        // Close to am_adam, nearly as close to bf_emma, far from the rest.
        let ranked = rank(&[0.2, 1.0, 0.9, 0.0], &stock());
        let blend = blend_of(&ranked, "en-US");
        assert_eq!(blend.iter().map(|p| p.voice.as_str()).collect::<Vec<_>>(), ["am_adam", "bf_emma"]);
        assert!((blend.iter().map(|p| p.weight).sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(blend[0].weight > blend[1].weight && blend[1].weight > 0.1, "{blend:?}");
        let artifact = MatchedVoice {
            source: "x.wav".into(),
            quality: QualityReport {
                seconds: 1.0,
                speech_seconds: 1.0,
                peak_dbfs: 0.0,
                rms_dbfs: 0.0,
                clipped_fraction: 0.0,
                noise_floor_dbfs: 0.0,
                snr_db: 0.0,
                warnings: vec![],
            },
            encoder: "e".into(),
            stock_key: "k".into(),
            embedding: vec![],
            matches: ranked,
            language: "en-US".into(),
            blend,
            fits: BTreeMap::new(),
        };
        assert!(artifact.blend_spec().starts_with("am_adam:0."), "{}", artifact.blend_spec());
        let dir = tempfile::tempdir().unwrap();
        artifact.save(&dir.path().join("v.json")).unwrap();
        assert_eq!(MatchedVoice::load(&dir.path().join("v.json")).unwrap(), artifact);
    }

    fn matched_in(language: &str) -> MatchedVoice {
        let ranked = rank(&[0.2, 1.0, 0.9, 0.7], &stock());
        MatchedVoice {
            source: "x.wav".into(),
            quality: QualityReport {
                seconds: 1.0,
                speech_seconds: 1.0,
                peak_dbfs: 0.0,
                rms_dbfs: 0.0,
                clipped_fraction: 0.0,
                noise_floor_dbfs: 0.0,
                snr_db: 0.0,
                warnings: vec![],
            },
            encoder: "e".into(),
            stock_key: "k".into(),
            embedding: vec![],
            blend: blend_of(&ranked, language),
            matches: ranked,
            language: language.into(),
            fits: BTreeMap::new(),
        }
    }

    #[test]
    fn a_voice_speaks_each_language_as_its_fit_for_it_or_else_that_languages_closest_voices() {
        let mut voice = matched_in("en-US");
        voice.add_fit(crate::fit::FittedVoice::example("ja", "jf_alpha"));
        // Its own language, unfitted: the blend.
        assert_eq!(voice.speaking_voice().unwrap().to_string(), voice.blend_spec());
        assert_eq!(voice.kind(), "matched");
        // Fitted for Japanese: that fit, whatever case the language is named in.
        let japanese = voice.speaking_voice_in("JA").unwrap();
        assert!(japanese.fitted().is_some(), "{japanese}");
        // British English, unfitted: the closest English voices.
        assert!(voice.speaking_voice_in("en-GB").unwrap().to_string().starts_with("am_adam"));
        // A second fit for English leaves the Japanese one, and a new English fit replaces the old.
        voice.add_fit(crate::fit::FittedVoice::example("en-US", "am_adam"));
        voice.add_fit(crate::fit::FittedVoice::example("en-us", "af_heart"));
        assert_eq!(voice.fits.len(), 2, "{:?}", voice.fits.keys().collect::<Vec<_>>());
        assert_eq!(voice.fitted_in("en-US").unwrap().started_from, "af_heart");
        assert_eq!(voice.kind(), "fitted");
        // British lines speak the American fit rather than a stock blend; a British fit takes over.
        assert_eq!(voice.fitted_in("en-GB").unwrap().started_from, "af_heart");
        voice.add_fit(crate::fit::FittedVoice::example("en-GB", "bf_emma"));
        assert_eq!(voice.fitted_in("en-GB").unwrap().started_from, "bf_emma");
        assert_eq!(voice.fitted_in("en-US").unwrap().started_from, "af_heart");
        let error = voice.speaking_voice_in("xx").unwrap_err().to_string();
        assert!(error.contains("xx") && error.contains("no stock voice"), "{error}");
    }

    #[test]
    fn an_artifact_saved_with_one_fit_reads_as_a_fit_for_its_language() {
        let mut voice = matched_in("ja");
        let mut json = serde_json::to_value(&voice).unwrap();
        json["fitted"] = serde_json::to_value(crate::fit::FittedVoice::example("ja", "jf_alpha")).unwrap();
        let read: MatchedVoice = serde_json::from_value(json).unwrap();
        assert_eq!(read.fitted_in("ja").map(|f| f.started_from.as_str()), Some("jf_alpha"));
        voice.add_fit(crate::fit::FittedVoice::example("ja", "jf_alpha"));
        assert_eq!(read, voice);
        // Written back, it keeps its fits by language.
        let again: MatchedVoice = serde_json::from_str(&serde_json::to_string(&read).unwrap()).unwrap();
        assert_eq!(again, voice);
    }
}
