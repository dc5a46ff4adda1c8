//! Fitted voices by id, for this process: a voice spec names a fitted voice
//! as `fitted:<id>` (the id is its recipe's content hash), and the front
//! end finds its recipe here. A library voice registers its recipe when it
//! is resolved, so every face that speaks it goes through the same table;
//! the same id always means the same recipe, so an entry is never stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::space::StyleRecipe;
use crate::error::Result;
use crate::model::kokoro::voices::{StockVoices, VoicePack};

/// How a voice spec names a fitted voice.
pub const PREFIX: &str = "fitted:";

/// One fitted voice.
pub struct Registered {
    pub recipe: StyleRecipe,
    /// The stock voice whose language (and pronunciation) it speaks with.
    pub reading_voice: String,
    pack: OnceLock<VoicePack>,
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
    table.entry(id.clone()).or_insert_with(|| Arc::new(Registered { recipe: recipe.clone(), reading_voice: reading_voice.to_string(), pack: OnceLock::new() }));
    format!("{PREFIX}{id}")
}

/// The fitted voice registered under `id`.
pub fn lookup(id: &str) -> Option<Arc<Registered>> {
    table().lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
}
