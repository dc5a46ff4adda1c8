//! The inspector's commands on a line's takes: list them, render another
//! with a fresh seed, audition one, and pick one. Picking is an undoable
//! edit of the line's seed; the take it names becomes the line's audio.

use revoice_engine::studio::takes::{line_takes, TakeView};
use revoice_engine::studio::view::ProjectView;
use tauri::State;

use crate::studio::{report, Answer, Studio};

/// The line's takes, oldest first.
#[tauri::command]
pub async fn segment_takes(studio: State<'_, Studio>, segment_id: i64) -> Answer<Vec<TakeView>> {
    let engine = studio.engine()?;
    line_takes(&engine, segment_id).await.map_err(report)
}

/// Renders another take of the line with a fresh seed (the earlier takes stay).
#[tauri::command]
pub async fn new_take(studio: State<'_, Studio>, segment_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().new_take_seed(segment_id).await.map_err(report)?;
    let project_id = session.engine().project_of_line(segment_id).await.map_err(report)?;
    session.render(project_id, Some(vec![segment_id])).map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Makes one of the line's takes its audio (undoable).
#[tauri::command]
pub async fn pick_take(studio: State<'_, Studio>, segment_id: i64, take_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().pick_take(segment_id, take_id).await.map_err(report)?;
    let project_id = session.engine().project_of_line(segment_id).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Plays one take as it was rendered.
/// A `previewFinished` event says when it is done.
#[tauri::command]
pub fn audition_take(studio: State<'_, Studio>, segment_id: i64, take_id: i64) -> Answer<()> {
    studio.session()?.audition_take(segment_id, take_id).map_err(report)
}
