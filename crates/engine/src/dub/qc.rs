//! Checking a take by ear: what Whisper hears in a line as the programme
//! places it (stretched, cut, faded), against what the line says. A take
//! fails when it is silent, clips, loses words at its start or end (and the
//! report says when the fit's cut is what lost them), or is heard too far
//! from its text (word error rate over [`MAX_WORD_ERROR_RATE`] after
//! normalisation; Whisper's own slips on names and numbers are why it is
//! not zero).

use serde::Serialize;

use super::timing::Placement;
use crate::text::word_errors::{word_errors, WordErrors};

/// Heard further from its text than this, a take fails.
pub const MAX_WORD_ERROR_RATE: f64 = 0.25;
/// Quieter than this (RMS, about -50 dBFS), a take is silent.
const SILENT_RMS: f32 = 0.003;
/// More samples than this at full scale, a take clips.
const CLIPPED_FRACTION: f64 = 0.001;

/// What one take's check found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineCheck {
    pub segment_id: i64,
    pub take_id: i64,
    /// What Whisper heard.
    pub heard: String,
    pub errors: WordErrors,
    /// Each problem, as a sentence for the person fixing it.
    pub problems: Vec<String>,
}

impl LineCheck {
    /// No problem found.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

/// The fit a check heard, as stored beside it (a changed fit is heard
/// again): the fit as planned from the take's length ([`Line::placement`](super::lines::Line::placement)),
/// which with the take's audio decides where a cut lands. "v2": smart-fit
/// cuts land at pauses.
pub fn placement_signature(p: &Placement) -> String {
    format!("v2 rate {:.4}, cut {}", p.rate, p.trimmed_to.map_or("none".to_string(), |t| format!("{t:.3}")))
}

/// Judges a fitted take: `audio` as placed, `text` what it should say, `heard` what Whisper heard.
pub fn judge(segment_id: i64, take_id: i64, audio: &[f32], placement: &Placement, text: &str, heard: &str) -> LineCheck {
    let errors = word_errors(text, heard);
    let mut problems = Vec::new();
    let rms = (audio.iter().map(|x| x * x).sum::<f32>() / audio.len().max(1) as f32).sqrt();
    if rms < SILENT_RMS {
        problems.push(format!("silent (RMS {:.0} dBFS)", 20.0 * rms.max(1e-9).log10()));
    }
    let clipped = audio.iter().filter(|x| x.abs() >= 0.999).count() as f64 / audio.len().max(1) as f64;
    if clipped > CLIPPED_FRACTION {
        problems.push(format!("clips ({:.2} % of samples at full scale)", 100.0 * clipped));
    }
    if rms >= SILENT_RMS {
        if !errors.missing_at_start.is_empty() {
            problems.push(format!("lost its first words: {} (heard \"{}\")", errors.missing_at_start.join(" "), heard.trim()));
        }
        if !errors.missing_at_end.is_empty() {
            let cut = if placement.trimmed_to.is_some() { ": the fit's cut took them (give the line more room, or let it speed up more)" } else { "" };
            problems.push(format!("lost its last words: {} (heard \"{}\"){cut}", errors.missing_at_end.join(" "), heard.trim()));
        }
        if errors.rate() > MAX_WORD_ERROR_RATE {
            problems.push(format!("heard \"{}\" ({:.0} % of words wrong)", heard.trim(), 100.0 * errors.rate()));
        }
    }
    LineCheck { segment_id, take_id, heard: heard.trim().to_string(), errors, problems }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(trimmed: Option<f64>) -> Placement {
        Placement { start: 0.0, rate: 1.0, length: 1.0, trimmed_to: trimmed, fade: 0.0, overlap: None }
    }

    fn speech() -> Vec<f32> {
        (0..24_000).map(|i| 0.2 * (i as f32 * 0.05).sin()).collect()
    }

    #[test]
    fn a_take_heard_as_written_passes() {
        let c = judge(1, 2, &speech(), &placement(None), "Fine. I'll check.", " Fine, I'll check.");
        assert!(c.passed(), "{:?}", c.problems);
    }

    #[test]
    fn a_last_word_cut_by_the_fit_says_so() {
        let c = judge(1, 2, &speech(), &placement(Some(0.8)), "Fine. I'll check.", "Fine. I'll");
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(c.problems[0].starts_with("lost its last words: check (heard \"Fine. I'll\")") && c.problems[0].contains("the fit's cut"), "{:?}", c.problems);
        // Heard badly throughout: the rate says so too.
        let c = judge(1, 2, &speech(), &placement(None), "Light the lamp on the pier.", "Fight the damp in the beer.");
        assert!(c.problems.iter().any(|p| p.starts_with("heard \"Fight the damp")), "{:?}", c.problems);
    }

    #[test]
    fn silence_and_clipping_are_problems_of_their_own() {
        let c = judge(1, 2, &vec![0.0; 24_000], &placement(None), "Light the lamp.", "");
        assert_eq!(c.problems.len(), 1);
        assert!(c.problems[0].starts_with("silent"), "{:?}", c.problems);
        let loud: Vec<f32> = speech().iter().map(|x| (x * 20.0).clamp(-1.0, 1.0)).collect();
        let c = judge(1, 2, &loud, &placement(None), "Light the lamp.", "Light the lamp.");
        assert!(c.problems.iter().any(|p| p.starts_with("clips")), "{:?}", c.problems);
    }

    #[test]
    fn the_signature_changes_with_the_fit() {
        assert_ne!(placement_signature(&placement(None)), placement_signature(&placement(Some(0.5))));
    }
}
