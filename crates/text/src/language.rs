//! The languages the studio speaks, in one table: for each, the names and
//! codes that name it, the Kokoro voice language that speaks it natively
//! (if any), how its text is read (this build's English, Mandarin or
//! Japanese G2P, or espeak-ng's phonemes with a given espeak voice), the
//! voice used when none is named, the sentence voice previews read, and
//! whether it is native or experimental. Kokoro has voices and this build
//! reads natively English, Spanish, French, Italian, Brazilian Portuguese,
//! Hindi, Mandarin Chinese and Japanese. Korean, German and Russian have
//! neither: those are read through espeak-ng's phonemes with the nearest
//! voice, and listed as experimental.
//!
//! Tags are compared by their primary subtag (`en-US` and `en-GB` are both
//! English): a voice speaks a track's language when the two share it.

use serde::Serialize;

/// One language.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Language {
    /// The English name, as API clients send it (`German`).
    pub name: &'static str,
    /// ISO 639-1 and other codes accepted for it (lower case).
    pub codes: &'static [&'static str],
    /// How the front end reads its text: `en-US`/`en-GB` through the
    /// English G2P, `zh` through the Mandarin G2P, `ja` through the
    /// Japanese G2P, anything else as an espeak-ng voice.
    pub reading: &'static str,
    /// The Kokoro voice language that speaks it natively, if any.
    pub kokoro_language: Option<&'static str>,
    /// The voice used when a request names none (`default`).
    pub default_voice: &'static str,
    /// Read by this build's own G2P with its own voices (false: espeak-ng
    /// phonemes and possibly another language's voice; experimental).
    pub native: bool,
    /// What a voice preview in this language says.
    #[serde(skip)]
    pub sample: &'static str,
}

/// Every language, besides `Auto`.
pub const LANGUAGES: &[Language] = &[
    Language {
        name: "English",
        codes: &["en", "eng", "en-us", "en-gb"],
        reading: "en-US",
        kokoro_language: Some("en-US"),
        default_voice: "af_heart",
        native: true,
        sample: "Hello, this is how this voice reads a line of your dub.",
    },
    Language {
        name: "Chinese",
        codes: &["zh", "zho", "chi", "cmn", "zh-cn"],
        reading: "zh",
        kokoro_language: Some("zh"),
        default_voice: "zf_xiaobei",
        native: true,
        sample: "你好，这就是这个声音朗读配音台词的样子。",
    },
    Language {
        name: "Japanese",
        codes: &["ja", "jpn"],
        reading: "ja",
        kokoro_language: Some("ja"),
        default_voice: "jf_alpha",
        native: true,
        sample: "こんにちは、この声で吹き替えのセリフを読むとこうなります。",
    },
    Language {
        name: "Korean",
        codes: &["ko", "kor"],
        reading: "ko",
        kokoro_language: None,
        default_voice: "jf_alpha",
        native: false,
        sample: "안녕하세요, 이 목소리로 더빙 대사를 읽으면 이렇게 들립니다.",
    },
    Language {
        name: "German",
        codes: &["de", "deu", "ger"],
        reading: "de",
        kokoro_language: None,
        default_voice: "bf_emma",
        native: false,
        sample: "Hallo, so liest diese Stimme eine Zeile Ihrer Synchronisation.",
    },
    Language {
        name: "French",
        codes: &["fr", "fra", "fre"],
        reading: "fr-fr",
        kokoro_language: Some("fr"),
        default_voice: "ff_siwis",
        native: true,
        sample: "Bonjour, voici comment cette voix lit une réplique du doublage.",
    },
    Language {
        name: "Russian",
        codes: &["ru", "rus"],
        reading: "ru",
        kokoro_language: None,
        default_voice: "af_heart",
        native: false,
        sample: "Здравствуйте, вот так этот голос читает реплику вашего дубляжа.",
    },
    Language {
        name: "Portuguese",
        codes: &["pt", "por", "pt-br", "pt-pt"],
        reading: "pt-br",
        kokoro_language: Some("pt-BR"),
        default_voice: "pf_dora",
        native: true,
        sample: "Olá, é assim que esta voz lê uma fala da dublagem.",
    },
    Language {
        name: "Spanish",
        codes: &["es", "spa"],
        reading: "es",
        kokoro_language: Some("es"),
        default_voice: "ef_dora",
        native: true,
        sample: "Hola, así suena esta voz leyendo una línea del doblaje.",
    },
    Language {
        name: "Italian",
        codes: &["it", "ita"],
        reading: "it",
        kokoro_language: Some("it"),
        default_voice: "if_sara",
        native: true,
        sample: "Ciao, ecco come questa voce legge una battuta del doppiaggio.",
    },
    Language {
        name: "Hindi",
        codes: &["hi", "hin"],
        reading: "hi",
        kokoro_language: Some("hi"),
        default_voice: "hf_alpha",
        native: true,
        sample: "नमस्ते, यह आवाज़ डबिंग की एक पंक्ति ऐसे पढ़ती है।",
    },
];

/// The primary subtag of a language tag, lower case (`en-GB` → `en`).
pub fn primary(tag: &str) -> String {
    tag.split(['-', '_']).next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Whether a voice of `voice_language` speaks text in `language` (same primary subtag).
pub fn speaks(voice_language: &str, language: &str) -> bool {
    primary(voice_language) == primary(language)
}

/// The accepted values, for messages.
pub fn accepted() -> String {
    let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
    format!("Auto, {} (or their ISO 639-1 codes)", names.join(", "))
}

/// The language a name or code names; `Ok(None)` for `Auto`; `Err` with
/// the reason for anything else.
pub fn parse(value: &str) -> Result<Option<&'static Language>, String> {
    let wanted = value.trim().to_ascii_lowercase();
    if wanted == "auto" {
        return Ok(None);
    }
    LANGUAGES
        .iter()
        .find(|l| l.name.eq_ignore_ascii_case(&wanted) || l.codes.contains(&wanted.as_str()) || l.codes.contains(&primary(&wanted).as_str()))
        .map(Some)
        .ok_or_else(|| format!("{value:?} is not a language this studio speaks; use {}", accepted()))
}

/// The language a Kokoro voice language (or any tag) belongs to, by primary subtag.
pub fn of_tag(tag: &str) -> Option<&'static Language> {
    let wanted = primary(tag);
    LANGUAGES.iter().find(|l| l.codes.contains(&wanted.as_str()))
}

/// How the front end reads a Kokoro voice language natively, English
/// aside: `zh` (the Mandarin G2P), `ja` (the Japanese G2P) or an espeak-ng
/// voice. `None` for English and for languages read only when a request
/// asks for it (see [`reading_for`]).
pub fn native_reading(voice_language: &str) -> Option<&'static str> {
    of_tag(voice_language).filter(|l| l.native && l.kokoro_language.is_some() && primary(l.reading) != "en").map(|l| l.reading)
}

/// How a voice of `voice_language` reads text in its own language: the
/// English G2P for English voices (`en-GB` in its accent, any other
/// English as `en-US`), else [`native_reading`]; `None` when this build
/// cannot read its language natively.
pub fn voice_reading(voice_language: &str) -> Option<&'static str> {
    match primary(voice_language).as_str() {
        "en" if voice_language.eq_ignore_ascii_case("en-GB") => Some("en-GB"),
        "en" => Some("en-US"),
        _ => native_reading(voice_language),
    }
}

/// What a voice preview says in a voice of `voice_language`.
pub fn sample_sentence(voice_language: &str) -> &'static str {
    of_tag(voice_language).unwrap_or(&LANGUAGES[0]).sample
}

/// How to read text for a voice whose own language is `voice_language`,
/// when a request asked for `language`: `None` reads it as the voice's
/// language (the front end's own choice), `Some(reading)` overrides.
pub fn reading_for(language: Option<&Language>, voice_language: &str) -> Option<&'static str> {
    match language {
        // The voice's own language; an experimental one is read by espeak-ng.
        None => of_tag(voice_language).filter(|l| !l.native).map(|l| l.reading),
        Some(l) if l.kokoro_language.is_some_and(|k| speaks(k, voice_language)) && l.native => None,
        Some(l) => Some(l.reading),
    }
}

/// A first line for Whisper to continue when it hears `tag`, where its
/// script would otherwise be a coin toss: Mandarin in simplified
/// characters, or traditional ones for `zh-TW`, `zh-HK` and `zh-Hant`.
/// It says nothing of the line heard.
pub fn transcription_prompt(tag: &str) -> Option<&'static str> {
    if primary(tag) != "zh" {
        return None;
    }
    let tag = tag.to_ascii_lowercase();
    let traditional = ["-tw", "-hk", "-mo", "-hant"].iter().any(|t| tag.replace('_', "-").contains(t));
    Some(if traditional { "以下是普通話的句子。" } else { "以下是普通话的句子。" })
}

/// The ISO 639-2 code media containers tag a stream with (`en-GB` →
/// `eng`), or `und` for a language not in the table.
pub fn iso639_2(tag: &str) -> &'static str {
    of_tag(tag).and_then(|l| l.codes.iter().find(|c| c.len() == 3).copied()).unwrap_or("und")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_parse_and_anything_else_is_refused() {
        assert_eq!(parse("German").unwrap().unwrap().reading, "de");
        assert_eq!(parse("de").unwrap().unwrap().name, "German");
        assert_eq!(parse("pt-BR").unwrap().unwrap().name, "Portuguese");
        assert_eq!(parse("es-MX").unwrap().unwrap().name, "Spanish");
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
        assert_eq!(reading_for(None, "zh"), None, "Chinese voices read through the Mandarin G2P, the front end's own choice");
        assert_eq!(reading_for(None, "ja"), None, "Japanese voices read Japanese natively");
        assert_eq!(reading_for(parse("Chinese").unwrap(), "en-US"), Some("zh"));
        assert_eq!(reading_for(None, "en-US"), None);
    }

    #[test]
    fn voices_speak_their_primary_language_only() {
        assert!(speaks("en-GB", "en-US") && speaks("es", "es-ES") && !speaks("es", "en-US"));
        assert_eq!(native_reading("pt-BR"), Some("pt-br"));
        assert_eq!(native_reading("fr"), Some("fr-fr"));
        assert_eq!(native_reading("zh"), Some("zh"));
        assert_eq!(native_reading("en-GB"), None);
        assert_eq!(native_reading("ja"), Some("ja"));
        assert_eq!((voice_reading("en-GB"), voice_reading("en-US"), voice_reading("es")), (Some("en-GB"), Some("en-US"), Some("es")));
        assert!(sample_sentence("it").starts_with("Ciao"));
        assert!(sample_sentence("xx").starts_with("Hello"));
    }

    #[test]
    fn whisper_is_asked_for_the_chinese_script_the_track_is_written_in() {
        assert_eq!(transcription_prompt("zh"), Some("以下是普通话的句子。"));
        assert_eq!(transcription_prompt("zh-CN"), Some("以下是普通话的句子。"));
        assert_eq!(transcription_prompt("zh-Hant-TW"), Some("以下是普通話的句子。"));
        assert_eq!(transcription_prompt("ja"), None);
    }

    #[test]
    fn every_kokoro_voice_language_has_a_row_and_a_default_voice_that_exists() {
        let stock = revoice_model::kokoro::release::stock_voices();
        for voice in &stock {
            assert!(of_tag(voice.language).is_some(), "{} ({})", voice.name, voice.language);
        }
        for l in LANGUAGES {
            assert!(stock.iter().any(|v| v.name == l.default_voice), "{}'s default {}", l.name, l.default_voice);
        }
    }
}
