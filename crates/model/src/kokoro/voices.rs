//! Stock voice packs and blends. A pack is a `[510, 256]` table with one
//! style vector per phoneme count; a line uses the row for its length. A
//! blend is a weighted mix of packs, weights normalised to sum to one.

use std::collections::BTreeMap;
use std::path::Path;

use safetensors::SafeTensors;

use super::release::{STYLE_DIM, VOICE_ROWS};
use revoice_core::error::{Error, Result};

/// One voice's style table.
#[derive(Debug, Clone, PartialEq)]
pub struct VoicePack {
    rows: Vec<f32>,
}

impl VoicePack {
    /// A pack from its `[510, 256]` rows, row-major.
    pub fn from_rows(rows: Vec<f32>) -> VoicePack {
        assert_eq!(rows.len(), VOICE_ROWS * STYLE_DIM, "a voice pack is {VOICE_ROWS} rows of {STYLE_DIM}");
        VoicePack { rows }
    }

    /// Every row, row-major `[510, 256]`.
    pub fn rows(&self) -> &[f32] {
        &self.rows
    }

    /// The style vector for a line of `phonemes` phonemes.
    pub fn style_for(&self, phonemes: usize) -> &[f32] {
        let row = phonemes.clamp(1, VOICE_ROWS) - 1;
        &self.rows[row * STYLE_DIM..(row + 1) * STYLE_DIM]
    }
}

/// All stock packs, loaded from the engine's `voices.safetensors`.
pub struct StockVoices {
    packs: BTreeMap<String, VoicePack>,
}

impl StockVoices {
    /// From packs already made (tests, synthetic voices).
    pub fn from_packs(packs: BTreeMap<String, VoicePack>) -> StockVoices {
        StockVoices { packs }
    }

    pub fn load(path: &Path) -> Result<StockVoices> {
        let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| Error::InvalidInput {
            input: path.display().to_string(),
            reason: format!("not a voices file ({e}): run `revoice models install --force`"),
        })?;
        let mut packs = BTreeMap::new();
        for (name, view) in file.tensors() {
            if view.shape() != [VOICE_ROWS, STYLE_DIM] {
                return Err(Error::InvalidInput { input: path.display().to_string(), reason: format!("voice {name} has shape {:?}", view.shape()) });
            }
            let rows = view.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
            packs.insert(name, VoicePack { rows });
        }
        Ok(StockVoices { packs })
    }

    /// Voice names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.packs.keys().map(String::as_str)
    }

    /// A stock pack by name; the error lists the voices there are.
    pub fn get(&self, name: &str) -> Result<&VoicePack> {
        self.packs.get(name).ok_or_else(|| {
            Error::not_found(format!("voice {name:?}"), format!("unknown voice; the stock voices are: {}", self.names().collect::<Vec<_>>().join(", ")))
        })
    }

    /// Every pack by name, sorted by name.
    pub fn packs(&self) -> impl Iterator<Item = (&str, &VoicePack)> {
        self.packs.iter().map(|(name, pack)| (name.as_str(), pack))
    }

    /// A weighted blend of stock packs, e.g. `[("af_heart", 0.7), ("af_bella", 0.3)]`.
    pub fn blend(&self, parts: &[(&str, f32)]) -> Result<VoicePack> {
        let total: f32 = parts.iter().map(|(_, w)| w).sum();
        if parts.is_empty() || parts.iter().any(|(_, w)| !w.is_finite() || *w < 0.0) || total <= 0.0 {
            return Err(Error::InvalidInput {
                input: "voice blend".into(),
                reason: "needs at least one voice and non-negative weights that sum above zero".into(),
            });
        }
        let mut rows = vec![0f32; VOICE_ROWS * STYLE_DIM];
        for (name, weight) in parts {
            let pack = self.get(name)?;
            for (r, v) in rows.iter_mut().zip(&pack.rows) {
                *r += v * weight / total;
            }
        }
        Ok(VoicePack { rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> StockVoices {
        let mut packs = BTreeMap::new();
        packs.insert("a".to_string(), VoicePack { rows: vec![1.0; VOICE_ROWS * STYLE_DIM] });
        let rows = (0..VOICE_ROWS * STYLE_DIM).map(|i| (i / STYLE_DIM) as f32).collect();
        packs.insert("b".to_string(), VoicePack { rows });
        StockVoices { packs }
    }

    #[test]
    fn a_line_uses_the_row_for_its_phoneme_count() {
        let lib = library();
        let b = lib.get("b").unwrap();
        assert_eq!(b.style_for(1)[0], 0.0);
        assert_eq!(b.style_for(42)[0], 41.0);
        assert_eq!(b.style_for(10_000)[0], 509.0);
        assert_eq!(b.style_for(0)[0], 0.0);
    }

    #[test]
    fn blends_are_normalised_weighted_means() {
        let lib = library();
        let mix = lib.blend(&[("a", 3.0), ("b", 1.0)]).unwrap();
        assert!((mix.style_for(5)[0] - (0.75 + 0.25 * 4.0)).abs() < 1e-6);
        assert!(lib.blend(&[("a", 0.0)]).is_err());
    }

    #[test]
    fn an_unknown_voice_lists_the_known_ones() {
        let err = library().get("zz_nobody").unwrap_err().to_string();
        assert!(err.contains("zz_nobody") && err.contains("a, b"), "{err}");
    }
}
