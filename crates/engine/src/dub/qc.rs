//! Checking a take by ear: what Whisper hears in a line as the programme
//! places it (stretched, cut, faded), against what the line says. A take
//! fails when it is silent, clips, loses words at its start or end (and the
//! report says when the fit's cut is what lost them), or is heard too far
//! from its text (word error rate over [`MAX_WORD_ERROR_RATE`], both read
//! in the track's language, figures as words; Whisper's own slips on names
//! are why it is not zero). Each problem says what it found once; what was
//! heard is kept beside them, not quoted in them.

use serde::Serialize;

use super::timing::Placement;
use revoice_text::word_errors::{word_errors_in, WordErrors};

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
/// cuts land at pauses; "v3": figures are read as words; "v4": Chinese
/// and Japanese compared by characters (a take judged before is judged
/// again).
pub fn placement_signature(p: &Placement) -> String {
    format!("v4 rate {:.4}, cut {}", p.rate, p.trimmed_to.map_or("none".to_string(), |t| format!("{t:.3}")))
}

/// Judges a fitted take: `audio` as placed, `text` what it should say in
/// `language` (the track's tag), `heard` what Whisper heard.
pub fn judge(segment_id: i64, take_id: i64, audio: &[f32], placement: &Placement, text: &str, heard: &str, language: &str) -> LineCheck {
    judge_errors(segment_id, take_id, audio, placement, word_errors_in(text, heard, language), heard)
}

/// Judges a fitted take from `errors` already counted (Japanese compares
/// the two texts' readings, not their spellings); `heard` is kept beside.
pub fn judge_errors(segment_id: i64, take_id: i64, audio: &[f32], placement: &Placement, errors: WordErrors, heard: &str) -> LineCheck {
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
            problems.push(format!("lost its first {}: \"{}\"", errors.unit(), errors.joined(&errors.missing_at_start)));
        }
        if !errors.missing_at_end.is_empty() {
            let cut = if placement.trimmed_to.is_some() { ": the fit's cut took them (give the line more room, or let it speed up more)" } else { "" };
            problems.push(format!("lost its last {}: \"{}\"{cut}", errors.unit(), errors.joined(&errors.missing_at_end)));
        }
        // Words lost at either end are told above; the rest is told here.
        let others = differences(&errors);
        if errors.rate() > MAX_WORD_ERROR_RATE && !others.is_empty() {
            problems.push(format!("{:.0} % of its {} heard wrong: {}", 100.0 * errors.rate(), errors.unit(), others.join(", ")));
        }
    }
    LineCheck { segment_id, take_id, heard: heard.trim().to_string(), errors, problems }
}

/// How many differences a problem names before it counts the rest.
const DIFFERENCES_NAMED: usize = 4;

/// The words heard wrong, besides those lost at either end: `"forty" as
/// "fourteen"`, `"framed" missing`, `"then" added`.
fn differences(errors: &WordErrors) -> Vec<String> {
    let inside = errors.dropped.len().saturating_sub(errors.missing_at_end.len());
    let dropped = errors.dropped.get(errors.missing_at_start.len().min(inside)..inside).unwrap_or(&[]);
    let all: Vec<String> = errors
        .swapped
        .iter()
        .map(|(written, heard)| format!("\"{written}\" as \"{heard}\""))
        .chain(dropped.iter().map(|w| format!("\"{w}\" missing")))
        .chain(errors.added.iter().map(|w| format!("\"{w}\" added")))
        .collect();
    if all.len() <= DIFFERENCES_NAMED + 1 {
        return all;
    }
    let rest = all.len() - DIFFERENCES_NAMED;
    all.into_iter().take(DIFFERENCES_NAMED).chain([format!("{rest} more")]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(trimmed: Option<f64>) -> Placement {
        Placement { start: 0.0, rate: 1.0, length: 1.0, trimmed_to: trimmed, fade: 0.0, overlap: None, overflow: None }
    }

    fn speech() -> Vec<f32> {
        (0..24_000).map(|i| 0.2 * (i as f32 * 0.05).sin()).collect()
    }

    #[test]
    fn a_take_heard_as_written_passes() {
        let c = judge(1, 2, &speech(), &placement(None), "Fine. I'll check.", " Fine, I'll check.", "en-US");
        assert!(c.passed(), "{:?}", c.problems);
    }

    #[test]
    fn figures_heard_as_digits_or_words_pass() {
        for (text, heard, language) in [
            ("Forty pounds, framed.", " 40 pounds framed.", "en-GB"),
            ("It was the winter of 1951.", "It was the winter of nineteen fifty-one.", "en-US"),
            ("Cuesta cuarenta euros.", "Cuesta 40 €.", "es"),
            ("Il est 10h30.", "Il est dix heures et demie.", "fr"),
        ] {
            let c = judge(1, 2, &speech(), &placement(None), text, heard, language);
            assert!(c.passed(), "{text:?} heard as {heard:?}: {:?}", c.problems);
        }
        let c = judge(1, 2, &speech(), &placement(None), "Forty pounds, framed.", "14 pounds framed.", "en-GB");
        assert_eq!(c.problems, vec!["33 % of its words heard wrong: \"forty\" as \"fourteen\""]);
    }

    #[test]
    fn chinese_and_japanese_are_heard_character_by_character() {
        // Figures, full-width marks and katakana written as hiragana agree.
        for (text, heard, language) in [("这本书一共320页。", "这本书一共三百二十页", "zh"), ("コーヒーを３杯ください。", "こーひーを三杯ください", "ja")]
        {
            let c = judge(1, 2, &speech(), &placement(None), text, heard, language);
            assert!(c.passed(), "{text:?} heard as {heard:?}: {:?}", c.problems);
        }
        // One character wrong in eleven passes; a lost end is told in characters.
        let c = judge(1, 2, &speech(), &placement(None), "明天早上八点在车站见面。", "明天早上八点在车占见面", "zh");
        assert!(c.passed() && c.errors.substitutions == 1, "{:?}", c.errors);
        let c = judge(1, 2, &speech(), &placement(Some(1.0)), "明天早上八点在车站见面。", "明天早上八点在车站", "zh");
        assert!(c.problems[0].starts_with("lost its last characters: \"见面\""), "{:?}", c.problems);
    }

    #[test]
    fn a_last_word_cut_by_the_fit_says_so() {
        let c = judge(1, 2, &speech(), &placement(Some(0.8)), "Fine. I'll check.", "Fine. I'll", "en-US");
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(c.problems[0].starts_with("lost its last words: \"check\"") && c.problems[0].contains("the fit's cut"), "{:?}", c.problems);
        assert_eq!(c.heard, "Fine. I'll", "what was heard is kept beside the problems");
    }

    #[test]
    fn each_problem_is_told_once_without_quoting_what_was_heard() {
        // Its last words lost, and nothing else wrong: one problem, however high the rate.
        let c = judge(1, 2, &speech(), &placement(None), "Nobody has been here in years.", "Nobody has been", "en-US");
        assert_eq!(c.problems, vec!["lost its last words: \"here in years\""]);
        // Heard badly throughout: each difference named once.
        let c = judge(1, 2, &speech(), &placement(None), "Light the lamp on the pier.", "Fight the damp in the beer.", "en-US");
        assert_eq!(c.problems, vec!["67 % of its words heard wrong: \"light\" as \"fight\", \"lamp\" as \"damp\", \"on\" as \"in\", \"pier\" as \"beer\""]);
        assert!(c.problems.iter().all(|p| !p.contains(&c.heard)), "{:?}", c.problems);
        // A word lost at the end and another inside: each told once, in its own problem.
        let c = judge(1, 2, &speech(), &placement(None), "Light the old lamp now.", "Light the lamp", "en-US");
        assert_eq!(c.problems, vec!["lost its last words: \"now\"", "40 % of its words heard wrong: \"old\" missing"]);
    }

    #[test]
    fn silence_and_clipping_are_problems_of_their_own() {
        let c = judge(1, 2, &vec![0.0; 24_000], &placement(None), "Light the lamp.", "", "en-US");
        assert_eq!(c.problems.len(), 1);
        assert!(c.problems[0].starts_with("silent"), "{:?}", c.problems);
        let loud: Vec<f32> = speech().iter().map(|x| (x * 20.0).clamp(-1.0, 1.0)).collect();
        let c = judge(1, 2, &loud, &placement(None), "Light the lamp.", "Light the lamp.", "en-US");
        assert!(c.problems.iter().any(|p| p.starts_with("clips")), "{:?}", c.problems);
    }

    #[test]
    fn the_signature_changes_with_the_fit() {
        assert_ne!(placement_signature(&placement(None)), placement_signature(&placement(Some(0.5))));
    }
}
