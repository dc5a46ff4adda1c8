//! A project as the editor shows it: every line with its state (stale,
//! queued, rendering, ready, failed) and, once rendered, where its timing
//! strategy puts it. Built from the database alone (no audio is read, no
//! G2P runs): a take is current when the source key it recorded is the
//! line's source key now, and its placement follows from its length.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::cache::VoiceArtifactCache;
use crate::dub::assemble::programme_seconds;
use crate::dub::pipeline::{parse_strategy, resolve_voice, source_key, DEFAULT_VOICE};
use crate::dub::timing::{place, FitLimits, Slot};
use crate::error::Result;
use crate::store::Store;
use crate::voice::MatchedVoice;

/// Where a line stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FitView {
    pub start: f64,
    pub end: f64,
    pub rate: f64,
    pub trimmed: bool,
    pub overlap: Option<f64>,
}

/// One line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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
    pub strategy: Option<String>,
    pub locked: bool,
    pub state: SegmentState,
    pub error: Option<String>,
    pub fit: Option<FitView>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpeakerView {
    pub id: i64,
    pub name: String,
    pub voice: String,
    pub language_voices: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrackView {
    pub id: i64,
    pub language: String,
    pub segments: Vec<SegmentView>,
}

/// A whole project.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectView {
    pub id: i64,
    pub name: String,
    pub strategy: String,
    pub bed: Option<String>,
    /// Programme length in seconds: the latest slot end or placed line end.
    pub length: f64,
    pub speakers: Vec<SpeakerView>,
    pub tracks: Vec<TrackView>,
    pub can_undo: bool,
    pub can_redo: bool,
}

/// States a running job knows better than the database (queued,
/// rendering, failed with its error), by segment id.
pub type LiveStates = HashMap<i64, (SegmentState, Option<String>)>;

/// Builds the view of `project_id`, with `live` states over the stored ones.
pub async fn project_view(store: &Store, voices: &VoiceArtifactCache<MatchedVoice>, project_id: i64, live: &LiveStates) -> Result<ProjectView> {
    let project = store.project(project_id).await?;
    let default_strategy = parse_strategy(&project.timing_strategy)?;
    let speakers = store.speakers(project_id).await?;
    let limits = FitLimits::default();
    let mut tracks = Vec::new();
    let mut length: f64 = 0.0;
    for track in store.tracks(project_id).await? {
        let mut voice_of = HashMap::new();
        for s in &speakers {
            voice_of.insert(s.id, resolve_voice(store, voices, &s.voice_for(&track.language)).await?);
        }
        let takes = store.active_takes(track.id).await?;
        let lines = store.segments(track.id).await?;
        let mut segments = Vec::with_capacity(lines.len());
        for (i, segment) in lines.iter().enumerate() {
            let f = &segment.fields;
            let strategy = match &f.timing_strategy {
                Some(name) => parse_strategy(name)?,
                None => default_strategy,
            };
            let next_start = lines.get(i + 1).map(|n| n.fields.start_s);
            let voice = f.speaker_id.and_then(|id| voice_of.get(&id).cloned()).unwrap_or_else(|| DEFAULT_VOICE.to_string());
            let take = takes.get(&segment.id);
            let current = take.is_some_and(|(_, source, _)| source.as_deref() == Some(source_key(segment, &voice, strategy, next_start).as_str()));
            let fit = take.map(|(_, _, seconds)| {
                let placement = place(strategy, &Slot { start: f.start_s, end: f.end_s, next_start }, *seconds, &limits);
                FitView { start: placement.start, end: placement.start + placement.length, rate: placement.rate, trimmed: placement.trimmed_to.is_some(), overlap: placement.overlap }
            });
            let (state, error) = match live.get(&segment.id) {
                Some((state, error)) => (*state, error.clone()),
                None if current => (SegmentState::Ready, None),
                None => (SegmentState::Stale, None),
            };
            segments.push(SegmentView {
                id: segment.id,
                track_id: track.id,
                start: f.start_s,
                end: f.end_s,
                text: f.text.clone(),
                speaker_id: f.speaker_id,
                speed: f.speed,
                gain_db: f.gain_db,
                fade_in: f.fade_in_s,
                fade_out: f.fade_out_s,
                strategy: f.timing_strategy.clone(),
                locked: f.locked,
                state,
                error,
                fit,
            });
        }
        length = length.max(programme_seconds(segments.iter().map(|s| s.end), segments.iter().filter_map(|s| s.fit.as_ref().map(|f| f.end))));
        tracks.push(TrackView { id: track.id, language: track.language, segments });
    }
    let (can_undo, can_redo) = store.history_state(project_id).await?;
    Ok(ProjectView {
        id: project.id,
        name: project.name,
        strategy: project.timing_strategy,
        bed: project.bed_file,
        length,
        speakers: speakers.iter().map(|s| SpeakerView { id: s.id, name: s.name.clone(), voice: s.voice.clone(), language_voices: s.language_voices() }).collect(),
        tracks,
        can_undo,
        can_redo,
    })
}
