//! Mandarin Chinese text into Kokoro v1.0 phonemes, the way the Mandarin
//! voices (zf_*, zm_*) were trained: numerals written out (`numbers`),
//! Chinese punctuation mapped to ASCII (`punctuation`), each run of Chinese
//! characters cut into words and read with dictionary tones (`readings`),
//! and each syllable spelled in Kokoro's symbols with a tone arrow
//! (`symbols`). Words are separated by spaces; text between the runs of
//! Chinese characters (punctuation, Latin letters such as "OK") is kept as
//! it is, which is what the reference front end does. Pinyin with tones
//! (a dictionary respelling) reads as the syllables it spells.

mod numbers;
mod pinyin_respelling;
mod punctuation;
mod readings;
mod symbols;

use revoice_core::error::{Error, Result};

pub use numbers::write_out_numbers;
pub use pinyin_respelling::pinyin_phonemes;
pub use punctuation::map_punctuation;

/// The Kokoro phoneme string for a Mandarin text: words separated by
/// spaces, punctuation as ASCII marks. Fails, naming the text, when a
/// Chinese character has no reading.
pub fn phonemize(text: &str) -> Result<String> {
    if text.trim().is_empty() {
        return Ok(String::new());
    }
    if !text.chars().any(is_chinese) {
        if let Some(pinyin) = pinyin_phonemes(text) {
            return Ok(pinyin);
        }
    }
    let text = map_punctuation(&write_out_numbers(text));
    let mut out = String::with_capacity(text.len() * 3);
    for (run, chinese) in runs(&text) {
        if !chinese {
            out.push_str(run);
            continue;
        }
        for (i, word) in readings::words(run).into_iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            for syllable in readings::word_syllables(word)? {
                let symbols = symbols::kokoro_symbols(&syllable)
                    .ok_or_else(|| Error::invalid(text.as_str(), format!("'{}' in '{word}' is not a Mandarin syllable", syllable.letters)))?;
                out.push_str(&symbols);
            }
        }
    }
    Ok(out)
}

/// Whether a character is one the reference reads as Chinese (the CJK
/// Unified Ideographs block).
fn is_chinese(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// The text cut into alternating runs, each with whether it is Chinese.
fn runs(text: &str) -> Vec<(&str, bool)> {
    let mut runs = Vec::new();
    let mut start = 0;
    let mut current = None;
    for (at, c) in text.char_indices() {
        let chinese = is_chinese(c);
        if current.is_some_and(|kind| kind != chinese) {
            runs.push((&text[start..at], !chinese));
            start = at;
        }
        current = Some(chinese);
    }
    if let Some(chinese) = current {
        runs.push((&text[start..], chinese));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_with_punctuation() {
        assert_eq!(phonemize("你好，世界。").unwrap(), "ni↓xau↓, ʂɨ↘ʨje↘.");
    }

    #[test]
    fn latin_letters_pass_through() {
        assert_eq!(phonemize("DNA检测").unwrap(), "DNAʨjɛ↓nʦʰɤ↘");
    }

    #[test]
    fn numbers_are_read() {
        assert_eq!(phonemize("3.14").unwrap(), "sa→ntjɛ↓n i→ sɨ↘");
        assert_eq!(phonemize("50%").unwrap(), "pai↓fə→nꭧɨ→u↓ʂɨ↗");
    }

    #[test]
    fn empty_text() {
        assert_eq!(phonemize("  ").unwrap(), "");
    }

    #[test]
    fn runs_alternate() {
        assert_eq!(runs("你OK吗"), vec![("你", true), ("OK", false), ("吗", true)]);
    }
}
