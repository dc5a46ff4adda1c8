//! What a run of Chinese characters reads as: jieba's words (its embedded
//! dictionary, HMM for words outside it), and for each word its syllables
//! with their tones, as the reference (pypinyin's phrase table) reads them.
//! Within a word, the longest phrases of phrase-pinyin-data come first (so
//! 银行 is yín háng and 觉得 jué de), every other character takes its first
//! reading in pinyin-data. phrase-pinyin-data marks far more neutral tones
//! than the reference's table does (起来, 时候, 朋友 keep their full tones
//! there), so a phrase's neutral tone stands only on the suffixes the
//! reference also leaves toneless (得, 头, 伙); a short table holds the
//! common words the two dictionaries read differently. No tone sandhi:
//! Kokoro v1.0's Mandarin voices were trained on dictionary tones.

use std::sync::OnceLock;

use jieba_rs::Jieba;
use pinyin::ToPinyin;
use revoice_core::error::{Error, Result};

use super::symbols::Syllable;

fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

/// The words of a run of Chinese characters, in order.
pub fn words(run: &str) -> Vec<&str> {
    jieba().cut(run, true).into_iter().map(|token| token.word).collect()
}

/// The syllables of one word, one per character.
pub fn word_syllables(word: &str) -> Result<Vec<Syllable>> {
    if let Some(reading) = reference_reading(word) {
        return Ok(reading);
    }
    if word.chars().all(|c| NUMERALS.contains(c)) {
        return numeral_syllables(word);
    }
    let mut syllables = Vec::with_capacity(word.chars().count());
    let mut rest = word;
    for (phrase, reading) in phrase_pinyin::match_word_pinyin(word) {
        // Characters the phrase dictionary does not know come back unmatched:
        // read them one by one before the phrase.
        let at = rest.find(phrase.as_str()).unwrap_or(rest.len());
        for c in rest[..at].chars() {
            syllables.push(char_syllable(c, word)?);
        }
        rest = &rest[(at + phrase.len()).min(rest.len())..];
        if let Some(reading) = reference_reading(&phrase) {
            syllables.extend(reading);
            continue;
        }
        if phrase.chars().count() == 1 {
            // Single characters take pinyin-data's first reading (the phrase
            // table's single entries may be a surname reading).
            syllables.push(char_syllable(phrase.chars().next().unwrap_or(' '), word)?);
            continue;
        }
        let read: Option<Vec<Syllable>> = reading.split_whitespace().map(parse_marked).collect();
        match read {
            Some(read) if read.len() == phrase.chars().count() => {
                for (c, syllable) in phrase.chars().zip(read) {
                    if syllable.tone == 5 && !KEEPS_NEUTRAL.contains(&c) {
                        syllables.push(char_syllable(c, word)?);
                    } else {
                        syllables.push(syllable);
                    }
                }
            }
            _ => {
                for c in phrase.chars() {
                    syllables.push(char_syllable(c, word)?);
                }
            }
        }
    }
    for c in rest.chars() {
        syllables.push(char_syllable(c, word)?);
    }
    Ok(syllables)
}

/// Suffixes whose neutral tone in a phrase the reference keeps.
const KEEPS_NEUTRAL: [char; 3] = ['得', '头', '伙'];

/// Common words the reference reads otherwise than phrase-pinyin-data.
const REFERENCE_WORDS: [(&str, &str); 35] = [
    ("这个", "zhè ge"),
    ("那个", "nà ge"),
    ("哪个", "nǎ ge"),
    ("那些", "nà xiē"),
    ("哪些", "nǎ xiē"),
    ("甚么", "shén me"),
    ("只见", "zhǐ jiàn"),
    ("一天", "yī tiān"),
    ("一场", "yī cháng"),
    ("一部分", "yī bù fèn"),
    ("第一个", "dì yí gè"),
    ("一个个", "yí gè gè"),
    ("一会儿", "yī huì er"),
    ("一点儿", "yì diǎn ér"),
    ("一点点", "yì diǎn diǎn"),
    ("意思", "yì si"),
    ("高兴", "gāo xìng"),
    ("首都", "shǒu dū"),
    ("功夫", "gōng fu"),
    ("教学", "jiào xué"),
    ("上去", "shàng qù"),
    ("电子", "diàn zi"),
    ("男子", "nán zi"),
    ("小子", "xiǎo zi"),
    ("忍不住", "rěn bú zhù"),
    ("差不多", "chà bu duō"),
    ("影片", "yǐng piàn"),
    ("婆婆", "pó po"),
    ("弟弟", "dì di"),
    ("大夫", "dà fū"),
    ("便宜", "pián yi"),
    ("取得", "qǔ dé"),
    ("变得", "biàn dé"),
    ("难得", "nán dé"),
    ("只得", "zhǐ dé"),
];

/// The reference's own reading of a common word, where it differs.
fn reference_reading(phrase: &str) -> Option<Vec<Syllable>> {
    let (_, reading) = REFERENCE_WORDS.iter().find(|(word, _)| *word == phrase)?;
    reading.split_whitespace().map(parse_marked).collect()
}

/// The characters of a number written out (see `numbers`).
const NUMERALS: &str = "零一二三四五六七八九十百千万亿两点负";

/// A number written out: each numeral by its own reading, except 一 before
/// 百 or 点, which the reference reads yì (一百, 一点).
fn numeral_syllables(word: &str) -> Result<Vec<Syllable>> {
    let chars: Vec<char> = word.chars().collect();
    let mut syllables = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let before_unit = matches!(chars.get(i + 1), Some('百' | '点'));
        if c == '一' && before_unit {
            syllables.push(Syllable { letters: "yi".into(), tone: 4 });
        } else {
            syllables.push(char_syllable(c, word)?);
        }
    }
    Ok(syllables)
}

/// A character's first reading.
fn char_syllable(c: char, word: &str) -> Result<Syllable> {
    c.to_pinyin().and_then(|reading| parse_marked(reading.with_tone())).ok_or_else(|| Error::invalid(word, format!("no Mandarin reading for '{c}'")))
}

/// A syllable written with tone marks (`zhǒng`, `lǜ`, `de`, `ń`) as letters
/// and a tone number; the neutral tone (no mark) is 5.
pub fn parse_marked(marked: &str) -> Option<Syllable> {
    let mut letters = String::with_capacity(marked.len());
    let mut tone = 5;
    for c in marked.chars() {
        let (base, mark) = match c {
            'ā' => ('a', 1),
            'á' => ('a', 2),
            'ǎ' => ('a', 3),
            'à' => ('a', 4),
            'ē' => ('e', 1),
            'é' => ('e', 2),
            'ě' => ('e', 3),
            'è' => ('e', 4),
            'ī' => ('i', 1),
            'í' => ('i', 2),
            'ǐ' => ('i', 3),
            'ì' => ('i', 4),
            'ō' => ('o', 1),
            'ó' => ('o', 2),
            'ǒ' => ('o', 3),
            'ò' => ('o', 4),
            'ū' => ('u', 1),
            'ú' => ('u', 2),
            'ǔ' => ('u', 3),
            'ù' => ('u', 4),
            'ǖ' => ('ü', 1),
            'ǘ' => ('ü', 2),
            'ǚ' => ('ü', 3),
            'ǜ' => ('ü', 4),
            'ḿ' => ('m', 2),
            'ń' => ('n', 2),
            'ň' => ('n', 3),
            'ǹ' => ('n', 4),
            'ế' => ('ê', 2),
            'ề' => ('ê', 4),
            '\u{304}' => (' ', 1),
            '\u{301}' => (' ', 2),
            '\u{30c}' => (' ', 3),
            '\u{300}' => (' ', 4),
            'v' => ('ü', 0),
            c if c.is_ascii_lowercase() || c == 'ü' || c == 'ê' => (c, 0),
            _ => return None,
        };
        if base != ' ' {
            letters.push(base);
        }
        if mark != 0 {
            tone = mark;
        }
    }
    (!letters.is_empty()).then_some(Syllable { letters, tone })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tones(word: &str) -> Vec<(String, u8)> {
        word_syllables(word).unwrap().into_iter().map(|s| (s.letters, s.tone)).collect()
    }

    #[test]
    fn marked_syllables() {
        assert_eq!(parse_marked("zhǒng"), Some(Syllable { letters: "zhong".into(), tone: 3 }));
        assert_eq!(parse_marked("lǜ"), Some(Syllable { letters: "lü".into(), tone: 4 }));
        assert_eq!(parse_marked("de"), Some(Syllable { letters: "de".into(), tone: 5 }));
        assert_eq!(parse_marked("ń"), Some(Syllable { letters: "n".into(), tone: 2 }));
        assert_eq!(parse_marked("m\u{304}"), Some(Syllable { letters: "m".into(), tone: 1 }));
        assert_eq!(parse_marked("OK"), None);
    }

    #[test]
    fn polyphones_read_by_word() {
        assert_eq!(tones("银行")[1], ("hang".into(), 2));
        assert_eq!(tones("行李")[0], ("xing".into(), 2));
        assert_eq!(tones("觉得")[1], ("de".into(), 5));
        assert_eq!(tones("长大")[0], ("zhang".into(), 3));
        assert_eq!(tones("重要")[0], ("zhong".into(), 4));
    }

    #[test]
    fn numbers_read_numeral_by_numeral() {
        let read = tones("一百一十");
        assert_eq!(read[0], ("yi".into(), 4));
        assert_eq!(read[2], ("yi".into(), 1));
        assert_eq!(tones("三点一四")[2], ("yi".into(), 1));
    }

    #[test]
    fn words_split_a_run() {
        assert_eq!(words("我们明天见"), vec!["我们", "明天", "见"]);
    }
}
