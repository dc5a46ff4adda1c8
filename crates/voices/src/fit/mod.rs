//! Fitted voices: a Kokoro style found by search to sound like a reference
//! recording. Kokoro cannot be taught a new speaker here; what it can do is
//! speak any style vector, so the fit searches style space ([`space`]) with
//! CMA-ES ([`search`]) for the voice whose renders a speaker encoder finds
//! closest to the recording, with guards against styles that fool the
//! encoder without sounding like speech ([`probe`]), each candidate heard
//! through the tone match that gives it the recording's tonal balance, and
//! then refines the best of them a step outside the stock voices (an
//! offset to the timbre: first down the gradient of its spectral distance
//! to the recording's own words, [`descent`], then by an evolution
//! strategy, [`refine`]). The
//! result is a *fitted voice*: a recipe over the stock packs, a timbre
//! offset and a tone curve, fitted to the recording, not a model trained on the speaker, and
//! every face calls it that.

pub mod descent;
pub mod eigen;
pub mod flights;
pub mod judge;
pub mod probe;
pub mod refine;
pub mod run;
pub mod search;
pub mod space;

use serde::{Deserialize, Serialize};

pub use flights::MAX_QUEUED_FITS;
pub use judge::{Judge, Verdict, WordListener};
pub use run::{fit, judged_again, FitCheckpoint, FitProgress};
pub use space::{StyleRecipe, StyleSpace};

/// The tone match's default largest gain: enough for a microphone's and a
/// room's colour, not enough to turn one voice into another.
pub const TONE_MATCH_DB: f32 = 12.0;

/// The most a fit may be allowed to move the fitted voice's pitch to the
/// recording's register, in semitones. Off by default: Kokoro's male
/// voices sit near 115-125 Hz and the men recorded here at 90-105 Hz, but
/// moving the fitted voices down there (2.6 to 4.7 semitones) cost them
/// 0.05 to 0.3 of DNSMOS's naturalness and raised Whisper's Spanish word
/// errors from 7.1 to 11.9 %, for the encoder's similarity within ±0.02
/// (`revoice bench voicefit --kept ... --register 6`, session 50).
pub const MAX_REGISTER_SEMITONES: f32 = 12.0;

/// How a fit searches. Part of its cache key: the same recording fitted
/// with the same settings is the same voice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitSettings {
    /// Time budget for the search, in minutes (the held-out check after it
    /// takes a little more).
    pub minutes: f32,
    /// Candidates rendered per generation.
    pub population: usize,
    /// Principal directions searched in the timbre and prosody halves.
    pub timbre_dims: usize,
    pub prosody_dims: usize,
    /// Seed of the search's samples.
    pub seed: u64,
    /// Stop after this many generations even with time left.
    #[serde(default)]
    pub max_generations: Option<u64>,
    /// The tone match's largest boost or cut, in dB; 0: no tone match.
    #[serde(default)]
    pub tone_match_db: f32,
    /// Share of the time budget (and, with `max_generations`, as many
    /// generations again) spent refining outside the stock voices after
    /// the search among them; 0: no refinement (fits saved before it).
    #[serde(default)]
    pub refine_share: f32,
    /// How many probe sets the refinement reads in turn, one per
    /// generation; 1: always the same probes (fits saved before it).
    #[serde(default = "one_probe_set")]
    pub probe_sets: usize,
    /// How much the spectral distance to the recording, saying its own
    /// words, counts beside the encoder's similarity (see
    /// [`probe::OwnWords`]; a voice fitted to speak another language says
    /// them as the recording's language is read); 0: not at all (fits saved
    /// before it).
    #[serde(default)]
    pub spectral_weight: f32,
    /// The largest move, in semitones, of the fitted voice's pitch to the
    /// recording's register; 0: the pitch the style predicts (fits saved
    /// before it).
    #[serde(default)]
    pub register_semitones: f32,
    /// How much a voice sounding less natural than the best stock voice
    /// (DNSMOS's speech-signal score on the validation sentences, less
    /// `naturalness_guard_margin`) counts against its similarity when the
    /// fit chooses its tone match's strength; 0: not at all, the full match
    /// (fits saved before it).
    #[serde(default)]
    pub naturalness_weight: f32,
    /// How much a candidate sounding less natural than the best stock voice
    /// on the same probe sentences (less `naturalness_guard_margin`) counts against
    /// it while the fit searches, per point of DNSMOS's speech-signal
    /// score; 0: the search does not listen for naturalness (fits saved
    /// before it).
    #[serde(default)]
    pub naturalness_guard: f32,
    /// How far below the best stock voice's naturalness a voice may fall
    /// before it costs anything: a candidate on the probes (the guard) and
    /// a strength of the tone match on the validation sentences (the
    /// choice); fits saved before it used [`NATURAL_MARGIN`] for both.
    #[serde(default = "natural_margin")]
    pub naturalness_guard_margin: f32,
    /// Share of the time budget spent moving the timbre down the gradient
    /// of its spectral distance to the recording's own words
    /// ([`descent`]), between the search and the refinement, taken from
    /// the refinement's share (at most all of it; none without a
    /// refinement); 0: no descent (fits saved before it).
    #[serde(default)]
    pub descent_share: f32,
}

fn natural_margin() -> f32 {
    NATURAL_MARGIN
}

fn one_probe_set() -> usize {
    1
}

/// The refinement's default share of the budget: most of it. The search
/// among the stock voices finds a good start within a few generations and
/// then mostly stalls, while the refinement keeps climbing (measured in
/// `revoice bench voicefit`: shares 0.4, 0.7 and 0.85).
pub const REFINE_SHARE: f32 = 0.85;

/// The most probe sets a refinement can read in turn.
pub const PROBE_SETS: usize = 4;

/// The probe sets a refinement reads in turn by default. With one, the
/// search learns the naturalness guard on two sentences and can lose it
/// held out; in 5-minute fits (`revoice bench voicefit --probe-sets`,
/// sessions 54-55) two sets kept every row within 0.17 of the best stock
/// voice's DNSMOS signal score held out (slt the lowest, 0.12 to 0.17
/// below; 0.08 to 0.13 with the tone choice's margin at 0), where one set
/// let the LibriVox reader in Spanish fall 0.45 below it and lp in English
/// 0.28, for similarity within ±0.04 elsewhere.
pub const DEFAULT_PROBE_SETS: usize = 2;

/// The first margin of naturalness: how much less natural than the best
/// stock voice a voice could sound, on DNSMOS's speech-signal scale,
/// before the guard and the tone choice counted it against the voice;
/// fits saved before [`FitSettings::naturalness_guard_margin`] keep it.
pub const NATURAL_MARGIN: f32 = 0.1;

/// How far `naturalness` falls below `floor`, on the opinion scale (0
/// where it does not): what the guard and the tone choice weigh.
pub(crate) fn natural_shortfall(naturalness: f32, floor: f32) -> f32 {
    (floor - naturalness).max(0.0)
}

/// The default weight of naturalness in the choice of the tone match's
/// strength: a tenth of the opinion scale lost below the margin costs a
/// tenth of similarity. Judging session 49's fits again with it halved the
/// match of two voices of seven, for 0.12 and 0.23 of DNSMOS's signal score
/// held out and 0.015 and 0.026 of similarity (session 51).
pub const NATURALNESS_WEIGHT: f32 = 1.0;

/// The default weight of the search's naturalness guard
/// ([`FitSettings::naturalness_guard`]).
pub const NATURALNESS_GUARD: f32 = 1.0;

/// The guard's default margin ([`FitSettings::naturalness_guard_margin`]):
/// none, every point below the best stock voice on the probes costs. With
/// [`NATURAL_MARGIN`] the search settled about 0.1 below the stock voice
/// on the probes, and held out, where the score moves by ±0.1 from one
/// set of sentences to another, slt ended 0.19 below it; with none, 0.13
/// below, and all four rows measured within 0.13 (session 53; GE2E
/// similarity 0.06 lower on average, still above the stock voices).
pub const GUARD_MARGIN: f32 = 0.0;

/// The widest margin the guard may leave: a point of the opinion scale.
pub const MAX_GUARD_MARGIN: f32 = 1.0;

/// The largest weight naturalness may have in the choice or the guard.
pub const MAX_NATURALNESS_WEIGHT: f32 = 10.0;

/// The largest weight the spectral distance may have: beyond it the
/// encoder's similarity hardly counts.
pub const MAX_SPECTRAL_WEIGHT: f32 = 4.0;

/// The spectral distance's default weight ([`FitSettings::spectral_weight`]):
/// the largest. In 5-minute fits (`revoice bench voicefit
/// --spectral-weight`, seed 3, session 56) it took the distance to the
/// recording's own words 15 % under the unweighted fit's for slt (43.4 to
/// 36.8) and 26 % for joe (58.9 to 43.7), for 0.024 less similarity on
/// slt and 0.053 more on joe, naturalness within 0.1 of the best stock
/// voice; heard across languages it brought lp's English voice to the
/// stock voice's word error rate (7.9 % to 2.6 %), and weights 1 and 2
/// took less of the distance for no more similarity.
pub const SPECTRAL_WEIGHT: f32 = MAX_SPECTRAL_WEIGHT;

/// The descent's default share of the budget ([`FitSettings::descent_share`]).
/// In 5-minute fits (`revoice bench voicefit --descent 0.4`, session 57,
/// against the same seed without it) it raised the held-out similarity
/// (slt 0.826 → 0.844, the LibriVox reader 0.828 → 0.866 in English and
/// 0.754 → 0.783 in Spanish) and took the distance to the recording's own
/// words from 36.8 to 34.0 dB (slt) and 41.6 to 38.2 dB (the reader),
/// naturalness within 0.1 of the best stock voice and word errors equal.
/// Towards Festival's Italian diphone voice (lp, speaking English) the
/// whole move cost 0.23 of naturalness for no similarity, so the fit keeps
/// only as much of it as is worth keeping (`run.rs`, `natural_descent`).
pub const DESCENT_SHARE: f32 = 0.4;

impl Default for FitSettings {
    fn default() -> FitSettings {
        FitSettings {
            minutes: revoice_core::config::DEFAULT_FIT_MINUTES,
            population: 8,
            timbre_dims: 6,
            prosody_dims: 4,
            seed: 1,
            max_generations: None,
            tone_match_db: TONE_MATCH_DB,
            refine_share: REFINE_SHARE,
            probe_sets: DEFAULT_PROBE_SETS,
            spectral_weight: SPECTRAL_WEIGHT,
            register_semitones: 0.0,
            naturalness_weight: NATURALNESS_WEIGHT,
            naturalness_guard: NATURALNESS_GUARD,
            naturalness_guard_margin: GUARD_MARGIN,
            descent_share: DESCENT_SHARE,
        }
    }
}

impl FitSettings {
    /// The settings as part of a cache key.
    pub fn key(&self) -> String {
        let generations = self.max_generations.map_or("any".to_string(), |g| g.to_string());
        let base = format!(
            "fit/v1 minutes={} population={} timbre={} prosody={} seed={} generations={generations}",
            self.minutes, self.population, self.timbre_dims, self.prosody_dims, self.seed
        );
        // Fits without a tone match or a refinement keep the keys they were
        // stored under.
        let base = if self.tone_match_db > 0.0 { format!("{base} tone={}", self.tone_match_db) } else { base };
        let base = if self.refine_share > 0.0 { format!("{base} refine={}", self.refine_share) } else { base };
        let base = if self.probe_sets > 1 { format!("{base} probes={}", self.probe_sets) } else { base };
        let base = if self.spectral_weight > 0.0 { format!("{base} spectral={}", self.spectral_weight) } else { base };
        let base = if self.register_semitones > 0.0 { format!("{base} register={}", self.register_semitones) } else { base };
        let base = if self.naturalness_weight > 0.0 { format!("{base} natural={}", self.naturalness_weight) } else { base };
        let base = if self.descent_share > 0.0 { format!("{base} descent={}", self.descent_share) } else { base };
        match self.naturalness_guard {
            // Fits guarded with the first margin keep the keys they were stored under.
            w if w > 0.0 && self.naturalness_guard_margin == NATURAL_MARGIN => format!("{base} guard={w}"),
            w if w > 0.0 => format!("{base} guard={w} margin={}", self.naturalness_guard_margin),
            _ => base,
        }
    }

    /// Checks the settings: the refinement's share is a share.
    pub fn check(&self) -> revoice_core::error::Result<()> {
        if !(0.0..1.0).contains(&self.refine_share) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the refinement's share of the budget must be from 0 to below 1, not {}", self.refine_share),
            ));
        }
        if !(0.0..1.0).contains(&self.descent_share) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the descent's share of the budget must be from 0 to below 1, not {}", self.descent_share),
            ));
        }
        if !(0.0..=MAX_SPECTRAL_WEIGHT).contains(&self.spectral_weight) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the spectral distance's weight must be from 0 to {MAX_SPECTRAL_WEIGHT}, not {}", self.spectral_weight),
            ));
        }
        if !(0.0..=MAX_REGISTER_SEMITONES).contains(&self.register_semitones) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the move to the recording's register must be from 0 to {MAX_REGISTER_SEMITONES} semitones, not {}", self.register_semitones),
            ));
        }
        if !(0.0..=MAX_NATURALNESS_WEIGHT).contains(&self.naturalness_weight) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("naturalness's weight must be from 0 to {MAX_NATURALNESS_WEIGHT}, not {}", self.naturalness_weight),
            ));
        }
        if !(0.0..=MAX_NATURALNESS_WEIGHT).contains(&self.naturalness_guard) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the naturalness guard's weight must be from 0 to {MAX_NATURALNESS_WEIGHT}, not {}", self.naturalness_guard),
            ));
        }
        if !(0.0..=MAX_GUARD_MARGIN).contains(&self.naturalness_guard_margin) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the naturalness guard's margin must be from 0 to {MAX_GUARD_MARGIN}, not {}", self.naturalness_guard_margin),
            ));
        }
        if !(1..=PROBE_SETS).contains(&self.probe_sets) {
            return Err(revoice_core::error::Error::invalid(
                "voice fit settings",
                format!("the probe sets must number from 1 to {PROBE_SETS}, not {}", self.probe_sets),
            ));
        }
        Ok(())
    }
}

/// A voice's similarity to the reference on the held-out sentences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldOutFigures {
    /// The closest stock voice of the language, by name, and its similarity.
    pub best_stock: String,
    pub best_stock_similarity: f32,
    /// The quick match's blend.
    pub blend_similarity: f32,
    /// The fitted voice.
    pub fitted_similarity: f32,
    /// The fitted voice's style without its tone match (when it has one).
    #[serde(default)]
    pub style_only_similarity: Option<f32>,
    /// How natural each sounds (DNSMOS's speech-signal score, 1 to 5),
    /// where the fit listened for it.
    #[serde(default)]
    pub best_stock_naturalness: Option<f32>,
    #[serde(default)]
    pub blend_naturalness: Option<f32>,
    #[serde(default)]
    pub fitted_naturalness: Option<f32>,
}

/// A finished fit: the voice and how it was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FittedVoice {
    pub recipe: StyleRecipe,
    /// Whether the search's best sounded less like the reference on the
    /// held-out sentences than the best starting voice, which was kept.
    /// (The held-out figures then chose the voice, so they are no longer
    /// untouched by the fit.)
    #[serde(default)]
    pub kept_start: bool,
    /// The language the voice was fitted to speak (its probe sentences').
    pub language: String,
    pub settings: FitSettings,
    /// Where the search started (`am_michael` or `blend`).
    pub started_from: String,
    /// Similarity on the fit's own probe sentences.
    pub fit_similarity: f32,
    pub held_out: HeldOutFigures,
    pub generations: u64,
    pub candidates: u64,
    pub seconds: f32,
}

#[cfg(test)]
impl FittedVoice {
    /// A finished fit that kept one stock voice, for tests.
    pub(crate) fn example(language: &str, voice: &str) -> FittedVoice {
        FittedVoice {
            recipe: StyleRecipe::of_blend(&[(voice.to_string(), 1.0)]),
            kept_start: false,
            language: language.into(),
            settings: FitSettings::default(),
            started_from: voice.into(),
            fit_similarity: 0.8,
            held_out: HeldOutFigures {
                best_stock: voice.into(),
                best_stock_similarity: 0.6,
                blend_similarity: 0.6,
                fitted_similarity: 0.8,
                style_only_similarity: None,
                best_stock_naturalness: None,
                blend_naturalness: None,
                fitted_naturalness: None,
            },
            generations: 3,
            candidates: 24,
            seconds: 60.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_falling_below_the_floor_costs() {
        assert_eq!(natural_shortfall(3.5, 3.5), 0.0, "as natural as the floor");
        assert!((natural_shortfall(3.0, 3.5) - 0.5).abs() < 1e-6);
        assert_eq!(natural_shortfall(4.2, 3.5), 0.0, "more natural gains nothing");
    }

    #[test]
    fn fits_saved_before_the_refinement_keep_their_keys() {
        let old = r#"{"minutes":8.0,"population":8,"timbre_dims":6,"prosody_dims":4,"seed":1,"tone_match_db":12.0}"#;
        let settings: FitSettings = serde_json::from_str(old).unwrap();
        // Today's settings at the old record's budget.
        let today = FitSettings { minutes: settings.minutes, ..Default::default() };
        assert_eq!(settings.refine_share, 0.0);
        assert_eq!(settings.probe_sets, 1);
        assert_eq!(settings.key(), "fit/v1 minutes=8 population=8 timbre=6 prosody=4 seed=1 generations=any tone=12");
        assert_eq!(
            today.key(),
            format!(
                "{} refine={REFINE_SHARE} probes={DEFAULT_PROBE_SETS} spectral={SPECTRAL_WEIGHT} natural={NATURALNESS_WEIGHT} descent={DESCENT_SHARE} guard={NATURALNESS_GUARD} margin={GUARD_MARGIN}",
                settings.key()
            )
        );
        // A fit guarded before the margin was a setting kept the first margin, and its key.
        let first_guard = r#"{"minutes":8.0,"population":8,"timbre_dims":6,"prosody_dims":4,"seed":1,"tone_match_db":12.0,"refine_share":0.85,"naturalness_weight":1.0,"naturalness_guard":1.0}"#;
        let first_guard: FitSettings = serde_json::from_str(first_guard).unwrap();
        assert_eq!(first_guard.naturalness_guard_margin, NATURAL_MARGIN);
        assert_eq!(first_guard.key(), format!("{} refine={REFINE_SHARE} natural={NATURALNESS_WEIGHT} guard={NATURALNESS_GUARD}", settings.key()));
        assert_eq!(settings.descent_share, 0.0, "fits saved before it do not descend");
        let today = FitSettings { descent_share: 0.0, ..today };
        let unguarded = FitSettings { naturalness_guard: 0.0, probe_sets: 1, spectral_weight: 0.0, ..today.clone() };
        assert_eq!(
            unguarded.key(),
            format!("{} refine={REFINE_SHARE} natural={NATURALNESS_WEIGHT}", settings.key()),
            "fits saved before the guard keep their keys"
        );
        let unweighed = FitSettings { naturalness_weight: 0.0, naturalness_guard: 0.0, probe_sets: 1, spectral_weight: 0.0, ..today.clone() };
        assert_eq!(unweighed.key(), format!("{} refine={REFINE_SHARE}", settings.key()));
        let rotating = FitSettings { probe_sets: PROBE_SETS, ..unweighed.clone() };
        assert_eq!(rotating.key(), format!("{} refine={REFINE_SHARE} probes={PROBE_SETS}", settings.key()));
        let spectral = FitSettings { spectral_weight: 0.5, ..unweighed };
        assert_eq!(spectral.key(), format!("{} refine={REFINE_SHARE} spectral=0.5", settings.key()));
        assert_eq!(settings.spectral_weight, 0.0, "fits saved before it weigh no spectral distance");
        assert_eq!(settings.register_semitones, 0.0, "fits saved before it keep the style's pitch");
        let registered = FitSettings { register_semitones: 4.0, ..settings.clone() };
        assert_eq!(registered.key(), format!("{} register=4", settings.key()));
        let error = FitSettings { register_semitones: 13.0, ..Default::default() }.check().unwrap_err().to_string();
        assert!(error.contains("register"), "{error}");
        assert_eq!(settings.naturalness_weight, 0.0, "fits saved before it chose without weighing naturalness");
        let error = FitSettings { naturalness_weight: -1.0, ..Default::default() }.check().unwrap_err().to_string();
        assert!(error.contains("naturalness"), "{error}");
        assert_eq!(settings.naturalness_guard, 0.0, "fits saved before it searched without the guard");
        let error = FitSettings { naturalness_guard: 11.0, ..Default::default() }.check().unwrap_err().to_string();
        assert!(error.contains("naturalness guard"), "{error}");
    }

    #[test]
    fn the_refinement_share_is_checked() {
        assert!(FitSettings::default().check().is_ok());
        assert!(FitSettings { refine_share: 0.0, ..Default::default() }.check().is_ok());
        for share in [1.0, -0.1, f32::NAN] {
            let error = FitSettings { refine_share: share, ..Default::default() }.check().unwrap_err().to_string();
            assert!(error.contains("refinement's share"), "{error}");
        }
        for weight in [-0.1, MAX_SPECTRAL_WEIGHT + 0.1, f32::NAN] {
            let error = FitSettings { spectral_weight: weight, ..Default::default() }.check().unwrap_err().to_string();
            assert!(error.contains("spectral distance"), "{error}");
        }
        for sets in [0, PROBE_SETS + 1] {
            let error = FitSettings { probe_sets: sets, ..Default::default() }.check().unwrap_err().to_string();
            assert!(error.contains("probe sets"), "{error}");
        }
    }
}
