//! The words of a text as the reference front end sees them (misaki's
//! cutlet port): each dictionary word with its reading (UniDic's `pron`
//! field, else `kana`, else the surface itself, in hiragana) and its kind
//! (kana for every dictionary word and for unknown katakana; the character
//! category for other unknown words), then runs of words of one kind joined
//! into the longest ones the word list (misaki's `ja_words.txt`) holds, so
//! that a compound is read as one word.

use std::path::Path;

use revoice_core::error::{Error, Result};

use super::kana::katakana_to_hiragana;
use super::lattice::Morpheme;

/// Character categories, by their number in unidic-lite's `char.bin`.
pub const SYMBOL: u8 = 3;
pub const HIRAGANA: u8 = 6;
pub const KATAKANA: u8 = 7;

/// UniDic 2.1.2's feature fields (26 of them) that hold readings.
const PRON_FIELD: usize = 9;
const KANA_FIELD: usize = 17;

/// A word: its surface, its reading, and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub surface: String,
    /// Hiragana (katakana outside ァ–ヶ and other characters kept).
    pub reading: String,
    /// [`HIRAGANA`] for words read from their reading; else the category
    /// of an unknown word ([`SYMBOL`], Latin, kanji …).
    pub kind: u8,
}

impl Word {
    /// The word of one morpheme.
    pub fn from_morpheme(morpheme: &Morpheme) -> Word {
        let fields = feature_fields(morpheme.feature);
        let field = |i: usize| fields.get(i).map(String::as_str).filter(|f| !f.is_empty());
        let reading = field(PRON_FIELD).or_else(|| field(KANA_FIELD)).unwrap_or(morpheme.surface);
        let kind = if morpheme.char_type == KATAKANA || !morpheme.unknown { HIRAGANA } else { morpheme.char_type };
        Word { surface: morpheme.surface.to_string(), reading: katakana_to_hiragana(reading), kind }
    }
}

/// A feature string's fields: split at commas, or read as CSV when it
/// holds a quote (UniDic quotes the accent fields that contain commas).
fn feature_fields(feature: &str) -> Vec<String> {
    if !feature.contains('"') {
        return feature.split(',').map(str::to_string).collect();
    }
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = feature.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if at_start => quoted = true,
            ',' if !quoted => {
                fields.push(std::mem::take(&mut field));
                at_start = true;
                continue;
            }
            c => field.push(c),
        }
        at_start = false;
    }
    fields.push(field);
    fields
}

/// misaki's word list, memory-light: the file's text and its lines'
/// spans, sorted for binary search.
pub struct WordList {
    text: String,
    spans: Vec<(u32, u32)>,
    /// The longest word's length in bytes: no longer run can be listed.
    longest: usize,
}

impl WordList {
    /// Reads the word list (one word a line).
    pub fn open(path: &Path) -> Result<WordList> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        Ok(WordList::from_text(text))
    }

    /// A word list of `text`'s lines (each trimmed).
    pub fn from_text(text: String) -> WordList {
        let base = text.as_ptr() as usize;
        let mut spans: Vec<(u32, u32)> = text
            .lines()
            .map(str::trim)
            .map(|line| {
                let start = line.as_ptr() as usize - base;
                (start as u32, (start + line.len()) as u32)
            })
            .collect();
        spans.sort_by(|a, b| text[a.0 as usize..a.1 as usize].cmp(&text[b.0 as usize..b.1 as usize]));
        spans.dedup_by(|a, b| text[a.0 as usize..a.1 as usize] == text[b.0 as usize..b.1 as usize]);
        let longest = spans.iter().map(|(start, end)| (end - start) as usize).max().unwrap_or(0);
        WordList { text, spans, longest }
    }

    /// Whether `word` is in the list.
    pub fn contains(&self, word: &str) -> bool {
        self.spans.binary_search_by(|&(start, end)| self.text[start as usize..end as usize].cmp(word)).is_ok()
    }

    /// The words joined: from each word, the longest run of following
    /// words of its kind whose surfaces together are in the list (a word
    /// alone when none is).
    pub fn join(&self, words: Vec<Word>) -> Vec<Word> {
        let mut joined = Vec::with_capacity(words.len());
        let mut i = 0;
        while i < words.len() {
            let run_end = (i + 1..words.len()).find(|&z| words[z].kind != words[i].kind).unwrap_or(words.len());
            // Runs longer than the longest listed word cannot be listed: start below them.
            let mut bytes = 0;
            let longest_end = (i..run_end).take_while(|&k| {
                bytes += words[k].surface.len();
                bytes <= self.longest
            });
            let run_end = longest_end.last().map_or(i + 1, |k| k + 1);
            let listed = (i + 1..=run_end).rev().find(|&j| {
                let surface: String = words[i..j].iter().map(|w| w.surface.as_str()).collect();
                self.contains(&surface)
            });
            let j = listed.unwrap_or(i + 1);
            joined.push(Word {
                surface: words[i..j].iter().map(|w| w.surface.as_str()).collect(),
                reading: words[i..j].iter().map(|w| w.reading.as_str()).collect(),
                kind: words[i].kind,
            });
            i = j;
        }
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(surface: &str, reading: &str, kind: u8) -> Word {
        Word { surface: surface.into(), reading: reading.into(), kind }
    }

    #[test]
    fn the_list_finds_its_words_only() {
        let list = WordList::from_text("にじゅう\nあい\n  ああ \nあいいれ\n".into());
        assert!(list.contains("ああ") && list.contains("あいいれ"));
        assert!(!list.contains("あいい") && !list.contains(""));
    }

    #[test]
    fn the_longest_listed_run_of_one_kind_is_one_word() {
        let list = WordList::from_text("にじゅうさん\nにじゅう\n".into());
        let words = vec![word("に", "に", HIRAGANA), word("じゅう", "じゅう", HIRAGANA), word("さん", "さん", HIRAGANA), word("!", "!", SYMBOL)];
        let joined = list.join(words);
        assert_eq!(joined, vec![word("にじゅうさん", "にじゅうさん", HIRAGANA), word("!", "!", SYMBOL)]);
    }

    #[test]
    fn words_of_another_kind_are_not_joined() {
        let list = WordList::from_text("abc\n".into());
        let joined = list.join(vec![word("ab", "ab", 5), word("c", "c", HIRAGANA)]);
        assert_eq!(joined.len(), 2);
    }

    #[test]
    fn features_with_quotes_are_read_as_csv() {
        let fields = feature_fields(r#"名詞,普通名詞,一般,*,*,*,ニホン,日本,日本,ニホン,日本,ニホン,漢,*,*,*,*,ニホン,ニホン,ニホン,ニホン,*,*,"2,3",C1,*"#);
        assert_eq!(fields.len(), 26);
        assert_eq!(fields[PRON_FIELD], "ニホン");
        assert_eq!(fields[23], "2,3");
    }

    #[test]
    fn readings_come_from_pron_then_kana_then_the_surface() {
        let unknown = Morpheme { surface: "OK", feature: "名詞,普通名詞,一般,*,*,*", char_type: 5, unknown: true };
        assert_eq!(Word::from_morpheme(&unknown), word("OK", "OK", 5));
        let katakana = Morpheme { surface: "ヤバ", feature: "名詞,普通名詞,一般,*,*,*", char_type: KATAKANA, unknown: true };
        assert_eq!(Word::from_morpheme(&katakana), word("ヤバ", "やば", HIRAGANA));
        let known = Morpheme {
            surface: "今日",
            feature: "名詞,普通名詞,副詞可能,*,*,*,キョウ,今日,今日,キョー,今日,キョー,和,*,*,*,*,キョウ,キョウ,キョウ,キョウ,*,*,1,C3,*",
            char_type: 2,
            unknown: false,
        };
        assert_eq!(Word::from_morpheme(&known), word("今日", "きょー", HIRAGANA));
    }
}
