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

/// Levenshtein distance over Unicode scalar values.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[test]
fn matches_the_reference_on_the_golden_sentences() {
    let reader = JapaneseReader::open(&installed_dir(&installed_data_dir())).expect("the installed dictionary opens");
    let golden = include_str!("data/ja_golden.tsv");
    let mut sentences = 0;
    let mut exact = 0;
    let mut symbols = 0;
    let mut symbol_errors = 0;
    let mut differences = Vec::new();
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        let (sentence, expected) = line.split_once('\t').expect("sentence<TAB>phonemes");
        let got = reader.phonemize(sentence).unwrap_or_else(|e| panic!("{sentence}: {e}"));
        sentences += 1;
        let expected_chars: Vec<char> = expected.chars().collect();
        let got_chars: Vec<char> = got.chars().collect();
        symbols += expected_chars.len();
        if got == expected {
            exact += 1;
        } else {
            symbol_errors += edit_distance(&got_chars, &expected_chars);
            differences.push(format!("{sentence}\n  want {expected}\n  got  {got}"));
        }
    }
    assert!(sentences >= 300, "the golden file has {sentences} sentences, want at least 300");
    let sentence_share = exact as f64 / sentences as f64;
    let symbol_share = 1.0 - symbol_errors as f64 / symbols as f64;
    println!(
        "japanese parity: {exact}/{sentences} sentences exact ({:.1}%), symbols {:.2}% \
         ({symbol_errors} edits over {symbols})",
        sentence_share * 100.0,
        symbol_share * 100.0
    );
    // JAPANESE_PARITY_ALL=1 prints every difference, not only the first 15.
    let shown = if std::env::var_os("JAPANESE_PARITY_ALL").is_some() { usize::MAX } else { 15 };
    for difference in differences.iter().take(shown) {
        println!("{difference}");
    }
    assert!(sentence_share >= SENTENCE_FLOOR, "{:.1}% of sentences match exactly, floor {:.1}%", sentence_share * 100.0, SENTENCE_FLOOR * 100.0);
    assert!(symbol_share >= SYMBOL_FLOOR, "{:.2}% of symbols match, floor {:.2}%", symbol_share * 100.0, SYMBOL_FLOOR * 100.0);
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
