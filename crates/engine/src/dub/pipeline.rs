//! Rendering a project: every line whose synthesis key changed (text,
//! voice, speed, seed, the model, or a fit-by-re-synthesis target) is
//! rendered; the rest are left alone. All stale lines' rows go to the
//! renderer as one streaming job, so the scheduler batches them and the
//! render cache serves whatever it still holds; each finished line is cut
//! to its speech ([`super::take_shape`]), written to the segment store and
//! recorded as the line's active take.
//! Progress is reported per line, a cancel flag stops the job between
//! rows, and the job's state is kept in the database, so a job cut short
//! by a crash is found on the next start and simply run again (finished
//! lines are fresh by then and are skipped).
//!
//! A line whose voice is on a remote engine (`fleet/af_bella`) goes to
//! that engine's servers instead ([`revoice_remote::Fleet`]): its key names
//! the engine, its model and the voice, so a local and a remote render of
//! one text never share a take. Remote lines are sent first, all at once,
//! so the servers work while the local model renders the rest.
//!
//! What each line renders from comes from [`TrackLines`], the one resolved
//! view of a track. Runs on a blocking thread; database calls go through
//! the runtime handle.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::lines::{Line, TrackLines};
use super::segment_store::{SegmentStore, Stored};
use super::take_shape::{preview_of_row, shape_take, speech_within};
use super::timing::{render_target, FitLimits, TimingStrategy};
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};
use revoice_model::speech::SpeechRow;
use revoice_remote::{Failover, Fleet, RemoteEngines, RemoteLine};
use revoice_speech::cache::{RenderKey, RenderKeyBuilder, VoiceArtifactCache};
use revoice_speech::{SayRequest, SpeechStack};
use revoice_store::Store;
use revoice_voices::MatchedVoice;

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
    /// Remote servers taken out mid-render, and how long their lines took to move.
    pub failovers: Vec<Failover>,
}

/// What a line is rendered from.
struct Plan {
    line: Line,
    /// The local model's rows (none for a remote line).
    rows: Vec<SpeechRow>,
    key: RenderKey,
    seed: u64,
    /// The engine and request of a line with a remote voice.
    remote: Option<(Arc<Fleet>, RemoteLine)>,
}

/// The tools a render needs.
pub struct ProjectRenderer<'a> {
    pub runtime: &'a tokio::runtime::Handle,
    pub store: &'a Store,
    pub speech: &'a SpeechStack,
    pub segments: &'a SegmentStore,
    pub voices: &'a VoiceArtifactCache<MatchedVoice>,
    pub remote: &'a RemoteEngines,
    /// The limits lines are fitted within.
    pub limits: FitLimits,
}

impl ProjectRenderer<'_> {
    /// Renders every stale line of every track of `project_id`.
    pub fn render(&self, project_id: i64, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        self.render_scope(project_id, &RenderScope::default(), cancel, progress)
    }

    /// Renders the stale lines of `project_id` that `scope` takes, in its order.
    pub fn render_scope(&self, project_id: i64, scope: &RenderScope, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        let rt = self.runtime;
        let tracks = wait(rt, TrackLines::load_project(self.store, self.voices, project_id, self.limits))?;
        let wanted = |l: &Line| scope.only.as_ref().is_none_or(|only| only.contains(&l.segment.id));
        let all: Vec<(&str, &Line)> = tracks.iter().flat_map(|t| t.lines.iter().map(|l| (t.track.language.as_str(), l))).filter(|(_, l)| wanted(l)).collect();
        let total = all.len();
        let running = wait(rt, self.store.start_render_job(project_id, total as i64))?;
        let job = running.id;
        let mut summary = RenderSummary { segments: total, rendered: 0, fresh: 0, cancelled: false, failed: Vec::new(), failovers: Vec::new() };

        // Plan every line; keep the stale ones.
        let mut stale = Vec::new();
        for (language, line) in all {
            // Fast path: the take was rendered from exactly this source and its file is whole.
            // (A remote line is always keyed: its engine's model is in its key, not its source.)
            if !line.is_remote() && (self.take_is_current(line) || self.bring_back_take(line)?) {
                summary.fresh += 1;
                continue;
            }
            match self.plan(line, language) {
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

        let (remote, stale): (Vec<Plan>, Vec<Plan>) = stale.into_iter().partition(|p| p.remote.is_some());
        self.render_remote(&remote, job, cancel, &mut summary, &mut report, progress)?;

        // One streaming job for all stale local rows, in order.
        let rows: Vec<SpeechRow> = stale.iter().flat_map(|p| p.rows.iter().cloned()).collect();
        let mut stream = self.speech.renderer.stream(&rows);
        'lines: for plan in stale.iter().take_while(|_| !summary.cancelled) {
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
                    self.keep(plan, &shape_take(&samples, self.speech.sample_rate()))?;
                    summary.rendered += 1;
                    report.finished = Some(plan.line.segment.id);
                }
            }
            report.done += 1;
            report.rendered = summary.rendered;
            wait(rt, self.store.render_job_progress(job, report.done as i64))?;
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
        wait(rt, self.store.finish_render_job(job, state, error.as_deref()))?;
        Ok(summary)
    }

    /// Renders the remote lines, engine by engine, each through its fleet;
    /// each line is stored as it arrives.
    fn render_remote(
        &self,
        plans: &[Plan],
        job: i64,
        cancel: &AtomicBool,
        summary: &mut RenderSummary,
        report: &mut RenderProgress,
        progress: &mut dyn FnMut(&RenderProgress),
    ) -> Result<()> {
        let mut engines: Vec<&Arc<Fleet>> = Vec::new();
        for (fleet, _) in plans.iter().filter_map(|p| p.remote.as_ref()) {
            if !engines.iter().any(|f| Arc::ptr_eq(f, fleet)) {
                engines.push(fleet);
            }
        }
        let rate = self.speech.sample_rate();
        for fleet in engines {
            let mine: Vec<&Plan> = plans.iter().filter(|p| p.remote.as_ref().is_some_and(|(f, _)| Arc::ptr_eq(f, fleet))).collect();
            let lines: Vec<RemoteLine> = mine.iter().map(|p| p.remote.as_ref().expect("a remote plan").1.clone()).collect();
            let mut stored: Result<()> = Ok(());
            let run = fleet.render(&lines, cancel, &mut |i, answer| {
                let plan = mine[i];
                let id = plan.line.segment.id;
                let kept = answer.and_then(|spoken| {
                    let samples = if spoken.sample_rate == rate {
                        Ok(spoken.samples)
                    } else {
                        revoice_audio::resample::resample(&spoken.samples, spoken.sample_rate, rate)
                    };
                    samples.and_then(|samples| self.keep(plan, &shape_take(&samples, rate))).map_err(|e| e.to_string())
                });
                match kept {
                    Ok(()) => {
                        summary.rendered += 1;
                        report.finished = Some(id);
                    }
                    Err(reason) => summary.failed.push((id, format!("line {id}: {reason}"))),
                }
                report.done += 1;
                report.rendered = summary.rendered;
                if let Err(e) = wait(self.runtime, self.store.render_job_progress(job, report.done as i64)) {
                    stored = Err(e);
                }
                progress(report);
                report.finished = None;
            });
            stored?;
            summary.failovers.extend(run.failovers);
            if run.cancelled {
                summary.cancelled = true;
                break;
            }
        }
        Ok(())
    }

    /// Stores a line's audio and records it as the line's active take.
    fn keep(&self, plan: &Plan, samples: &[f32]) -> Result<()> {
        let rate = self.speech.sample_rate();
        self.segments.put(&plan.key, samples, rate)?;
        let seconds = samples.len() as f64 / rate as f64;
        wait(self.runtime, self.store.add_take(plan.line.segment.id, plan.seed as i64, &plan.key.to_hex(), seconds, Some(&plan.line.source)))?;
        Ok(())
    }

    /// Plays one line as it renders: its rows stream to `play` as each is
    /// ready, each cut to its speech (natural rate, before any fitting),
    /// then the whole line is cut and stored as its active take, as a
    /// render would. A fresh line is read
    /// from the store instead. Returns the line's samples.
    pub fn stream_segment(&self, segment_id: i64, cancel: &AtomicBool, play: &mut dyn FnMut(&[f32]) -> Result<()>) -> Result<Vec<f32>> {
        let (mut line, language) = self.line(segment_id)?;
        // An earlier take from this very source (an undone edit) comes back as it is.
        if !self.take_is_current(&line) && self.bring_back_take(&line)? {
            line = self.line(segment_id)?.0;
        }
        let plan = self.plan(&line, &language)?;
        if self.is_fresh(&plan)? {
            if let Stored::Audio(samples) = self.segments.get(&plan.key, self.speech.sample_rate())? {
                play(&samples)?;
                return Ok(samples);
            }
        }
        if let Some((fleet, remote)) = &plan.remote {
            let rate = self.speech.sample_rate();
            let spoken = fleet.speak_streaming(remote, cancel, rate, play).map_err(|e| e.context(format!("line {segment_id}")))?;
            let take = shape_take(&spoken, rate);
            self.keep(&plan, &take)?;
            return Ok(take);
        }
        let rate = self.speech.sample_rate();
        let mut samples = Vec::new();
        let mut stream = self.speech.renderer.stream(&plan.rows);
        for i in 0..plan.rows.len() {
            if cancel.load(Ordering::Acquire) {
                return Err(Error::Cancelled(format!("preview of line {segment_id}")));
            }
            let audio = stream.next().unwrap_or_else(|| Err(Error::internal(format!("line {segment_id}"), "the renderer stopped")))?;
            play(&preview_of_row(&audio.samples, rate, i == 0))?;
            samples.extend_from_slice(&audio.samples);
        }
        let take = shape_take(&samples, rate);
        self.keep(&plan, &take)?;
        Ok(take)
    }

    /// One line as it renders now (its track resolved), and its track's language.
    fn line(&self, segment_id: i64) -> Result<(Line, String)> {
        let segment = wait(self.runtime, self.store.segment(segment_id))?;
        let track = wait(self.runtime, TrackLines::load(self.store, self.voices, segment.track_id, self.limits))?;
        let i = track.index_of(segment_id).ok_or_else(|| Error::not_found(format!("line {segment_id}"), "it is not on its track"))?;
        Ok((track.lines[i].clone(), track.track.language.clone()))
    }

    /// True when the line's active take records its source now and its file is whole.
    fn take_is_current(&self, line: &Line) -> bool {
        line.is_current() && line.take_key().is_some_and(|key| self.segments.is_intact(&key))
    }

    /// Makes an earlier take of the line rendered from its source now (an
    /// undone edit, a re-picked seed) its active take again, if its file is
    /// whole; true when it did.
    fn bring_back_take(&self, line: &Line) -> Result<bool> {
        let takes = wait(self.runtime, self.store.takes(line.segment.id))?;
        let earlier = takes.iter().rev().find(|t| {
            t.source_key.as_deref() == Some(line.source.as_str()) && RenderKey::from_hex(&t.synthesis_key).is_some_and(|key| self.segments.is_intact(&key))
        });
        let Some(take) = earlier else { return Ok(false) };
        wait(self.runtime, self.store.set_active_take(line.segment.id, take.id))?;
        Ok(true)
    }

    /// A line's rows (or remote request) and synthesis key.
    fn plan(&self, line: &Line, language: &str) -> Result<Plan> {
        let f = &line.segment.fields;
        let id = line.segment.id;
        // A line keeps one seed across edits, so only what changed changes.
        let seed = line.segment.seed() as u64;
        if line.is_remote() {
            return self.plan_remote(line, language, seed).map_err(|e| e.context(format!("line {id}")));
        }
        let voice = line.speaking_voice()?;
        let request = SayRequest { text: f.text.clone(), voice, speed: f.speed as f32, seed: Some(seed) };
        let prepared = self.speech.front_end.prepare_with(&request, None, &line.dictionary).map_err(|e| e.context(format!("line {id}")))?;
        let mut rows: Vec<SpeechRow> = prepared.into_iter().map(|l| l.row).collect();
        if line.strategy == TimingStrategy::Resynthesize {
            // Share the slot's speech time between a long line's rows by their
            // phonemes, each row no faster than the cap allows over its own
            // predicted speech.
            let natural = self.speech.renderer.spoken_seconds(&rows).map_err(|e| e.context(format!("line {id}")))?;
            let target = speech_within(render_target(line.strategy, &line.slot, None, &self.limits).unwrap_or_default(), rows.len());
            let phonemes: usize = rows.iter().map(|r| r.tokens.len().saturating_sub(2)).sum();
            let fastest = self.limits.resynthesize_max_speed.max(1.0);
            for (row, natural) in rows.iter_mut().zip(natural) {
                let share = row.tokens.len().saturating_sub(2) as f64 / phonemes.max(1) as f64;
                row.target_seconds = Some((target * share).max(natural as f64 / fastest) as f32);
            }
        }
        let row_keys: Vec<String> = rows.iter().map(|r| self.speech.renderer.key(r).to_hex()).collect();
        let key = RenderKeyBuilder::new("segment/v2").param("rows", row_keys.join(",")).build();
        Ok(Plan { line: line.clone(), rows, key, seed, remote: None })
    }

    /// A remote line: the request its engine gets, keyed by the engine, its
    /// model, the voice (and the recording it clones) and what is said. It
    /// renders at its natural length; the timing strategy fits it afterwards.
    fn plan_remote(&self, line: &Line, language: &str, seed: u64) -> Result<Plan> {
        let f = &line.segment.fields;
        let spec = line.speaking_voice()?;
        let (engine, _) = spec.remote().expect("a remote voice");
        let fleet = self.remote.fleet(engine)?;
        let text = line.dictionary.respell(&f.text);
        let remote = wait(self.runtime, self.remote.line(&spec, &text, f.speed as f32, seed, Some(language)))?;
        let key = RenderKeyBuilder::new("segment-remote/v1")
            .param("engine", &fleet.settings.name)
            .param("model", &fleet.settings.model)
            .param("voice", &line.voice_identity)
            .param("text", &text)
            .param("speed", f.speed)
            .param("seed", seed)
            .param("language", language)
            .build();
        Ok(Plan { line: line.clone(), rows: Vec::new(), key, seed, remote: Some((fleet, remote)) })
    }

    /// True when the active take has this key and its audio is on disk and valid.
    fn is_fresh(&self, plan: &Plan) -> Result<bool> {
        if plan.line.take.as_ref().map(|t| t.synthesis_key.as_str()) != Some(plan.key.to_hex().as_str()) {
            return Ok(false);
        }
        Ok(matches!(self.segments.get(&plan.key, self.speech.sample_rate())?, Stored::Audio(_)))
    }
}
