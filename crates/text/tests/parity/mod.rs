//! What the G2P parity tests share: a golden file read against a reader,
//! compared whole and symbol by symbol, the shares and the first
//! differences printed (all of them with `<NAME>_PARITY_ALL=1`), and the
//! test failed when either share drops under its floor.

/// How close a reader must stay to its golden file.
pub struct Floors {
    /// Fewest golden sentences.
    pub sentences: usize,
    /// Share of sentences matched exactly.
    pub exact: f64,
    /// Share of symbols matched (one less edits per symbol).
    pub symbols: f64,
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

/// Reads every `sentence<TAB>phonemes` line of `golden` with `phonemize`
/// and checks the shares against `floors`; `name` names the language.
pub fn check(name: &str, golden: &str, floors: Floors, phonemize: impl Fn(&str) -> revoice_core::Result<String>) {
    let (mut sentences, mut exact, mut symbols, mut symbol_errors) = (0, 0, 0, 0);
    let mut differences = Vec::new();
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        let (sentence, expected) = line.split_once('\t').expect("sentence<TAB>phonemes");
        let got = phonemize(sentence).unwrap_or_else(|e| panic!("{sentence}: {e}"));
        sentences += 1;
        symbols += expected.chars().count();
        if got == expected {
            exact += 1;
        } else {
            symbol_errors += edit_distance(&got.chars().collect::<Vec<_>>(), &expected.chars().collect::<Vec<_>>());
            differences.push(format!("{sentence}\n  want {expected}\n  got  {got}"));
        }
    }
    assert!(sentences >= floors.sentences, "the golden file has {sentences} sentences, want at least {}", floors.sentences);
    let sentence_share = exact as f64 / sentences as f64;
    let symbol_share = 1.0 - symbol_errors as f64 / symbols as f64;
    println!(
        "{name} parity: {exact}/{sentences} sentences exact ({:.1}%), symbols {:.2}% ({symbol_errors} edits over {symbols})",
        sentence_share * 100.0,
        symbol_share * 100.0
    );
    let all = format!("{}_PARITY_ALL", name.to_uppercase());
    let shown = if std::env::var_os(&all).is_some() { usize::MAX } else { 15 };
    for difference in differences.iter().take(shown) {
        println!("{difference}");
    }
    assert!(sentence_share >= floors.exact, "{:.1}% of sentences match exactly, floor {:.1}%", sentence_share * 100.0, floors.exact * 100.0);
    assert!(symbol_share >= floors.symbols, "{:.2}% of symbols match, floor {:.2}%", symbol_share * 100.0, floors.symbols * 100.0);
}
