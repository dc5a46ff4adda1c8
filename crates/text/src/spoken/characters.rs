//! What a Chinese or Japanese text says, character by character: these
//! languages are written without spaces between words, so a script and
//! what Whisper heard of it are compared by characters. Both are folded
//! alike first: full-width letters and digits as ASCII ones, figures
//! written out in Han numerals (so "320" and "三百二十" agree), and in
//! Japanese katakana as hiragana (Whisper writes a word in either).
//! A run of Latin letters ("OK", "DVD") stays one word.

use std::sync::OnceLock;

use regex::Regex;

use super::{joined_digit_groups, Spoken};

/// The languages compared by characters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum CharacterLanguage {
    Chinese,
    Japanese,
}

/// Which language a tag names, by its primary subtag, if it is one of these.
pub(super) fn character_language(language: &str) -> Option<CharacterLanguage> {
    let tag = language.trim().to_ascii_lowercase();
    match tag.split(['-', '_']).next().unwrap_or("") {
        "zh" | "cmn" | "yue" => Some(CharacterLanguage::Chinese),
        "ja" => Some(CharacterLanguage::Japanese),
        _ => None,
    }
}

/// `text` as the characters it says, each a word; Latin letter runs whole.
pub(super) fn characters(text: &str, language: CharacterLanguage) -> Vec<Spoken> {
    let folded: String = text.chars().map(half_width).collect();
    let joined = joined_digit_groups(&folded);
    let written = match language {
        CharacterLanguage::Chinese => crate::mandarin::write_out_numbers(&joined),
        CharacterLanguage::Japanese => japanese_numbers(&joined),
    };
    let mut words = Vec::new();
    let mut latin = String::new();
    for c in written.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            latin.push(c);
            continue;
        }
        if !latin.is_empty() {
            words.push(Spoken::Word(std::mem::take(&mut latin)));
        }
        if c.is_alphanumeric() {
            let c = if language == CharacterLanguage::Japanese { hiragana(c) } else { c };
            words.push(Spoken::Word(c.to_string()));
        }
    }
    if !latin.is_empty() {
        words.push(Spoken::Word(latin));
    }
    words
}

/// A full-width ASCII character as its ASCII form.
fn half_width(c: char) -> char {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
        '\u{3000}' => ' ',
        c => c,
    }
}

/// A katakana letter as its hiragana (ヴ and the small ones included).
fn hiragana(c: char) -> char {
    match c {
        '\u{30a1}'..='\u{30f6}' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
        c => c,
    }
}

/// `text` with each run of ASCII digits written in Japanese Han numerals.
fn japanese_numbers(text: &str) -> String {
    static DIGITS: OnceLock<Regex> = OnceLock::new();
    let digits = DIGITS.get_or_init(|| Regex::new(r"\d+").expect("a valid pattern"));
    digits
        .replace_all(text, |c: &regex::Captures| match c[0].parse::<u64>() {
            Ok(n) if c[0].len() <= 16 => kanji_number(n),
            _ => c[0].to_string(),
        })
        .into_owned()
}

/// `n` in Japanese Han numerals: 十, 百 and 千 without a leading 一,
/// groups of four digits under 万, 億 and 兆.
fn kanji_number(n: u64) -> String {
    const DIGITS: [&str; 10] = ["〇", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    if n == 0 {
        return DIGITS[0].to_string();
    }
    let below_ten_thousand = |n: u64| -> String {
        let mut out = String::new();
        for (unit, mark) in [(1000, "千"), (100, "百"), (10, "十")] {
            let d = (n / unit) % 10;
            if d > 0 {
                if d > 1 {
                    out.push_str(DIGITS[d as usize]);
                }
                out.push_str(mark);
            }
        }
        if !n.is_multiple_of(10) {
            out.push_str(DIGITS[(n % 10) as usize]);
        }
        out
    };
    let mut out = String::new();
    for (group, mark) in [(1_0000_0000_0000u64, "兆"), (1_0000_0000, "億"), (1_0000, "万")] {
        let part = (n / group) % 1_0000;
        if part > 0 {
            out.push_str(&below_ten_thousand(part));
            out.push_str(mark);
        }
    }
    out.push_str(&below_ten_thousand(n % 1_0000));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str, language: &str) -> Vec<String> {
        characters(text, character_language(language).unwrap())
            .into_iter()
            .map(|s| match s {
                Spoken::Word(w) => w,
                Spoken::Readings(r) => r[0].join(" "),
            })
            .collect()
    }

    #[test]
    fn chinese_is_read_character_by_character_with_figures_in_han_numerals() {
        assert_eq!(said("这本书一共320页。", "zh"), said("这本书一共三百二十页", "zh-CN"));
        assert_eq!(said("你好，ＯＫ！", "zh"), ["你", "好", "ok"]);
        assert_eq!(said("我有 1,000 元", "zh").concat(), "我有一千元");
    }

    #[test]
    fn japanese_folds_katakana_to_hiragana_and_writes_figures_in_han_numerals() {
        assert_eq!(said("コーヒーを3杯", "ja"), said("こーひーを三杯", "ja"));
        assert_eq!(kanji_number(320), "三百二十");
        assert_eq!(kanji_number(1000), "千");
        assert_eq!(kanji_number(10_000), "一万");
        assert_eq!(kanji_number(12_345), "一万二千三百四十五");
        assert_eq!(kanji_number(2_0001_0000), "二億一万");
        assert_eq!(said("午後７時半、ＤＶＤを見た。", "ja").concat(), "午後七時半dvdを見た");
    }
}
