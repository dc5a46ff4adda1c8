//! The text as the reference front end hands it to the word cutter
//! (misaki's cutlet `_normalize_text`): a wave dash before a digit read as
//! から (10〜20 → 10から20), the small katakana of the phonetic extensions
//! (ㇰ ㇱ …) as ordinary katakana, Unicode NFKC (full-width Latin and digits
//! to ASCII, half-width katakana to full-width, … to ...), the curly quotes
//! ‘ ’ ” as ` ' " (mojimoji's full-width-to-half-width table; “ stays), and
//! every run of digits as its hiragana reading after a space
//! ([`super::numbers`]).

use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use super::numbers::read_number;

/// The phonetic-extension small katakana and the katakana they stand for.
const PHONETIC_EXTENSIONS: [(char, char); 16] = [
    ('ㇰ', 'ク'),
    ('ㇱ', 'シ'),
    ('ㇲ', 'ス'),
    ('ㇳ', 'ト'),
    ('ㇴ', 'ヌ'),
    ('ㇵ', 'ハ'),
    ('ㇶ', 'ヒ'),
    ('ㇷ', 'フ'),
    ('ㇸ', 'ヘ'),
    ('ㇹ', 'ホ'),
    ('ㇺ', 'ム'),
    ('ㇻ', 'ラ'),
    ('ㇼ', 'リ'),
    ('ㇽ', 'ル'),
    ('ㇾ', 'レ'),
    ('ㇿ', 'ロ'),
];

fn wave_dash_range() -> &'static Regex {
    static RANGE: OnceLock<Regex> = OnceLock::new();
    RANGE.get_or_init(|| Regex::new(r"[〜～](\d)").expect("a valid pattern"))
}

/// `text` normalized and with its numbers read, or `Err` with a run of
/// digits of a script the reference has no reading for (e.g. ٣).
pub fn normalize(text: &str) -> Result<String, String> {
    let text = wave_dash_range().replace_all(text, "から$1");
    let text: String = text.chars().map(|c| PHONETIC_EXTENSIONS.iter().find(|(small, _)| *small == c).map_or(c, |(_, kana)| *kana)).collect();
    let text: String = text
        .nfkc()
        .map(|c| match c {
            '\u{2018}' => '`',
            '\u{2019}' => '\'',
            '\u{201d}' => '"',
            c => c,
        })
        .collect();
    read_numbers(&text)
}

/// Each run of decimal digits replaced by a space and its reading.
fn read_numbers(text: &str) -> Result<String, String> {
    static DIGITS: OnceLock<Regex> = OnceLock::new();
    let digits = DIGITS.get_or_init(|| Regex::new(r"\d+").expect("a valid pattern"));
    let mut out = String::with_capacity(text.len() * 2);
    let mut last = 0;
    for run in digits.find_iter(text) {
        out.push_str(&text[last..run.start()]);
        if !run.as_str().bytes().all(|b| b.is_ascii_digit()) {
            return Err(run.as_str().to_string());
        }
        out.push(' ');
        out.push_str(&read_number(run.as_str()));
        last = run.end();
    }
    out.push_str(&text[last..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_width_forms_and_numbers() {
        assert_eq!(normalize("ＡＢＣ１２３！").unwrap(), "ABC ひゃくにじゅうさん!");
        assert_eq!(normalize("3時").unwrap(), " さん時");
        assert_eq!(normalize("ｶﾞｯﾂ").unwrap(), "ガッツ");
    }

    #[test]
    fn a_wave_dash_before_a_digit_is_a_range() {
        assert_eq!(normalize("5〜10分").unwrap(), " ごから じゅう分");
        assert_eq!(normalize("えー〜").unwrap(), "えー〜");
    }

    #[test]
    fn ellipsis_and_quotes() {
        assert_eq!(normalize("えっ…“本当”").unwrap(), "えっ...“本当\"");
    }

    #[test]
    fn digits_of_another_script_are_refused() {
        assert_eq!(normalize("٣个"), Err("٣".to_string()));
    }
}
