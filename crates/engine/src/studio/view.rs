//! A project as the editor shows it: every line with its state (stale,
//! queued, rendering, ready, failed), its spoken length and where it will
//! land (predicted before any render), its flags (doesn't fit, cut,
//! overlap, failed check) and, once rendered, where its timing strategy
//! puts it. Built from the resolved tracks ([`TrackLines`]) alone
//! (no audio is read, no G2P runs): a take is current when the source key
//! it recorded is the line's source key now, and its placement follows
//! from its length; what listening back heard in it is shown while it is
//! of that take under that fit; each speaker's lane as it is heard (muted,
//! solo, level) and the project's markers. These are the shapes the window receives; their
//! TypeScript twins are generated from them (`ui/src/engine-types.ts`).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use ts_rs::TS;

use crate::checking::current_of;
use crate::dub::flags::{line_flags, LineFlag};
use crate::dub::lines::{programme_seconds, TrackLines};
use crate::dub::timing::TimingStrategy;
use revoice_core::error::Result;
use revoice_store::Store;

/// Where a line stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum SegmentState {
    /// No take, or edited since its take.
    Stale,
    /// In a render job, waiting for the model.
    Queued,
    /// In the model now.
    Rendering,
    /// Its take is current.
    Ready,
    /// The last render of it failed (the error says why).
    Failed,
}

/// Where a rendered line lands on the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Fit")]
pub struct FitView {
    pub start: f64,
    pub end: f64,
    pub rate: f64,
    pub trimmed: bool,
    pub overlap: Option<f64>,
    /// The strategy that placed it (the line's own or the project's).
    pub strategy: TimingStrategy,
    /// Seconds it runs past its slot into the silence before the next line.
    pub gap_used: f64,
    /// Seconds of its render cut off at the end (after stretching), when trimmed.
    pub cut: Option<f64>,
    /// Seconds its render was longer than its slot (before any fitting).
    pub overflow: f64,
}

/// What listening back heard in a line's take (under the fit it has now).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "TakeCheck")]
pub struct CheckView {
    pub passed: bool,
    pub heard: String,
    /// Each problem, a sentence.
    pub problems: Vec<String>,
    pub word_error_rate: f64,
}

/// One line.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Segment")]
pub struct SegmentView {
    pub id: i64,
    pub track_id: i64,
    pub start: f64,
    pub end: f64,
    pub text: String,
    pub speaker_id: Option<i64>,
    pub speed: f64,
    pub gain_db: f64,
    pub fade_in: f64,
    pub fade_out: f64,
    /// The line's own strategy; `None`: the project's applies.
    pub strategy: Option<TimingStrategy>,
    pub locked: bool,
    pub state: SegmentState,
    pub error: Option<String>,
    pub fit: Option<FitView>,
    /// Seconds it lasts spoken at its own speed: predicted from the model's
    /// durations before it renders (its take's length where not predicted).
    pub spoken: Option<f64>,
    /// Where it will land, from its spoken length, before it renders.
    pub planned: Option<FitView>,
    /// Why it cannot ship as it stands; empty when it can.
    pub flags: Vec<LineFlag>,
    /// Its take heard back, when it has been since its take or fit changed.
    pub check: Option<CheckView>,
}

/// A speaker, their voices, and how their lane is heard.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Speaker")]
pub struct SpeakerView {
    pub id: i64,
    pub name: String,
    pub voice: String,
    pub language_voices: BTreeMap<String, String>,
    /// Their lane never sounds.
    pub muted: bool,
    /// Their lane is soloed.
    pub solo: bool,
    /// Their lane's level, dB.
    pub level_db: f32,
    /// Whether their lane sounds now (not muted, and soloed when any lane is).
    pub audible: bool,
}

/// How a lane is heard: the lane of lines without a speaker.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Lane")]
pub struct LaneView {
    pub muted: bool,
    pub solo: bool,
    pub level_db: f32,
    /// Whether it sounds now.
    pub audible: bool,
}

/// A named point on the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Marker")]
pub struct MarkerView {
    pub id: i64,
    /// Seconds.
    pub at: f64,
    pub name: String,
}

/// One language's lines.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Track")]
pub struct TrackView {
    pub id: i64,
    pub language: String,
    pub segments: Vec<SegmentView>,
}

/// A whole project.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Project")]
pub struct ProjectView {
    pub id: i64,
    pub name: String,
    pub strategy: TimingStrategy,
    /// The first bed stem's file, if there is a bed.
    pub bed: Option<String>,
    /// Every bed stem, in order.
    pub beds: Vec<revoice_store::BedStem>,
    /// The recording or video holding the original dialogue, if any.
    pub original: Option<String>,
    /// The picture the dub is made against, if any.
    pub video: Option<String>,
    /// The cast sheet its speakers take their voices from, if any.
    pub cast: Option<String>,
    /// The rate its timecode runs at (`"25"`, `"29.97df"`…): the picture's, or the project's setting.
    pub frame_rate: String,
    /// Programme length in seconds: the latest slot end or placed line end.
    pub length: f64,
    pub speakers: Vec<SpeakerView>,
    /// The lane of lines without a speaker.
    pub no_speaker_lane: LaneView,
    /// In time order.
    pub markers: Vec<MarkerView>,
    pub tracks: Vec<TrackView>,
    pub can_undo: bool,
    pub can_redo: bool,
}

/// States a running job knows better than the database (queued,
/// rendering, failed with its error), by segment id.
pub type LiveStates = HashMap<i64, (SegmentState, Option<String>)>;

/// The view of a project from its resolved tracks, with `live` states
/// over the stored ones.
pub async fn project_view(store: &Store, tracks: &[TrackLines], project_id: i64, live: &LiveStates) -> Result<ProjectView> {
    let project = store.project(project_id).await?;
    let speakers = store.speakers(project_id).await?;
    let lanes = crate::dub::lanes::LaneMixes::new(store.lane_mixes(project_id).await?);
    let lane = |id: Option<i64>| {
        let mix = lanes.mix(id);
        LaneView { muted: mix.muted, solo: mix.solo, level_db: mix.level_db, audible: lanes.audible(id) }
    };
    let markers = store.markers(project_id).await?.into_iter().map(|m| MarkerView { id: m.id, at: m.at_seconds, name: m.name }).collect();
    let checks = current_of(tracks, &mut store.project_take_checks(project_id).await?);
    let mut views = Vec::with_capacity(tracks.len());
    let mut length: f64 = 0.0;
    for track in tracks {
        let segments: Vec<SegmentView> = track
            .lines
            .iter()
            .map(|line| {
                let f = &line.segment.fields;
                let fit = line.placement(&track.limits).map(|p| fit_view(line, &p, line.take.as_ref().map_or(p.length, |t| t.duration_s)));
                let planned = line.planned_placement(&track.limits).map(|(p, rendered)| fit_view(line, &p, rendered));
                let check = checks.get(&line.segment.id).map(|c| CheckView {
                    passed: c.passed,
                    heard: c.heard.clone(),
                    problems: c.problems(),
                    word_error_rate: c.word_error_rate,
                });
                let flags = line_flags(line, &track.limits, check.as_ref().is_some_and(|c| !c.passed));
                let (state, error) = match live.get(&line.segment.id) {
                    Some((state, error)) => (*state, error.clone()),
                    None if line.is_current() => (SegmentState::Ready, None),
                    None => (SegmentState::Stale, None),
                };
                SegmentView {
                    id: line.segment.id,
                    track_id: track.track.id,
                    start: f.start_s,
                    end: f.end_s,
                    text: f.text.clone(),
                    speaker_id: f.speaker_id,
                    speed: f.speed,
                    gain_db: f.gain_db,
                    fade_in: f.fade_in_s,
                    fade_out: f.fade_out_s,
                    strategy: f.timing_strategy.as_deref().and_then(|s| s.parse().ok()),
                    locked: f.locked,
                    state,
                    error,
                    fit,
                    spoken: line.natural_seconds(),
                    planned,
                    flags,
                    check,
                }
            })
            .collect();
        length = length.max(programme_seconds(segments.iter().map(|s| s.end), segments.iter().filter_map(|s| s.fit.as_ref().map(|f| f.end))));
        views.push(TrackView { id: track.track.id, language: track.track.language.clone(), segments });
    }
    let (can_undo, can_redo) = store.history_state(project_id).await?;
    let beds = store.bed_stems(project_id).await?;
    let cast = match project.cast_id {
        Some(id) => store.cast_name(id).await?,
        None => None,
    };
    Ok(ProjectView {
        id: project.id,
        name: project.name,
        strategy: project.timing_strategy.parse()?,
        bed: beds.first().map(|b| b.file.clone()),
        beds,
        original: project.original_media,
        video: project.video_file,
        cast,
        frame_rate: crate::dub::timecode::FrameRate::stored(project.frame_rate.as_deref()).name().to_string(),
        length,
        speakers: speakers
            .iter()
            .map(|s| {
                let l = lane(Some(s.id));
                SpeakerView {
                    id: s.id,
                    name: s.name.clone(),
                    voice: s.voice.clone(),
                    language_voices: s.language_voices(),
                    muted: l.muted,
                    solo: l.solo,
                    level_db: l.level_db,
                    audible: l.audible,
                }
            })
            .collect(),
        no_speaker_lane: lane(None),
        markers,
        tracks: views,
        can_undo,
        can_redo,
    })
}

/// A project in the recent list.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSummary {
    pub id: i64,
    pub name: String,
    pub updated_at: String,
}

impl ProjectSummary {
    /// Every project, most recently edited first.
    pub async fn recent(engine: &crate::Engine) -> Result<Vec<ProjectSummary>> {
        let mut projects = engine.store().projects().await?;
        projects.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
        Ok(projects.into_iter().map(|p| ProjectSummary { id: p.id, name: p.name, updated_at: p.updated_at }).collect())
    }
}

/// A file an export wrote, for the export dialog.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportedFile {
    pub path: String,
    pub seconds: Option<f64>,
    /// For a mix: its loudness against the delivery, one line.
    pub loudness: Option<String>,
}

impl ExportedFile {
    /// Every file a project's export wrote: each track's, its handoff, the muxed picture.
    pub fn of(export: &crate::dub::export::ProjectExport) -> Vec<ExportedFile> {
        use crate::dub::export::ExportedKind;
        let plain = |path: &std::path::Path| ExportedFile { path: path.display().to_string(), seconds: None, loudness: None };
        let mut files = Vec::new();
        for t in &export.tracks {
            files.extend(t.report.files.iter().map(|f| ExportedFile {
                path: f.path.display().to_string(),
                seconds: f.duration_s,
                loudness: (f.kind == ExportedKind::Mix).then(|| t.report.delivery.summary()),
            }));
            files.extend(t.handoff.iter().map(|p| plain(p)));
        }
        files.extend(export.video.iter().map(|p| plain(p)));
        files
    }
}

/// The view of `placement` for `line`, whose render lasts `rendered` seconds.
fn fit_view(line: &crate::dub::lines::Line, p: &crate::dub::timing::Placement, rendered: f64) -> FitView {
    FitView {
        start: p.start,
        end: p.start + p.length,
        rate: p.rate,
        trimmed: p.trimmed_to.is_some(),
        overlap: p.overlap,
        strategy: line.strategy,
        gap_used: (p.start + p.length - line.slot.end).max(0.0),
        cut: p.trimmed_to.map(|t| (rendered / p.rate - t).max(0.0)),
        overflow: (rendered - line.slot.length()).max(0.0),
    }
}
