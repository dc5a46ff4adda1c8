//! SMPTE timecode: the frame rates a project can run at, a time written as
//! `hh:mm:ss:ff` at one of them (drop-frame 29.97 as `hh:mm:ss;ff`), and
//! timecode or plain seconds read back into a time.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use revoice_core::error::{Error, Result};

/// A timecode frame rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FrameRate {
    /// 24000/1001 frames a second, numbered 0–23 (film pulled down for video).
    #[serde(rename = "23.976")]
    Film23_976,
    #[serde(rename = "24")]
    Film24,
    #[serde(rename = "25")]
    Pal25,
    /// 30000/1001 frames a second with frame numbers 0 and 1 skipped at
    /// every minute except each tenth, so the timecode keeps to the clock.
    #[serde(rename = "29.97df")]
    Ntsc29_97Drop,
    /// 30000/1001 frames a second, every frame number kept (the timecode
    /// runs 3.6 s an hour behind the clock).
    #[serde(rename = "29.97")]
    Ntsc29_97,
    #[serde(rename = "30")]
    Video30,
}

impl FrameRate {
    /// Every rate, slowest first.
    pub const ALL: [FrameRate; 6] =
        [FrameRate::Film23_976, FrameRate::Film24, FrameRate::Pal25, FrameRate::Ntsc29_97Drop, FrameRate::Ntsc29_97, FrameRate::Video30];

    /// A project without a picture or a setting runs at this rate.
    pub const DEFAULT: FrameRate = FrameRate::Pal25;

    /// The name it is written and read as (`"23.976"`, `"29.97df"`…).
    pub fn name(self) -> &'static str {
        match self {
            FrameRate::Film23_976 => "23.976",
            FrameRate::Film24 => "24",
            FrameRate::Pal25 => "25",
            FrameRate::Ntsc29_97Drop => "29.97df",
            FrameRate::Ntsc29_97 => "29.97",
            FrameRate::Video30 => "30",
        }
    }

    /// Frame numbers in a second of timecode (the `ff` field counts 0 to this less one).
    pub fn frames_per_second(self) -> u64 {
        match self {
            FrameRate::Film23_976 | FrameRate::Film24 => 24,
            FrameRate::Pal25 => 25,
            FrameRate::Ntsc29_97Drop | FrameRate::Ntsc29_97 | FrameRate::Video30 => 30,
        }
    }

    /// Frames per second of real time.
    pub fn fps(self) -> f64 {
        match self {
            FrameRate::Film23_976 => 24_000.0 / 1001.0,
            FrameRate::Ntsc29_97Drop | FrameRate::Ntsc29_97 => 30_000.0 / 1001.0,
            other => other.frames_per_second() as f64,
        }
    }

    /// Whether frame numbers are dropped (29.97 drop-frame).
    pub fn is_drop_frame(self) -> bool {
        self == FrameRate::Ntsc29_97Drop
    }

    /// The rate closest to a video's `fps`; a 29.97 video is taken as
    /// drop-frame unless `prefer` is the non-drop 29.97.
    pub fn nearest(fps: f64, prefer: Option<FrameRate>) -> FrameRate {
        let nearest = FrameRate::ALL
            .into_iter()
            .filter(|r| *r != FrameRate::Ntsc29_97)
            .min_by(|a, b| (a.fps() - fps).abs().total_cmp(&(b.fps() - fps).abs()))
            .unwrap_or(FrameRate::DEFAULT);
        match (nearest, prefer) {
            (FrameRate::Ntsc29_97Drop, Some(FrameRate::Ntsc29_97)) => FrameRate::Ntsc29_97,
            _ => nearest,
        }
    }

    /// The rate a project stores (`projects.frame_rate`), the default when
    /// it has none; a name the studio does not know reads as the default.
    pub fn stored(name: Option<&str>) -> FrameRate {
        name.and_then(|n| n.parse().ok()).unwrap_or(FrameRate::DEFAULT)
    }
}

impl fmt::Display for FrameRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FrameRate {
    type Err = Error;

    /// Reads `23.976` (or `23.98`), `24`, `25`, `29.97df` (or `29.97 df`,
    /// `29.97-df`), `29.97` (or `29.97ndf`) and `30`, with or without `fps`.
    fn from_str(text: &str) -> Result<FrameRate> {
        let folded: String = text.trim().to_ascii_lowercase().chars().filter(|c| !matches!(c, ' ' | '-' | '_')).collect();
        let folded = folded.strip_suffix("fps").unwrap_or(&folded);
        let rate = match folded {
            "23.976" | "23.98" => FrameRate::Film23_976,
            "24" => FrameRate::Film24,
            "25" => FrameRate::Pal25,
            "29.97df" | "df" => FrameRate::Ntsc29_97Drop,
            "29.97" | "29.97ndf" => FrameRate::Ntsc29_97,
            "30" => FrameRate::Video30,
            _ => return Err(Error::invalid(format!("frame rate {text:?}"), "is not one of 23.976, 24, 25, 29.97df, 29.97 or 30")),
        };
        Ok(rate)
    }
}

/// Frame numbers 0 and 1 are skipped at each minute but every tenth.
const DROPPED_PER_MINUTE: u64 = 2;
/// Frames in ten minutes of drop-frame timecode: 10 × 1800 less 9 × 2.
const FRAMES_PER_TEN_MINUTES: u64 = 17_982;
/// Frames in a minute that drops its first two numbers.
const FRAMES_PER_DROPPING_MINUTE: u64 = 1_798;

/// The frame `seconds` falls in at `rate` (counted from 0; times before
/// zero are frame 0).
pub fn frame_at(seconds: f64, rate: FrameRate) -> u64 {
    if seconds.is_nan() || seconds <= 0.0 {
        return 0;
    }
    // A time read back from a frame lands a hair under it in floating point.
    (seconds * rate.fps() + 1e-6).floor() as u64
}

/// The time frame `frame` starts at, in seconds.
pub fn frame_start(frame: u64, rate: FrameRate) -> f64 {
    frame as f64 / rate.fps()
}

/// `seconds` as `hh:mm:ss:ff` at `rate`, the frame it falls in
/// (drop-frame: `hh:mm:ss;ff`, numbers skipped as drop-frame skips them).
pub fn format(seconds: f64, rate: FrameRate) -> String {
    format_frame(frame_at(seconds, rate), rate)
}

/// Frame `frame` (counted from 0) as `hh:mm:ss:ff` at `rate`.
pub fn format_frame(frame: u64, rate: FrameRate) -> String {
    let per_second = rate.frames_per_second();
    let mut number = frame;
    if rate.is_drop_frame() {
        let tens = frame / FRAMES_PER_TEN_MINUTES;
        let rest = frame % FRAMES_PER_TEN_MINUTES;
        // The first minute of each ten keeps all its numbers; each of the
        // nine after it skips two.
        let skipped_minutes = if rest < DROPPED_PER_MINUTE { 0 } else { (rest - DROPPED_PER_MINUTE) / FRAMES_PER_DROPPING_MINUTE };
        number += 9 * DROPPED_PER_MINUTE * tens + DROPPED_PER_MINUTE * skipped_minutes;
    }
    let ff = number % per_second;
    let total_seconds = number / per_second;
    let (hh, mm, ss) = (total_seconds / 3600, total_seconds / 60 % 60, total_seconds % 60);
    let separator = if rate.is_drop_frame() { ';' } else { ':' };
    format!("{hh:02}:{mm:02}:{ss:02}{separator}{ff:02}")
}

/// A time typed as `hh:mm:ss:ff`, `hh:mm:ss;ff` or `mm:ss:ff` at `rate`
/// (either separator, any rate), or as plain seconds (`12.5`): the time
/// its frame starts at, or the seconds given.
pub fn parse(text: &str, rate: FrameRate) -> Result<f64> {
    Ok(match parse_frame(text, rate)? {
        Typed::Frame(frame) => frame_start(frame, rate),
        Typed::Seconds(seconds) => seconds,
    })
}

/// What a typed time named.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Typed {
    /// A timecode: this frame, counted from 0.
    Frame(u64),
    /// Plain seconds.
    Seconds(f64),
}

/// Reads a timecode into its frame, or plain seconds (see [`parse`]).
pub fn parse_frame(text: &str, rate: FrameRate) -> Result<Typed> {
    let invalid = |reason: String| Error::invalid(format!("timecode {text:?}"), reason);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(invalid("is empty: type hh:mm:ss:ff or seconds".into()));
    }
    if !trimmed.contains([':', ';']) {
        return match trimmed.parse::<f64>() {
            Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(Typed::Seconds(seconds)),
            Ok(_) => Err(invalid("is not a time: seconds cannot be negative".into())),
            Err(_) => Err(invalid(format!("is not a time: type hh:mm:ss{}ff or seconds", if rate.is_drop_frame() { ';' } else { ':' }))),
        };
    }
    let fields: Vec<&str> = trimmed.split([':', ';']).collect();
    let numbers: Vec<u64> = fields
        .iter()
        .map(|f| if !f.is_empty() && f.len() <= 3 && f.bytes().all(|b| b.is_ascii_digit()) { f.parse().ok() } else { None })
        .collect::<Option<_>>()
        .ok_or_else(|| invalid("has a field that is not a whole number (hh:mm:ss:ff)".into()))?;
    let (hh, mm, ss, ff) = match numbers[..] {
        [hh, mm, ss, ff] => (hh, mm, ss, ff),
        [mm, ss, ff] => (0, mm, ss, ff),
        _ => return Err(invalid(format!("has {} fields: type hh:mm:ss:ff, mm:ss:ff or seconds", fields.len()))),
    };
    if mm > 59 {
        return Err(invalid(format!("has minute {mm}: minutes run 0–59")));
    }
    if ss > 59 {
        return Err(invalid(format!("has second {ss}: seconds run 0–59")));
    }
    let per_second = rate.frames_per_second();
    if ff >= per_second {
        return Err(invalid(format!("has frame {ff}: frames run 0–{} at {rate}", per_second - 1)));
    }
    let number = (hh * 3600 + mm * 60 + ss) * per_second + ff;
    if !rate.is_drop_frame() {
        return Ok(Typed::Frame(number));
    }
    if ss == 0 && ff < DROPPED_PER_MINUTE && mm % 10 != 0 {
        return Err(invalid(format!("names frame {ff} of minute {mm}, which drop-frame skips (only every tenth minute keeps frames 0 and 1)")));
    }
    let minutes = hh * 60 + mm;
    Ok(Typed::Frame(number - DROPPED_PER_MINUTE * (minutes - minutes / 10)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [FrameRate; 6] = FrameRate::ALL;

    #[test]
    fn rates_read_and_write_by_name() {
        for rate in ALL {
            assert_eq!(rate.name().parse::<FrameRate>().unwrap(), rate);
            assert_eq!(serde_json::to_string(&rate).unwrap(), format!("\"{}\"", rate.name()));
            assert_eq!(serde_json::from_str::<FrameRate>(&format!("\"{rate}\"")).unwrap(), rate);
        }
        assert_eq!("29.97 DF".parse::<FrameRate>().unwrap(), FrameRate::Ntsc29_97Drop);
        assert_eq!("25fps".parse::<FrameRate>().unwrap(), FrameRate::Pal25);
        assert_eq!("23.98".parse::<FrameRate>().unwrap(), FrameRate::Film23_976);
        let err = "50".parse::<FrameRate>().unwrap_err().to_string();
        assert!(err.contains("\"50\"") && err.contains("29.97df"), "{err}");
        assert_eq!(FrameRate::stored(None), FrameRate::Pal25);
        assert_eq!(FrameRate::stored(Some("29.97df")), FrameRate::Ntsc29_97Drop);
    }

    #[test]
    fn a_video_takes_the_nearest_rate() {
        assert_eq!(FrameRate::nearest(23.976_023, None), FrameRate::Film23_976);
        assert_eq!(FrameRate::nearest(24.0, None), FrameRate::Film24);
        assert_eq!(FrameRate::nearest(25.0, None), FrameRate::Pal25);
        assert_eq!(FrameRate::nearest(29.97, None), FrameRate::Ntsc29_97Drop);
        assert_eq!(FrameRate::nearest(29.97, Some(FrameRate::Ntsc29_97)), FrameRate::Ntsc29_97);
        assert_eq!(FrameRate::nearest(29.97, Some(FrameRate::Pal25)), FrameRate::Ntsc29_97Drop);
        assert_eq!(FrameRate::nearest(30.0, Some(FrameRate::Ntsc29_97)), FrameRate::Video30);
        assert_eq!(FrameRate::nearest(59.94, None), FrameRate::Video30);
        assert_eq!(FrameRate::nearest(12.0, None), FrameRate::Film23_976);
    }

    #[test]
    fn every_rate_writes_hours_minutes_seconds_and_frames() {
        assert_eq!(format(0.0, FrameRate::Pal25), "00:00:00:00");
        assert_eq!(format(3723.5, FrameRate::Pal25), "01:02:03:12");
        assert_eq!(format(1.0 + 23.0 / 24.0, FrameRate::Film24), "00:00:01:23");
        assert_eq!(format(10.5, FrameRate::Video30), "00:00:10:15");
        assert_eq!(format(-3.0, FrameRate::Pal25), "00:00:00:00");
        // 0.039 s is still the first frame at 25 fps.
        assert_eq!(format(0.039, FrameRate::Pal25), "00:00:00:00");
        // 23.976 numbers 24 frames a second of timecode, each 1001/24000 s long.
        assert_eq!(format(1.0, FrameRate::Film23_976), "00:00:00:23");
        assert_eq!(format(1.001, FrameRate::Film23_976), "00:00:01:00");
        assert_eq!(format(3600.0 * 1.001, FrameRate::Film23_976), "01:00:00:00");
        assert_eq!(format_frame(24, FrameRate::Film23_976), "00:00:01:00");
        assert_eq!(frame_start(24, FrameRate::Film23_976), 24.0 * 1001.0 / 24_000.0);
        // Non-drop 29.97 falls behind the clock: an hour of it is 3600 × 1.001 s.
        assert_eq!(format(3600.0, FrameRate::Ntsc29_97), "00:59:56:12");
        assert_eq!(format(3600.0 * 1.001, FrameRate::Ntsc29_97), "01:00:00:00");
        assert_eq!(format_frame(1800, FrameRate::Ntsc29_97), "00:01:00:00");
    }

    #[test]
    fn drop_frame_skips_two_numbers_a_minute_but_every_tenth() {
        let df = FrameRate::Ntsc29_97Drop;
        assert_eq!(format_frame(1799, df), "00:00:59;29");
        assert_eq!(format_frame(1800, df), "00:01:00;02");
        assert_eq!(format_frame(3597, df), "00:01:59;29");
        assert_eq!(format_frame(3598, df), "00:02:00;02");
        assert_eq!(format_frame(17_981, df), "00:09:59;29");
        assert_eq!(format_frame(17_982, df), "00:10:00;00");
        assert_eq!(format_frame(17_983, df), "00:10:00;01");
        assert_eq!(format_frame(19_781, df), "00:10:59;29");
        assert_eq!(format_frame(19_782, df), "00:11:00;02");
        // An hour of drop-frame is an hour of the clock, to the frame.
        assert_eq!(format_frame(107_892, df), "01:00:00;00");
        assert_eq!(format(3600.0, df), "01:00:00;00");
        assert_eq!(parse("00:01:00;02", df).unwrap(), frame_start(1800, df));
        assert_eq!(parse("00:10:00;00", df).unwrap(), frame_start(17_982, df));
        assert_eq!(parse_frame("00:10:00;01", df).unwrap(), Typed::Frame(17_983));
        assert_eq!(parse_frame("01:00:00;00", df).unwrap(), Typed::Frame(107_892));
        for dropped in ["00:01:00;00", "00:01:00;01", "00:09:00:01", "01:21:00;00"] {
            let err = parse(dropped, df).unwrap_err().to_string();
            assert!(err.contains(dropped) && err.contains("drop-frame skips"), "{err}");
        }
        // Non-drop keeps every number.
        assert_eq!(parse_frame("00:01:00:00", FrameRate::Ntsc29_97).unwrap(), Typed::Frame(1800));
    }

    #[test]
    fn every_frame_reads_back_as_itself_at_every_rate() {
        for rate in ALL {
            let frames = (0..40_000).chain((0..200).map(|i| 107_000 + i * 997)).chain([17_982 * 6 - 1, 17_982 * 6, 2_589_407]);
            for frame in frames {
                let text = format_frame(frame, rate);
                assert_eq!(parse_frame(&text, rate).unwrap(), Typed::Frame(frame), "{text} at {rate}");
                let seconds = parse(&text, rate).unwrap();
                assert_eq!(format(seconds, rate), text, "{seconds} s at {rate}");
                assert_eq!(frame_at(seconds, rate), frame);
            }
        }
    }

    #[test]
    fn typed_times_read_in_every_form() {
        let pal = FrameRate::Pal25;
        assert_eq!(parse("01:02:03:12", pal).unwrap(), 3723.48);
        assert_eq!(parse("01:02:03;12", pal).unwrap(), 3723.48);
        assert_eq!(parse("02:03:12", pal).unwrap(), 123.48);
        assert_eq!(parse(" 12.5 ", pal).unwrap(), 12.5);
        assert_eq!(parse("90", pal).unwrap(), 90.0);
        assert_eq!(parse("00:00:01:23", FrameRate::Film24).unwrap(), 47.0 / 24.0);
        assert_eq!(parse("00:00:10:29", FrameRate::Video30).unwrap(), 329.0 / 30.0);
    }

    #[test]
    fn bad_timecode_is_refused_by_name_and_reason() {
        let cases = [
            ("00:00:00:25", FrameRate::Pal25, "frames run 0–24"),
            ("00:00:00:24", FrameRate::Film23_976, "frames run 0–23"),
            ("00:00:00:30", FrameRate::Ntsc29_97Drop, "frames run 0–29"),
            ("00:61:00:00", FrameRate::Pal25, "minutes run"),
            ("00:00:60:00", FrameRate::Pal25, "seconds run"),
            ("1:2", FrameRate::Pal25, "2 fields"),
            ("00:00:01:xx", FrameRate::Pal25, "not a whole number"),
            ("00::01:02", FrameRate::Pal25, "not a whole number"),
            ("soon", FrameRate::Pal25, "not a time"),
            ("-4", FrameRate::Pal25, "negative"),
            ("", FrameRate::Pal25, "empty"),
        ];
        for (text, rate, reason) in cases {
            let err = parse(text, rate).unwrap_err().to_string();
            assert!(err.contains(&format!("{text:?}")) && err.contains(reason), "{text}: {err}");
        }
    }
}
