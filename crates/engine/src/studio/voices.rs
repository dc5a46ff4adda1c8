//! The voices as the editor's pickers and the voice library show them:
//! the stock voices with language and gender, and each library voice with
//! its details, quality report, the stock voices it is closest to and the
//! blend it speaks with (a match, not a clone), or the voice fitted to its
//! recording (not a clone either) with the fit's figures and progress.

use serde::Serialize;
use ts_rs::TS;

use revoice_store::VoiceRecord;
use revoice_voices::quality::QualityReport;
use revoice_voices::MatchedVoice;

/// A voice for the voice pickers.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct VoiceChoice {
    pub name: String,
    /// A language tag, `library` for a library voice, or `remote` for a
    /// voice on a remote engine (`fleet/af_bella`, `fleet/@Narrator`).
    pub language: String,
    pub gender: String,
}

/// Kokoro's stock voices, by name with language and gender.
pub fn stock_choices() -> Vec<VoiceChoice> {
    revoice_model::kokoro::release::stock_voices()
        .into_iter()
        .map(|v| VoiceChoice { name: v.name, language: v.language.to_string(), gender: v.gender.to_string() })
        .collect()
}

/// The stock voices, then the library's (language `library`).
pub fn voice_choices(library: &[VoiceRecord]) -> Vec<VoiceChoice> {
    let mut voices = stock_choices();
    voices.extend(library.iter().map(|r| VoiceChoice { name: r.voice.name.clone(), language: "library".into(), gender: String::new() }));
    voices
}

/// Voices on remote engines: each engine's own voices, then each library
/// voice's recording cloned by it (`ENGINE/@Name`).
pub fn remote_choices(engines: &[(String, Vec<String>)], library: &[VoiceRecord]) -> Vec<VoiceChoice> {
    let mut voices = Vec::new();
    for (engine, names) in engines {
        let own = names.iter().map(|n| format!("{engine}/{n}"));
        let cloned = library.iter().map(|r| format!("{engine}/@{}", r.voice.name));
        voices.extend(own.chain(cloned).map(|name| VoiceChoice { name, language: "remote".into(), gender: String::new() }));
    }
    voices
}

/// A close stock voice.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct MatchView {
    pub voice: String,
    pub similarity: f32,
}

/// A voice registered from a recording.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "LibraryVoice")]
pub struct LibraryVoiceView {
    pub name: String,
    pub description: String,
    pub reference_text: String,
    pub consent: String,
    pub file_size: i64,
    pub mime_type: String,
    pub created_at: String,
    pub version: i64,
    /// `None` when the stored artifact cannot be read.
    pub quality: Option<QualityReport>,
    /// The closest stock voices, most similar first (a match, not a clone).
    pub matches: Vec<MatchView>,
    /// The language the voice was made for (a line in another language
    /// speaks that language's closest voices, or its fit for it).
    pub language: String,
    /// What the voice speaks with in its language: a blend of the closest
    /// stock voices (until it is fitted).
    pub blend: String,
    /// `matched` (the blend speaks) or `fitted` (a voice fitted to the
    /// recording by search speaks: not a clone either), in its language.
    pub kind: String,
    /// The figures of each fit, one per language it was fitted to speak
    /// (its own language first).
    pub fits: Vec<FitFigures>,
    /// The fits queued or running now, in the order they were asked for.
    pub fitting: Vec<FitInProgress>,
}

/// A fitted voice's similarity to its recording on sentences the fit never
/// heard, against the stock voices it started from.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FitFigures {
    /// The language the voice was fitted to speak.
    pub language: String,
    pub best_stock: String,
    pub best_stock_similarity: f32,
    pub blend_similarity: f32,
    pub fitted_similarity: f32,
    /// The fitted style without its tone match (when it has one).
    pub style_only_similarity: Option<f32>,
    /// The tone match's largest boost or cut in dB (when it has one).
    pub tone_largest_db: Option<f32>,
    /// How natural the best stock voice and the fitted voice sound on the
    /// same sentences (DNSMOS's speech-signal score, 1 to 5; fits that did
    /// not listen for it have none).
    pub best_stock_naturalness: Option<f32>,
    pub fitted_naturalness: Option<f32>,
    pub generations: u32,
    pub seconds: f32,
}

/// A fit as it runs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FitInProgress {
    /// The language the voice is being fitted to speak.
    pub language: String,
    /// `None` until its first generation is judged (or while it waits its turn).
    pub generation: Option<u32>,
    pub seconds: f32,
    pub seconds_left: f32,
    pub start_similarity: f32,
    pub best_similarity: f32,
}

impl FitInProgress {
    /// From the engine's progress report for a fit to speak `language`
    /// (`None`: queued or just started).
    pub fn of(language: &str, progress: Option<&revoice_voices::fit::FitProgress>) -> FitInProgress {
        let language = language.to_string();
        match progress {
            Some(p) => FitInProgress {
                language,
                generation: Some(p.generation as u32),
                seconds: p.seconds as f32,
                seconds_left: p.seconds_left as f32,
                start_similarity: p.start_similarity,
                best_similarity: p.best_similarity,
            },
            None => FitInProgress { language, generation: None, seconds: 0.0, seconds_left: 0.0, start_similarity: 0.0, best_similarity: 0.0 },
        }
    }
}

/// A voice's fits as the view shows them: its own language first.
fn fit_figures(matched: &MatchedVoice) -> Vec<FitFigures> {
    let mut fits: Vec<&revoice_voices::fit::FittedVoice> = matched.fits.values().collect();
    fits.sort_by_key(|f| !f.language.eq_ignore_ascii_case(&matched.language));
    fits.into_iter()
        .map(|f| FitFigures {
            language: f.language.clone(),
            best_stock: f.held_out.best_stock.clone(),
            best_stock_similarity: f.held_out.best_stock_similarity,
            blend_similarity: f.held_out.blend_similarity,
            fitted_similarity: f.held_out.fitted_similarity,
            style_only_similarity: f.held_out.style_only_similarity,
            tone_largest_db: f.recipe.tone.as_ref().map(|t| t.largest_db()),
            best_stock_naturalness: f.held_out.best_stock_naturalness,
            fitted_naturalness: f.held_out.fitted_naturalness,
            generations: f.generations as u32,
            seconds: f.seconds,
        })
        .collect()
}

impl LibraryVoiceView {
    /// The view of a stored voice.
    pub fn of(record: VoiceRecord) -> LibraryVoiceView {
        let matched: Option<MatchedVoice> = serde_json::from_str(&record.voice.artifact_json).ok();
        LibraryVoiceView {
            quality: matched.as_ref().map(|m| m.quality.clone()),
            matches: matched
                .as_ref()
                .map(|m| m.matches.iter().take(3).map(|v| MatchView { voice: v.voice.clone(), similarity: v.similarity }).collect())
                .unwrap_or_default(),
            blend: matched.as_ref().map(MatchedVoice::blend_spec).unwrap_or_default(),
            kind: matched.as_ref().map_or("matched", MatchedVoice::kind).to_string(),
            language: matched.as_ref().map(|m| m.language.clone()).unwrap_or_default(),
            fits: matched.as_ref().map(fit_figures).unwrap_or_default(),
            fitting: Vec::new(),
            name: record.voice.name,
            description: record.voice.description,
            reference_text: record.voice.reference_text,
            consent: record.voice.consent,
            file_size: record.voice.file_size,
            mime_type: record.voice.mime_type,
            created_at: record.created_at,
            version: record.version,
        }
    }
}

/// Everything the voice library view shows.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct VoiceLibraryView {
    pub stock: Vec<VoiceChoice>,
    pub library: Vec<LibraryVoiceView>,
}
