//! Rendering a project: every segment whose synthesis key changed (text,
//! voice, speed, seed, the model, or a fit-by-re-synthesis target) is
//! rendered; the rest are left alone. All stale segments' rows go to the
//! renderer as one streaming job, so the scheduler batches them and the
//! render cache serves whatever it still holds; each finished segment is
//! written to the segment store and recorded as the segment's active take.
//! Progress is reported per segment, a cancel flag stops the job between
//! rows, and the job's state is kept in the database, so a job cut short
//! by a crash is found on the next start and simply run again (finished
//! segments are fresh by then and are skipped).
//!
//! Runs on a blocking thread; database calls go through the runtime handle.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use super::segment_store::{SegmentStore, Stored};
use super::timing::{render_target, Slot, TimingStrategy};
use crate::cache::{RenderKey, RenderKeyBuilder, VoiceArtifactCache};
use crate::error::{Error, Result};
use crate::model::speech::SpeechRow;
use crate::render::Renderer;
use crate::store::{Segment, Speaker, Store};

/// The voice of lines without a speaker.
pub const DEFAULT_VOICE: &str = "af_heart";
use crate::synth::{SayRequest, Synthesizer};
use crate::voice::MatchedVoice;

/// Where a render stands.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderProgress {
    /// Segments finished (fresh ones count as finished at once).
    pub done: usize,
    pub total: usize,
    /// Segments that needed synthesis.
    pub rendered: usize,
    /// The segment just synthesised and stored, if that is what moved.
    pub finished: Option<i64>,
    /// The segment now in the model, if that is what moved.
    pub rendering: Option<i64>,
    /// In the first report only: the stale segments, in the order they render.
    pub queued: Vec<i64>,
}

/// Which stale segments a render takes, and in what order.
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
    /// Segments synthesised this time.
    pub rendered: usize,
    /// Segments whose audio was already current.
    pub fresh: usize,
    pub cancelled: bool,
    /// Segments that failed, with the reason (the rest still rendered).
    pub failed: Vec<(i64, String)>,
}

/// What a segment is rendered from.
struct Plan {
    segment: Segment,
    rows: Vec<SpeechRow>,
    key: RenderKey,
    seed: u64,
    /// See [`source_key`].
    source: String,
}

/// The tools a render needs.
pub struct ProjectRenderer<'a> {
    pub runtime: &'a tokio::runtime::Handle,
    pub store: &'a Store,
    pub synth: &'a Synthesizer,
    pub renderer: &'a Renderer,
    pub segments: &'a SegmentStore,
    pub voices: &'a VoiceArtifactCache<MatchedVoice>,
}

impl ProjectRenderer<'_> {
    /// Renders every stale segment of every track of `project_id`.
    pub fn render(&self, project_id: i64, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        self.render_scope(project_id, &RenderScope::default(), cancel, progress)
    }

    /// Renders the stale segments of `project_id` that `scope` takes, in its order.
    pub fn render_scope(&self, project_id: i64, scope: &RenderScope, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        let rt = self.runtime;
        let project = rt.block_on(self.store.project(project_id))?;
        let strategy = parse_strategy(&project.timing_strategy)?;
        let speakers = rt.block_on(self.store.speakers(project_id))?;
        // The voice of each speaker on each track, by (speaker, track).
        let mut voice_of: HashMap<(i64, i64), String> = HashMap::new();
        let mut all = Vec::new();
        for track in rt.block_on(self.store.tracks(project_id))? {
            for s in &speakers {
                voice_of.insert((s.id, track.id), self.voice_for(s, &track.language)?);
            }
            all.extend(rt.block_on(self.store.segments(track.id))?);
        }
        let wanted = |s: &Segment| scope.only.as_ref().is_none_or(|only| only.contains(&s.id));
        let total = all.iter().filter(|s| wanted(s)).count();
        let running = rt.block_on(self.store.start_render_job(project_id, total as i64))?;
        let job = running.id;
        let mut summary = RenderSummary { segments: total, rendered: 0, fresh: 0, cancelled: false, failed: Vec::new() };

        // Plan every segment; keep the stale ones.
        let mut stale = Vec::new();
        for (i, segment) in all.iter().enumerate() {
            if !wanted(segment) {
                continue;
            }
            let next_start = all.get(i + 1).filter(|n| n.track_id == segment.track_id).map(|n| n.fields.start_s);
            let voice = segment.fields.speaker_id.and_then(|id| voice_of.get(&(id, segment.track_id)).cloned()).unwrap_or_else(|| DEFAULT_VOICE.into());
            let seg_strategy = match &segment.fields.timing_strategy {
                Some(name) => parse_strategy(name)?,
                None => strategy,
            };
            // Fast path: the take was rendered from exactly this source and its file is whole.
            let source = source_key(segment, &voice, seg_strategy, next_start);
            if self.take_matches_source(segment, &source)? || self.bring_back_take(segment, &source)? {
                summary.fresh += 1;
                continue;
            }
            let plan = match self.plan(segment, &voice, seg_strategy, next_start, source) {
                Ok(plan) => plan,
                Err(e) => {
                    summary.failed.push((segment.id, e.to_string()));
                    continue;
                }
            };
            if self.is_fresh(&plan)? {
                summary.fresh += 1;
            } else {
                stale.push(plan);
            }
        }
        if let Some(from) = scope.from_s {
            // Stable: lines at or after `from` by time, then the earlier ones by time.
            stale.sort_by(|a, b| {
                let key = |p: &Plan| (p.segment.fields.start_s < from, p.segment.fields.start_s);
                key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
            });
        }
        let queued = stale.iter().map(|p| p.segment.id).collect();
        let mut report = RenderProgress { done: summary.fresh + summary.failed.len(), total, rendered: 0, finished: None, rendering: None, queued };
        progress(&report);
        report.queued = Vec::new();

        // One streaming job for all stale rows, in order.
        let rows: Vec<SpeechRow> = stale.iter().flat_map(|p| p.rows.iter().cloned()).collect();
        let mut stream = self.renderer.stream(&rows);
        'segments: for plan in &stale {
            report.rendering = Some(plan.segment.id);
            progress(&report);
            report.rendering = None;
            let mut samples = Vec::new();
            let mut failure = None;
            for _ in &plan.rows {
                if cancel.load(Ordering::Acquire) {
                    summary.cancelled = true;
                    break 'segments;
                }
                match stream.next() {
                    Some(Ok(audio)) => samples.extend_from_slice(&audio.samples),
                    Some(Err(e)) => failure = Some(e.to_string()),
                    None => failure = Some("the renderer stopped".into()),
                }
            }
            match failure {
                Some(reason) => summary.failed.push((plan.segment.id, reason)),
                None => {
                    self.keep(plan, &samples)?;
                    summary.rendered += 1;
                    report.finished = Some(plan.segment.id);
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
        let error = (!summary.failed.is_empty()).then(|| format!("{} segments failed; first: {}", summary.failed.len(), summary.failed[0].1));
        rt.block_on(self.store.finish_render_job(job, state, error.as_deref()))?;
        Ok(summary)
    }

    /// The voice spec a speaker's lines in `language` render with: a
    /// registered voice's matched blend, or the stock voice or blend as named.
    fn voice_for(&self, speaker: &Speaker, language: &str) -> Result<String> {
        self.runtime.block_on(resolve_voice(self.store, self.voices, &speaker.voice_for(language)))
    }

    /// Stores a segment's audio and records it as the segment's active take.
    fn keep(&self, plan: &Plan, samples: &[f32]) -> Result<()> {
        let rate = self.synth.sample_rate();
        self.segments.put(&plan.key, samples, rate)?;
        let seconds = samples.len() as f64 / rate as f64;
        self.runtime.block_on(self.store.add_take(plan.segment.id, plan.seed as i64, &plan.key.to_hex(), seconds, Some(&plan.source)))?;
        Ok(())
    }

    /// Plays one segment as it renders: its rows stream to `play` as each
    /// is ready (natural rate, before any fitting), then the whole line is
    /// stored as its active take, as a render would. A fresh segment is
    /// read from the store instead. Returns the line's samples.
    pub fn stream_segment(&self, segment_id: i64, cancel: &AtomicBool, play: &mut dyn FnMut(&[f32]) -> Result<()>) -> Result<Vec<f32>> {
        let rt = self.runtime;
        let LineSource { segment, voice, strategy, next_start, source } = rt.block_on(line_source(self.store, self.voices, segment_id))?;
        // An earlier take from this very source (an undone edit) comes back as it is.
        let segment = if !self.take_matches_source(&segment, &source)? && self.bring_back_take(&segment, &source)? { rt.block_on(self.store.segment(segment_id))? } else { segment };
        let plan = self.plan(&segment, &voice, strategy, next_start, source)?;
        if self.is_fresh(&plan)? {
            if let Stored::Audio(samples) = self.segments.get(&plan.key, self.synth.sample_rate())? {
                play(&samples)?;
                return Ok(samples);
            }
        }
        let mut samples = Vec::new();
        let mut stream = self.renderer.stream(&plan.rows);
        for _ in &plan.rows {
            if cancel.load(Ordering::Acquire) {
                return Err(Error::Cancelled(format!("preview of segment {segment_id}")));
            }
            let audio = stream.next().unwrap_or_else(|| Err(Error::Audio("the renderer stopped".into())))?;
            play(&audio.samples)?;
            samples.extend_from_slice(&audio.samples);
        }
        self.keep(&plan, &samples)?;
        Ok(samples)
    }

    /// True when the segment's active take records `source` and its file is whole.
    fn take_matches_source(&self, segment: &Segment, source: &str) -> Result<bool> {
        let Some(take) = segment.active_take_id else { return Ok(false) };
        let Some((key, recorded, _)) = self.runtime.block_on(self.store.take_info(take))? else { return Ok(false) };
        if recorded.as_deref() != Some(source) {
            return Ok(false);
        }
        Ok(RenderKey::from_hex(&key).is_some_and(|key| self.segments.is_intact(&key)))
    }

    /// Makes an earlier take of the segment rendered from `source` (an
    /// undone edit, a re-picked seed) its active take again, if its file is
    /// whole; true when it did.
    fn bring_back_take(&self, segment: &Segment, source: &str) -> Result<bool> {
        let takes = self.runtime.block_on(self.store.takes(segment.id))?;
        let earlier = takes.iter().rev().find(|t| t.source_key.as_deref() == Some(source) && RenderKey::from_hex(&t.synthesis_key).is_some_and(|key| self.segments.is_intact(&key)));
        let Some(take) = earlier else { return Ok(false) };
        self.runtime.block_on(self.store.set_active_take(segment.id, take.id))?;
        Ok(true)
    }

    /// A segment's rows and synthesis key.
    fn plan(&self, segment: &Segment, voice: &str, strategy: TimingStrategy, next_start: Option<f64>, source: String) -> Result<Plan> {
        let f = &segment.fields;
        // A segment keeps one seed across edits, so only what changed changes.
        let seed = segment.seed() as u64;
        let request = SayRequest { text: f.text.clone(), voice: voice.to_string(), speed: f.speed as f32, seed: Some(seed) };
        let mut rows: Vec<SpeechRow> = self.synth.prepare(&request).map_err(|e| e.context(format!("segment {}", segment.id)))?.into_iter().map(|l| l.row).collect();
        let slot = Slot { start: f.start_s, end: f.end_s, next_start };
        if let Some(target) = render_target(strategy, &slot) {
            // Share the slot between a long line's rows by their phonemes.
            let phonemes: usize = rows.iter().map(|r| r.tokens.len().saturating_sub(2)).sum();
            for row in &mut rows {
                let share = row.tokens.len().saturating_sub(2) as f64 / phonemes.max(1) as f64;
                row.target_seconds = Some((target * share) as f32);
            }
        }
        let mut key = RenderKeyBuilder::new("segment/v1");
        let row_keys: Vec<String> = rows.iter().map(|r| self.renderer.key(r).to_hex()).collect();
        key = key.param("rows", row_keys.join(","));
        Ok(Plan { segment: segment.clone(), rows, key: key.build(), seed, source })
    }

    /// True when the active take has this key and its audio is on disk and valid.
    fn is_fresh(&self, plan: &Plan) -> Result<bool> {
        let Some(take) = plan.segment.active_take_id else { return Ok(false) };
        let key: Option<String> = self.runtime.block_on(self.store.take_key(take))?;
        if key.as_deref() != Some(plan.key.to_hex().as_str()) {
            return Ok(false);
        }
        Ok(matches!(self.segments.get(&plan.key, self.synth.sample_rate())?, Stored::Audio(_)))
    }
}

/// The voice spec a voice name renders with: a registered voice's matched
/// blend, or the stock voice or blend as named.
pub async fn resolve_voice(store: &Store, voices: &VoiceArtifactCache<MatchedVoice>, name: &str) -> Result<String> {
    Ok(match crate::voice::library::artifact(store, voices, name).await? {
        Some(matched) => matched.blend_spec(),
        None => name.to_string(),
    })
}

/// What a segment renders from, hashed: its text, its resolved voice, its
/// speed, its seed and the length the strategy asks the
/// model for, under this engine version. Equal source keys render equal
/// audio, so a take whose recorded source key matches is current without
/// running G2P; the synthesis key (from the rows) stays the authority when
/// they differ. The model's precision is not in it: an int8 and an f32
/// render of one source differ only by quantization error.
pub fn source_key(segment: &Segment, voice: &str, strategy: TimingStrategy, next_start: Option<f64>) -> String {
    let f = &segment.fields;
    let target = render_target(strategy, &Slot { start: f.start_s, end: f.end_s, next_start });
    RenderKeyBuilder::new("segment-source/v1")
        .param("engine", crate::ENGINE_VERSION)
        .param("text", &f.text)
        .param("voice", voice)
        .param("speed", f.speed)
        .param("seed", segment.seed())
        .param("target", target.map_or("natural".to_string(), |t| format!("{t:.6}")))
        .build()
        .to_hex()
}

/// A segment as it renders now: its resolved voice, its strategy, the next
/// line's start and the source key they make.
pub struct LineSource {
    pub segment: Segment,
    pub voice: String,
    pub strategy: TimingStrategy,
    pub next_start: Option<f64>,
    pub source: String,
}

/// Works out [`LineSource`] for one segment from the database (its
/// speaker's voice on its track, its strategy, the next line's start).
pub async fn line_source(store: &Store, voices: &VoiceArtifactCache<MatchedVoice>, segment_id: i64) -> Result<LineSource> {
    let segment = store.segment(segment_id).await?;
    let track = store.track(segment.track_id).await?;
    let project = store.project(track.project_id).await?;
    let lines = store.segments(track.id).await?;
    let next_start = lines.iter().position(|s| s.id == segment_id).and_then(|i| lines.get(i + 1)).map(|n| n.fields.start_s);
    let speaker = store.speakers(project.id).await?.into_iter().find(|s| Some(s.id) == segment.fields.speaker_id);
    let voice = match speaker {
        Some(s) => resolve_voice(store, voices, &s.voice_for(&track.language)).await?,
        None => DEFAULT_VOICE.into(),
    };
    let strategy = parse_strategy(segment.fields.timing_strategy.as_deref().unwrap_or(&project.timing_strategy))?;
    let source = source_key(&segment, &voice, strategy, next_start);
    Ok(LineSource { segment, voice, strategy, next_start, source })
}

/// A strategy from its stored name.
pub fn parse_strategy(name: &str) -> Result<TimingStrategy> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).map_err(|_| Error::InvalidInput {
        input: format!("timing strategy {name:?}"),
        reason: "use natural, strict_slot, smart_fit or resynthesize".into(),
    })
}
