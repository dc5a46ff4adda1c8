//! Assembling a track from its rendered lines: each line's active take is
//! read from the segment store, placed by its timing strategy, fitted
//! (stretched, trimmed, padded, gain and fades) and laid on the timeline;
//! the bed stems go under it, those that duck ducked. Lines of a lane
//! that does not sound (muted, or not soloed while another lane is) are
//! left out, subtitles included, and need no render; the others are at
//! their lane's level (`dub::lanes`). Nothing here synthesises or queries the
//! database: the track comes resolved ([`TrackLines`]), so changing a
//! strategy, a gain or a fade only re-assembles. The cues it returns carry
//! the fitted timings, for subtitles that match the dub.

use std::path::Path;

use super::lines::TrackLines;
use super::mix::{mix_voice_track, mix_with_beds, BedAudio, Mix, MixSettings};
use super::segment_store::SegmentStore;
use revoice_core::error::{Error, Result};
use revoice_text::subtitles::Cue;

/// A track ready to play or export.
pub struct AssembledTrack {
    pub mix: Mix,
    pub sample_rate: u32,
    /// The lines with their fitted timings and speakers.
    pub cues: Vec<Cue>,
    /// Seconds: the later of the last line's slot end and the last line's end.
    pub seconds: f64,
    /// Lines that run into the next one (natural timing), with the overlap in seconds.
    pub overlaps: Vec<(i64, f64)>,
}

/// Assembles a resolved track at `sample_rate`. Every line must have a
/// rendered take on disk; the error lists the ones that do not.
pub fn assemble_track(track: &TrackLines, segments: &SegmentStore, sample_rate: u32, settings: &MixSettings) -> Result<AssembledTrack> {
    let mut placed = Vec::with_capacity(track.lines.len());
    let mut cues = Vec::with_capacity(track.lines.len());
    let mut overlaps = Vec::new();
    let mut missing = Vec::new();
    for (i, line) in track.lines.iter().enumerate() {
        if !track.lanes.audible(line.segment.fields.speaker_id) {
            continue;
        }
        let Some(fitted) = track.fit_heard(segments, i, sample_rate)? else {
            missing.push(line.segment.id);
            continue;
        };
        if let Some(overlap) = fitted.overlap {
            overlaps.push((line.segment.id, overlap));
        }
        cues.push(fitted.cue);
        placed.push((fitted.start, fitted.audio));
    }
    let project = &track.project;
    if !missing.is_empty() {
        return Err(Error::invalid(
            format!("project {} ({})", project.id, track.track.language),
            format!(
                "{} of {} lines have no rendered audio yet (segments {:?}): render the project first",
                missing.len(),
                track.lines.len(),
                &missing[..missing.len().min(8)]
            ),
        ));
    }
    let seconds = track.programme_seconds(cues.iter().map(|c| c.end));
    let voice = mix_voice_track(&placed, seconds, sample_rate);
    drop(placed);
    let beds = load_beds(&track.beds, sample_rate)?;
    let mix = mix_with_beds(&voice, &beds, sample_rate, &settings.ducking, settings.bed_gain_db);
    Ok(AssembledTrack { mix, sample_rate, cues, seconds, overlaps })
}

/// A project's bed stems decoded at `sample_rate`, each with its level and ducking.
pub fn load_beds(stems: &[revoice_store::BedStem], sample_rate: u32) -> Result<Vec<BedAudio>> {
    stems
        .iter()
        .map(|stem| Ok(BedAudio { samples: load_bed(Path::new(&stem.file), sample_rate)?, gain_db: stem.gain_db as f32, ducked: stem.ducked }))
        .collect()
}

/// A bed (or any recording) decoded and resampled to `sample_rate`.
pub fn load_bed(path: &Path, sample_rate: u32) -> Result<Vec<f32>> {
    let decoded = revoice_audio::decode::decode_file(path).map_err(|e| e.context("reading the project's bed"))?;
    if decoded.sample_rate == sample_rate {
        Ok(decoded.samples)
    } else {
        revoice_audio::resample::resample(&decoded.samples, decoded.sample_rate, sample_rate)
    }
}
