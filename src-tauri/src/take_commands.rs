//! The inspector's commands on a line's takes: list them, render another
//! with a fresh seed, audition one, and pick one. Picking is an undoable
//! edit of the line's seed; the take it names becomes the line's audio.

use revoice_engine::studio::view::ProjectView;
use serde::Serialize;
use tauri::State;

use crate::studio::{text, Answer, Studio};

/// A take as the inspector lists it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TakeView {
    pub id: i64,
    pub seed: i64,
    pub seconds: f64,
    pub created_at: String,
    /// The line's audio now.
    pub active: bool,
    /// Rendered from the line as it is now (text, voice, speed, slot), so
    /// picking it needs no render; other takes are of an earlier version.
    pub current: bool,
}

/// The line's takes, oldest first.
#[tauri::command]
pub async fn segment_takes(studio: State<'_, Studio>, segment_id: i64) -> Answer<Vec<TakeView>> {
    let session = studio.session()?;
    let store = session.engine().store();
    let line = session.line_source(segment_id).await.map_err(text)?;
    // A take is current when the line as it is now, with the take's seed,
    // renders the same: picking it needs no render.
    let source_with_seed = |seed: i64| {
        let mut segment = line.segment.clone();
        segment.fields.seed = Some(seed);
        revoice_engine::dub::pipeline::source_key(&segment, &line.voice, line.strategy, line.next_start)
    };
    let segment = &line.segment;
    Ok(store
        .takes(segment_id)
        .await
        .map_err(text)?
        .into_iter()
        .map(|t| TakeView {
            active: segment.active_take_id == Some(t.id),
            current: t.source_key.as_deref() == Some(source_with_seed(t.seed).as_str()),
            id: t.id,
            seed: t.seed,
            seconds: t.duration_s,
            created_at: t.created_at,
        })
        .collect())
}

/// Renders another take of the line with a fresh seed (the earlier takes stay).
#[tauri::command]
pub async fn new_take(studio: State<'_, Studio>, segment_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    let segment = store.segment(segment_id).await.map_err(text)?;
    let taken: Vec<i64> = store.takes(segment_id).await.map_err(text)?.iter().map(|t| t.seed).collect();
    let seed = (0u32..)
        .map(|attempt| (revoice_engine::scheduler::fresh_seed(Some(segment.seed() as u64), attempt + taken.len() as u32) >> 1) as i64)
        .find(|s| !taken.contains(s) && *s != segment.seed())
        .expect("an unused seed");
    store.edit_segment(segment_id, "new take", |f| f.seed = Some(seed)).await.map_err(text)?;
    let track = store.track(segment.track_id).await.map_err(text)?;
    session.render(track.project_id, Some(vec![segment_id])).map_err(text)?;
    session.view(track.project_id).await.map_err(text)
}

/// Makes one of the line's takes its audio (undoable).
#[tauri::command]
pub async fn pick_take(studio: State<'_, Studio>, segment_id: i64, take_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    let segment = store.pick_take(segment_id, take_id).await.map_err(text)?;
    let _ = session.refresh_playback(vec![segment_id]);
    let track = store.track(segment.track_id).await.map_err(text)?;
    session.view(track.project_id).await.map_err(text)
}

/// Plays one take as it was rendered.
#[tauri::command]
pub fn audition_take(studio: State<'_, Studio>, segment_id: i64, take_id: i64) -> Answer<()> {
    studio.session()?.audition_take(segment_id, take_id).map_err(text)
}
