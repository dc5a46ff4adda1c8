//! Phoneme strings to model tokens, in chunks of at most one pass.

use std::collections::BTreeMap;

use super::sentences::{split_phonemes, split_sentences};
use revoice_core::error::{Error, Result};

/// One model pass worth of phonemes.
#[derive(Debug, Clone, PartialEq)]
pub struct PhonemeChunk {
    /// The text it came from.
    pub text: String,
    pub phonemes: String,
    /// Token ids with the leading and trailing pad (0).
    pub tokens: Vec<u32>,
}

/// Maps phoneme symbols to token ids.
pub struct Tokenizer {
    vocab: BTreeMap<String, u32>,
    max_phonemes: usize,
}

impl Tokenizer {
    pub fn new(vocab: BTreeMap<String, u32>, max_phonemes: usize) -> Tokenizer {
        Tokenizer { vocab, max_phonemes }
    }

    /// Token ids for a phoneme string; symbols outside the vocabulary are skipped.
    pub fn tokens(&self, phonemes: &str) -> Vec<u32> {
        let mut ids = vec![0];
        let mut buf = [0u8; 4];
        ids.extend(phonemes.chars().filter_map(|c| self.vocab.get(&*c.encode_utf8(&mut buf)).copied()));
        ids.push(0);
        ids
    }

    /// Text → chunks: sentences, phonemized by `phonemize`, split further
    /// when a sentence is longer than one pass.
    pub fn chunks(&self, text: &str, phonemize: impl Fn(&str) -> Result<String>) -> Result<Vec<PhonemeChunk>> {
        if text.trim().is_empty() {
            return Err(Error::InvalidInput { input: "text".into(), reason: "is empty: there is nothing to say".into() });
        }
        let visible = super::normalize::speakable(text);
        let mut chunks = Vec::new();
        for sentence in split_sentences(&visible) {
            let phonemes = phonemize(&sentence)?;
            for part in split_phonemes(&phonemes, self.max_phonemes) {
                let tokens = self.tokens(&part);
                if tokens.len() > 2 {
                    chunks.push(PhonemeChunk { text: sentence.clone(), phonemes: part, tokens });
                }
            }
        }
        if chunks.is_empty() {
            return Err(Error::InvalidInput {
                input: format!("text {:?}", text.chars().take(40).collect::<String>()),
                reason: "has no words that can be spoken (only symbols or unsupported characters)".into(),
            });
        }
        Ok(chunks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer(max: usize) -> Tokenizer {
        let vocab = [("a", 43u32), ("b", 44), (" ", 16), (".", 4)].iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Tokenizer::new(vocab, max)
    }

    #[test]
    fn tokens_are_padded_and_unknown_symbols_skipped() {
        assert_eq!(tokenizer(10).tokens("ab😀 a."), vec![0, 43, 44, 16, 43, 4, 0]);
    }

    #[test]
    fn empty_or_unspeakable_text_is_a_clear_error() {
        let t = tokenizer(10);
        let same = |s: &str| Ok(s.to_string());
        assert!(t.chunks("  \n\t ", same).unwrap_err().to_string().contains("empty"));
        assert!(t.chunks("😀😀", same).unwrap_err().to_string().contains("no words that can be spoken"));
    }

    #[test]
    fn twenty_thousand_characters_of_real_english_split_into_passes_quickly() {
        let g2p = crate::EnglishPhonemizer::new(crate::Accent::Us);
        let vocab: BTreeMap<String, u32> =
            "abcdefghijklmnopqrstuvwxyzæðŋɑɔəɛɜɪɹʃʊʌʒʤʧˈˌAIOWYT .,!?".chars().enumerate().map(|(i, c)| (c.to_string(), i as u32 + 1)).collect();
        let t = Tokenizer::new(vocab, 510);
        let sentence = "The quick brown fox jumps over the lazy dog while seven bright stars shine above the quiet hills, ";
        let text: String = sentence.repeat(20_000 / sentence.len() + 1).chars().take(20_000).collect();
        let start = std::time::Instant::now();
        let chunks = t.chunks(&text, |s| g2p.phonemize(s)).unwrap();
        assert!(chunks.len() > 20, "{}", chunks.len());
        assert!(chunks.iter().all(|c| c.tokens.len() <= 512));
        eprintln!("{} chunks in {:?}", chunks.len(), start.elapsed());
    }

    #[test]
    fn long_text_becomes_chunks_no_longer_than_one_pass() {
        let t = tokenizer(8);
        let chunks = t.chunks("ab ab ab ab ab. ab.", |s| Ok(s.to_string())).unwrap();
        assert!(chunks.iter().all(|c| c.tokens.len() <= 10), "{chunks:?}");
        assert_eq!(chunks.last().unwrap().phonemes, "ab.");
    }
}
