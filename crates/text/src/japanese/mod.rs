//! Japanese text into Kokoro v1.0 phonemes, the way the Japanese voices
//! (jf_*, jm_*) were trained: misaki's `JAG2P()` in its default ('cutlet')
//! version. The text is normalized and its numbers read in kana
//! (`normalize`, `numbers`), cut into words with UniDic readings by a
//! reimplementation of MeCab over unidic-lite's compiled dictionary
//! (`dictionary`, `lattice`), joined into longer words by misaki's word list
//! (`words`), and spelled in Kokoro's symbols with the reference's spacing
//! (`kana`, `spelling`). No pitch marks: the reference's default path has
//! none.
//!
//! The dictionary folder is the one `revoice models install` publishes
//! (unidic-lite's `sys.dic`, `unk.dic`, `matrix.bin`, `char.bin`, and
//! misaki's `ja_words.txt`); its files are memory-mapped, not read into
//! memory.

mod dictionary;
mod kana;
mod lattice;
mod normalize;
mod numbers;
mod spelling;
mod words;

use std::path::Path;

use revoice_core::error::{Error, Result};

use dictionary::{Dictionary, DICTIONARY_FILES};
use spelling::Unspellable;
use words::{Word, WordList};

/// The word list's file name in the dictionary folder.
pub const WORD_LIST_FILE: &str = "ja_words.txt";

/// A Japanese reader over an installed dictionary folder. Opening maps the
/// files; reading a sentence touches only the pages it needs.
pub struct JapaneseReader {
    dictionary: Dictionary,
    words: WordList,
}

impl JapaneseReader {
    /// Opens the installed dictionary folder (memory-mapped); errors name
    /// the folder and the missing or bad file.
    pub fn open(dir: &Path) -> Result<JapaneseReader> {
        let in_folder = |e: Error| e.context(format!("opening the Japanese dictionary in {}", dir.display()));
        if !dir.is_dir() {
            return Err(Error::invalid(dir.display().to_string(), "no Japanese dictionary folder here: run `revoice models install`"));
        }
        for name in DICTIONARY_FILES.iter().chain(std::iter::once(&WORD_LIST_FILE)) {
            if !dir.join(name).is_file() {
                return Err(Error::invalid(dir.display().to_string(), format!("the Japanese dictionary lacks {name}: run `revoice models install --force`")));
            }
        }
        let dictionary = Dictionary::open(dir).map_err(in_folder)?;
        let words = WordList::open(&dir.join(WORD_LIST_FILE)).map_err(in_folder)?;
        Ok(JapaneseReader { dictionary, words })
    }

    /// One sentence or clause → Kokoro phoneme symbols, as misaki's
    /// JAG2P() gives them. Fails, naming the text, on what the reference
    /// cannot read either (digits of another script, a small kana after a
    /// character that is not a kana).
    pub fn phonemize(&self, text: &str) -> Result<String> {
        if text.is_empty() {
            return Ok(String::new());
        }
        let normalized = normalize::normalize(text).map_err(|digits| Error::invalid(text, format!("has digits ({digits}) that have no Japanese reading")))?;
        let morphemes = lattice::best_path(&self.dictionary, &normalized)?;
        let words: Vec<Word> = morphemes.iter().map(Word::from_morpheme).collect();
        let words = self.words.join(words);
        spelling::spell_line(&words).map_err(|reason| match reason {
            Unspellable::Digits(digits) => Error::invalid(text, format!("has a word of digits ({digits}) left unread")),
            Unspellable::Kana(c) => Error::invalid(text, format!("has a small kana after '{c}', which is not a kana")),
        })
    }

    /// What `text` says, in hiragana: each word as the dictionary says it
    /// is pronounced, numbers read, a word it does not know as written.
    /// Two texts that say the same in kanji or in kana read alike, which is
    /// how listening back compares Japanese.
    pub fn reading(&self, text: &str) -> Result<String> {
        let normalized = normalize::normalize(text).map_err(|digits| Error::invalid(text, format!("has digits ({digits}) that have no Japanese reading")))?;
        let morphemes = lattice::best_path(&self.dictionary, &normalized)?;
        Ok(morphemes.iter().map(|m| Word::from_morpheme(m).reading).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_named() {
        let err = JapaneseReader::open(Path::new("/nonexistent/ja-dict")).err().unwrap().to_string();
        assert!(err.contains("/nonexistent/ja-dict"), "{err}");
    }

    #[test]
    fn a_missing_file_is_named_with_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["sys.dic", "unk.dic", "matrix.bin"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let err = JapaneseReader::open(dir.path()).err().unwrap().to_string();
        assert!(err.contains("char.bin") && err.contains(&dir.path().display().to_string()), "{err}");
    }

    #[test]
    fn a_broken_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        for name in DICTIONARY_FILES.iter().chain(std::iter::once(&WORD_LIST_FILE)) {
            std::fs::write(dir.path().join(name), vec![0u8; 200]).unwrap();
        }
        let err = JapaneseReader::open(dir.path()).err().unwrap().to_string();
        assert!(err.contains("sys.dic"), "{err}");
    }

    #[test]
    fn the_reader_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<JapaneseReader>();
    }
}
