//! G2P for the other languages Kokoro has voices for (Spanish, French,
//! Italian, Brazilian Portuguese, Hindi): the `espeak-ng` program's IPA,
//! with its tied diphthongs and affricates rewritten into Kokoro's single
//! symbols, as Kokoro's own pipeline prepares these languages. Clause
//! punctuation is kept (espeak drops it), since the model reads it as
//! prosody.

use std::path::PathBuf;
use std::process::Command;

use revoice_core::error::{Error, Result};

/// espeak-ng's tied pairs → Kokoro symbols.
const TIED: [(&str, &str); 11] =
    [("a^ɪ", "I"), ("a^ʊ", "W"), ("d^z", "ʣ"), ("d^ʒ", "ʤ"), ("e^ɪ", "A"), ("o^ʊ", "O"), ("ə^ʊ", "Q"), ("s^s", "S"), ("t^s", "ʦ"), ("t^ʃ", "ʧ"), ("ɔ^ɪ", "Y")];

/// Punctuation the model reads; text is phonemized between these.
const CLAUSE_MARKS: [char; 9] = [',', '.', ';', ':', '!', '?', '—', '…', '¿'];

/// Text → phonemes for one espeak-ng voice.
pub struct EspeakPhonemizer {
    program: Option<PathBuf>,
    voice: &'static str,
}

impl EspeakPhonemizer {
    /// `voice` is espeak-ng's (`es`, `fr-fr`, `it`, `pt-br`, `hi`).
    pub fn new(voice: &'static str) -> EspeakPhonemizer {
        EspeakPhonemizer { program: which::which("espeak-ng").ok(), voice }
    }

    pub fn phonemize(&self, text: &str) -> Result<String> {
        let program = self.program.as_ref().ok_or_else(|| Error::InvalidInput {
            input: format!("language {}", self.voice),
            reason: "needs the espeak-ng program: sudo apt-get install espeak-ng".into(),
        })?;
        let text = if self.voice.starts_with("fr") { french_times(text) } else { text.to_string() };
        let mut out = String::new();
        let mut clause = String::new();
        let flush = |clause: &mut String, out: &mut String| -> Result<()> {
            if clause.trim().is_empty() {
                clause.clear();
                return Ok(());
            }
            let ipa = self.run(program, clause)?;
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            out.push_str(&ipa);
            clause.clear();
            Ok(())
        };
        for c in text.chars() {
            if CLAUSE_MARKS.contains(&c) {
                flush(&mut clause, &mut out)?;
                if c != '¿' {
                    out.push(c);
                }
            } else {
                clause.push(c);
            }
        }
        flush(&mut clause, &mut out)?;
        Ok(out.trim().to_string())
    }

    fn run(&self, program: &PathBuf, text: &str) -> Result<String> {
        let output = Command::new(program)
            .args(["-q", "--ipa", "--tie=^", "-v", self.voice, "--"])
            .arg(text.trim())
            .output()
            .map_err(|e| Error::InvalidInput { input: "espeak-ng".into(), reason: format!("could not run: {e}") })?;
        if !output.status.success() {
            return Err(Error::InvalidInput {
                input: format!("espeak-ng -v {}", self.voice),
                reason: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            });
        }
        Ok(rewrite(&String::from_utf8_lossy(&output.stdout)))
    }
}

/// French times written the French way (`10h30`, `7h`) said as a French
/// speaker says them (`10 heures 30`): espeak-ng spells the `h` out as a
/// letter ("dix ache trente").
fn french_times(text: &str) -> String {
    static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(r"\b(\d{1,2})\s?h\s?(\d{2})?\b").expect("a valid pattern"));
    TIME.replace_all(text, |c: &regex::Captures| {
        let hours = if &c[1] == "1" { "heure" } else { "heures" };
        match c.get(2) {
            Some(minutes) => format!("{} {hours} {}", &c[1], minutes.as_str()),
            None => format!("{} {hours}", &c[1]),
        }
    })
    .into_owned()
}

/// espeak-ng IPA (ties as `^`) → Kokoro's symbols.
pub fn rewrite(ipa: &str) -> String {
    let mut s = ipa.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in TIED {
        s = s.replace(from, to);
    }
    s.replace(['^', '-'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tied_pairs_become_single_symbols_and_lines_join() {
        assert_eq!(rewrite("t^ʃˈao\nkˌome stˈaj\n"), "ʧˈao kˌome stˈaj");
        assert_eq!(rewrite("ʒə- mapˈɛl"), "ʒə mapˈɛl");
        assert_eq!(rewrite("tˈudʊ bˈe^ɪŋ"), "tˈudʊ bˈAŋ");
    }

    #[test]
    fn spanish_keeps_its_clause_punctuation() {
        let p = EspeakPhonemizer::new("es");
        assert_eq!(p.phonemize("Hola, ¿cómo estás?").unwrap(), "ˈola, kˈomo estˈas?");
    }

    #[test]
    fn french_times_are_said_in_hours_not_spelled() {
        assert_eq!(french_times("Le train part à 10h30, pas à 1h."), "Le train part à 10 heures 30, pas à 1 heure.");
        assert_eq!(french_times("à 7 h 05"), "à 7 heures 05");
        assert_eq!(french_times("le 4x4, la 2CV, 10 hommes"), "le 4x4, la 2CV, 10 hommes");
        let p = EspeakPhonemizer::new("fr-fr");
        assert!(!p.phonemize("à 10h30").unwrap().contains("aʃ"), "{}", p.phonemize("à 10h30").unwrap());
    }
}
