//! Cutting a text into words the way MeCab 0.996 does (its `Tokenizer::lookup`
//! and `Viterbi`), so that the words and their readings are the ones the
//! reference front end got: at every position where a word ends, the
//! dictionary words that start there (after any spaces), plus unknown words
//! formed by the character category's rules; each candidate joined to the
//! cheapest word ending before it (connection cost plus word cost, the first
//! of equal costs in MeCab's list order winning); the cheapest path from the
//! start to the end of the text is the answer.

use revoice_core::error::{Error, Result};

use super::dictionary::{CharInfo, Dictionary, Lexicon, Token};

/// MeCab's `max-grouping-size` when the dictionary's dicrc does not set one
/// (unidic-lite's does not): a longer run of one category is not proposed
/// as one unknown word.
const MAX_GROUPING_SIZE: usize = 24;
/// MeCab looks at most this many bytes ahead of a position.
const MAX_LOOKAHEAD: usize = 65535;

/// One word of the best path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Morpheme<'a> {
    /// The word as written (no leading spaces).
    pub surface: &'a str,
    /// The dictionary's feature string (comma-separated fields).
    pub feature: &'a str,
    /// The category (by number in `char.bin`) of its first character, or
    /// of its unknown-word entry.
    pub char_type: u8,
    /// Not in the dictionary: formed from its characters' category.
    pub unknown: bool,
}

/// A lattice node: a candidate word and, once connected, its best path.
#[derive(Debug, Clone)]
struct Node {
    /// Byte range of the surface in the text.
    start: usize,
    end: usize,
    token: Token,
    unknown: bool,
    char_type: u8,
    /// Cost of the best path from the start through this node.
    cost: i64,
    /// The node before it on that path.
    prev: usize,
    /// The next node in the list of nodes ending where this one ends.
    end_next: Option<usize>,
}

/// Cuts `text` into the best-scoring words.
pub fn best_path<'a>(dictionary: &'a Dictionary, text: &'a str) -> Result<Vec<Morpheme<'a>>> {
    let len = text.len();
    let bos = Token { left_id: 0, right_id: 0, cost: 0, feature: 0 };
    let mut nodes = vec![Node { start: 0, end: 0, token: bos, unknown: false, char_type: 0, cost: 0, prev: 0, end_next: None }];
    // The head of each position's list of nodes ending there (newest first).
    let mut ends: Vec<Option<usize>> = vec![None; len + 1];
    ends[0] = Some(0);
    let mut candidates = Vec::new();
    let mut prefixes = Vec::new();
    for pos in 0..len {
        if ends[pos].is_none() {
            continue;
        }
        lookup(dictionary, text, pos, &mut candidates, &mut prefixes)?;
        // MeCab keeps the candidates as a list it prepends to: the last made is first.
        for candidate in candidates.drain(..).rev() {
            let end = candidate.end;
            // A candidate that runs past the text (spaces at its end) can end no path.
            if end > len {
                continue;
            }
            let (best, cost) = cheapest_before(dictionary, &nodes, ends[pos], &candidate.token).ok_or_else(|| too_long(text))?;
            nodes.push(Node { cost, prev: best, end_next: ends[end], ..candidate });
            ends[end] = Some(nodes.len() - 1);
        }
    }
    let eos = Token { left_id: 0, right_id: 0, cost: 0, feature: 0 };
    let last = (0..=len).rev().find(|&pos| ends[pos].is_some()).unwrap_or(0);
    let (mut at, _) = cheapest_before(dictionary, &nodes, ends[last], &eos).ok_or_else(|| too_long(text))?;
    let mut path = Vec::new();
    while at != 0 {
        let node = &nodes[at];
        let lexicon: &Lexicon = if node.unknown { &dictionary.unknown } else { &dictionary.words };
        path.push(Morpheme { surface: &text[node.start..node.end], feature: lexicon.feature(&node.token)?, char_type: node.char_type, unknown: node.unknown });
        at = node.prev;
    }
    path.reverse();
    Ok(path)
}

/// The node ending at this position that is cheapest to reach `token`
/// from, and the path cost through it; the first of equal costs in list
/// order wins, as in MeCab. `None` when every path costs more than MeCab
/// counts (its "too long sentence").
fn cheapest_before(dictionary: &Dictionary, nodes: &[Node], head: Option<usize>, token: &Token) -> Option<(usize, i64)> {
    let mut best: Option<(usize, i64)> = None;
    let mut at = head;
    while let Some(index) = at {
        let left = &nodes[index];
        let cost = left.cost + i64::from(dictionary.connections.cost(left.token.right_id, token.left_id)) + i64::from(token.cost);
        if cost < best.map_or(i64::from(i32::MAX), |(_, c)| c) {
            best = Some((index, cost));
        }
        at = left.end_next;
    }
    best
}

fn too_long(text: &str) -> Error {
    Error::invalid(text, "too long to cut into words in one piece (the path costs overflow); split it into sentences")
}

/// Skips characters that share a category with the one before them,
/// starting from `kind`: where the run stops, the info of the character
/// there (or of the last one read), its length, and how many were skipped.
fn skip_kind(dictionary: &Dictionary, text: &str, from: usize, end: usize, kind: CharInfo) -> (usize, CharInfo, usize, usize) {
    let (mut at, mut previous, mut count) = (from, kind, 0);
    let (mut info, mut width) = (kind, 0);
    while at < end {
        (info, width) = dictionary.chars.info_at(text, at);
        if !previous.is_kind_of(&info) {
            break;
        }
        at += width;
        count += 1;
        previous = info;
    }
    (at, info, width, count)
}

/// The candidate words starting at `pos` (after spaces), in the order MeCab
/// makes them (dictionary words shortest first, then unknown words).
fn lookup(dictionary: &Dictionary, text: &str, pos: usize, out: &mut Vec<Node>, prefixes: &mut Vec<(usize, u32)>) -> Result<()> {
    let mut end = text.len().min(pos + MAX_LOOKAHEAD);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let space = dictionary.chars.info(0x20);
    let (start, info, width, _) = skip_kind(dictionary, text, pos, end, space);
    if start == end {
        // Only spaces are left: nothing starts here.
        return Ok(());
    }
    let node = |end: usize, token: Token, unknown: bool, char_type: u8| Node { start, end, token, unknown, char_type, cost: 0, prev: 0, end_next: None };

    dictionary.words.prefixes(&text.as_bytes()[start..end], prefixes);
    for &(length, value) in prefixes.iter() {
        for token in dictionary.words.tokens(value)? {
            out.push(node(start + length, token, false, info.category));
        }
    }
    if !out.is_empty() && !info.invoke {
        return Ok(());
    }

    let unknown_words = |out: &mut Vec<Node>, word_end: usize| -> Result<()> {
        let run = dictionary.unknown_runs.get(info.category as usize).copied().unwrap_or(0);
        for token in dictionary.unknown.tokens(run)? {
            out.push(node(word_end, token, true, info.category));
        }
        Ok(())
    };
    let mut next = start + width;
    let mut group_end = None;
    if next > end {
        unknown_words(out, next)?;
        if !out.is_empty() {
            return Ok(());
        }
    }
    if info.group {
        let (run_end, _, _, count) = skip_kind(dictionary, text, next, end, info);
        if count <= MAX_GROUPING_SIZE {
            unknown_words(out, run_end)?;
        }
        group_end = Some(run_end);
    }
    for _ in 1..=info.length {
        if next > end {
            break;
        }
        if Some(next) == group_end {
            continue;
        }
        unknown_words(out, next)?;
        let (following, following_width) = dictionary.chars.info_at(text, next);
        if !info.is_kind_of(&following) {
            break;
        }
        next += following_width;
    }
    if out.is_empty() {
        unknown_words(out, next)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::japanese::dictionary::testing;

    /// The surfaces and features of the best path through `text`.
    fn cut(words: &[testing::Entry], text: &str) -> Vec<(String, String)> {
        let dir = tempfile::tempdir().unwrap();
        testing::write(dir.path(), words, 2, &[]);
        let dictionary = Dictionary::open(dir.path()).unwrap();
        best_path(&dictionary, text).unwrap().into_iter().map(|m| (m.surface.to_string(), m.feature.to_string())).collect()
    }

    fn surfaces(words: &[testing::Entry], text: &str) -> Vec<String> {
        cut(words, text).into_iter().map(|(s, _)| s).collect()
    }

    const WORDS: [testing::Entry; 6] = [
        ("あ", 1, 1, 100, "a"),
        ("い", 1, 1, 100, "i"),
        ("う", 1, 1, 100, "u"),
        ("あい", 1, 1, 150, "ai"),
        ("いう", 1, 1, 120, "iu"),
        ("です", 1, 1, 50, "desu"),
    ];

    #[test]
    fn the_cheapest_path_wins() {
        assert_eq!(surfaces(&WORDS, "あいう"), ["あ", "いう"]);
        assert_eq!(surfaces(&WORDS, "あい"), ["あい"]);
    }

    #[test]
    fn of_two_entries_with_one_cost_the_first_wins() {
        let words = [("あ", 1, 1, 100, "first"), ("あ", 1, 1, 100, "second")];
        assert_eq!(cut(&words, "あ"), [("あ".to_string(), "first".to_string())]);
    }

    #[test]
    fn spaces_are_skipped() {
        assert_eq!(surfaces(&WORDS, "あ い"), ["あ", "い"]);
        assert_eq!(surfaces(&WORDS, " あ  "), ["あ"]);
        assert!(surfaces(&WORDS, "   ").is_empty());
        assert!(surfaces(&WORDS, "").is_empty());
    }

    #[test]
    fn a_run_of_unknown_katakana_is_one_word() {
        let cut = cut(&WORDS, "カタカナです");
        assert_eq!(cut, [("カタカナ".to_string(), "UNK,KATAKANA".to_string()), ("です".to_string(), "desu".to_string())]);
    }

    #[test]
    fn unknown_hiragana_is_cut_by_length_and_equal_paths_go_mecabs_way() {
        // ぬ and ぬぬ are both proposed (length 2, no grouping); ぬぬ+ぬ and
        // ぬ+ぬぬ cost the same, and MeCab's list order picks ぬぬ+ぬ.
        assert_eq!(surfaces(&WORDS, "ぬぬぬ"), ["ぬぬ", "ぬ"]);
    }

    #[test]
    fn a_text_longer_than_the_lookahead_is_cut_whole() {
        let text = "ぬ".repeat(25_000);
        let cut = surfaces(&WORDS, &text);
        assert_eq!(cut.concat(), text);
    }

    #[test]
    fn characters_past_the_basic_plane_are_default_unknown_words() {
        assert_eq!(cut(&WORDS, "😀です")[0], ("😀".to_string(), "UNK,DEFAULT".to_string()));
    }
}
