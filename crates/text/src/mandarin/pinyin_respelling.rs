//! Pinyin written by a person, read as Mandarin: a dictionary respelling
//! such as `Lǐ Míng`, `li3 ming2` or `Běijīng` said with exactly the
//! syllables and tones it spells. Text is taken as pinyin only when every
//! word splits into pinyin syllables and at least one carries a tone (a
//! mark or a digit), so an English word is never read as pinyin.

use super::readings::parse_marked;
use super::symbols::{kokoro_symbols, Syllable};

/// The longest pinyin syllable in letters (`zhuang`).
const LONGEST_SYLLABLE: usize = 6;

/// Kokoro symbols for pinyin text, words separated by spaces; `None` when
/// it is not pinyin with tones.
pub fn pinyin_phonemes(text: &str) -> Option<String> {
    let mut toned = false;
    let mut words = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '’' | '-')).filter(|w| !w.is_empty()) {
        let chars: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
        let mut symbols = String::new();
        let mut at = 0;
        while at < chars.len() {
            let (syllable, used, marked) = longest_syllable(&chars[at..])?;
            toned |= marked;
            symbols.push_str(&kokoro_symbols(&syllable)?);
            at += used;
        }
        words.push(symbols);
    }
    (toned && !words.is_empty()).then(|| words.join(" "))
}

/// The longest syllable `chars` starts with, the characters it takes (its
/// tone digit included), and whether its tone was written.
fn longest_syllable(chars: &[char]) -> Option<(Syllable, usize, bool)> {
    (1..=chars.len().min(LONGEST_SYLLABLE + 2)).rev().find_map(|len| {
        let letters: String = chars[..len].iter().collect();
        let mut syllable = parse_marked(&letters)?;
        let mut marked = syllable.tone != 5;
        let mut used = len;
        if let Some(digit) = chars.get(len).and_then(|c| c.to_digit(10)).filter(|d| *d <= 5) {
            syllable.tone = if digit == 0 { 5 } else { digit as u8 };
            marked = true;
            used += 1;
        }
        kokoro_symbols(&syllable)?;
        Some((syllable, used, marked))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinyin_with_marks_or_digits_reads_as_its_syllables() {
        let marked = pinyin_phonemes("Lǐ Míng").unwrap();
        assert_eq!(pinyin_phonemes("li3 ming2").as_deref(), Some(marked.as_str()));
        assert_eq!(marked.split(' ').count(), 2);
        assert!(marked.contains('↓') && marked.contains('↗'), "{marked}");
        assert_eq!(pinyin_phonemes("Běijīng").unwrap(), pinyin_phonemes("bei3jing1").unwrap());
        assert_eq!(pinyin_phonemes("Xī'ān").unwrap().split(' ').count(), 2);
    }

    #[test]
    fn words_that_are_not_pinyin_with_tones_are_not_read_as_pinyin() {
        assert_eq!(pinyin_phonemes("Shiv-awn"), None);
        assert_eq!(pinyin_phonemes("ma ma"), None, "no tone written");
        assert_eq!(pinyin_phonemes("Hello"), None);
        assert_eq!(pinyin_phonemes(""), None);
    }
}
