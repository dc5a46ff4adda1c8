//! Parity of the Mandarin reader with the reference G2P Kokoro v1.0's
//! Mandarin voices were trained on: every sentence of
//! tests/data/zh-golden.tsv (written by `scripts/g2p-golden zh`) is read
//! and compared whole and symbol by symbol. Prints the shares that match
//! and the first differences (all of them with MANDARIN_PARITY_ALL=1); fails when either share drops under its floor.

use revoice_text::mandarin::phonemize;

/// Floors a little under what the reader reaches today, so a regression fails.
const SENTENCE_FLOOR: f64 = 0.97;
const SYMBOL_FLOOR: f64 = 0.998;

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
    let golden = include_str!("data/zh-golden.tsv");
    let mut sentences = 0;
    let mut exact = 0;
    let mut symbols = 0;
    let mut symbol_errors = 0;
    let mut differences = Vec::new();
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        let (sentence, expected) = line.split_once('\t').expect("sentence<TAB>phonemes");
        let got = phonemize(sentence).unwrap_or_else(|e| panic!("{sentence}: {e}"));
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
    assert!(sentences >= 250, "the golden file has {sentences} sentences, want at least 250");
    let sentence_share = exact as f64 / sentences as f64;
    let symbol_share = 1.0 - symbol_errors as f64 / symbols as f64;
    println!(
        "mandarin parity: {exact}/{sentences} sentences exact ({:.1}%), symbols {:.2}% \
         ({symbol_errors} edits over {symbols})",
        sentence_share * 100.0,
        symbol_share * 100.0
    );
    // MANDARIN_PARITY_ALL=1 prints every difference, not only the first 15.
    let shown = if std::env::var_os("MANDARIN_PARITY_ALL").is_some() { usize::MAX } else { 15 };
    for difference in differences.iter().take(shown) {
        println!("{difference}");
    }
    assert!(sentence_share >= SENTENCE_FLOOR, "{:.1}% of sentences match exactly, floor {:.1}%", sentence_share * 100.0, SENTENCE_FLOOR * 100.0);
    assert!(symbol_share >= SYMBOL_FLOOR, "{:.2}% of symbols match, floor {:.2}%", symbol_share * 100.0, SYMBOL_FLOOR * 100.0);
}
