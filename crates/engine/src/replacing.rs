//! Find and replace in a track's lines for every face: every match of a
//! text (any case, or matching case; anywhere, or whole words only) in
//! the track's lines (or only the lines named) replaced at once, as one
//! undoable step that names what was replaced and in how many lines. The
//! lines changed go stale as any text edit does (a line replaced back to
//! an earlier text gets that text's take again).

use serde::Deserialize;

use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_store::Segment;

/// How a find and replace matches, and where.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct ReplaceOptions {
    /// Only text in the same case matches (any case by default).
    #[serde(default)]
    pub match_case: bool,
    /// Only whole words match: no letter, digit or `_` right before or after.
    #[serde(default)]
    pub whole_word: bool,
    /// Only these lines (ids on the track); every line of the track when absent.
    pub only: Option<Vec<i64>>,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A finder for `find` as `options` say; `find` must not be empty.
fn finder(find: &str, options: &ReplaceOptions) -> Result<regex::Regex> {
    if find.is_empty() {
        return Err(Error::invalid("find", "is empty: give the text to replace"));
    }
    regex::RegexBuilder::new(&regex::escape(find))
        .case_insensitive(!options.match_case)
        .build()
        .map_err(|e| Error::invalid(format!("find {find:?}"), e.to_string()))
}

/// `text` with every match of `finder` replaced by `with` (whole words only
/// when `whole_word`), or `None` when nothing matches.
fn replace_in(text: &str, finder: &regex::Regex, with: &str, whole_word: bool) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut from, mut matched) = (0, 0, false);
    while let Some(m) = finder.find_at(text, from) {
        let bounded = !whole_word || (!text[..m.start()].chars().next_back().is_some_and(is_word) && !text[m.end()..].chars().next().is_some_and(is_word));
        if bounded && !m.is_empty() {
            out.push_str(&text[copied..m.start()]);
            out.push_str(with);
            copied = m.end();
            from = m.end();
            matched = true;
        } else {
            // Not a whole word: look again from the next character.
            match text[m.start()..].chars().next() {
                Some(c) => from = m.start() + c.len_utf8(),
                None => break,
            }
        }
    }
    matched.then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

impl Engine {
    /// Replaces `find` with `replace` in the lines of `track_id` (see
    /// [`ReplaceOptions`]) as one undoable step; how many lines changed,
    /// and those lines. Nothing matching changes nothing and records
    /// nothing. A line the replacement would leave without text is refused,
    /// by id, and nothing changes.
    pub async fn replace_text(&self, track_id: i64, find: &str, replace: &str, options: &ReplaceOptions) -> Result<(usize, Vec<Segment>)> {
        let finder = finder(find, options)?;
        let store = self.store();
        store.track(track_id).await?;
        let lines = store.segments(track_id).await?;
        if let Some(only) = &options.only {
            if let Some(stray) = only.iter().find(|id| !lines.iter().any(|l| l.id == **id)) {
                return Err(Error::invalid(format!("segment {stray}"), format!("is not on track {track_id}")));
            }
        }
        let mut texts = Vec::new();
        for line in lines.iter().filter(|l| options.only.as_ref().is_none_or(|only| only.contains(&l.id))) {
            if let Some(text) = replace_in(&line.fields.text, &finder, replace, options.whole_word) {
                if text.trim().is_empty() {
                    return Err(Error::invalid(format!("segment {}", line.id), format!("replacing {find:?} with {replace:?} would leave it without text")));
                }
                texts.push((line.id, text));
            }
        }
        if texts.is_empty() {
            return Ok((0, Vec::new()));
        }
        let count = texts.len();
        let description = format!("Replaced {find:?} with {replace:?} in {count} {}", if count == 1 { "line" } else { "lines" });
        let changed = store.set_texts(track_id, &texts, &description).await?;
        let project_id = self.project_of_track(track_id).await?;
        self.restore_takes(project_id).await?;
        Ok((count, changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replaced(text: &str, find: &str, with: &str, match_case: bool, whole_word: bool) -> Option<String> {
        let options = ReplaceOptions { match_case, whole_word, only: None };
        replace_in(text, &finder(find, &options).unwrap(), with, whole_word)
    }

    #[test]
    fn matches_any_case_unless_asked_and_whole_words_when_asked() {
        assert_eq!(replaced("The lamp, the LAMP.", "lamp", "light", false, false).as_deref(), Some("The light, the light."));
        assert_eq!(replaced("The lamp, the LAMP.", "lamp", "light", true, false).as_deref(), Some("The light, the LAMP."));
        assert_eq!(replaced("Lamplight on the lamp.", "lamp", "torch", false, true).as_deref(), Some("Lamplight on the torch."));
        assert_eq!(replaced("lamplamp lamp", "lamp", "x", false, true).as_deref(), Some("lamplamp x"), "a rejected match does not hide the next");
        assert_eq!(replaced("Nothing here.", "lamp", "x", false, false), None);
        assert_eq!(replaced("a.b (c) a.b", "a.b", "ab", true, false).as_deref(), Some("ab (c) ab"), "the text is literal, not a pattern");
        assert_eq!(replaced("Ça va, ÇA VA", "ça", "Ca", false, true).as_deref(), Some("Ca va, Ca VA"));
        assert!(finder("", &ReplaceOptions::default()).unwrap_err().to_string().contains("find"));
    }
}
