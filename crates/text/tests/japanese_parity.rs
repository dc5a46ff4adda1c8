//! Parity of the Japanese reader with the reference G2P Kokoro v1.0's
//! Japanese voices were trained on (misaki 0.9.4's JAG2P, cutlet version,
//! over unidic-lite 1.0.8): every sentence of tests/data/ja_golden.tsv
//! (written by `scripts/g2p-golden ja tests/data/ja_sentences.txt`) is read
//! and compared whole and symbol by symbol. Prints the shares that match and
//! the first differences (all of them with JAPANESE_PARITY_ALL=1); fails when
//! either share drops under its floor.
//!
//! The reader needs the installed dictionary: the test looks for it in
//! `REVOICE_TEST_DATA_DIR`, else `target/test-data`, and fails (never skips)
//! when it is not there, saying how to install it.

mod parity;

use std::path::PathBuf;

use revoice_model::assets::{AssetState, JAPANESE};
use revoice_model::install::japanese::installed_dir;
use revoice_text::japanese::JapaneseReader;

/// Floors a little under what the reader reaches today, so a regression fails.
const SENTENCE_FLOOR: f64 = 0.99;
const SYMBOL_FLOOR: f64 = 0.999;

/// The data folder holding the installed Japanese dictionary; panics with
/// the install command when it is not installed there.
fn installed_data_dir() -> PathBuf {
    let dir = std::env::var_os("REVOICE_TEST_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/test-data")));
    let state = JAPANESE.status(&dir).state;
    assert!(
        matches!(state, AssetState::Installed { .. }),
        "the Japanese dictionary is not installed in {} ({state:?}): run scripts/test, or \
         `cargo run --bin revoice -- --data-dir {} models install`",
        dir.display(),
        dir.display()
    );
    dir
}

#[test]
fn matches_the_reference_on_the_golden_sentences() {
    let reader = JapaneseReader::open(&installed_dir(&installed_data_dir())).expect("the installed dictionary opens");
    let floors = parity::Floors { sentences: 300, exact: SENTENCE_FLOOR, symbols: SYMBOL_FLOOR };
    parity::check("japanese", include_str!("data/ja_golden.tsv"), floors, |s| reader.phonemize(s));
}

#[test]
fn what_the_reader_cannot_read_is_an_error_naming_the_text() {
    let reader = JapaneseReader::open(&installed_dir(&installed_data_dir())).expect("the installed dictionary opens");
    let err = reader.phonemize("٣冊").unwrap_err().to_string();
    assert!(err.contains("٣冊"), "{err}");
    assert_eq!(reader.phonemize("").unwrap(), "");
    assert_eq!(reader.phonemize("   ").unwrap(), "");
}

#[test]
fn a_line_written_in_kanji_or_in_kana_reads_alike() {
    let reader = JapaneseReader::open(&installed_dir(&installed_data_dir())).unwrap();
    let read = |text: &str| reader.reading(text).unwrap();
    assert_eq!(read("港で船を待っていました。"), read("みなとで船を待っていました。"));
    assert_eq!(read("今日はとても暑いですね"), read("きょうはとてもあついですね"));
    assert_eq!(read("午後3時"), read("午後三時"));
    assert!(read("コーヒー").chars().all(|c| ('\u{3041}'..='\u{309f}').contains(&c) || c == 'ー'), "{}", read("コーヒー"));
}
