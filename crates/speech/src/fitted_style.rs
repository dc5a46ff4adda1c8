//! A fitted voice's style ([`StyleRecipe`]: weights over the stock packs
//! for each half of Kokoro's style vector, and a tone match to the
//! recording's tonal balance) and the process's table of
//! fitted voices by id. A voice spec names a fitted voice as `fitted:<id>`
//! (the id is its recipe's content hash), and the front end finds its
//! recipe here. A library voice registers its recipe when it is resolved,
//! so every face that speaks it goes through the same table; the same id
//! always means the same recipe, so an entry is never stale. How a recipe
//! is found is `voice::fit`'s business.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

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
}

impl StyleRecipe {
    /// A blend (or one voice) as a recipe: the same weights for both halves.
    pub fn of_blend(parts: &[(String, f32)]) -> StyleRecipe {
        let total: f32 = parts.iter().map(|(_, w)| w).sum();
        let parts: Vec<(String, f32)> = parts.iter().map(|(n, w)| (n.clone(), w / total)).collect();
        StyleRecipe { timbre: parts.clone(), prosody: parts, tone: None, timbre_offset: None }
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

/// One fitted voice.
pub struct Registered {
    pub recipe: StyleRecipe,
    /// The stock voice whose language (and pronunciation) it speaks with.
    pub reading_voice: String,
    pack: OnceLock<VoicePack>,
    /// The recipe's tone match, shared by the rows that speak it.
    pub tone: Option<Arc<ToneCurve>>,
}

impl Registered {
    /// Its style pack, made once from the stock packs.
    pub fn pack(&self, voices: &StockVoices) -> Result<VoicePack> {
        if let Some(pack) = self.pack.get() {
            return Ok(pack.clone());
        }
        let pack = self.recipe.pack(voices)?;
        Ok(self.pack.get_or_init(|| pack).clone())
    }
}

fn table() -> &'static Mutex<HashMap<String, Arc<Registered>>> {
    static TABLE: OnceLock<Mutex<HashMap<String, Arc<Registered>>>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

/// Registers a fitted voice; the spec text that names it (`fitted:<id>`).
pub fn register(recipe: &StyleRecipe, reading_voice: &str) -> String {
    let id = recipe.id();
    let mut table = table().lock().unwrap_or_else(|p| p.into_inner());
    table.entry(id.clone()).or_insert_with(|| {
        Arc::new(Registered {
            recipe: recipe.clone(),
            reading_voice: reading_voice.to_string(),
            pack: OnceLock::new(),
            tone: recipe.tone.clone().map(Arc::new),
        })
    });
    format!("{PREFIX}{id}")
}

/// The fitted voice registered under `id`.
pub fn lookup(id: &str) -> Option<Arc<Registered>> {
    table().lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
}
