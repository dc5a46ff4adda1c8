//! Words into the line of symbols the reference front end writes (misaki's
//! cutlet port): each word spelled by its kind (ASCII as it is, symbols
//! through the punctuation table, kana readings through [`super::kana`],
//! anything else dropped), a space after each word except before closing
//! punctuation and after opening punctuation, then spaces collapsed,
//! ( ) written « », and a glottal stop ʔ joined to the words on either side
//! unless punctuation stands there.

use super::kana::{reading_symbols, symbol};
use super::words::{Word, HIRAGANA, SYMBOL};

/// Why a word cannot be spelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unspellable {
    /// A word of digits (the numbers are read before the words are cut).
    Digits(String),
    /// A small kana after a character that is not a kana.
    Kana(char),
}

/// One word's symbols, by its kind.
pub fn word_symbols(word: &Word) -> Result<String, Unspellable> {
    if !word.surface.is_empty() && word.surface.chars().all(is_digit) {
        return Err(Unspellable::Digits(word.surface.clone()));
    }
    if word.surface.is_ascii() {
        return Ok(word.surface.clone());
    }
    match word.kind {
        SYMBOL => {
            let mut out = String::new();
            for c in word.surface.chars() {
                let mut key = [0u8; 4];
                let key = c.encode_utf8(&mut key);
                out.push_str(symbol(key).unwrap_or(key));
            }
            Ok(out)
        }
        HIRAGANA => reading_symbols(&word.reading).map_err(Unspellable::Kana),
        _ => Ok(String::new()),
    }
}

/// Python's `str.isdigit` for what normalization leaves: ASCII digits,
/// and the digits of no decimal script that NFKC keeps (⓵, ❶, ➀, Ethiopic …).
fn is_digit(c: char) -> bool {
    matches!(c,
        '0'..='9'
        | '\u{1369}'..='\u{1371}'
        | '\u{19da}'
        | '\u{24f5}'..='\u{24fd}'
        | '\u{24ff}'
        | '\u{2776}'..='\u{277e}'
        | '\u{2780}'..='\u{2788}'
        | '\u{278a}'..='\u{2792}'
        | '\u{10a40}'..='\u{10a43}'
        | '\u{10e60}'..='\u{10e68}'
        | '\u{11052}'..='\u{1105a}')
}

/// A spelled word and whether a space follows it.
struct Spelled {
    symbols: String,
    space: bool,
}

/// The line of symbols for a text's words.
pub fn spell_line(words: &[Word]) -> Result<String, Unspellable> {
    let mut spelled: Vec<Spelled> = Vec::with_capacity(words.len());
    for word in words {
        let symbols = word_symbols(word)?;
        let surface = word.surface.as_str();
        // The reference tests these with Python's `in` on strings: a
        // substring test, so an empty spelling counts as an opening mark.
        let space = if "「『«".contains(surface) || "([".contains(symbols.as_str()) {
            if let Some(previous) = spelled.last_mut() {
                previous.space = true;
            }
            false
        } else if "」』»".contains(surface) || "]).,?!:".contains(symbols.as_str()) {
            if let Some(previous) = spelled.last_mut() {
                previous.space = false;
            }
            true
        } else {
            symbols != " "
        };
        spelled.push(Spelled { symbols, space });
    }
    let mut line = String::new();
    for word in &spelled {
        line.extend(word.symbols.chars().filter(|&c| c != 'っ'));
        if word.space {
            line.push(' ');
        }
    }
    Ok(join_glottal_stops(&collapse_spaces(&line).replace('(', "«").replace(')', "»")))
}

/// Python's `str.isspace`.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Spaces trimmed from the ends and each run of them made one space.
fn collapse_spaces(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_space = false;
    for c in line.trim_matches(is_space).chars() {
        if is_space(c) {
            in_space = true;
            continue;
        }
        if in_space {
            out.push(' ');
            in_space = false;
        }
        out.push(c);
    }
    out
}

/// Spaces before a ʔ dropped (unless punctuation is before the space), and
/// after one (unless an opening quote follows).
fn join_glottal_stops(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let before = i.checked_sub(1).map(|p| chars[p]);
            let after = chars.get(i + 1).copied();
            let joins_next = after == Some('ʔ') && !before.is_some_and(|b| "!\",.:;?»—…”".contains(b));
            let joins_previous = before == Some('ʔ') && !after.is_some_and(|a| "\"«“".contains(a));
            if joins_next || joins_previous {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(surface: &str, reading: &str, kind: u8) -> Word {
        Word { surface: surface.into(), reading: reading.into(), kind }
    }

    #[test]
    fn words_are_spaced_and_punctuation_closes_up() {
        let words = [word("こんにちは", "こんにちわ", HIRAGANA), word("、", "、", HIRAGANA), word("世界", "せかい", HIRAGANA), word("!", "!", SYMBOL)];
        assert_eq!(spell_line(&words).unwrap(), "koɲɲiʨiβa, sekai!");
    }

    #[test]
    fn quotes_open_and_close() {
        let words = [word("「", "「", HIRAGANA), word("はい", "はい", HIRAGANA), word("」", "」", HIRAGANA), word("と", "と", HIRAGANA)];
        assert_eq!(spell_line(&words).unwrap(), "“hai” to");
    }

    #[test]
    fn latin_stays_and_unknown_kanji_are_dropped() {
        let words = [word("OK", "OK", 5), word("です", "です", HIRAGANA), word("鬱", "鬱", 2), word("ね", "ね", HIRAGANA)];
        assert_eq!(spell_line(&words).unwrap(), "OK desɨ ne");
    }

    #[test]
    fn a_glottal_stop_joins_its_neighbours() {
        assert_eq!(join_glottal_stops("a ʔ b"), "aʔb");
        assert_eq!(join_glottal_stops(". ʔa ʔ “x"), ". ʔaʔ “x");
    }

    #[test]
    fn brackets_become_guillemets() {
        let words = [word("(", "(", SYMBOL), word("笑", "わら", HIRAGANA), word(")", ")", SYMBOL)];
        assert_eq!(spell_line(&words).unwrap(), "«βaɾa»");
    }

    #[test]
    fn digits_are_not_spelled() {
        assert_eq!(word_symbols(&word("12", "12", 4)), Err(Unspellable::Digits("12".into())));
        assert_eq!(word_symbols(&word("⓵", "⓵", 3)), Err(Unspellable::Digits("⓵".into())));
    }
}
