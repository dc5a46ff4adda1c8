//! One speaker embedding per stock voice, so a reference recording can be
//! ranked against them. Each voice reads the same fixed English text
//! ([`STOCK_TEXT`], phonemized once with the US English front end, so every
//! voice says exactly the same phonemes whatever its own language) through
//! Kokoro with no noise; the render is encoded like any reference.
//!
//! Rendering 54 voices takes a while (about a minute in a release build,
//! four in a debug one), so the engine ships them: `stock-embeddings.safetensors`
//! beside this file, keyed by the Kokoro and encoder asset ids and the recipe
//! ([`cache_key`]). Every install then ranks a recording against the same
//! numbers from the first match on. When the key changes (new assets, new
//! recipe) the shipped file is ignored: the embeddings are computed on first
//! use and cached in `<data>/voices/stock-embeddings.safetensors`, a lock
//! file making concurrent first uses compute them once. Copy that cache
//! over the shipped file to ship the new ones (the voice tests check that
//! the shipped file is current and matches a fresh render).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::tensor::{Dtype, TensorView};

use revoice_core::error::{Error, Result};
use revoice_model::assets;
use revoice_model::speaker::{SpeakerEncoder, EMBEDDING_DIM};
use revoice_model::speech::SpeechModel;
use revoice_speech::{SayRequest, Synthesizer};

/// What every stock voice reads (about 6 s of speech: enough partial
/// windows for a stable embedding, short enough to render all 54 quickly).
pub const STOCK_TEXT: &str = "Every voice has its own colour, shaped by the throat, the mouth and the way a person breathes.";

/// Stock voices rendered per `generate` call.
const VOICES_PER_BATCH: usize = 4;

/// Bumped whenever the way the embeddings are made changes.
const RECIPE: u32 = 1;

/// The embeddings as computed by [`StockEmbeddings::compute`] and shipped.
const SHIPPED: &[u8] = include_bytes!("stock-embeddings.safetensors");

/// The embeddings of every stock voice.
#[derive(Debug, Clone, PartialEq)]
pub struct StockEmbeddings {
    /// The [`cache_key`] they were computed under.
    pub key: String,
    /// `(voice name, embedding)`, in the catalogue's order.
    pub voices: Vec<(String, Vec<f32>)>,
}

/// Identifies how the embeddings were made: model ids, recipe, text.
pub fn cache_key() -> String {
    format!("{}|{}|recipe {RECIPE}|{STOCK_TEXT}", assets::KOKORO.id, assets::SPEAKER_ENCODER.id)
}

/// Where the cache lives in a data directory.
pub fn cache_path(data_dir: &Path) -> PathBuf {
    data_dir.join("voices").join("stock-embeddings.safetensors")
}

impl StockEmbeddings {
    /// The shipped embeddings when they are current; else the data folder's
    /// cache when it is there and current; otherwise renders and encodes
    /// every stock voice (loading Kokoro), reporting `(done, total, voice)`
    /// to `progress`, and caches them.
    pub fn load_or_compute(data_dir: &Path, encoder: &SpeakerEncoder, progress: &(dyn Fn(usize, usize, &str) + Sync)) -> Result<StockEmbeddings> {
        if let Some(shipped) = Self::shipped() {
            return Ok(shipped);
        }
        let path = cache_path(data_dir);
        if let Some(found) = Self::load_current(&path) {
            return Ok(found);
        }
        let dir = path.parent().expect("cache path has a folder");
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
        let lock_path = dir.join(".stock-embeddings.lock");
        let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| Error::io("open", &lock_path, e))?;
        lock.lock().map_err(|e| Error::io("lock", &lock_path, e))?;
        // Whoever held the lock before us may have written it.
        if let Some(found) = Self::load_current(&path) {
            return Ok(found);
        }
        let synth = Synthesizer::load(data_dir)?;
        let computed = Self::compute(&synth, encoder, progress)?;
        computed.save(&path)?;
        Ok(computed)
        // The lock is released when `lock` drops.
    }

    /// The embeddings shipped with the engine, when they were made under
    /// the current [`cache_key`] for every stock voice.
    pub fn shipped() -> Option<StockEmbeddings> {
        Self::parse(SHIPPED).ok().filter(Self::is_current)
    }

    fn is_current(&self) -> bool {
        self.key == cache_key() && self.voices.len() == revoice_model::kokoro::release::stock_voices().len()
    }

    /// Renders [`STOCK_TEXT`] with every stock voice and encodes it.
    pub fn compute(synth: &Synthesizer, encoder: &SpeakerEncoder, progress: &(dyn Fn(usize, usize, &str) + Sync)) -> Result<StockEmbeddings> {
        let catalogue = revoice_model::kokoro::release::stock_voices();
        let names: Vec<&str> = catalogue.iter().map(|v| v.name.as_str()).collect();
        Self::compute_voices(synth, encoder, &names, progress)
    }

    /// Renders [`STOCK_TEXT`] with the named stock voices and encodes each,
    /// in the order given (the voice tests check a few against the shipped file).
    pub fn compute_voices(
        synth: &Synthesizer,
        encoder: &SpeakerEncoder,
        names: &[&str],
        progress: &(dyn Fn(usize, usize, &str) + Sync),
    ) -> Result<StockEmbeddings> {
        let request = SayRequest::new(STOCK_TEXT, "af_heart")?;
        let lines = synth.prepare(&request)?;
        let mut voices = Vec::with_capacity(names.len());
        // A few voices per `generate` call: the model renders a batch's rows
        // side by side, which keeps both cores busy through the LSTMs.
        for (batch_no, batch) in names.chunks(VOICES_PER_BATCH).enumerate() {
            progress(batch_no * VOICES_PER_BATCH, names.len(), batch[0]);
            let mut rows = Vec::with_capacity(batch.len() * lines.len());
            for voice in batch {
                let (pack, _) = synth.resolve_voice(&revoice_speech::voice_spec::VoiceSpec::parse_stock(voice)?)?;
                for line in &lines {
                    let mut row = line.row.clone();
                    row.style = pack.style_for(row.tokens.len().saturating_sub(2)).to_vec();
                    rows.push(row);
                }
            }
            let mut rendered = synth.model().generate(&rows).into_iter();
            for voice in batch {
                let mut samples = Vec::new();
                for _ in &lines {
                    samples.extend_from_slice(&rendered.next().expect("one reply per row")?.samples);
                }
                let utterance = encoder.embed(&samples, synth.sample_rate())?;
                voices.push((voice.to_string(), utterance.embedding));
            }
        }
        progress(names.len(), names.len(), "");
        Ok(StockEmbeddings { key: cache_key(), voices })
    }

    /// Reads a cache file; `None` when it is missing, unreadable, or made
    /// under another key (a warning is logged for the last two).
    pub fn load_current(path: &Path) -> Option<StockEmbeddings> {
        let bytes = std::fs::read(path).ok()?;
        match Self::parse(&bytes) {
            Ok(found) if found.is_current() => Some(found),
            Ok(_) => {
                tracing::info!(file = %path.display(), "stock voice embeddings were made by another recipe; recomputing");
                None
            }
            Err(reason) => {
                tracing::warn!(file = %path.display(), %reason, "unreadable stock voice embeddings; recomputing");
                None
            }
        }
    }

    fn parse(bytes: &[u8]) -> std::result::Result<StockEmbeddings, String> {
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes).map_err(|e| e.to_string())?;
        let key = meta.metadata().as_ref().and_then(|m| m.get("key")).cloned().ok_or("no key")?;
        let order: Vec<String> = meta.metadata().as_ref().and_then(|m| m.get("order")).ok_or("no order")?.split(',').map(str::to_string).collect();
        let file = safetensors::SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
        let mut voices = Vec::new();
        for name in order {
            let t = file.tensor(&name).map_err(|e| e.to_string())?;
            if t.shape() != [EMBEDDING_DIM] {
                return Err(format!("{name} has shape {:?}", t.shape()));
            }
            voices.push((name, t.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect()));
        }
        Ok(StockEmbeddings { key, voices })
    }

    /// Writes the cache file atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let blobs: Vec<(String, Vec<u8>)> = self.voices.iter().map(|(n, e)| (n.clone(), e.iter().flat_map(|v| v.to_le_bytes()).collect())).collect();
        let views: HashMap<String, TensorView> =
            blobs.iter().map(|(n, b)| (n.clone(), TensorView::new(Dtype::F32, vec![EMBEDDING_DIM], b).expect("256 floats"))).collect();
        let order = self.voices.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(",");
        let metadata = HashMap::from([("key".to_string(), self.key.clone()), ("order".to_string(), order)]);
        let dir = path.parent().unwrap_or(Path::new("."));
        let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io("create a temporary file in", dir, e))?;
        safetensors::tensor::serialize_to_file(views, Some(metadata), tmp.path())
            .map_err(|e| Error::InvalidInput { input: path.display().to_string(), reason: format!("cannot write embeddings: {e}") })?;
        revoice_core::fsutil::persist(tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_round_trips_and_a_stale_key_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stock.safetensors");
        let voices: Vec<(String, Vec<f32>)> = revoice_model::kokoro::release::stock_voices()
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), (0..EMBEDDING_DIM).map(|j| (i * j) as f32).collect()))
            .collect();
        let current = StockEmbeddings { key: cache_key(), voices };
        current.save(&path).unwrap();
        assert_eq!(StockEmbeddings::load_current(&path), Some(current.clone()));
        StockEmbeddings { key: "old recipe".into(), ..current }.save(&path).unwrap();
        assert_eq!(StockEmbeddings::load_current(&path), None);
        std::fs::write(&path, b"garbage").unwrap();
        assert_eq!(StockEmbeddings::load_current(&path), None);
    }

    #[test]
    fn the_shipped_embeddings_cover_every_stock_voice_in_catalogue_order() {
        let shipped = StockEmbeddings::shipped().expect(
            "the shipped stock embeddings were made under another key: copy a data folder's \
             voices/stock-embeddings.safetensors (computed on first use) over crates/voices/src/stock-embeddings.safetensors",
        );
        let names: Vec<String> = shipped.voices.iter().map(|(n, _)| n.clone()).collect();
        let catalogue: Vec<String> = revoice_model::kokoro::release::stock_voices().into_iter().map(|v| v.name).collect();
        assert_eq!(names, catalogue);
        for (name, embedding) in &shipped.voices {
            let norm = embedding.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{name}: norm {norm}");
        }
    }
}
