//! Assembling a track from its rendered lines: each segment's active take
//! is read from the segment store, placed by its timing strategy, fitted
//! (stretched, trimmed, padded, gain and fades) and laid on the timeline;
//! the bed goes under it, ducked. Nothing here synthesises: changing a
//! strategy, a gain or a fade only re-assembles. The cues it returns carry
//! the fitted timings, for subtitles that match the dub.

use std::path::Path;

use super::mix::{fit_line, mix_voice_track, mix_with_bed, Mix, MixSettings};
use super::pipeline::parse_strategy;
use super::segment_store::{SegmentStore, Stored};
use super::subtitles::Cue;
use super::timing::{place, FitLimits, Slot, TimingStrategy};
use crate::cache::RenderKey;
use crate::error::{Error, Result};
use crate::store::{Project, Segment, Speaker, Store, Track};

/// A track ready to play or export.
pub struct AssembledTrack {
    pub mix: Mix,
    pub sample_rate: u32,
    /// The lines with their fitted timings and speakers.
    pub cues: Vec<Cue>,
    /// Seconds: the later of the last segment's end and the last line's end.
    pub seconds: f64,
    /// Segments that run into the next one (natural timing), with the overlap in seconds.
    pub overlaps: Vec<(i64, f64)>,
}

/// The programme length of a track: it ends where its last line ends, as
/// placed, or where its last slot ends, whichever is later.
pub fn programme_seconds(slot_ends: impl Iterator<Item = f64>, placed_ends: impl Iterator<Item = f64>) -> f64 {
    slot_ends.chain(placed_ends).fold(0.0, f64::max)
}

/// One line as it sits on the timeline.
pub struct FittedLine {
    pub segment_id: i64,
    /// Timeline seconds of its first sample.
    pub start: f64,
    /// The line fitted to its placement (stretch, trim, pad, gain, fades).
    pub audio: Vec<f32>,
    pub cue: Cue,
    /// Seconds it runs into the next line (natural timing).
    pub overlap: Option<f64>,
}

/// A track's lines as stored, with what it takes to place each one.
pub struct TrackLines {
    pub lines: Vec<Segment>,
    speakers: Vec<Speaker>,
    default_strategy: TimingStrategy,
    limits: FitLimits,
    pub sample_rate: u32,
}

impl TrackLines {
    /// Reads `track`'s lines and `project`'s speakers.
    pub fn load(runtime: &tokio::runtime::Handle, store: &Store, project: &Project, track: &Track, sample_rate: u32) -> Result<TrackLines> {
        Ok(TrackLines {
            lines: runtime.block_on(store.segments(track.id))?,
            speakers: runtime.block_on(store.speakers(project.id))?,
            default_strategy: parse_strategy(&project.timing_strategy)?,
            limits: FitLimits::default(),
            sample_rate,
        })
    }

    /// The programme length once `cues` are placed: see [`programme_seconds`].
    pub fn programme_seconds(&self, cues: &[Cue]) -> f64 {
        programme_seconds(self.lines.iter().map(|s| s.fields.end_s), cues.iter().map(|c| c.end))
    }

    /// Line `index` read from the segment store and fitted by its timing
    /// strategy; `None` when it has no rendered take on disk.
    pub fn fit(&self, runtime: &tokio::runtime::Handle, store: &Store, segments: &SegmentStore, index: usize) -> Result<Option<FittedLine>> {
        let segment = &self.lines[index];
        let f = &segment.fields;
        let key = match segment.active_take_id {
            Some(take) => runtime.block_on(store.take_key(take))?.and_then(|hex| RenderKey::from_hex(&hex)),
            None => None,
        };
        let Some(key) = key else { return Ok(None) };
        let Stored::Audio(samples) = segments.get(&key, self.sample_rate)? else { return Ok(None) };
        let strategy = match &f.timing_strategy {
            Some(name) => parse_strategy(name)?,
            None => self.default_strategy,
        };
        let slot = Slot { start: f.start_s, end: f.end_s, next_start: self.lines.get(index + 1).map(|n| n.fields.start_s) };
        let natural = samples.len() as f64 / self.sample_rate as f64;
        let placement = place(strategy, &slot, natural, &self.limits);
        let audio = fit_line(&samples, self.sample_rate, &placement, f.gain_db as f32, f.fade_in_s as f32, f.fade_out_s as f32);
        let speaker = f.speaker_id.and_then(|id| self.speakers.iter().find(|s| s.id == id)).map(|s| s.name.clone());
        let cue = Cue { start: placement.start, end: placement.start + placement.length, text: f.text.clone(), speaker };
        Ok(Some(FittedLine { segment_id: segment.id, start: placement.start, audio, cue, overlap: placement.overlap }))
    }
}

/// Assembles `track` of `project` at `sample_rate`. Every segment must have
/// a rendered take on disk; the error lists the ones that do not.
pub fn assemble_track(runtime: &tokio::runtime::Handle, store: &Store, segments: &SegmentStore, project: &Project, track: &Track, sample_rate: u32, settings: &MixSettings) -> Result<AssembledTrack> {
    let track_lines = TrackLines::load(runtime, store, project, track, sample_rate)?;
    let lines = &track_lines.lines;
    let mut placed = Vec::with_capacity(lines.len());
    let mut cues = Vec::with_capacity(lines.len());
    let mut overlaps = Vec::new();
    let mut missing = Vec::new();
    for (i, segment) in lines.iter().enumerate() {
        let Some(line) = track_lines.fit(runtime, store, segments, i)? else {
            missing.push(segment.id);
            continue;
        };
        if let Some(overlap) = line.overlap {
            overlaps.push((segment.id, overlap));
        }
        cues.push(line.cue);
        placed.push((line.start, line.audio));
    }
    if !missing.is_empty() {
        return Err(Error::InvalidInput {
            input: format!("project {} ({})", project.id, track.language),
            reason: format!("{} of {} lines have no rendered audio yet (segments {:?}): run `revoice project render {}`", missing.len(), lines.len(), &missing[..missing.len().min(8)], project.id),
        });
    }
    let seconds = track_lines.programme_seconds(&cues);
    let voice = mix_voice_track(&placed, seconds, sample_rate);
    drop(placed);
    let bed = match &project.bed_file {
        Some(path) => Some(load_bed(Path::new(path), sample_rate)?),
        None => None,
    };
    let mix = mix_with_bed(&voice, bed.as_deref(), sample_rate, &settings.ducking, settings.bed_gain_db);
    Ok(AssembledTrack { mix, sample_rate, cues, seconds, overlaps })
}

/// The bed decoded and resampled to `sample_rate`.
pub fn load_bed(path: &Path, sample_rate: u32) -> Result<Vec<f32>> {
    let decoded = crate::audio::decode::decode_file(path).map_err(|e| e.context("reading the project's bed"))?;
    if decoded.sample_rate == sample_rate {
        Ok(decoded.samples)
    } else {
        crate::audio::resample::resample(&decoded.samples, decoded.sample_rate, sample_rate)
    }
}
