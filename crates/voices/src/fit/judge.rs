//! How a fit judges its candidates: the [`Judge`] that renders and scores
//! style recipes, the [`Verdict`] on each (the search in `run.rs` and the
//! refinement in `refine.rs` both read them), and how a voice sounded on
//! the fit's other sentences ([`Listened`], its words heard by a
//! [`WordListener`]).

use serde::{Deserialize, Serialize};

use super::space::StyleRecipe;
use revoice_audio::tone::ToneCurve;
use revoice_core::error::Result;

/// How one candidate did on the probe sentences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Cosine similarity of its renders to the reference.
    pub similarity: f32,
    /// What the search maximises: the similarity less the guards' penalties.
    pub fitness: f64,
    /// The tone match it would speak through (from its probe renders'
    /// spectrum; smoothed, while it was heard through the same match band
    /// by band: see `ToneCurve::matching_in_detail`).
    #[serde(default)]
    pub tone: Option<ToneCurve>,
    /// How natural its probe renders sound (DNSMOS's speech-signal score on
    /// the clip as it is), where the judge guards naturalness.
    #[serde(default)]
    pub naturalness: Option<f32>,
}

/// How a voice sounded on sentences of the fit's: how much like the
/// reference, how natural (DNSMOS's speech-signal score, 1 to 5) where
/// the judge listens for that, and how many words Whisper heard wrong
/// (substituted, dropped or added) where the judge listens for words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listened {
    pub similarity: f32,
    pub naturalness: Option<f32>,
    pub word_errors: Option<usize>,
}

/// Hears what renders say (the engine's Whisper).
pub trait WordListener: Sync {
    /// What is said in each of `clips` (at `sample_rate`), spoken in
    /// `language` (a tag such as `en-US`).
    fn heard(&self, clips: &[&[f32]], sample_rate: u32, language: &str) -> Result<Vec<String>>;
}

/// Renders and scores candidates.
pub trait Judge {
    /// Each recipe on one of the fit's probe sets (0: the search's; a
    /// judge with fewer sets wraps around), in one batch: its style alone
    /// (a recipe's own tone is set aside), through the tone match the judge
    /// finds for it, if any.
    fn judge(&self, recipes: &[StyleRecipe], probe_set: usize) -> Result<Vec<Verdict>>;
    /// How each recipe sounds on sentences the fit never heard (through its
    /// own tone, if it has one).
    fn held_out(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>>;
    /// How each recipe sounds on sentences that are neither probe nor
    /// held-out: what the fit chooses its voice by.
    fn validation(&self, recipes: &[StyleRecipe]) -> Result<Vec<Listened>>;
    /// `style` with its pitch moved to the recording's register, when the
    /// judge knows the register and the style sits away from it.
    fn registered(&self, style: StyleRecipe) -> Result<StyleRecipe> {
        Ok(style)
    }
    /// How far `recipe`'s style (its own tone set aside) sounds from the
    /// recording saying piece `piece` of the recording's own words (the
    /// judge's pieces in turn), in dB, and that distance's gradient with
    /// respect to the style's timbre offset; `None` where the judge cannot
    /// take it (no words heard, no differentiable model).
    fn spectral_gradient(&self, _recipe: &StyleRecipe, _piece: u64) -> Result<Option<(f32, Vec<f32>)>> {
        Ok(None)
    }
}
