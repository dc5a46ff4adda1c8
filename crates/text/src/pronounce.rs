//! Pronunciation dictionaries: a word or name (or several words) said as
//! given phonemes (Kokoro's IPA, as `revoice say --phonemes`-style G2P
//! prints them) or as a respelling read by the G2P instead. A project's
//! entries and the global ones are merged (the project's win), matched as
//! whole words in any case, and applied sentence by sentence around the
//! G2P of every language. [`Pronunciations::used_in`] names the entries a
//! line uses, so a changed entry changes only those lines' source keys.

use serde::{Deserialize, Serialize};

use crate::script::Script;
use revoice_core::error::{Error, Result};

/// How a dictionary word is said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub enum Saying {
    /// Phonemes, as Kokoro reads them (IPA).
    Phonemes(String),
    /// Another spelling, read by the G2P of the line's language.
    Respelling(String),
}

/// A dictionary entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Pronunciation {
    /// The word or words as written (matched whole, in any case).
    pub word: String,
    pub saying: Saying,
    /// From the global dictionary rather than the project's.
    pub global: bool,
}

impl Pronunciation {
    /// An entry, checked: a word of letters (spaces, hyphens and
    /// apostrophes between them) and something to say.
    pub fn new(word: &str, saying: Saying, global: bool) -> Result<Pronunciation> {
        let word = word.split_whitespace().collect::<Vec<_>>().join(" ");
        let invalid = |reason: &str| Error::invalid(format!("dictionary word {word:?}"), reason);
        if word.is_empty() {
            return Err(invalid("is empty"));
        }
        if !word.chars().any(char::is_alphanumeric) || word.chars().any(|c| !(c.is_alphanumeric() || matches!(c, ' ' | '-' | '\'' | '’' | '.'))) {
            return Err(invalid("must be a word or name (letters and digits, with spaces, hyphens or apostrophes)"));
        }
        let saying = match saying {
            Saying::Phonemes(p) => Saying::Phonemes(p.trim().trim_matches('/').trim().to_string()),
            Saying::Respelling(r) => Saying::Respelling(r.trim().to_string()),
        };
        match &saying {
            Saying::Phonemes(p) if p.is_empty() => return Err(invalid("has no phonemes")),
            Saying::Respelling(r) if !r.chars().any(char::is_alphanumeric) => return Err(invalid("has no respelling")),
            _ => {}
        }
        Ok(Pronunciation { word, saying, global })
    }

    /// What a key and a person read: `word=/phonemes/` or `word=respelling`.
    pub fn describe(&self) -> String {
        match &self.saying {
            Saying::Phonemes(p) => format!("{}=/{p}/", self.word),
            Saying::Respelling(r) => format!("{}={r}", self.word),
        }
    }
}

/// A merged dictionary, ready to match.
#[derive(Debug, Clone, Default)]
pub struct Pronunciations {
    entries: Vec<Pronunciation>,
    /// Whole-word, case-insensitive, longest first; `None` when empty.
    pattern: Option<regex::Regex>,
}

impl PartialEq for Pronunciations {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Pronunciations {
    /// The project's entries over the global ones (a project entry for the
    /// same word wins).
    pub fn merged(project: Vec<Pronunciation>, global: Vec<Pronunciation>) -> Pronunciations {
        let mut entries = project;
        for g in global {
            if !entries.iter().any(|e| e.word.to_lowercase() == g.word.to_lowercase()) {
                entries.push(g);
            }
        }
        entries.sort_by(|a, b| b.word.chars().count().cmp(&a.word.chars().count()).then_with(|| a.word.cmp(&b.word)));
        let pattern = (!entries.is_empty()).then(|| {
            let words: Vec<String> = entries.iter().map(|e| whole_word_pattern(&e.word)).collect();
            regex::Regex::new(&format!(r"(?iu)(?:{})", words.join("|"))).expect("escaped words make a pattern")
        });
        Pronunciations { entries, pattern }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[Pronunciation] {
        &self.entries
    }

    fn entry_for(&self, found: &str) -> &Pronunciation {
        let found = found.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        self.entries.iter().find(|e| e.word.to_lowercase() == found).expect("a match is an entry's word")
    }

    /// The entries `text` uses, each once, in dictionary order.
    pub fn used_in(&self, text: &str) -> Vec<&Pronunciation> {
        let Some(pattern) = &self.pattern else { return Vec::new() };
        let mut used: Vec<&Pronunciation> = Vec::new();
        for m in pattern.find_iter(text) {
            let entry = self.entry_for(m.as_str());
            if !used.contains(&entry) {
                used.push(entry);
            }
        }
        used.sort_by(|a, b| a.word.cmp(&b.word));
        used
    }

    /// The text as an engine that reads only text would be given it: each
    /// word with a respelling replaced by it; words given as phonemes stay
    /// as written (a text-only engine cannot take phonemes).
    pub fn respell(&self, text: &str) -> String {
        let Some(pattern) = &self.pattern else { return text.to_string() };
        pattern
            .replace_all(text, |m: &regex::Captures| match &self.entry_for(&m[0]).saying {
                Saying::Respelling(r) => r.clone(),
                Saying::Phonemes(_) => m[0].to_string(),
            })
            .into_owned()
    }

    /// Phonemizes a sentence with `g2p`, the dictionary's words said as
    /// their entries say: the text between them goes through `g2p`, a
    /// respelling too, phonemes go in as they are.
    pub fn phonemize(&self, sentence: &str, g2p: &dyn Fn(&str) -> Result<String>) -> Result<String> {
        let Some(pattern) = &self.pattern else { return g2p(sentence) };
        let mut parts: Vec<String> = Vec::new();
        let mut at = 0;
        let plain = |text: &str, parts: &mut Vec<String>| -> Result<()> {
            if text.chars().any(char::is_alphanumeric) {
                parts.push(g2p(text.trim())?);
            } else if !text.trim().is_empty() {
                // Punctuation alone (a comma after a name) keeps its pause.
                parts.push(text.trim().to_string());
            }
            Ok(())
        };
        for m in pattern.find_iter(sentence) {
            plain(&sentence[at..m.start()], &mut parts)?;
            match &self.entry_for(m.as_str()).saying {
                Saying::Phonemes(p) => parts.push(p.clone()),
                Saying::Respelling(r) => parts.push(g2p(r)?),
            }
            at = m.end();
        }
        plain(&sentence[at..], &mut parts)?;
        let mut joined = String::new();
        for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            let glued = part.starts_with([',', '.', '!', '?', ';', ':', '…']);
            if !joined.is_empty() && !glued {
                joined.push(' ');
            }
            joined.push_str(part);
        }
        Ok(joined)
    }
}

/// The pattern of a dictionary word matched whole: any spacing between its
/// words, and a word boundary at each end, except at an end in Chinese or
/// Japanese script (written without spaces, where a word ends at any
/// character).
fn whole_word_pattern(word: &str) -> String {
    let unspaced = |c: Option<char>| c.and_then(crate::script::script_of).is_some_and(|s| matches!(s, Script::Han | Script::Kana));
    let edge = |c: Option<char>| if unspaced(c) { "" } else { r"\b" };
    let body = regex::escape(word).replace("\\ ", r"\s+").replace(' ', r"\s+");
    format!("{}{body}{}", edge(word.chars().next()), edge(word.chars().last()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(word: &str, saying: Saying) -> Pronunciation {
        Pronunciation::new(word, saying, false).unwrap()
    }

    /// A stand-in G2P: upper case, brackets round each call.
    fn g2p(text: &str) -> Result<String> {
        Ok(format!("[{}]", text.to_uppercase()))
    }

    #[test]
    fn text_for_a_text_only_engine_takes_respellings_and_keeps_phoneme_words() {
        let d = Pronunciations::merged(vec![entry("Siobhan", Saying::Respelling("Shiv-awn".into())), entry("Nguyen", Saying::Phonemes("wˈɪn".into()))], vec![]);
        assert_eq!(d.respell("siobhan met Nguyen."), "Shiv-awn met Nguyen.");
    }

    #[test]
    fn dictionary_words_are_said_as_given_and_the_rest_goes_through_the_g2p() {
        let d = Pronunciations::merged(vec![entry("Ysolde", Saying::Phonemes("/ɪzˈoʊldə/".into())), entry("Nguyen", Saying::Respelling("win".into()))], vec![]);
        assert_eq!(d.phonemize("Ysolde met Mr Nguyen, twice.", &g2p).unwrap(), "ɪzˈoʊldə [MET MR] [WIN] [, TWICE.]");
        assert_eq!(d.phonemize("ysolde!", &g2p).unwrap(), "ɪzˈoʊldə!");
        // Only whole words match.
        assert_eq!(d.phonemize("Ysoldes and Nguyenville.", &g2p).unwrap(), "[YSOLDES AND NGUYENVILLE.]");
    }

    #[test]
    fn chinese_and_japanese_words_match_inside_a_line_written_without_spaces() {
        let d = Pronunciations::merged(
            vec![
                entry("李明", Saying::Respelling("Lǐ Míng".into())),
                entry("健二", Saying::Respelling("けんじ".into())),
                entry("Li", Saying::Respelling("Lee".into())),
            ],
            vec![],
        );
        assert_eq!(d.phonemize("李明去了北京。", &g2p).unwrap(), "[LǏ MÍNG] [去了北京。]");
        assert_eq!(d.phonemize("昨日、健二は来た。", &g2p).unwrap(), "[昨日、] [けんじ] [は来た。]");
        // A Latin entry still needs its word boundaries.
        assert_eq!(d.phonemize("Lisa met Li.", &g2p).unwrap(), "[LISA MET] [LEE].");
    }

    #[test]
    fn a_line_names_only_the_entries_it_uses_and_the_project_wins_over_the_global_dictionary() {
        let project = vec![entry("Theo", Saying::Respelling("Tay-o".into()))];
        let global = vec![
            Pronunciation::new("theo", Saying::Respelling("Thee-o".into()), true).unwrap(),
            Pronunciation::new("New York", Saying::Phonemes("nu jˈɔɹk".into()), true).unwrap(),
        ];
        let d = Pronunciations::merged(project, global);
        assert_eq!(d.entries().len(), 2);
        let used: Vec<String> = d.used_in("Theo flew to new  york with THEO.").iter().map(|e| e.describe()).collect();
        assert_eq!(used, ["New York=/nu jˈɔɹk/", "Theo=Tay-o"]);
        assert!(d.used_in("Nobody here.").is_empty());
        assert_eq!(d.phonemize("To New York.", &g2p).unwrap(), "[TO] nu jˈɔɹk.");
    }

    #[test]
    fn bad_entries_are_refused_by_name() {
        assert!(Pronunciation::new("  ", Saying::Respelling("x".into()), false).unwrap_err().to_string().contains("empty"));
        assert!(Pronunciation::new("a<b", Saying::Respelling("x".into()), false).unwrap_err().to_string().contains("\"a<b\""));
        assert!(Pronunciation::new("Ana", Saying::Phonemes(" / / ".into()), false).unwrap_err().to_string().contains("no phonemes"));
        assert_eq!(Pronunciation::new(" Ana  Lu ", Saying::Phonemes("/ˈɑnə/".into()), false).unwrap().describe(), "Ana Lu=/ˈɑnə/");
    }
}
