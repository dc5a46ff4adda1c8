//! Rendering a project: every line whose synthesis key changed (text,
//! voice, speed, seed, the model, or a fit-by-re-synthesis target) is
//! rendered; the rest are left alone. All stale lines' rows go to the
//! renderer as one streaming job, so the scheduler batches them and the
//! render cache serves whatever it still holds; each finished line is
//! written to the segment store and recorded as the line's active take.
//! Progress is reported per line, a cancel flag stops the job between
//! rows, and the job's state is kept in the database, so a job cut short
//! by a crash is found on the next start and simply run again (finished
//! lines are fresh by then and are skipped).
//!
//! What each line renders from comes from [`TrackLines`], the one resolved
//! view of a track. Runs on a blocking thread; database calls go through
//! the runtime handle.

use std::sync::atomic::{AtomicBool, Ordering};

use super::lines::{Line, TrackLines};
use super::segment_store::{SegmentStore, Stored};
use crate::cache::{RenderKey, RenderKeyBuilder, VoiceArtifactCache};
use crate::error::{Error, Result};
use crate::model::speech::SpeechRow;
use crate::speech::{SayRequest, SpeechStack};
use crate::store::Store;
use crate::voice::MatchedVoice;
use crate::voice_spec::VoiceSpec;

/// Where a render stands.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderProgress {
    /// Lines finished (fresh ones count as finished at once).
    pub done: usize,
    pub total: usize,
    /// Lines that needed synthesis.
    pub rendered: usize,
    /// The line just synthesised and stored, if that is what moved.
    pub finished: Option<i64>,
    /// The line now in the model, if that is what moved.
    pub rendering: Option<i64>,
    /// In the first report only: the stale lines, in the order they render.
    pub queued: Vec<i64>,
}

/// Which stale lines a render takes, and in what order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderScope {
    /// Only these segments (all when `None`).
    pub only: Option<Vec<i64>>,
    /// Start with the lines at or after this time, in time order, then the
    /// ones before it (for playback: what the playhead reaches first).
    pub from_s: Option<f64>,
}

/// What a render did.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderSummary {
    pub segments: usize,
    /// Lines synthesised this time.
    pub rendered: usize,
    /// Lines whose audio was already current.
    pub fresh: usize,
    pub cancelled: bool,
    /// Lines that failed, with the reason (the rest still rendered).
    pub failed: Vec<(i64, String)>,
}

/// What a line is rendered from.
struct Plan {
    line: Line,
    rows: Vec<SpeechRow>,
    key: RenderKey,
    seed: u64,
}

/// The tools a render needs.
pub struct ProjectRenderer<'a> {
    pub runtime: &'a tokio::runtime::Handle,
    pub store: &'a Store,
    pub speech: &'a SpeechStack,
    pub segments: &'a SegmentStore,
    pub voices: &'a VoiceArtifactCache<MatchedVoice>,
}

impl ProjectRenderer<'_> {
    /// Renders every stale line of every track of `project_id`.
    pub fn render(&self, project_id: i64, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        self.render_scope(project_id, &RenderScope::default(), cancel, progress)
    }

    /// Renders the stale lines of `project_id` that `scope` takes, in its order.
    pub fn render_scope(&self, project_id: i64, scope: &RenderScope, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        let rt = self.runtime;
        let tracks = rt.block_on(TrackLines::load_project(self.store, self.voices, project_id))?;
        let wanted = |l: &Line| scope.only.as_ref().is_none_or(|only| only.contains(&l.segment.id));
        let all: Vec<&Line> = tracks.iter().flat_map(|t| t.lines.iter()).filter(|l| wanted(l)).collect();
        let total = all.len();
        let running = rt.block_on(self.store.start_render_job(project_id, total as i64))?;
        let job = running.id;
        let mut summary = RenderSummary { segments: total, rendered: 0, fresh: 0, cancelled: false, failed: Vec::new() };

        // Plan every line; keep the stale ones.
        let mut stale = Vec::new();
        for line in all {
            // Fast path: the take was rendered from exactly this source and its file is whole.
            if self.take_is_current(line) || self.bring_back_take(line)? {
                summary.fresh += 1;
                continue;
            }
            match self.plan(line) {
                Ok(plan) if self.is_fresh(&plan)? => summary.fresh += 1,
                Ok(plan) => stale.push(plan),
                Err(e) => summary.failed.push((line.segment.id, e.to_string())),
            }
        }
        if let Some(from) = scope.from_s {
            // Stable: lines at or after `from` by time, then the earlier ones by time.
            stale.sort_by(|a, b| {
                let key = |p: &Plan| (p.line.slot.start < from, p.line.slot.start);
                key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
            });
        }
        let queued = stale.iter().map(|p| p.line.segment.id).collect();
        let mut report = RenderProgress { done: summary.fresh + summary.failed.len(), total, rendered: 0, finished: None, rendering: None, queued };
        progress(&report);
        report.queued = Vec::new();

        // One streaming job for all stale rows, in order.
        let rows: Vec<SpeechRow> = stale.iter().flat_map(|p| p.rows.iter().cloned()).collect();
        let mut stream = self.speech.renderer.stream(&rows);
        'lines: for plan in &stale {
            report.rendering = Some(plan.line.segment.id);
            progress(&report);
            report.rendering = None;
            let mut samples = Vec::new();
            let mut failure = None;
            for _ in &plan.rows {
                if cancel.load(Ordering::Acquire) {
                    summary.cancelled = true;
                    break 'lines;
                }
                match stream.next() {
                    Some(Ok(audio)) => samples.extend_from_slice(&audio.samples),
                    Some(Err(e)) => failure = Some(e.to_string()),
                    None => failure = Some("the renderer stopped".into()),
                }
            }
            match failure {
                Some(reason) => summary.failed.push((plan.line.segment.id, reason)),
                None => {
                    self.keep(plan, &samples)?;
                    summary.rendered += 1;
                    report.finished = Some(plan.line.segment.id);
                }
            }
            report.done += 1;
            report.rendered = summary.rendered;
            rt.block_on(self.store.render_job_progress(job, report.done as i64))?;
            progress(&report);
            report.finished = None;
        }
        drop(stream);
        let state = if summary.cancelled {
            "cancelled"
        } else if summary.failed.is_empty() {
            "done"
        } else {
            "failed"
        };
        let error = (!summary.failed.is_empty()).then(|| format!("{} lines failed; first: {}", summary.failed.len(), summary.failed[0].1));
        rt.block_on(self.store.finish_render_job(job, state, error.as_deref()))?;
        Ok(summary)
    }

    /// Stores a line's audio and records it as the line's active take.
    fn keep(&self, plan: &Plan, samples: &[f32]) -> Result<()> {
        let rate = self.speech.sample_rate();
        self.segments.put(&plan.key, samples, rate)?;
        let seconds = samples.len() as f64 / rate as f64;
        self.runtime.block_on(self.store.add_take(plan.line.segment.id, plan.seed as i64, &plan.key.to_hex(), seconds, Some(&plan.line.source)))?;
        Ok(())
    }

    /// Plays one line as it renders: its rows stream to `play` as each is
    /// ready (natural rate, before any fitting), then the whole line is
    /// stored as its active take, as a render would. A fresh line is read
    /// from the store instead. Returns the line's samples.
    pub fn stream_segment(&self, segment_id: i64, cancel: &AtomicBool, play: &mut dyn FnMut(&[f32]) -> Result<()>) -> Result<Vec<f32>> {
        let mut line = self.line(segment_id)?;
        // An earlier take from this very source (an undone edit) comes back as it is.
        if !self.take_is_current(&line) && self.bring_back_take(&line)? {
            line = self.line(segment_id)?;
        }
        let plan = self.plan(&line)?;
        if self.is_fresh(&plan)? {
            if let Stored::Audio(samples) = self.segments.get(&plan.key, self.speech.sample_rate())? {
                play(&samples)?;
                return Ok(samples);
            }
        }
        let mut samples = Vec::new();
        let mut stream = self.speech.renderer.stream(&plan.rows);
        for _ in &plan.rows {
            if cancel.load(Ordering::Acquire) {
                return Err(Error::Cancelled(format!("preview of line {segment_id}")));
            }
            let audio = stream.next().unwrap_or_else(|| Err(Error::internal(format!("line {segment_id}"), "the renderer stopped")))?;
            play(&audio.samples)?;
            samples.extend_from_slice(&audio.samples);
        }
        self.keep(&plan, &samples)?;
        Ok(samples)
    }

    /// One line as it renders now (its track resolved).
    fn line(&self, segment_id: i64) -> Result<Line> {
        let segment = self.runtime.block_on(self.store.segment(segment_id))?;
        let track = self.runtime.block_on(TrackLines::load(self.store, self.voices, segment.track_id))?;
        let i = track.index_of(segment_id).ok_or_else(|| Error::not_found(format!("line {segment_id}"), "it is not on its track"))?;
        Ok(track.lines[i].clone())
    }

    /// True when the line's active take records its source now and its file is whole.
    fn take_is_current(&self, line: &Line) -> bool {
        line.is_current() && line.take_key().is_some_and(|key| self.segments.is_intact(&key))
    }

    /// Makes an earlier take of the line rendered from its source now (an
    /// undone edit, a re-picked seed) its active take again, if its file is
    /// whole; true when it did.
    fn bring_back_take(&self, line: &Line) -> Result<bool> {
        let takes = self.runtime.block_on(self.store.takes(line.segment.id))?;
        let earlier = takes.iter().rev().find(|t| t.source_key.as_deref() == Some(line.source.as_str()) && RenderKey::from_hex(&t.synthesis_key).is_some_and(|key| self.segments.is_intact(&key)));
        let Some(take) = earlier else { return Ok(false) };
        self.runtime.block_on(self.store.set_active_take(line.segment.id, take.id))?;
        Ok(true)
    }

    /// A line's rows and synthesis key.
    fn plan(&self, line: &Line) -> Result<Plan> {
        let f = &line.segment.fields;
        let id = line.segment.id;
        // A line keeps one seed across edits, so only what changed changes.
        let seed = line.segment.seed() as u64;
        let voice = VoiceSpec::parse_stock(&line.voice).map_err(|e| e.context(format!("line {id}")))?;
        let request = SayRequest { text: f.text.clone(), voice, speed: f.speed as f32, seed: Some(seed) };
        let prepared = self.speech.front_end.prepare_with(&request, None, &line.dictionary).map_err(|e| e.context(format!("line {id}")))?;
        let mut rows: Vec<SpeechRow> = prepared.into_iter().map(|l| l.row).collect();
        if let Some(target) = line.target_seconds() {
            // Share the slot between a long line's rows by their phonemes.
            let phonemes: usize = rows.iter().map(|r| r.tokens.len().saturating_sub(2)).sum();
            for row in &mut rows {
                let share = row.tokens.len().saturating_sub(2) as f64 / phonemes.max(1) as f64;
                row.target_seconds = Some((target * share) as f32);
            }
        }
        let row_keys: Vec<String> = rows.iter().map(|r| self.speech.renderer.key(r).to_hex()).collect();
        let key = RenderKeyBuilder::new("segment/v1").param("rows", row_keys.join(",")).build();
        Ok(Plan { line: line.clone(), rows, key, seed })
    }

    /// True when the active take has this key and its audio is on disk and valid.
    fn is_fresh(&self, plan: &Plan) -> Result<bool> {
        if plan.line.take.as_ref().map(|t| t.synthesis_key.as_str()) != Some(plan.key.to_hex().as_str()) {
            return Ok(false);
        }
        Ok(matches!(self.segments.get(&plan.key, self.speech.sample_rate())?, Stored::Audio(_)))
    }
}
