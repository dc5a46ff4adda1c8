//! How far what was heard is from what was written: both texts normalised
//! the same way (lower case, punctuation dropped except inside words,
//! English contractions spelled out, so "we're" and "we are" agree; digits
//! are not spelled out: "42" and "forty-two" differ), then a word-level edit
//! distance split into substitutions, deletions and insertions, and which
//! words went missing at either end.

/// English contractions and what they stand for (`'s` only after the
/// pronouns where it means "is": elsewhere it is a possessive).
fn expand_contraction(word: &str) -> Option<Vec<String>> {
    let special = match word {
        "won't" => Some("will not"),
        "can't" => Some("can not"),
        "shan't" => Some("shall not"),
        "let's" => Some("let us"),
        "i'm" => Some("i am"),
        _ => None,
    };
    if let Some(s) = special {
        return Some(s.split(' ').map(str::to_string).collect());
    }
    let suffixes: [(&str, &str); 6] = [("n't", "not"), ("'re", "are"), ("'ll", "will"), ("'ve", "have"), ("'d", "would"), ("'m", "am")];
    for (suffix, full) in suffixes {
        if let Some(stem) = word.strip_suffix(suffix).filter(|s| !s.is_empty()) {
            return Some(vec![stem.to_string(), full.to_string()]);
        }
    }
    let is_pronoun = ["it", "that", "there", "he", "she", "what", "here", "who", "where"];
    if let Some(stem) = word.strip_suffix("'s").filter(|s| is_pronoun.contains(s)) {
        return Some(vec![stem.to_string(), "is".to_string()]);
    }
    None
}

/// The words of `text`, normalised for comparison.
pub fn normalised_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .flat_map(|w| w.split(['-', '–', '—']))
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect::<String>()
                .trim_matches('\'')
                .replace('’', "'")
        })
        .filter(|w| !w.is_empty())
        .flat_map(|w| expand_contraction(&w).unwrap_or_else(|| vec![w]))
        .collect()
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
}

/// Compares `heard` with `written` word by word (Levenshtein on normalised words).
pub fn word_errors(written: &str, heard: &str) -> WordErrors {
    let r = normalised_words(written);
    let h = normalised_words(heard);
    let (n, m) = (r.len(), h.len());
    // cost[i][j]: edits from r[..i] to h[..j].
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in cost.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=m {
        cost[0][j] = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let sub = cost[i - 1][j - 1] + usize::from(r[i - 1] != h[j - 1]);
            cost[i][j] = sub.min(cost[i - 1][j] + 1).min(cost[i][j - 1] + 1);
        }
    }
    // Walk back to count each kind and find the aligned ends.
    let (mut i, mut j) = (n, m);
    let (mut subs, mut dels, mut ins) = (0, 0, 0);
    // Written words that something heard lines up with (equal or not).
    let mut aligned: Vec<usize> = Vec::new();
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && cost[i][j] == cost[i - 1][j - 1] + usize::from(r[i - 1] != h[j - 1]) {
            if r[i - 1] != h[j - 1] {
                subs += 1;
            }
            aligned.push(i - 1);
            i -= 1;
            j -= 1;
        } else if i > 0 && cost[i][j] == cost[i - 1][j] + 1 {
            dels += 1;
            i -= 1;
        } else {
            ins += 1;
            j -= 1;
        }
    }
    let (first, last) = match (aligned.iter().min(), aligned.iter().max()) {
        (Some(&a), Some(&b)) => (a, b + 1),
        _ => (n, n),
    };
    let missing_at_start = if h.is_empty() { r.clone() } else { r[..first.min(n)].to_vec() };
    let missing_at_end = if h.is_empty() { Vec::new() } else { r[last.min(n)..].to_vec() };
    WordErrors { words: n, substitutions: subs, deletions: dels, insertions: ins, missing_at_start, missing_at_end }
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
    fn silence_misses_everything_and_noise_is_all_insertions() {
        let e = word_errors("Light the lamp", "");
        assert_eq!(e.deletions, 3);
        assert_eq!(e.missing_at_start.len(), 3);
        assert_eq!(word_errors("", "hello there").rate(), 1.0);
        assert_eq!(word_errors("", "").rate(), 0.0);
    }
}
