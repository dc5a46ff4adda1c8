//! The phoneme vocabulary: symbol → token id. Sources ship it in different
//! wrappers (Kokoro's `config.json`, a bare `vocab.json`); both carry a
//! `"vocab"` object. Its identity is the sha256 of a canonical text form, so
//! the same table verifies from any source.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use revoice_core::error::{Error, Result};

/// Symbol → id.
pub type Vocab = BTreeMap<String, u32>;

/// Reads the `"vocab"` object from a JSON file.
pub fn read(path: &Path) -> Result<Vocab> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
    parse(&text).map_err(|reason| Error::InvalidInput { input: path.display().to_string(), reason })
}

/// Parses `{"vocab": {symbol: id, ...}, ...}`.
pub fn parse(text: &str) -> std::result::Result<Vocab, String> {
    #[derive(serde::Deserialize)]
    struct Wrapper {
        vocab: Vocab,
    }
    let w: Wrapper = serde_json::from_str(text).map_err(|e| format!("not a vocabulary file: {e}"))?;
    if w.vocab.is_empty() {
        return Err("the vocabulary is empty".into());
    }
    Ok(w.vocab)
}

/// sha256 of `symbol\tid\n` lines ordered by id, then symbol.
pub fn canonical_sha256(vocab: &Vocab) -> String {
    let mut pairs: Vec<_> = vocab.iter().collect();
    pairs.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(b.0)));
    let mut hasher = Sha256::new();
    for (symbol, id) in pairs {
        hasher.update(format!("{symbol}\t{id}\n").as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// Reads a vocabulary file and checks it against the pinned hash.
pub fn read_verified(path: &Path, expected: &str) -> Result<Vocab> {
    let vocab = read(path)?;
    let actual = canonical_sha256(&vocab);
    if actual != expected {
        return Err(Error::InvalidInput { input: path.display().to_string(), reason: format!("vocabulary hash {actual} is not the pinned {expected}") });
    }
    Ok(vocab)
}

/// Writes the vocabulary as `{"vocab": {...}}`.
pub fn write(path: &Path, vocab: &Vocab) -> Result<()> {
    let json = serde_json::json!({ "vocab": vocab });
    revoice_core::fsutil::write_atomically(path, serde_json::to_string_pretty(&json).expect("json").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_table_in_different_wrappers_hashes_the_same() {
        let bare = parse(r#"{"vocab": {"a": 43, ";": 1}}"#).unwrap();
        let config = parse(r#"{"istftnet": {}, "n_token": 178, "vocab": {";": 1, "a": 43}}"#).unwrap();
        assert_eq!(canonical_sha256(&bare), canonical_sha256(&config));
        let other = parse(r#"{"vocab": {"a": 44, ";": 1}}"#).unwrap();
        assert_ne!(canonical_sha256(&bare), canonical_sha256(&other));
    }

    #[test]
    fn files_without_a_vocabulary_are_rejected_with_a_reason() {
        assert!(parse("{}").unwrap_err().contains("not a vocabulary"));
        assert!(parse(r#"{"vocab": {}}"#).unwrap_err().contains("empty"));
        assert!(parse("garbage").is_err());
    }
}
