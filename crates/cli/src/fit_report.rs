//! Whether a project's lines fit their slots, as the CLI prints it: the
//! whole report (`project fit`) or only the lines that do not fit (after
//! `project import` and in `project status`). Lengths are predicted by
//! the engine before any render.

use std::sync::Arc;

use revoice_engine::{Engine, Result, TrackFit};

/// How every line of `project` fits (predicting what is not known; blocking work off the runtime).
pub async fn fits(engine: &Arc<Engine>, project: i64) -> Result<Vec<TrackFit>> {
    let predicting = engine.clone();
    tokio::task::spawn_blocking(move || predicting.project_fits(project)).await.expect("fit thread")
}

/// Every line with its slot, spoken length, the rate it needs and what does not fit.
pub fn print_all(tracks: &[TrackFit]) {
    for track in tracks {
        println!("track {}", track.language);
        println!("{:>5}  {:>8}  {:>8}  {:>6}  {:>6}  {:>6}  text", "line", "in", "out", "slot", "spoken", "rate");
        for l in &track.lines {
            let spoken = l.spoken.map_or("?".to_string(), |s| format!("{s:.2}"));
            let rate = l.rate_needed.map_or("-".to_string(), |r| format!("x{r:.2}"));
            let verdict = match l.shortfall {
                Some(s) => format!("  DOESN'T FIT by {s:.2} s"),
                None => String::new(),
            };
            println!("{:>5}  {:>8.2}  {:>8.2}  {:>6.2}  {:>6}  {:>6}  {}{verdict}", l.number, l.start, l.end, l.end - l.start, spoken, rate, l.text);
        }
        summary(track);
    }
}

/// One line per track: how many lines fit, and each line that does not.
pub fn print_problems(tracks: &[TrackFit]) {
    for track in tracks {
        summary(track);
        for l in track.not_fitting() {
            println!(
                "  line {} ({:.2}–{:.2} s, segment {}): doesn't fit by {:.2} s: \"{}\"",
                l.number,
                l.start,
                l.end,
                l.segment_id,
                l.shortfall.unwrap_or(0.0),
                l.text
            );
        }
    }
}

fn summary(track: &TrackFit) {
    let unknown = track.lines.iter().filter(|l| l.spoken.is_none()).count();
    let flagged = track.not_fitting().count();
    let unknown = if unknown > 0 { format!(", {unknown} not predicted (remote voices or unreadable text)") } else { String::new() };
    println!(
        "  {} track: {} of {} lines fit (at up to x1.25 with the gaps around them){unknown}; {flagged} doesn't fit",
        track.language,
        track.lines.len() - flagged - track.lines.iter().filter(|l| l.spoken.is_none()).count(),
        track.lines.len()
    );
}
