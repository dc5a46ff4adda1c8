//! Subtitle files in and out: SubRip (SRT), WebVTT and Advanced SubStation
//! (ASS/SSA, read only) cues with their timings, and the speaker a line
//! names (`[Alice] …`, `ALICE: …`, WebVTT's `<v Alice>`, ASS's Name field).
//! Formatting and override tags are stripped from the spoken text. A
//! script is read in whatever text encoding it is in (guessed when it is
//! not UTF-8, and said), as the format its content shows (never one
//! format's structure read as another's dialogue). Errors name the file
//! and the line.

use std::fmt::Write;

use revoice_core::error::{Error, Result};

/// One timed line.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    /// Seconds from the start of the programme.
    pub start: f64,
    pub end: f64,
    /// What is said, one line, without speaker tag or formatting.
    pub text: String,
    pub speaker: Option<String>,
}

/// The subtitle formats read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubtitleFormat {
    Srt,
    Vtt,
}

impl SubtitleFormat {
    /// The format a file name's extension says, if any.
    pub fn from_name(name: &str) -> Option<SubtitleFormat> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".srt") {
            Some(SubtitleFormat::Srt)
        } else if lower.ends_with(".vtt") {
            Some(SubtitleFormat::Vtt)
        } else {
            None
        }
    }
}

fn error(source: &str, line: usize, reason: impl Into<String>) -> Error {
    Error::InvalidInput { input: format!("{source}, line {line}"), reason: reason.into() }
}

/// Lines with their 1-based numbers, BOM and line endings removed.
fn numbered_lines(text: &str) -> Vec<(usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r'))).collect()
}

/// Blank-line separated blocks of numbered lines.
fn blocks<'a>(lines: &[(usize, &'a str)]) -> Vec<Vec<(usize, &'a str)>> {
    let mut out = Vec::new();
    let mut block = Vec::new();
    for &(n, line) in lines {
        if line.trim().is_empty() {
            if !block.is_empty() {
                out.push(std::mem::take(&mut block));
            }
        } else {
            block.push((n, line));
        }
    }
    if !block.is_empty() {
        out.push(block);
    }
    out
}

/// `hh:mm:ss,mmm`, `hh:mm:ss.mmm` or (WebVTT) `mm:ss.mmm` in seconds.
fn parse_time(s: &str) -> Option<f64> {
    let s = s.trim();
    let (clock, millis) = s.rsplit_once([',', '.'])?;
    if millis.len() != 3 || !millis.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let parts: Vec<&str> = clock.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 || parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let nums: Vec<u64> = parts.iter().map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let (h, m, sec) = if nums.len() == 3 { (nums[0], nums[1], nums[2]) } else { (0, nums[0], nums[1]) };
    if m >= 60 || sec >= 60 {
        return None;
    }
    Some((h * 3600 + m * 60 + sec) as f64 + millis.parse::<u64>().ok()? as f64 / 1000.0)
}

/// `start --> end [settings]` → (start, end).
fn parse_timing(source: &str, line_no: usize, line: &str) -> Result<(f64, f64)> {
    let (start, rest) =
        line.split_once("-->").ok_or_else(|| error(source, line_no, format!("expected a timing line `00:00:01,000 --> 00:00:02,500`, found {line:?}")))?;
    let end = rest.split_whitespace().next().unwrap_or("");
    let start_s = parse_time(start).ok_or_else(|| error(source, line_no, format!("{:?} is not a time (hh:mm:ss,mmm)", start.trim())))?;
    let end_s = parse_time(end).ok_or_else(|| error(source, line_no, format!("{end:?} is not a time (hh:mm:ss,mmm)")))?;
    if end_s <= start_s {
        return Err(error(source, line_no, format!("the cue ends ({}) before it starts ({})", end.trim(), start.trim())));
    }
    Ok((start_s, end_s))
}

/// Reads SubRip text; `source` names the file in errors.
pub fn parse_srt(text: &str, source: &str) -> Result<Vec<Cue>> {
    let lines = numbered_lines(text);
    let mut cues = Vec::new();
    for block in blocks(&lines) {
        let mut rest = &block[..];
        // The index line is customary; accept blocks without it.
        if !rest[0].1.contains("-->") {
            let (n, index) = rest[0];
            if !index.trim().chars().all(|c| c.is_ascii_digit()) {
                return Err(error(source, n, format!("expected a cue number or a timing line, found {index:?}")));
            }
            rest = &rest[1..];
            if rest.is_empty() {
                return Err(error(source, n, "a cue number with no timing line after it"));
            }
        }
        let (n, timing) = rest[0];
        let (start, end) = parse_timing(source, n, timing)?;
        cues.push(cue(start, end, rest[1..].iter().map(|(_, l)| *l)));
    }
    Ok(cues)
}

/// Reads WebVTT text; `source` names the file in errors.
pub fn parse_vtt(text: &str, source: &str) -> Result<Vec<Cue>> {
    let lines = numbered_lines(text);
    let all = blocks(&lines);
    let Some((header, body)) = all.split_first() else {
        return Err(error(source, 1, "empty file: a WebVTT file starts with `WEBVTT`"));
    };
    let (n, first) = header[0];
    if !(first == "WEBVTT" || first.starts_with("WEBVTT ") || first.starts_with("WEBVTT\t")) {
        return Err(error(source, n, format!("a WebVTT file starts with `WEBVTT`, found {first:?}")));
    }
    let mut cues = Vec::new();
    for block in body {
        let head = block[0].1;
        if head.starts_with("NOTE") || head == "STYLE" || head == "REGION" {
            continue;
        }
        // An optional cue identifier precedes the timing line.
        let at = if head.contains("-->") { 0 } else { 1 };
        let Some(&(n, timing)) = block.get(at) else {
            return Err(error(source, block[0].0, format!("{head:?} is neither a timing line nor followed by one")));
        };
        let (start, end) = parse_timing(source, n, timing)?;
        cues.push(cue(start, end, block[at + 1..].iter().map(|(_, l)| *l)));
    }
    Ok(cues)
}

/// A cue from its text lines: the speaker tag taken out, formatting
/// stripped, lines joined with spaces.
fn cue<'a>(start: f64, end: f64, lines: impl Iterator<Item = &'a str>) -> Cue {
    let joined = lines.map(str::trim).collect::<Vec<_>>().join(" ");
    let voice_span = joined.strip_prefix("<v").and_then(|r| r.split_once('>')).map(|(name, rest)| (name.trim().to_string(), rest.to_string()));
    let (mut speaker, body) = match voice_span {
        Some((name, rest)) if !name.is_empty() => (Some(name.trim_start_matches('.').split_whitespace().collect::<Vec<_>>().join(" ")), rest),
        _ => (None, joined),
    };
    let plain = strip_formatting(&body);
    let (tagged, text) = split_speaker(&plain);
    if speaker.is_none() {
        speaker = tagged;
    }
    Cue { start, end, text, speaker }
}

/// Removes `<i>`, `</b>`, `<font …>`, `<00:01.000>` and `{\an8}`-style tags.
fn strip_formatting(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth: Option<char> = None;
    for c in text.chars() {
        match (depth, c) {
            (None, '<') => depth = Some('>'),
            (None, '{') => depth = Some('}'),
            (Some(close), c) if c == close => depth = None,
            (Some(_), _) => {}
            (None, c) => out.push(c),
        }
    }
    out.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `[Alice] Hi` or `ALICE: Hi` → (Some("Alice"/"ALICE"), "Hi").
pub fn split_speaker(text: &str) -> (Option<String>, String) {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('[') {
        if let Some((name, said)) = rest.split_once(']') {
            let name = name.trim();
            if !name.is_empty() && name.chars().count() <= 40 {
                return (Some(name.to_string()), said.trim().to_string());
            }
        }
    }
    if let Some((name, said)) = t.split_once(':') {
        let words = name.split_whitespace().count();
        let shouting = name.chars().any(char::is_alphabetic) && name.chars().all(|c| c.is_uppercase() || c == ' ' || c == '.' || c == '-' || c == '\'');
        if (1..=3).contains(&words) && shouting && !said.trim().is_empty() {
            return (Some(name.trim().to_string()), said.trim().to_string());
        }
    }
    (None, t.to_string())
}

/// Reads a plain script: one line per segment (blank lines skipped,
/// speaker tags as in subtitles). It has no timings, so lines are laid end
/// to end at a reading pace (0.4 s plus 0.33 s a word, 0.5 s apart), to be
/// retimed in the editor.
pub fn parse_script(text: &str) -> Vec<Cue> {
    let mut at = 0.5;
    numbered_lines(text)
        .into_iter()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(_, line)| {
            let (speaker, said) = split_speaker(&strip_formatting(line));
            let length = 0.4 + 0.33 * said.split_whitespace().count() as f64;
            let cue = Cue { start: at, end: at + length, text: said, speaker };
            at += length + 0.5;
            cue
        })
        .collect()
}

/// `hh:mm:ss,mmm` (SRT) or `hh:mm:ss.mmm` (WebVTT).
fn format_time(seconds: f64, separator: char) -> String {
    let ms = (seconds.max(0.0) * 1000.0).round() as u64;
    format!("{:02}:{:02}:{:02}{separator}{:03}", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
}

/// Writes cues in `format`, with `[Speaker]` (SRT) or `<v Speaker>` (WebVTT) tags.
pub fn write(cues: &[Cue], format: SubtitleFormat) -> String {
    let mut out = String::new();
    if format == SubtitleFormat::Vtt {
        out.push_str("WEBVTT\n\n");
    }
    for (i, c) in cues.iter().enumerate() {
        let (sep, text) = match (format, &c.speaker) {
            (SubtitleFormat::Srt, Some(s)) => (',', format!("[{s}] {}", c.text)),
            (SubtitleFormat::Vtt, Some(s)) => ('.', format!("<v {s}>{}", c.text)),
            (SubtitleFormat::Srt, None) => (',', c.text.clone()),
            (SubtitleFormat::Vtt, None) => ('.', c.text.clone()),
        };
        if format == SubtitleFormat::Srt {
            let _ = writeln!(out, "{}", i + 1);
        }
        let _ = writeln!(out, "{} --> {}\n{text}\n", format_time(c.start, sep), format_time(c.end, sep));
    }
    out
}

/// A script as read: its cues, the format it was read as, and the text
/// encoding it was in.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub cues: Vec<Cue>,
    /// "SubRip", "WebVTT", "ASS/SSA" or "plain text".
    pub format: &'static str,
    /// The encoding's name ("UTF-8", "windows-1252", …).
    pub encoding: &'static str,
}

/// Text from a file's bytes and the encoding it was read in: UTF-16 by
/// its BOM or by the zero bytes of ASCII in it, UTF-8 as it is (with a few
/// stray bytes replaced), anything else in the encoding guessed from its
/// bytes. Bytes that are not text are refused, with the reason: binary
/// data (a known file type, or NUL bytes outside UTF-16), or text mostly
/// of characters that no encoding gives (replacement and control
/// characters).
pub fn decode_text(bytes: &[u8]) -> std::result::Result<(String, &'static str), String> {
    if let Some(kind) = binary_kind(bytes) {
        return Err(format!("is not text: it looks like {kind}"));
    }
    let (text, encoding) = if let Some((encoding, _)) = encoding_rs::Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_with_bom_removal(bytes);
        (text.into_owned(), encoding.name())
    } else if let Some(encoding) = utf16_without_bom(bytes) {
        let (text, _, _) = encoding.decode(bytes);
        (text.into_owned(), encoding.name())
    } else if bytes.contains(&0) {
        return Err("is not text: it holds NUL bytes (binary data, not a script)".into());
    } else if let Ok(text) = std::str::from_utf8(bytes) {
        (text.to_string(), "UTF-8")
    } else if mostly_utf8(bytes) {
        (String::from_utf8_lossy(bytes).into_owned(), "UTF-8")
    } else {
        let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
        detector.feed(bytes, true);
        let encoding = detector.guess(None, chardetng::Utf8Detection::Allow);
        let (text, _, _) = encoding.decode(bytes);
        (text.into_owned(), encoding.name())
    };
    let chars = text.chars().count();
    let unreadable = text.chars().filter(|&c| c == '\u{fffd}' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))).count();
    if chars > 0 && unreadable as f64 > MAX_UNREADABLE * chars as f64 {
        return Err(format!(
            "is not text: {:.0} % of it reads as no character in {encoding} or any other encoding tried",
            100.0 * unreadable as f64 / chars as f64
        ));
    }
    Ok((text, encoding))
}

/// More of a text's characters than this unreadable (replacement or
/// control characters), it is not text.
const MAX_UNREADABLE: f64 = 0.02;

/// What a file whose bytes start so is (images, audio, video, archives
/// and documents that are no script).
fn binary_kind(bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    Some(match bytes {
        _ if starts(b"\x89PNG\r\n\x1a\n") => "a PNG image",
        _ if starts(&[0xFF, 0xD8, 0xFF]) => "a JPEG image",
        _ if starts(b"GIF87a") || starts(b"GIF89a") => "a GIF image",
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'A', b'V', b'E', ..] => "a WAV audio file",
        [b'R', b'I', b'F', b'F', _, _, _, _, b'A', b'V', b'I', b' ', ..] => "an AVI video",
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => "a WebP image",
        _ if starts(b"fLaC") => "a FLAC audio file",
        _ if starts(b"OggS") => "an Ogg audio file",
        [b'I', b'D', b'3', 2..=4, ..] => "an MP3 audio file",
        [_, _, _, _, b'f', b't', b'y', b'p', ..] => "an MP4 or MOV file",
        _ if starts(&[0x1A, 0x45, 0xDF, 0xA3]) => "a Matroska or WebM file",
        _ if starts(b"%PDF-") => "a PDF document",
        _ if starts(b"PK\x03\x04") => "a ZIP archive (or a Word or OpenDocument file)",
        _ if starts(&[0x7F, b'E', b'L', b'F']) => "a program",
        _ => return None,
    })
}

/// UTF-16 without a BOM, told by its zero bytes: in ASCII-heavy UTF-16
/// every other byte is zero, on the odd side (little-endian) or the even
/// side (big-endian), and hardly any on the other.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    if bytes.len() < 4 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let pairs = bytes.len() / 2;
    let even = bytes.iter().step_by(2).filter(|b| **b == 0).count();
    let odd = bytes.iter().skip(1).step_by(2).filter(|b| **b == 0).count();
    match (even, odd) {
        (e, o) if o * 10 >= pairs * 3 && e * 100 <= pairs => Some(encoding_rs::UTF_16LE),
        (e, o) if e * 10 >= pairs * 3 && o * 100 <= pairs => Some(encoding_rs::UTF_16BE),
        _ => None,
    }
}

/// UTF-8 with a few stray bytes: at least twice as many well-formed
/// multi-byte characters as malformed sequences (random bytes have far
/// fewer).
fn mostly_utf8(bytes: &[u8]) -> bool {
    let (mut malformed, mut multibyte, mut rest) = (0usize, 0usize, bytes);
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                multibyte += valid.chars().filter(|c| !c.is_ascii()).count();
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                multibyte += std::str::from_utf8(valid).map_or(0, |v| v.chars().filter(|c| !c.is_ascii()).count());
                malformed += 1;
                rest = &after[e.error_len().unwrap_or(after.len()).max(1)..];
            }
        }
    }
    multibyte >= 2 * malformed
}

/// Reads a script file (any text encoding) as the format its content
/// shows: ASS/SSA (`[Script Info]` or `[Events]`), WebVTT (`WEBVTT`),
/// SubRip (timing lines with `-->`), else a plain script (one line per
/// segment). A file that is not text ([`decode_text`]) or has no lines to
/// dub is refused by name; other errors name the file and line.
pub fn read_script(path: &std::path::Path) -> Result<Script> {
    let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
    let name = path.display().to_string();
    let (text, encoding) = decode_text(&bytes)
        .map_err(|reason| Error::invalid(&name, format!("{reason}: a script is a text file (SubRip, WebVTT, ASS/SSA or plain text); nothing was imported")))?;
    let (format, cues) = match script_format(&text, &name) {
        ScriptFormat::Ass => ("ASS/SSA", parse_ass(&text, &name)?),
        ScriptFormat::Vtt => ("WebVTT", parse_vtt(&text, &name)?),
        ScriptFormat::Srt => ("SubRip", parse_srt(&text, &name)?),
        ScriptFormat::Plain => ("plain text", parse_script(&text)),
    };
    if cues.is_empty() {
        let what = if text.trim().is_empty() { "is empty" } else { "holds no lines to dub" };
        return Err(Error::invalid(name, format!("{what} (read as {format}, {encoding}): nothing was imported")));
    }
    Ok(Script { cues, format, encoding })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScriptFormat {
    Srt,
    Vtt,
    Ass,
    Plain,
}

/// The format a script's content shows (its extension when the content
/// could be either).
fn script_format(text: &str, name: &str) -> ScriptFormat {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    let head = body.lines().take(40).map(str::trim).collect::<Vec<_>>();
    if head.iter().any(|l| l.eq_ignore_ascii_case("[script info]") || l.eq_ignore_ascii_case("[events]")) {
        ScriptFormat::Ass
    } else if body.starts_with("WEBVTT") {
        ScriptFormat::Vtt
    } else if body.lines().any(|l| l.contains("-->")) {
        match SubtitleFormat::from_name(name) {
            Some(SubtitleFormat::Vtt) => ScriptFormat::Vtt,
            _ => ScriptFormat::Srt,
        }
    } else {
        match SubtitleFormat::from_name(name) {
            Some(SubtitleFormat::Srt) => ScriptFormat::Srt,
            Some(SubtitleFormat::Vtt) => ScriptFormat::Vtt,
            None => ScriptFormat::Plain,
        }
    }
}

/// `h:mm:ss.cc` (ASS centiseconds).
fn parse_ass_time(s: &str) -> Option<f64> {
    let mut parts = s.trim().split(':');
    let (h, m, sec) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let seconds: f64 = sec.parse().ok()?;
    Some(h.parse::<f64>().ok()? * 3600.0 + m.parse::<f64>().ok()? * 60.0 + seconds)
}

/// Reads Advanced SubStation (ASS/SSA) text: the `Dialogue:` lines of its
/// `[Events]`, by the fields its `Format:` line names (Start, End, Name as
/// the speaker, Text last); override tags (`{\i1}`) stripped and `\N`
/// line breaks made spaces; comments and every other section skipped.
pub fn parse_ass(text: &str, source: &str) -> Result<Vec<Cue>> {
    let mut in_events = false;
    let mut fields: Option<Vec<String>> = None;
    let mut cues = Vec::new();
    for (n, line) in numbered_lines(text) {
        let line = line.trim();
        if line.starts_with('[') && line.ends_with(']') {
            in_events = line.eq_ignore_ascii_case("[events]");
            continue;
        }
        if !in_events {
            continue;
        }
        if let Some(format) = line.strip_prefix("Format:") {
            fields = Some(format.split(',').map(|f| f.trim().to_ascii_lowercase()).collect());
            continue;
        }
        let Some(dialogue) = line.strip_prefix("Dialogue:") else { continue };
        let Some(fields) = &fields else {
            return Err(error(source, n, "a Dialogue line before the [Events] section's Format line"));
        };
        let values: Vec<&str> = dialogue.splitn(fields.len(), ',').collect();
        if values.len() < fields.len() {
            return Err(error(source, n, format!("a Dialogue line with {} of the {} fields its Format line names", values.len(), fields.len())));
        }
        let field = |name: &str| fields.iter().position(|f| f == name).map(|i| values[i].trim());
        let time = |name: &str| field(name).and_then(parse_ass_time).ok_or_else(|| error(source, n, format!("no valid {name} time (h:mm:ss.cc)")));
        let (start, end) = (time("start")?, time("end")?);
        if end < start {
            return Err(error(source, n, "the cue ends before it starts"));
        }
        let said = field("text").unwrap_or_default().replace("\\N", " ").replace("\\n", " ").replace("\\h", " ");
        let text = strip_formatting(&said);
        if text.is_empty() {
            continue;
        }
        let speaker = field("name").filter(|s| !s.is_empty()).map(str::to_string);
        let (tagged, text) = split_speaker(&text);
        cues.push(Cue { start, end, text, speaker: speaker.or(tagged) });
    }
    cues.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok(cues)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRT: &str = "\u{feff}1\r\n00:00:01,000 --> 00:00:03,500\r\n[Alice] Where were you?\r\n\r\n2\r\n00:00:04,000 --> 00:00:06,250 X1:10\r\nBOB: At <i>home</i>,\r\nreading.\r\n\r\n00:00:07.000 --> 00:00:08.000\r\nNo number, no speaker.\r\n";

    const ASS: &str = "[Script Info]\nTitle: Harbour\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname, Fontsize\nStyle: Default,Arial,20\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\nComment: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,not dialogue\nDialogue: 0,0:00:04.50,0:00:06.00,Default,Ben,0,0,0,,{\\i1}Light it,{\\i0} then.\nDialogue: 0,0:00:01.00,0:00:03.25,Default,Ana,0,0,0,,Where were you?\\NAt home.\n";

    #[test]
    fn ass_dialogue_lines_become_cues_with_their_names_as_speakers() {
        let cues = parse_ass(ASS, "harbour.ass").unwrap();
        assert_eq!(cues.len(), 2, "{cues:?}");
        assert_eq!((cues[0].start, cues[0].end, cues[0].speaker.as_deref(), cues[0].text.as_str()), (1.0, 3.25, Some("Ana"), "Where were you? At home."));
        assert_eq!((cues[1].speaker.as_deref(), cues[1].text.as_str()), (Some("Ben"), "Light it, then."));
        let broken = ASS.replace("0:00:04.50", "soon");
        assert!(parse_ass(&broken, "harbour.ass").unwrap_err().to_string().contains("harbour.ass, line 12"));
    }

    #[test]
    fn a_script_is_read_in_its_own_encoding_as_the_format_its_content_shows() {
        let dir = tempfile::tempdir().unwrap();
        // Latin-1 (windows-1252) SubRip, as older tools write it.
        let latin = dir.path().join("latin.srt");
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode("1\n00:00:01,000 --> 00:00:02,000\n[José] ¿Qué pasó en el muelle, señora?\n");
        std::fs::write(&latin, &bytes).unwrap();
        let script = read_script(&latin).unwrap();
        assert_eq!((script.format, script.encoding), ("SubRip", "windows-1252"));
        assert_eq!((script.cues[0].speaker.as_deref(), script.cues[0].text.as_str()), (Some("José"), "¿Qué pasó en el muelle, señora?"));
        // An ASS file named .txt is still ASS: its headers are never dialogue.
        let ass = dir.path().join("scene.txt");
        std::fs::write(&ass, ASS).unwrap();
        let script = read_script(&ass).unwrap();
        assert_eq!((script.format, script.cues.len()), ("ASS/SSA", 2));
        assert!(script.cues.iter().all(|c| !c.text.contains("Format") && c.speaker.as_deref() != Some("Events")));
        // A file with nothing to dub is refused by name.
        let empty = dir.path().join("empty.srt");
        std::fs::write(&empty, "").unwrap();
        let err = read_script(&empty).unwrap_err().to_string();
        assert!(err.contains("empty.srt") && err.contains("is empty"), "{err}");
        let no_dialogue = dir.path().join("styles.ass");
        std::fs::write(&no_dialogue, "[Script Info]\nTitle: x\n[Events]\nFormat: Layer, Start, End, Text\n").unwrap();
        assert!(read_script(&no_dialogue).unwrap_err().to_string().contains("holds no lines to dub"));
    }

    /// Bytes from a fixed seed (xorshift), the same on every run.
    fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn a_file_that_is_not_text_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            read_script(&path).unwrap_err().to_string()
        };
        let err = refused("random.srt", &noise(4096, 7));
        assert!(err.contains("random.srt") && err.contains("is not text") && err.contains("NUL bytes"), "{err}");
        // High bytes only: no NUL, but mostly no character in any encoding.
        let high: Vec<u8> = noise(4096, 11).iter().map(|b| b | 0x80).collect();
        let err = refused("high.txt", &high);
        assert!(err.contains("high.txt") && err.contains("is not text"), "{err}");
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(noise(2048, 3));
        let err = refused("poster.srt", &png);
        assert!(err.contains("poster.srt") && err.contains("a PNG image"), "{err}");
        let mut wav = b"RIFF\x24\x08\x00\x00WAVEfmt ".to_vec();
        wav.extend(noise(2048, 5));
        let err = refused("line.srt", &wav);
        assert!(err.contains("line.srt") && err.contains("a WAV audio file") && err.contains("nothing was imported"), "{err}");
    }

    #[test]
    fn scripts_in_other_encodings_and_with_a_few_stray_bytes_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let read = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            read_script(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        let srt = "1\n00:00:01,000 --> 00:00:02,000\n[Ana] ¿Qué pasó en el muelle?\n\n2\n00:00:03,000 --> 00:00:04,000\nNada, señora.\n";
        // UTF-16 with its BOM, and without one (told by its zero bytes).
        let mut le = vec![0xFF, 0xFE];
        le.extend(srt.encode_utf16().flat_map(u16::to_le_bytes));
        let script = read("le.srt", &le);
        assert_eq!((script.encoding, script.cues[0].text.as_str()), ("UTF-16LE", "¿Qué pasó en el muelle?"));
        let be: Vec<u8> = srt.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let script = read("be.srt", &be);
        assert_eq!((script.encoding, script.cues[1].text.as_str()), ("UTF-16BE", "Nada, señora."));
        // Shift-JIS and GB18030, guessed (GB18030's common characters are GBK's).
        let japanese = "1\n00:00:01,000 --> 00:00:02,000\n[健] 港で何があったのですか。昨日の夜、誰かが灯台の明かりを消しました。\n";
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(japanese);
        let script = read("ja.srt", &bytes);
        assert_eq!((script.encoding, script.cues[0].speaker.as_deref()), ("Shift_JIS", Some("健")));
        assert!(script.cues[0].text.starts_with("港で何があった"), "{:?}", script.cues);
        let chinese = "1\n00:00:01,000 --> 00:00:02,000\n[李] 昨天晚上码头发生了什么事？有人把灯塔的灯关掉了。\n";
        let (bytes, _, _) = encoding_rs::GB18030.encode(chinese);
        let script = read("zh.srt", &bytes);
        assert_eq!((script.encoding, script.cues[0].text.as_str()), ("GBK", "昨天晚上码头发生了什么事？有人把灯塔的灯关掉了。"));
        // Traditional Chinese in Big5, and Japanese ASS in Shift-JIS with its names as speakers.
        let taiwan = "1\n00:00:01,000 --> 00:00:02,000\n[李] 昨天晚上碼頭發生了什麼事？有人把燈塔的燈關掉了。\n";
        let (bytes, _, _) = encoding_rs::BIG5.encode(taiwan);
        let script = read("zh-TW.srt", &bytes);
        assert_eq!((script.encoding, script.cues[0].text.as_str()), ("Big5", "昨天晚上碼頭發生了什麼事？有人把燈塔的燈關掉了。"));
        let ass = "[Script Info]\nTitle: 港\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\nDialogue: 0,0:00:01.00,0:00:03.00,Default,健,0,0,0,,{\\i1}港で何があったのですか。{\\i0}\\N昨日の夜、誰かが灯台の明かりを消しました。\n";
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(ass);
        let script = read("ja.ass", &bytes);
        assert_eq!((script.encoding, script.cues[0].speaker.as_deref()), ("Shift_JIS", Some("健")));
        assert!(script.cues[0].text.starts_with("港で何があったのですか。") && script.cues[0].text.ends_with("明かりを消しました。"), "{:?}", script.cues);
        // UTF-8 with two stray bytes: read as UTF-8, the strays replaced.
        // (DEL marks where each stray byte goes.)
        let stray = srt.replace("muelle?", "muelle?\u{7f}").replace("señora.", "señora.\u{7f}");
        let stray: Vec<u8> = stray.bytes().map(|b| if b == 0x7F { 0xFF } else { b }).collect();
        let script = read("stray.srt", &stray);
        assert_eq!((script.encoding, script.cues.len()), ("UTF-8", 2));
        assert!(script.cues[0].text.starts_with("¿Qué pasó en el muelle?"), "{:?}", script.cues);
    }

    #[test]
    fn srt_cues_keep_their_times_speakers_and_plain_text() {
        let cues = parse_srt(SRT, "a.srt").unwrap();
        assert_eq!(cues.len(), 3);
        assert_eq!(cues[0], Cue { start: 1.0, end: 3.5, text: "Where were you?".into(), speaker: Some("Alice".into()) });
        assert_eq!(cues[1], Cue { start: 4.0, end: 6.25, text: "At home, reading.".into(), speaker: Some("BOB".into()) });
        assert_eq!((cues[2].speaker.as_deref(), cues[2].text.as_str()), (None, "No number, no speaker."));
    }

    #[test]
    fn webvtt_cues_read_voice_spans_identifiers_and_skip_notes() {
        let vtt = "WEBVTT - demo\n\nNOTE a comment\nspanning lines\n\nintro\n00:01.000 --> 00:02.500 align:start\n<v.loud Alice>Hello &amp; welcome</v>\n\n01:00:00.000 --> 01:00:01.000\nMARY ANN: Late line.\n";
        let cues = parse_vtt(vtt, "a.vtt").unwrap();
        assert_eq!(cues[0], Cue { start: 1.0, end: 2.5, text: "Hello & welcome".into(), speaker: Some("loud Alice".into()) });
        assert_eq!(cues[1], Cue { start: 3600.0, end: 3601.0, text: "Late line.".into(), speaker: Some("MARY ANN".into()) });
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let cases = [
            ("1\n00:00:01,000 -> 00:00:02,000\nx\n", "a.srt, line 2", "timing line"),
            ("1\n00:00:01,000 --> 00:00:0x,000\nx\n", "a.srt, line 2", "not a time"),
            ("1\n00:00:01,000 --> 00:00:02,000\nx\n\n2\n00:00:05,000 --> 00:00:04,000\ny\n", "a.srt, line 6", "ends"),
            ("one\n00:00:01,000 --> 00:00:02,000\nx\n", "a.srt, line 1", "cue number"),
            ("1\n00:00:01,000 --> 00:61:02,000\nx\n", "a.srt, line 2", "not a time"),
        ];
        for (text, at, why) in cases {
            let err = parse_srt(text, "a.srt").unwrap_err().to_string();
            assert!(err.contains(at) && err.contains(why), "{err}");
        }
        let err = parse_vtt("1\n00:01.000 --> 00:02.000\nx\n", "b.vtt").unwrap_err().to_string();
        assert!(err.contains("b.vtt, line 1") && err.contains("WEBVTT"), "{err}");
    }

    #[test]
    fn written_files_read_back_the_same() {
        let cues = parse_srt(SRT, "a.srt").unwrap();
        for format in [SubtitleFormat::Srt, SubtitleFormat::Vtt] {
            let text = write(&cues, format);
            let back = match format {
                SubtitleFormat::Srt => parse_srt(&text, "out.srt"),
                SubtitleFormat::Vtt => parse_vtt(&text, "out.vtt"),
            }
            .unwrap();
            assert_eq!(back, cues, "{text}");
        }
        assert_eq!(format_time(3723.4567, ','), "01:02:03,457");
    }

    #[test]
    fn the_demo_script_has_thirty_two_lines_for_two_speakers() {
        let cues = parse_srt(include_str!("../../../assets/demo/lighthouse.srt"), "lighthouse.srt").unwrap();
        assert_eq!(cues.len(), 32);
        let mut speakers: Vec<_> = cues.iter().filter_map(|c| c.speaker.clone()).collect();
        speakers.sort();
        speakers.dedup();
        assert_eq!(speakers, ["Maya", "Theo"]);
        assert!(cues.windows(2).all(|w| w[0].end <= w[1].start), "cues are in order and do not overlap");
    }

    #[test]
    fn a_plain_script_becomes_lines_laid_end_to_end() {
        let cues = parse_script("MAYA: Hello there.\n\n[Theo] Hi.\nNo speaker here at all\n");
        assert_eq!(cues.len(), 3);
        assert_eq!((cues[0].speaker.as_deref(), cues[0].text.as_str()), (Some("MAYA"), "Hello there."));
        assert_eq!(cues[1].speaker.as_deref(), Some("Theo"));
        assert!(cues.windows(2).all(|w| w[1].start >= w[0].end + 0.5 - 1e-9));
        assert!(parse_script(" \n\n").is_empty());
    }

    #[test]
    fn ordinary_colons_are_not_speakers() {
        assert_eq!(split_speaker("Note: the time is 10:30"), (None, "Note: the time is 10:30".into()));
        assert_eq!(split_speaker("DR. WHO: Run!"), (Some("DR. WHO".into()), "Run!".into()));
    }
}
