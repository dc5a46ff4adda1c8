//! Parity of the Mandarin reader with the reference G2P Kokoro v1.0's
//! Mandarin voices were trained on: every sentence of
//! tests/data/zh-golden.tsv (written by `scripts/g2p-golden zh`) is read
//! and compared whole and symbol by symbol. Prints the shares that match
//! and the first differences (all of them with MANDARIN_PARITY_ALL=1); fails when either share drops under its floor.

mod parity;

use revoice_text::mandarin::phonemize;

#[test]
fn matches_the_reference_on_the_golden_sentences() {
    // Floors a little under what the reader reaches today, so a regression fails.
    let floors = parity::Floors { sentences: 250, exact: 0.97, symbols: 0.998 };
    parity::check("mandarin", include_str!("data/zh-golden.tsv"), floors, phonemize);
}
