//! English G2P: misaki-rs (lexicons and POS tagger compiled in) with an
//! out-of-lexicon fallback that runs the `espeak-ng` program and rewrites
//! its IPA into Kokoro's English phoneme set.

use std::process::Command;

use misaki_rs::fallback::{Fallback, FallbackError};
use misaki_rs::{Language, G2P};

use revoice_core::error::{Error, Result};

/// Which English.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accent {
    Us,
    Gb,
}

/// Text → phoneme string for one accent.
pub struct EnglishPhonemizer {
    g2p: G2P,
}

impl EnglishPhonemizer {
    /// With the espeak-ng fallback when the program is installed.
    pub fn new(accent: Accent) -> EnglishPhonemizer {
        let language = match accent {
            Accent::Us => Language::EnglishUS,
            Accent::Gb => Language::EnglishGB,
        };
        let fallback: Option<Box<dyn Fallback>> =
            which::which("espeak-ng").ok().map(|program| Box::new(EspeakProgram { program, accent }) as Box<dyn Fallback>);
        EnglishPhonemizer { g2p: G2P::with_fallback(language, fallback) }
    }

    /// Phonemes for `text`; words nothing could read are dropped, and an
    /// error says so when nothing at all is left.
    pub fn phonemize(&self, text: &str) -> Result<String> {
        let text = readable(text);
        let (phonemes, _) = self
            .g2p
            .g2p(&text)
            .map_err(|e| Error::InvalidInput { input: format!("text {:?}", shorten(&text)), reason: format!("cannot be read as English: {e}") })?;
        Ok(phonemes.replace('❓', "").trim().to_string())
    }
}

/// Rewrites what misaki would spell letter by letter into what a reader
/// says: web addresses and e-mail addresses ("example dot com slash docs",
/// "ana at example dot org"), "St." after a name as "Street", and plain
/// decimals digit by digit after the point ("3.50" as "3 point five zero";
/// misaki drops trailing zeros, reading "2.0" as "two"). Currency,
/// percentages and times are left to misaki, which reads them right.
pub fn readable(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let core = word.trim_end_matches(['.', ',', '!', '?', ';', ':', ')']);
        let tail = &word[core.len()..];
        let lower = core.to_ascii_lowercase();
        let is_url = lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.");
        let is_email = core.contains('@') && core.rsplit('@').next().is_some_and(|d| d.contains('.'));
        if is_url || is_email {
            let mut address = core.to_string();
            for scheme in ["https://", "http://", "HTTPS://", "HTTP://"] {
                if let Some(rest) = address.strip_prefix(scheme) {
                    address = rest.to_string();
                }
            }
            if address.to_ascii_lowercase().starts_with("www.") {
                address = address[4..].to_string();
            }
            let spoken = address
                .trim_end_matches('/')
                .replace('@', " at ")
                .replace('.', " dot ")
                .replace('/', " slash ")
                .replace('-', " dash ")
                .replace('_', " underscore ");
            out.push(format!("{}{tail}", spoken.split_whitespace().collect::<Vec<_>>().join(" ")));
        } else if let Some(spoken) = spoken_decimal(core) {
            out.push(format!("{spoken}{tail}"));
        } else if core == "St" && tail.starts_with('.') && i > 0 && words[i - 1].chars().next().is_some_and(char::is_uppercase) {
            // The abbreviation's dot ends the sentence only when it is the last word.
            let rest = if i + 1 == words.len() { tail } else { &tail[1..] };
            out.push(format!("Street{rest}"));
        } else {
            out.push(word.to_string());
        }
    }
    out.join(" ")
}

/// `"3.50"` → `"3 point five zero"`; `None` unless `word` is digits (with
/// thousands commas), a point and digits.
fn spoken_decimal(word: &str) -> Option<String> {
    const DIGITS: [&str; 10] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    let (whole, fraction) = word.split_once('.')?;
    let whole_ok = !whole.is_empty() && whole.starts_with(|c: char| c.is_ascii_digit()) && whole.chars().all(|c| c.is_ascii_digit() || c == ',');
    if !whole_ok || fraction.is_empty() || !fraction.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits: Vec<&str> = fraction.bytes().map(|b| DIGITS[(b - b'0') as usize]).collect();
    Some(format!("{whole} point {}", digits.join(" ")))
}

fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        s.push('…');
    }
    s
}

/// Runs `espeak-ng -q --ipa` for one word.
struct EspeakProgram {
    program: std::path::PathBuf,
    accent: Accent,
}

impl Fallback for EspeakProgram {
    fn phonemize(&self, word: &str) -> std::result::Result<String, FallbackError> {
        let word: String = word.chars().filter(|c| !c.is_control()).collect();
        if word.trim().is_empty() {
            return Ok(String::new());
        }
        let voice = match self.accent {
            Accent::Us => "en-us",
            Accent::Gb => "en-gb",
        };
        let out = Command::new(&self.program)
            .args(["-q", "--ipa", "-v", voice, "--"])
            .arg(&word)
            .output()
            .map_err(|e| FallbackError::Espeak { word: word.clone(), error: e.to_string() })?;
        if !out.status.success() {
            return Err(FallbackError::Espeak { word, error: String::from_utf8_lossy(&out.stderr).into_owned() });
        }
        let ipa = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if ipa.is_empty() {
            return Err(FallbackError::NoPhonemes { word });
        }
        Ok(ipa_to_kokoro(&ipa, self.accent))
    }
}

/// Rewrites espeak-ng's English IPA into the symbols Kokoro's English
/// voices were trained on (misaki's set: diphthongs as single capitals,
/// affricates as ligatures, the flap as `T`).
pub fn ipa_to_kokoro(ipa: &str, accent: Accent) -> String {
    let o_diphthong = match accent {
        Accent::Us => "O",
        Accent::Gb => "Q",
    };
    let mut s = ipa.replace(['\n', '\u{200d}'], " ");
    for (from, to) in [
        ("aɪ", "I"),
        ("aʊ", "W"),
        ("eɪ", "A"),
        ("ɔɪ", "Y"),
        ("oʊ", o_diphthong),
        ("əʊ", o_diphthong),
        ("dʒ", "ʤ"),
        ("tʃ", "ʧ"),
        ("ɚ", "əɹ"),
        ("ɝ", "ɜɹ"),
        ("ᵻ", "ɪ"),
        ("ɐ", "ə"),
        ("ɾ", "T"),
        ("ʔ", "t"),
        ("r", "ɹ"),
        ("ː", ""),
        ("ɡ", "ɡ"),
    ] {
        s = s.replace(from, to);
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn espeak_ipa_is_rewritten_into_kokoros_symbols() {
        assert_eq!(ipa_to_kokoro("kjˈuːbɚnˌiːts", Accent::Us), "kjˈubəɹnˌits");
        assert_eq!(ipa_to_kokoro("ɹᵻvˈɔɪs", Accent::Us), "ɹɪvˈYs");
        assert_eq!(ipa_to_kokoro("ɡˈoʊ", Accent::Us), "ɡˈO");
        assert_eq!(ipa_to_kokoro("ɡˈəʊ", Accent::Gb), "ɡˈQ");
    }

    #[test]
    fn lexicon_words_come_from_misaki() {
        let g2p = EnglishPhonemizer::new(Accent::Us);
        assert_eq!(g2p.phonemize("Hello world!").unwrap(), "həlˈO wˈɜɹld!");
    }

    #[test]
    fn addresses_are_read_as_people_say_them() {
        assert_eq!(readable("Visit https://www.example.com/docs/ now."), "Visit example dot com slash docs now.");
        assert_eq!(readable("Mail ana_b@my-site.org, thanks"), "Mail ana underscore b at my dash site dot org, thanks");
        assert_eq!(readable("He lives on Baker St."), "He lives on Baker Street.");
        assert_eq!(readable("St. Louis is big."), "St. Louis is big.");
        assert_eq!(readable("Nothing to change here."), "Nothing to change here.");
    }

    #[test]
    fn decimals_keep_every_digit_after_the_point() {
        assert_eq!(readable("It costs 3.50 now."), "It costs 3 point five zero now.");
        assert_eq!(readable("Version 2.0, then 1,024.25."), "Version 2 point zero, then 1,024 point two five.");
        // Left to misaki: currency, percentages, times, dotted words, a bare point.
        assert_eq!(readable("$3.50 or 4.5% at 10:30, e.g. 3. and .5"), "$3.50 or 4.5% at 10:30, e.g. 3. and .5");
        let ps = EnglishPhonemizer::new(Accent::Us).phonemize("Version 2.0 shipped.").unwrap();
        assert!(ps.contains("pˈYnt") && ps.contains("zˈɪɹO"), "{ps}");
    }

    #[test]
    fn numbers_are_read_as_words() {
        let g2p = EnglishPhonemizer::new(Accent::Us);
        let ps = g2p.phonemize("I have 3 cats.").unwrap();
        assert!(ps.contains("θɹˈi"), "{ps}");
    }
}
