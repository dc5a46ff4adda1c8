//! A line's spoken length before it renders: the model's own durations
//! (ALBERT and the duration predictor, no audio) at the line's voice and
//! speed, shaped as its take will be ([`super::take_shape`]), kept in the
//! database by what decides them (its length key,
//! [`super::lines::length_key`]), so a line's fit is known at import and
//! after every edit, before any render. A take's speech is cut where its
//! sound begins and ends, which lies within a frame or two of its spoken
//! tokens' durations; a remote voice's model is elsewhere, so its lines
//! are not predicted.

use std::collections::{HashMap, HashSet};

use super::lines::TrackLines;
use super::take_shape::take_seconds;
use super::timing::FitLimits;
use revoice_core::blocking::wait;
use revoice_core::error::Result;
use revoice_model::speech::SpeechRow;
use revoice_speech::{SayRequest, SpeechStack};
use revoice_store::Store;

/// Predicts the length of every local line of `tracks` not known yet (all
/// their rows in one request to the model's owner thread), keeps them in
/// the store and on the lines. A line whose text cannot be read is left
/// unknown: its render says why. Returns how many lines were predicted.
pub fn predict_missing(runtime: &tokio::runtime::Handle, store: &Store, speech: &SpeechStack, tracks: &mut [TrackLines]) -> Result<usize> {
    // (track, line, rows) of each line to predict; lines that say the same
    // thing in the same voice and speed are predicted once (a set, so a
    // 2,000-line track is not searched line by line).
    let mut wanted: Vec<(usize, usize, Vec<SpeechRow>)> = Vec::new();
    let mut asked: HashSet<&str> = HashSet::new();
    for (t, track) in tracks.iter().enumerate() {
        for (i, line) in track.lines.iter().enumerate() {
            if line.predicted.is_some() || line.is_remote() || !asked.insert(line.length_key.as_str()) {
                continue;
            }
            let Ok(voice) = line.voice.clone() else { continue };
            let f = &line.segment.fields;
            let request = SayRequest { text: f.text.clone(), voice, speed: f.speed as f32, seed: None };
            if let Ok(prepared) = speech.front_end.prepare_with(&request, None, &line.dictionary) {
                wanted.push((t, i, prepared.into_iter().map(|p| p.row).collect()));
            }
        }
    }
    if wanted.is_empty() {
        return Ok(0);
    }
    let rows: Vec<SpeechRow> = wanted.iter().flat_map(|(_, _, rows)| rows.iter().cloned()).collect();
    let mut seconds = speech.renderer.spoken_seconds(&rows)?.into_iter();
    let mut lengths = Vec::with_capacity(wanted.len());
    for (t, i, rows) in &wanted {
        let spoken: Vec<f64> = seconds.by_ref().take(rows.len()).map(f64::from).collect();
        lengths.push((tracks[*t].lines[*i].length_key.clone(), take_seconds(&spoken)));
    }
    wait(runtime, store.save_spoken_lengths(&lengths))?;
    let by_key: HashMap<&str, f64> = lengths.iter().map(|(key, s)| (key.as_str(), *s)).collect();
    for track in tracks.iter_mut() {
        for line in track.lines.iter_mut().filter(|l| l.predicted.is_none()) {
            line.predicted = by_key.get(line.length_key.as_str()).copied();
        }
    }
    Ok(lengths.len())
}

/// How one line fits its slot, before or after it renders.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LineFit {
    pub segment_id: i64,
    /// Its number in its track, from 1.
    pub number: usize,
    pub start: f64,
    pub end: f64,
    pub text: String,
    /// Seconds it lasts at its own speed (predicted, or its take's).
    pub spoken: Option<f64>,
    /// The rate it would need to fit its own slot (1 or less: it fits as is).
    pub rate_needed: Option<f64>,
    /// Seconds by which it does not fit at the fastest rate with the gaps
    /// it may borrow; `None` when it fits.
    pub shortfall: Option<f64>,
}

/// Every line of `track` with its fit, in time order.
pub fn track_fits(track: &TrackLines, limits: &FitLimits) -> Vec<LineFit> {
    track
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let spoken = line.natural_seconds();
            let slot = line.slot.length();
            LineFit {
                segment_id: line.segment.id,
                number: i + 1,
                start: line.slot.start,
                end: line.slot.end,
                text: line.segment.fields.text.clone(),
                spoken,
                rate_needed: spoken.filter(|_| slot > 0.0).map(|s| s / slot),
                shortfall: line.shortfall(limits),
            }
        })
        .collect()
}
