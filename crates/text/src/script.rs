//! The writing systems of a text, and which of them each reading reads:
//! text in a script the chosen reading cannot read (Chinese characters for
//! an English voice) is refused by name instead of being spoken as
//! something else (the English G2P spells a Han character as "Chinese
//! letter"). Digits, punctuation and spaces belong to no script.

/// A writing system, as far as the studio tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Latin,
    Greek,
    Cyrillic,
    Arabic,
    Hebrew,
    Devanagari,
    Thai,
    Hangul,
    /// Hiragana and katakana.
    Kana,
    /// Chinese characters (hanzi, kanji).
    Han,
    /// Letters of any other script.
    Other,
}

impl Script {
    /// The script's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Script::Latin => "Latin",
            Script::Greek => "Greek",
            Script::Cyrillic => "Cyrillic",
            Script::Arabic => "Arabic",
            Script::Hebrew => "Hebrew",
            Script::Devanagari => "Devanagari",
            Script::Thai => "Thai",
            Script::Hangul => "Hangul (Korean)",
            Script::Kana => "kana (Japanese)",
            Script::Han => "Han (Chinese characters)",
            Script::Other => "an unsupported",
        }
    }
}

/// The script of a letter; `None` for what is not a letter.
pub fn script_of(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c as u32 {
        0x0000..=0x024F | 0x1E00..=0x1EFF | 0x2C60..=0x2C7F | 0xA720..=0xA7FF | 0xFF21..=0xFF5A => Script::Latin,
        0x0370..=0x03FF | 0x1F00..=0x1FFF => Script::Greek,
        0x0400..=0x052F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Script::Cyrillic,
        0x0590..=0x05FF => Script::Hebrew,
        0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => Script::Arabic,
        0x0900..=0x097F | 0xA8E0..=0xA8FF => Script::Devanagari,
        0x0E00..=0x0E7F => Script::Thai,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Script::Hangul,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F => Script::Han,
        _ => Script::Other,
    })
}

/// The scripts a reading (`en-US`, `es`, `hi`, `cmn`: see
/// `language::reading_for`) reads. Every reading reads Latin letters too
/// (names and loanwords in a script are written in them).
pub fn reads(reading: &str) -> &'static [Script] {
    match crate::language::primary(reading).as_str() {
        "hi" => &[Script::Latin, Script::Devanagari],
        "cmn" | "zh" | "yue" => &[Script::Latin, Script::Han],
        "ja" => &[Script::Latin, Script::Kana, Script::Han],
        "ko" => &[Script::Latin, Script::Hangul, Script::Han],
        "ru" | "uk" | "bg" | "sr" => &[Script::Latin, Script::Cyrillic],
        "el" => &[Script::Latin, Script::Greek],
        _ => &[Script::Latin],
    }
}

/// The first run of letters in `text` that `reading` cannot read, with
/// its script; `None` when every letter is readable.
pub fn unreadable(text: &str, reading: &str) -> Option<(Script, String)> {
    let readable = reads(reading);
    let mut found: Option<(Script, String)> = None;
    for c in text.chars() {
        match (script_of(c), &mut found) {
            (Some(s), None) if !readable.contains(&s) => found = Some((s, c.to_string())),
            (Some(s), Some((run, letters))) if s == *run => letters.push(c),
            (_, Some(_)) if !c.is_alphabetic() && !c.is_whitespace() => break,
            (Some(_), Some(_)) => break,
            _ => {}
        }
    }
    found.map(|(s, letters)| (s, letters.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_told_apart_by_script_and_the_rest_has_none() {
        let scripts: Vec<Option<Script>> = "aé中あカ한дअ1,".chars().map(script_of).collect();
        use Script::*;
        assert_eq!(scripts, vec![Some(Latin), Some(Latin), Some(Han), Some(Kana), Some(Kana), Some(Hangul), Some(Cyrillic), Some(Devanagari), None, None]);
    }

    #[test]
    fn a_reading_refuses_the_first_run_of_a_script_it_cannot_read() {
        assert_eq!(unreadable("第一段，第二段；第三段。", "en-US"), Some((Script::Han, "第一段".into())));
        assert_eq!(unreadable("Hello 世界 again", "en-US"), Some((Script::Han, "世界".into())));
        assert_eq!(unreadable("Привет", "es"), Some((Script::Cyrillic, "Привет".into())));
        assert_eq!(unreadable("नमस्ते", "fr-fr").map(|(s, _)| s), Some(Script::Devanagari));
    }

    #[test]
    fn each_reading_reads_its_own_script_latin_names_digits_and_punctuation() {
        assert_eq!(unreadable("Café, 40 €, naïve — «ça»!", "fr-fr"), None);
        assert_eq!(unreadable("नमस्ते, Ravi. 2024", "hi"), None);
        assert_eq!(unreadable("こんにちは、東京のTanakaです。", "ja"), None);
        assert_eq!(unreadable("你好，Ana。", "cmn"), None);
        assert_eq!(unreadable("Guten Tag, Straße.", "de"), None);
        assert_eq!(unreadable("안녕하세요", "cmn").map(|(s, _)| s), Some(Script::Hangul));
    }
}
