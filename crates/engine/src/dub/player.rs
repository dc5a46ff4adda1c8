//! Playing a project's track on the timeline: a [`Transport`] starts at
//! once over the bed, and a feeder lays the lines on it from the playhead
//! on: first the lines already rendered (read and fitted), then the ones
//! that are not, rendered in the order the playhead reaches them and heard
//! as soon as each is ready. Previewing one line streams it as it renders.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::assemble::{load_bed, load_beds};
use super::lines::TrackLines;
use super::mix::MixSettings;
use super::pipeline::{ProjectRenderer, RenderScope, RenderSummary};
use super::programme::{OriginalMonitor, Programme};
use super::segment_store::SegmentStore;
use super::transport::Transport;
use revoice_core::blocking::wait;
use revoice_core::error::Result;
use revoice_store::{Project, Store};

/// An empty programme for `track`: its length, the project's bed stems
/// and how its lanes are heard, no lines yet; the original dialogue in it when `monitor` hears it.
pub fn empty_programme(project: &Project, lines: &TrackLines, settings: &MixSettings, monitor: OriginalMonitor) -> Result<Programme> {
    let beds = load_beds(&lines.beds, super::PROGRAMME_RATE)?;
    let seconds = lines.programme_seconds(std::iter::empty());
    let mut programme = Programme::new(super::PROGRAMME_RATE, seconds, beds, settings.bed_gain_db, settings.ducking);
    programme.set_lanes(lines.lanes.clone());
    if monitor != OriginalMonitor::Off {
        if let Some(media) = &project.original_media {
            programme.set_original(Some(load_bed(Path::new(media), super::PROGRAMME_RATE).map_err(|e| e.context("reading the original dialogue"))?), monitor);
        }
    }
    Ok(programme)
}

/// What the feeder did.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedReport {
    /// Lines laid from the segment store.
    pub from_store: usize,
    /// Lines that had to be rendered first; `None` when none did.
    pub render: Option<RenderSummary>,
}

/// Line indices in the order the playhead reaches them from `from_s`:
/// the lines not yet over, by start, then the ones before it.
pub fn playhead_order(lines: &TrackLines, from_s: f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lines.lines.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| {
            let slot = &lines.lines[i].slot;
            (slot.end <= from_s, slot.start)
        };
        key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
    order
}

/// Where the lines come from and where they go.
pub struct Feed<'a> {
    pub runtime: &'a tokio::runtime::Handle,
    pub store: &'a Store,
    pub segments: &'a SegmentStore,
    pub transport: &'a Transport,
    pub project: &'a Project,
}

impl Feed<'_> {
    /// Lays `lines` on the transport's programme from the playhead at
    /// `from_s`: rendered ones first, then (through `renderer`, opened after
    /// them) the missing and out-of-date ones as they render. Stops early
    /// when `cancel` is set.
    pub fn run<'r>(
        &self,
        lines: &mut TrackLines,
        from_s: f64,
        cancel: &AtomicBool,
        renderer: impl FnOnce() -> Result<ProjectRenderer<'r>>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<FeedReport> {
        let Feed { runtime, store, segments, transport, project } = *self;
        let mut report = FeedReport { from_store: 0, render: None };
        let mut missing = Vec::new();
        for i in playhead_order(lines, from_s) {
            if cancel.load(Ordering::Acquire) {
                return Ok(report);
            }
            match lines.fit(segments, i, super::PROGRAMME_RATE)? {
                Some(line) => {
                    transport.edit(|p| p.set_clip(line.segment_id, line.lane, line.start, line.audio));
                    report.from_store += 1;
                }
                None => missing.push(lines.lines[i].segment.id),
            }
        }
        progress(&format!("{} lines in place from the store", report.from_store));
        if !missing.is_empty() {
            progress(&format!("{} lines are not rendered yet; rendering them in playhead order", missing.len()));
        }
        // Lines edited since their take still play their old take until the
        // render (which knows their synthesis keys) replaces it.
        let pipeline = renderer()?;
        let track_ids: Vec<i64> = lines.lines.iter().map(|l| l.segment.id).collect();
        let scope = RenderScope { only: Some(track_ids), from_s: Some(from_s) };
        let mut failure = None;
        let summary = pipeline.render_scope(project.id, &scope, cancel, &mut |p| {
            let Some(id) = p.finished else { return };
            let Some(i) = lines.index_of(id) else { return };
            let placed = wait(runtime, lines.refresh_take(store, i)).and_then(|()| lines.fit(segments, i, super::PROGRAMME_RATE));
            match placed {
                Ok(Some(line)) => {
                    transport.edit(|p| p.set_clip(line.segment_id, line.lane, line.start, line.audio));
                    progress(&format!("segment {id} rendered and in place ({} of {} lines current)", p.done, p.total));
                }
                Ok(None) => {}
                Err(e) => failure = Some(e),
            }
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        report.render = Some(summary);
        Ok(report)
    }
}
