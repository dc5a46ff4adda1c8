//! How far what was heard is from what was written: both texts read the
//! same way in the track's language ([`super::spoken`]: figures and
//! abbreviations as the words said, case, punctuation and spelling
//! variants folded, English contractions spelled out, so "40" and "forty",
//! "we're" and "we are" agree), then a word-level edit distance split into
//! substitutions, deletions and insertions, which words differ, and which
//! went missing at either end. Chinese and Japanese are compared by
//! characters instead.

use super::spoken::{choose, compared_by_characters, first_words, spoken};

/// The words of `text`, normalised for comparison, in a language not
/// named (figures kept as digits, their groups joined).
pub fn normalised_words(text: &str) -> Vec<String> {
    first_words(&spoken(text, ""))
}

/// Word errors of a heard text against the written one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WordErrors {
    /// Words in the written text.
    pub words: usize,
    pub substitutions: usize,
    pub deletions: usize,
    pub insertions: usize,
    /// Written words missing before the first word heard.
    pub missing_at_start: Vec<String>,
    /// Written words missing after the last word heard.
    pub missing_at_end: Vec<String>,
    /// Each written word heard as another, as (written, heard), in order.
    pub swapped: Vec<(String, String)>,
    /// Written words not heard, in order (those missing at either end too).
    pub dropped: Vec<String>,
    /// Words heard that were not written, in order.
    pub added: Vec<String>,
    /// Counted in characters, not words (Chinese and Japanese, written
    /// without spaces): each "word" above is one character.
    pub by_characters: bool,
}

impl WordErrors {
    /// Errors per written word (0 when both are empty).
    pub fn rate(&self) -> f64 {
        let errors = self.substitutions + self.deletions + self.insertions;
        if self.words == 0 {
            return if errors == 0 { 0.0 } else { 1.0 };
        }
        errors as f64 / self.words as f64
    }

    /// What is counted: "words" or "characters".
    pub fn unit(&self) -> &'static str {
        if self.by_characters {
            "characters"
        } else {
            "words"
        }
    }

    /// Words (or characters) as a person reads them: spaced, or not.
    pub fn joined(&self, words: &[String]) -> String {
        words.join(if self.by_characters { "" } else { " " })
    }
}

/// Compares `heard` with `written` word by word, in a language not named.
pub fn word_errors(written: &str, heard: &str) -> WordErrors {
    word_errors_in(written, heard, "")
}

/// Compares `heard` with `written` word by word (Levenshtein on the words
/// said), both read in `language` (a tag such as `en-GB`; one this studio
/// does not read keeps figures as digits). A figure with several readings
/// is read as the other text says it.
pub fn word_errors_in(written: &str, heard: &str, language: &str) -> WordErrors {
    let (written, heard) = (spoken(written, language), spoken(heard, language));
    let r = choose(&written, &first_words(&heard));
    let h = choose(&heard, &r);
    let (n, m) = (r.len(), h.len());
    // cost[i][j]: edits from r[..i] to h[..j].
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in cost.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, c) in cost[0].iter_mut().enumerate() {
        *c = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let sub = cost[i - 1][j - 1] + usize::from(r[i - 1] != h[j - 1]);
            cost[i][j] = sub.min(cost[i - 1][j] + 1).min(cost[i][j - 1] + 1);
        }
    }
    // Walk back to count each kind and find the aligned ends.
    let (mut i, mut j) = (n, m);
    let (mut swapped, mut dropped, mut added) = (Vec::new(), Vec::new(), Vec::new());
    // Written words that something heard lines up with (equal or not).
    let mut aligned: Vec<usize> = Vec::new();
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && cost[i][j] == cost[i - 1][j - 1] + usize::from(r[i - 1] != h[j - 1]) {
            if r[i - 1] != h[j - 1] {
                swapped.push((r[i - 1].clone(), h[j - 1].clone()));
            }
            aligned.push(i - 1);
            i -= 1;
            j -= 1;
        } else if i > 0 && cost[i][j] == cost[i - 1][j] + 1 {
            dropped.push(r[i - 1].clone());
            i -= 1;
        } else {
            added.push(h[j - 1].clone());
            j -= 1;
        }
    }
    let (first, last) = match (aligned.iter().min(), aligned.iter().max()) {
        (Some(&a), Some(&b)) => (a, b + 1),
        _ => (n, n),
    };
    let missing_at_start = if h.is_empty() { r.clone() } else { r[..first.min(n)].to_vec() };
    let missing_at_end = if h.is_empty() { Vec::new() } else { r[last.min(n)..].to_vec() };
    let (substitutions, deletions, insertions) = (swapped.len(), dropped.len(), added.len());
    swapped.reverse();
    dropped.reverse();
    added.reverse();
    let by_characters = compared_by_characters(language);
    WordErrors { words: n, substitutions, deletions, insertions, missing_at_start, missing_at_end, swapped, dropped, added, by_characters }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contractions_are_spelled_out_on_both_sides() {
        assert_eq!(word_errors("Then we are done.", "Then we're done.").rate(), 0.0);
        assert_eq!(normalised_words("It's here, isn't it? Ana's boat."), vec!["it", "is", "here", "is", "not", "it", "ana's", "boat"]);
        assert_eq!(normalised_words("I won't go"), vec!["i", "will", "not", "go"]);
    }

    #[test]
    fn punctuation_and_case_do_not_count() {
        assert_eq!(normalised_words("Fine. I'll check, OK?"), vec!["fine", "i", "will", "check", "ok"]);
        assert_eq!(word_errors("Fine. I'll check.", " fine, I'll check").rate(), 0.0);
    }

    #[test]
    fn a_lost_last_word_is_a_deletion_missing_at_the_end() {
        let e = word_errors("Fine. I'll check.", "Fine. I'll");
        assert_eq!((e.substitutions, e.deletions, e.insertions), (0, 1, 0));
        assert_eq!(e.missing_at_end, vec!["check"]);
        assert!(e.missing_at_start.is_empty());
        assert!((e.rate() - 1.0 / 4.0).abs() < 1e-9);
    }

    #[test]
    fn lost_first_words_and_swapped_words_are_told_apart() {
        let e = word_errors("The boats are in", "boats are on");
        assert_eq!(e.missing_at_start, vec!["the"]);
        assert_eq!((e.substitutions, e.deletions), (1, 1));
        assert!(e.missing_at_end.is_empty(), "{e:?}");
    }

    #[test]
    fn figures_are_read_in_the_language_and_a_wrong_one_is_named() {
        assert_eq!(word_errors_in("Forty pounds, framed.", "40 pounds framed.", "en-GB").rate(), 0.0);
        assert_eq!(word_errors("Forty pounds, framed.", "40 pounds framed.").rate(), 1.0 / 3.0, "no language named: digits stay digits");
        let e = word_errors_in("Forty pounds, framed.", "14 pounds, framed.", "en-GB");
        assert_eq!(e.swapped, vec![("forty".to_string(), "fourteen".to_string())]);
        let e = word_errors_in("Cuesta 40 euros.", "Cuesta euros.", "es");
        assert_eq!((e.dropped.clone(), e.added.clone()), (vec!["cuarenta".to_string()], vec![]));
    }

    #[test]
    fn silence_misses_everything_and_noise_is_all_insertions() {
        let e = word_errors("Light the lamp", "");
        assert_eq!(e.deletions, 3);
        assert_eq!(e.missing_at_start.len(), 3);
        assert_eq!(word_errors("", "hello there").rate(), 1.0);
        assert_eq!(word_errors("", "").rate(), 0.0);
    }
}
