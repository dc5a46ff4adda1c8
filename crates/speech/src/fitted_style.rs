//! A fitted voice's style ([`StyleRecipe`]: weights over the stock packs
//! for each half of Kokoro's style vector, a tone match to the recording's
//! tonal balance, and a move of its pitch to the recording's register) and
//! a fitted voice as it speaks
//! ([`FittedStyle`]: the recipe, the stock voice it reads with, its pack
//! made once). A resolved voice spec carries its fitted style itself
//! (`VoiceKind::Fitted`), shown as `fitted:<id>` (the id is the recipe's
//! content hash): there is no table of fitted voices to register in, keep
//! or evict; a library voice's fitted voice lives in its library record,
//! and goes with it. How a recipe is found is `voices::fit`'s business.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use revoice_audio::tone::ToneCurve;
use revoice_core::error::{Error, Result};
use revoice_model::kokoro::release::{STYLE_DIM, VOICE_ROWS};
use revoice_model::kokoro::voices::{StockVoices, VoicePack};

/// The decoder's half of a style vector.
pub const TIMBRE: Range<usize> = 0..STYLE_DIM / 2;
/// The prosody predictor's half.
pub const PROSODY: Range<usize> = STYLE_DIM / 2..STYLE_DIM;

/// A voice as weights over stock packs, one set per half, and the tone
/// match its audio goes through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StyleRecipe {
    pub timbre: Vec<(String, f32)>,
    pub prosody: Vec<(String, f32)>,
    /// Absent in recipes fitted before tone matching (their ids unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tone: Option<ToneCurve>,
    /// A step outside the stock voices: added to the timbre half of every
    /// row (one value per timbre column), found by the fit's refinement.
    /// Recipes without one keep their ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timbre_offset: Option<Vec<f32>>,
    /// Semitones every line's predicted pitch is moved by, to sit at the
    /// recording's register. Recipes without one keep their ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pitch_semitones: Option<f32>,
}

impl StyleRecipe {
    /// A blend (or one voice) as a recipe: the same weights for both halves.
    pub fn of_blend(parts: &[(String, f32)]) -> StyleRecipe {
        let total: f32 = parts.iter().map(|(_, w)| w).sum();
        let parts: Vec<(String, f32)> = parts.iter().map(|(n, w)| (n.clone(), w / total)).collect();
        StyleRecipe { timbre: parts.clone(), prosody: parts, tone: None, timbre_offset: None, pitch_semitones: None }
    }

    /// The style pack it makes from the stock packs.
    pub fn pack(&self, voices: &StockVoices) -> Result<VoicePack> {
        let mut rows = vec![0f32; VOICE_ROWS * STYLE_DIM];
        for (half, parts) in [(TIMBRE, &self.timbre), (PROSODY, &self.prosody)] {
            if parts.is_empty() {
                return Err(Error::invalid("fitted voice", "a recipe half has no voices"));
            }
            for (name, weight) in parts {
                let stock = voices.get(name)?.rows();
                for row in 0..VOICE_ROWS {
                    let at = row * STYLE_DIM;
                    for col in half.clone() {
                        rows[at + col] += weight * stock[at + col];
                    }
                }
            }
        }
        if let Some(offset) = &self.timbre_offset {
            if offset.len() != TIMBRE.len() {
                return Err(Error::invalid("fitted voice", format!("a timbre offset has {} values, not {}", offset.len(), TIMBRE.len())));
            }
            for row in rows.chunks_mut(STYLE_DIM) {
                for (v, o) in row[TIMBRE].iter_mut().zip(offset) {
                    *v += o;
                }
            }
        }
        Ok(VoicePack::from_rows(rows))
    }

    /// A short content id: the same recipe always has the same id.
    pub fn id(&self) -> String {
        let text = serde_json::to_string(self).expect("a recipe serialises");
        hex::encode(&Sha256::digest(text.as_bytes())[..8])
    }
}

/// How a voice spec names a fitted voice.
pub const PREFIX: &str = "fitted:";

/// A fitted voice as it speaks.
pub struct FittedStyle {
    pub recipe: StyleRecipe,
    /// The stock voice whose language (and pronunciation) it speaks with.
    pub reading_voice: String,
    /// The recipe's content id.
    pub id: String,
    pack: OnceLock<VoicePack>,
    /// The recipe's tone match, shared by the rows that speak it.
    pub tone: Option<Arc<ToneCurve>>,
}

impl FittedStyle {
    /// `recipe`, read with `reading_voice`'s language.
    pub fn new(recipe: &StyleRecipe, reading_voice: &str) -> FittedStyle {
        FittedStyle {
            recipe: recipe.clone(),
            reading_voice: reading_voice.to_string(),
            id: recipe.id(),
            pack: OnceLock::new(),
            tone: recipe.tone.clone().map(Arc::new),
        }
    }

    /// Its style pack, made once from the stock packs.
    pub fn pack(&self, voices: &StockVoices) -> Result<VoicePack> {
        if let Some(pack) = self.pack.get() {
            return Ok(pack.clone());
        }
        let pack = self.recipe.pack(voices)?;
        Ok(self.pack.get_or_init(|| pack).clone())
    }
}

impl PartialEq for FittedStyle {
    fn eq(&self, other: &FittedStyle) -> bool {
        self.id == other.id && self.reading_voice == other.reading_voice
    }
}

impl std::fmt::Debug for FittedStyle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FittedStyle({PREFIX}{}, reads as {})", self.id, self.reading_voice)
    }
}
