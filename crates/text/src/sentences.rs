//! Splits text into sentences (and, for very long sentences, clauses) so
//! that each piece fits one model pass and audio can start after the first.

/// Closing quotes and brackets that stay with the sentence before them.
const CLOSERS: [char; 6] = ['"', '”', ')', '」', '』', '）'];

/// Sentence pieces of `text`, trimmed, empty ones dropped. A sentence ends
/// at `.`, `!`, `?`, `…` or a line break, unless the dot belongs to a
/// number (`3.5`) or a common abbreviation; and at the full-width `。`,
/// `！` and `？` of Chinese and Japanese, which no space follows.
pub fn split_sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        current.push(c);
        let next = chars.get(i + 1).copied();
        let ends = match c {
            '\n' | '。' | '！' | '？' => true,
            '!' | '?' | '…' => next.is_none_or(|n| n.is_whitespace() || CLOSERS.contains(&n)),
            '.' => {
                let digit_after = next.is_some_and(|n| n.is_ascii_digit());
                let before: String = current.trim_end_matches('.').rsplit(char::is_whitespace).next().unwrap_or("").to_string();
                !digit_after && !is_abbreviation(&before) && next.is_none_or(|n| n.is_whitespace() || CLOSERS.contains(&n))
            }
            _ => false,
        };
        if ends {
            // Keep closing quotes with their sentence.
            while let Some(&q) = chars.get(i + 1) {
                if CLOSERS.contains(&q) {
                    current.push(q);
                    i += 1;
                } else {
                    break;
                }
            }
            push_piece(&mut out, &current);
            current.clear();
        }
        i += 1;
    }
    push_piece(&mut out, &current);
    out
}

fn push_piece(out: &mut Vec<String>, piece: &str) {
    let t = piece.trim();
    if !t.is_empty() {
        out.push(t.to_string());
    }
}

fn is_abbreviation(word: &str) -> bool {
    const ABBREVIATIONS: [&str; 16] = ["Mr", "Mrs", "Ms", "Dr", "Prof", "Sr", "Jr", "St", "vs", "etc", "e.g", "i.e", "Mt", "No", "Inc", "Ltd"];
    ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word)) || (word.len() == 1 && word.chars().all(|c| c.is_ascii_uppercase()))
}

/// Splits a phoneme string longer than `max` symbols at clause marks
/// (`, ; : —`), then at spaces, never inside a word when avoidable.
pub fn split_phonemes(phonemes: &str, max: usize) -> Vec<String> {
    let chars: Vec<char> = phonemes.chars().collect();
    if chars.len() <= max {
        return vec![phonemes.to_string()];
    }
    let window = &chars[..max];
    let cut = window
        .iter()
        .rposition(|c| matches!(c, ',' | ';' | ':' | '—'))
        .map(|p| p + 1)
        .or_else(|| window.iter().rposition(|c| *c == ' '))
        .filter(|&p| p > 0)
        .unwrap_or(max);
    let head: String = chars[..cut].iter().collect();
    let tail: String = chars[cut..].iter().collect();
    let mut out = vec![head.trim().to_string()];
    out.extend(split_phonemes(tail.trim(), max));
    out.retain(|p| !p.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_at_their_ends_but_not_inside_numbers_or_titles() {
        assert_eq!(
            split_sentences("Dr. Smith paid 3.50 dollars. Really?! Yes… \"Quite.\" Done"),
            vec!["Dr. Smith paid 3.50 dollars.", "Really?!", "Yes…", "\"Quite.\"", "Done"]
        );
        assert_eq!(split_sentences("one\ntwo"), vec!["one", "two"]);
        assert!(split_sentences("   \n  ").is_empty());
    }

    #[test]
    fn long_phoneme_strings_split_at_clauses_then_spaces() {
        let parts = split_phonemes("abc dɛf, ɡhi jkl mno", 12);
        assert_eq!(parts, vec!["abc dɛf,", "ɡhi jkl mno"]);
        let parts = split_phonemes("aaaa bbbb cccc dddd", 10);
        assert!(parts.iter().all(|p| p.chars().count() <= 10), "{parts:?}");
        assert_eq!(parts.join(" "), "aaaa bbbb cccc dddd");
    }

    #[test]
    fn chinese_and_japanese_sentences_end_at_their_full_width_marks() {
        assert_eq!(split_sentences("你好。今天天气很好！你呢？"), ["你好。", "今天天气很好！", "你呢？"]);
        assert_eq!(split_sentences("「行こう。」と彼は言った。"), ["「行こう。」", "と彼は言った。"]);
    }
}
