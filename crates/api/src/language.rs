//! The `language` field: which languages the API takes, by English name or
//! ISO code, and how each is read. Kokoro has voices and this build has a
//! G2P for English, Spanish, French, Italian and Portuguese (native). For
//! Chinese and Japanese Kokoro has voices but this build has no native G2P,
//! and for Korean, German and Russian it has neither: those are read
//! through espeak-ng's phonemes with the nearest voice, and listed as
//! experimental.

use serde::Serialize;

/// One language the API takes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Language {
    /// The English name, as clients send it (`German`).
    pub name: &'static str,
    /// ISO 639-1 and other codes accepted for it (lower case).
    pub codes: &'static [&'static str],
    /// What `Synthesizer::prepare_as` reads the text as: a Kokoro language
    /// tag or an espeak-ng voice.
    pub reading: &'static str,
    /// The Kokoro voice language that speaks it natively, if any.
    pub kokoro_language: Option<&'static str>,
    /// The voice used when the request names none (`default`).
    pub default_voice: &'static str,
    /// Read by this build's own G2P with its own voices (false: espeak-ng
    /// phonemes and possibly another language's voice; experimental).
    pub native: bool,
}

/// Every language the API takes, besides `Auto`.
pub const LANGUAGES: &[Language] = &[
    Language { name: "English", codes: &["en", "eng", "en-us", "en-gb"], reading: "en-US", kokoro_language: Some("en-US"), default_voice: "af_heart", native: true },
    Language { name: "Chinese", codes: &["zh", "zho", "chi", "cmn", "zh-cn"], reading: "cmn", kokoro_language: Some("zh"), default_voice: "zf_xiaobei", native: false },
    Language { name: "Japanese", codes: &["ja", "jpn"], reading: "ja", kokoro_language: Some("ja"), default_voice: "jf_alpha", native: false },
    Language { name: "Korean", codes: &["ko", "kor"], reading: "ko", kokoro_language: None, default_voice: "jf_alpha", native: false },
    Language { name: "German", codes: &["de", "deu", "ger"], reading: "de", kokoro_language: None, default_voice: "bf_emma", native: false },
    Language { name: "French", codes: &["fr", "fra", "fre"], reading: "fr", kokoro_language: Some("fr"), default_voice: "ff_siwis", native: true },
    Language { name: "Russian", codes: &["ru", "rus"], reading: "ru", kokoro_language: None, default_voice: "af_heart", native: false },
    Language { name: "Portuguese", codes: &["pt", "por", "pt-br", "pt-pt"], reading: "pt-BR", kokoro_language: Some("pt-BR"), default_voice: "pf_dora", native: true },
    Language { name: "Spanish", codes: &["es", "spa"], reading: "es", kokoro_language: Some("es"), default_voice: "ef_dora", native: true },
    Language { name: "Italian", codes: &["it", "ita"], reading: "it", kokoro_language: Some("it"), default_voice: "if_sara", native: true },
];

/// The accepted values, for messages.
pub fn accepted() -> String {
    let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
    format!("Auto, {} (or their ISO 639-1 codes)", names.join(", "))
}

/// The language a `language` value names; `Ok(None)` for `Auto`; `Err`
/// with the reason for anything else.
pub fn parse(value: &str) -> Result<Option<&'static Language>, String> {
    let wanted = value.trim().to_ascii_lowercase();
    if wanted == "auto" {
        return Ok(None);
    }
    LANGUAGES
        .iter()
        .find(|l| l.name.eq_ignore_ascii_case(&wanted) || l.codes.contains(&wanted.as_str()))
        .map(Some)
        .ok_or_else(|| format!("{value:?} is not a language this server speaks; use {}", accepted()))
}

/// The language that speaks a Kokoro voice language (`zh` → Chinese).
pub fn of_voice_language(kokoro_language: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.kokoro_language == Some(kokoro_language) || (l.name == "English" && kokoro_language.starts_with("en")))
}

/// How to read text for a voice whose own language is `voice_language`,
/// when the request asked for `language`: `None` reads it as the voice's
/// language (through the synthesizer's own choice), `Some(tag)` overrides.
pub fn reading_for(language: Option<&Language>, voice_language: &str) -> Option<&'static str> {
    match language {
        // The voice's own language; Chinese and Japanese voices need espeak-ng here.
        None => of_voice_language(voice_language).filter(|l| !l.native).map(|l| l.reading),
        Some(l) if l.name == "English" && voice_language.starts_with("en") => None,
        Some(l) if l.kokoro_language == Some(voice_language) && l.native => None,
        Some(l) => Some(l.reading),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_parse_and_anything_else_is_refused() {
        assert_eq!(parse("German").unwrap().unwrap().reading, "de");
        assert_eq!(parse("de").unwrap().unwrap().name, "German");
        assert_eq!(parse("pt-BR").unwrap().unwrap().name, "Portuguese");
        assert_eq!(parse("auto").unwrap(), None);
        let err = parse("Klingon").unwrap_err();
        assert!(err.contains("Klingon") && err.contains("Italian"), "{err}");
    }

    #[test]
    fn text_is_read_natively_where_it_can_be() {
        let german = parse("de").unwrap();
        assert_eq!(reading_for(german, "en-US"), Some("de"));
        assert_eq!(reading_for(parse("en").unwrap(), "en-GB"), None, "a British voice keeps its accent");
        assert_eq!(reading_for(parse("es").unwrap(), "es"), None);
        assert_eq!(reading_for(None, "zh"), Some("cmn"), "Chinese voices read through espeak-ng");
        assert_eq!(reading_for(None, "en-US"), None);
    }
}
