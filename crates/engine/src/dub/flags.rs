//! Why a line cannot ship as it stands, decided in one place for the
//! editor's view and the export: it does not fit its room even at the
//! fastest rate (known before any render), strict slot cuts its words, it
//! runs into the next line, listening back failed its take, or its text
//! is in a script its voice cannot read.

use serde::Serialize;
use ts_rs::TS;

use super::lines::{Line, TrackLines};
use super::timing::{FitLimits, Placement};

/// One reason a line cannot ship as it stands.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LineFlag {
    /// Too long for its room even at the fastest rate with the gaps it may
    /// borrow: it runs `seconds` past it.
    DoesntFit { seconds: f64 },
    /// Strict slot cuts off its last `seconds`.
    Cut { seconds: f64 },
    /// It runs `seconds` past the next line's start.
    Overlap { seconds: f64 },
    /// Listening back found a problem in its take.
    FailedCheck,
    /// Its text has letters in a script its voice cannot read (`letters`,
    /// the first run of them): it will not render until the text or the
    /// voice changes.
    Unreadable { script: String, letters: String, voice: String },
}

impl LineFlag {
    /// The flag in a few words, for lists and errors.
    pub fn describe(&self) -> String {
        match self {
            LineFlag::DoesntFit { seconds } => format!("doesn't fit ({seconds:.2} s too long)"),
            LineFlag::Cut { seconds } => format!("words cut (the last {seconds:.2} s)"),
            LineFlag::Overlap { seconds } => format!("overlaps the next line by {seconds:.2} s"),
            LineFlag::FailedCheck => "failed its check".into(),
            LineFlag::Unreadable { script, voice, .. } => format!("{voice} cannot read its {script} script"),
        }
    }
}

/// Overlaps shorter than this are rounding, not a problem, seconds.
const OVERLAP_EPSILON: f64 = 0.005;

/// `line`'s flags: its shortfall, what its fit cuts or overlaps (its
/// current take's fit, else where it will land once rendered), and a
/// failed check of its take.
pub fn line_flags(line: &Line, limits: &FitLimits, failed_check: bool) -> Vec<LineFlag> {
    let mut flags = Vec::new();
    if let Some((script, letters)) = line.unreadable() {
        let voice = line.voice.as_ref().map(|v| v.to_string()).unwrap_or_default();
        flags.push(LineFlag::Unreadable { script: script.name().to_string(), letters, voice });
    }
    if let Some(seconds) = line.shortfall(limits) {
        flags.push(LineFlag::DoesntFit { seconds });
    }
    let fit: Option<(Placement, f64)> = match (line.is_current(), line.placement(limits), &line.take) {
        (true, Some(placed), Some(take)) => Some((placed, take.duration_s)),
        _ => line.planned_placement(limits),
    };
    if let Some((placed, rendered)) = fit {
        if let Some(cut) = placed.trimmed_to {
            flags.push(LineFlag::Cut { seconds: (rendered / placed.rate - cut).max(0.0) });
        }
        if let Some(seconds) = placed.overlap.filter(|&o| o > OVERLAP_EPSILON) {
            flags.push(LineFlag::Overlap { seconds });
        }
    }
    if failed_check {
        flags.push(LineFlag::FailedCheck);
    }
    flags
}

/// A flagged line, for an export's list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlaggedLine {
    pub segment_id: i64,
    /// Its number in its track, from 1.
    pub number: usize,
    pub language: String,
    pub text: String,
    pub flags: Vec<LineFlag>,
}

/// Every flagged line of `tracks`, in track and time order; `failed` says
/// whether a line's current take failed its check.
pub fn flagged_lines(tracks: &[TrackLines], failed: &dyn Fn(i64) -> bool) -> Vec<FlaggedLine> {
    tracks
        .iter()
        .flat_map(|track| {
            track.lines.iter().enumerate().filter_map(move |(i, line)| {
                let flags = line_flags(line, &track.limits, failed(line.segment.id));
                (!flags.is_empty()).then(|| FlaggedLine {
                    segment_id: line.segment.id,
                    number: i + 1,
                    language: track.track.language.clone(),
                    text: line.segment.fields.text.clone(),
                    flags,
                })
            })
        })
        .collect()
}
