//! The editor's commands on the timeline as a whole: a lane's mix (mute,
//! solo, level), markers (add, rename, move, remove) and find and replace
//! in a track's lines. Each is one undoable engine operation answered with
//! the project as the timeline shows it; what playback must hear (a lane's
//! mix, replaced lines) is handed to the playing programme at once.

use revoice_engine::studio::session::StudioSession;
use revoice_engine::studio::view::ProjectView;
use revoice_engine::{LaneMixEdit, ReplaceOptions};
use tauri::State;

use crate::studio::{report, Answer, Studio};

/// Mutes, solos or levels a speaker's lane (`speaker_id` `None`: the lane
/// of lines without a speaker); heard at once by playback that is running.
#[tauri::command]
pub async fn set_lane_mix(studio: State<'_, Studio>, project_id: i64, speaker_id: Option<i64>, mix: LaneMixEdit) -> Answer<ProjectView> {
    let session = studio.session()?;
    lane_mix(&session, project_id, speaker_id, mix).await
}

/// [`set_lane_mix`] without Tauri's state (the shell's tests call it).
pub async fn lane_mix(session: &StudioSession, project_id: i64, speaker_id: Option<i64>, mix: LaneMixEdit) -> Answer<ProjectView> {
    session.engine().set_lane_mix(project_id, speaker_id, mix).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Adds a marker at `at` seconds.
#[tauri::command]
pub async fn add_marker(studio: State<'_, Studio>, project_id: i64, at: f64, name: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().add_marker(project_id, at, &name).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Renames a marker (one undoable step); the project as it is now.
#[tauri::command]
pub async fn rename_marker(studio: State<'_, Studio>, marker_id: i64, name: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    let marker = session.engine().rename_marker(marker_id, &name).await.map_err(report)?;
    session.view(marker.project_id).await.map_err(report)
}

/// Moves a marker to `at` seconds.
#[tauri::command]
pub async fn move_marker(studio: State<'_, Studio>, marker_id: i64, at: f64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let marker = session.engine().move_marker(marker_id, at).await.map_err(report)?;
    session.view(marker.project_id).await.map_err(report)
}

/// Removes a marker (one undoable step); the project as it is now.
#[tauri::command]
pub async fn remove_marker(studio: State<'_, Studio>, marker_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let project_id = session.engine().remove_marker(marker_id).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Replaces `find` with `replace` in a track's lines as one undoable
/// step; how many lines changed, and the project.
#[tauri::command]
pub async fn replace_text(studio: State<'_, Studio>, track_id: i64, find: String, replace: String, options: ReplaceOptions) -> Answer<(usize, ProjectView)> {
    let session = studio.session()?;
    let (count, _) = session.engine().replace_text(track_id, &find, &replace, &options).await.map_err(report)?;
    let project_id = session.engine().project_of_track(track_id).await.map_err(report)?;
    Ok((count, session.view(project_id).await.map_err(report)?))
}

#[cfg(test)]
mod tests {
    use revoice_engine::LaneMixEdit;

    use super::lane_mix;
    use crate::studio::test_scene::{harbour, Harbour};

    #[test]
    fn the_app_mutes_a_lane_refuses_a_level_out_of_range_by_name_and_undo_brings_it_back() {
        use tauri::async_runtime::block_on;
        let Harbour { session, project, ana, _dir } = harbour();
        let engine = session.engine().clone();

        let view = block_on(lane_mix(&session, project, Some(ana), LaneMixEdit { muted: Some(true), ..Default::default() })).unwrap();
        assert!(view.speakers[0].muted && !view.speakers[0].audible);
        let refused = block_on(lane_mix(&session, project, Some(ana), LaneMixEdit { level_db: Some(40.0), ..Default::default() })).unwrap_err();
        assert!(refused.message.contains("levelDb") && refused.message.contains("-60"), "{refused}");
        assert_eq!(refused.kind, revoice_engine::ErrorKind::InvalidInput);
        let view = block_on(lane_mix(&session, project, None, LaneMixEdit { solo: Some(true), ..Default::default() })).unwrap();
        assert!(view.no_speaker_lane.solo && !view.speakers[0].audible);
        assert_eq!(block_on(engine.undo(project)).unwrap().as_deref(), Some("solo lane No speaker"));
        assert_eq!(block_on(engine.undo(project)).unwrap().as_deref(), Some("mute lane Ana"));
        assert!(!block_on(session.view(project)).unwrap().speakers[0].muted);
    }
}
