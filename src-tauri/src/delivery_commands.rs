//! The editor's commands for picture and delivery: attaching a project's
//! video, its timecode rate, and the picture the window plays (the video, or a proxy the
//! engine makes when the window cannot play its codec), the bed's stems
//! and how the original dialogue is heard, cast sheets (save a project's cast, list them, start a project
//! from one) and pronunciation dictionaries (list, set, remove, and hear an
//! entry before it is saved). Each is one engine operation.

use std::path::PathBuf;

use revoice_engine::dub::programme::OriginalMonitor;
use revoice_engine::store::CastSheet;
use revoice_engine::studio::view::ProjectView;
use revoice_engine::text::pronounce::{Pronunciation, Saying};
use revoice_engine::{AttachedVideo, PictureSource};
use tauri::State;

use crate::studio::{blocking, report, Answer, Studio};

/// Attaches a video as the project's picture (its audio the original
/// dialogue when there is none, the bed when `as_bed`).
#[tauri::command]
pub async fn attach_video(studio: State<'_, Studio>, project_id: i64, path: PathBuf, as_bed: Option<bool>) -> Answer<(AttachedVideo, ProjectView)> {
    let session = studio.session()?;
    let attached = session.engine().attach_video(project_id, &path, as_bed.unwrap_or(false), None).await.map_err(report)?;
    Ok((attached, session.view(project_id).await.map_err(report)?))
}

/// Sets the rate the project's timecode runs at (`"25"`, `"29.97df"`…), an
/// undoable edit; with a picture only drop-frame or not is left to choose.
#[tauri::command]
pub async fn set_frame_rate(studio: State<'_, Studio>, project_id: i64, rate: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().set_frame_rate(project_id, &rate).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Saves the project's speakers and voices on cast sheet `name`.
#[tauri::command]
pub async fn save_cast(studio: State<'_, Studio>, project_id: i64, name: String) -> Answer<CastSheet> {
    studio.engine()?.save_cast(project_id, &name).await.map_err(report)
}

/// Every cast sheet.
#[tauri::command]
pub async fn cast_sheets(studio: State<'_, Studio>) -> Answer<Vec<CastSheet>> {
    studio.engine()?.cast_sheets().await.map_err(report)
}

/// A new project whose speakers take their voices from cast sheet `cast`.
#[tauri::command]
pub async fn create_project_from_cast(studio: State<'_, Studio>, name: String, language: String, cast: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    let (project, _) = session.engine().create_project_from_cast(&name, &language, &cast).await.map_err(report)?;
    session.view(project.id).await.map_err(report)
}

/// The dictionary the project's lines render with (its own entries over the global ones).
#[tauri::command]
pub async fn pronunciations(studio: State<'_, Studio>, project_id: i64) -> Answer<Vec<Pronunciation>> {
    Ok(studio.engine()?.project_pronunciations(project_id).await.map_err(report)?.entries().to_vec())
}

/// Says `word` as `saying` in the project's dictionary (the global one when
/// `global`); the project as it now stands (lines using the word are stale).
#[tauri::command]
pub async fn set_pronunciation(studio: State<'_, Studio>, project_id: i64, word: String, saying: Saying, global: Option<bool>) -> Answer<ProjectView> {
    let session = studio.session()?;
    let dictionary = (!global.unwrap_or(false)).then_some(project_id);
    session.engine().set_pronunciation(dictionary, &word, saying).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Removes `word` from the project's dictionary (or the global one).
#[tauri::command]
pub async fn remove_pronunciation(studio: State<'_, Studio>, project_id: i64, word: String, global: Option<bool>) -> Answer<ProjectView> {
    let session = studio.session()?;
    let dictionary = (!global.unwrap_or(false)).then_some(project_id);
    session.engine().remove_pronunciation(dictionary, &word).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Speaks `sentence` in `voice` with the project's dictionary and the entry
/// `word` = `saying` over it (not saved); the phonemes it said.
#[tauri::command]
pub async fn preview_pronunciation(
    studio: State<'_, Studio>,
    project_id: i64,
    sentence: String,
    voice: String,
    word: Option<String>,
    saying: Option<Saying>,
) -> Answer<String> {
    let engine = studio.engine()?;
    let extra = match (word, saying) {
        (Some(word), Some(saying)) => Some(Pronunciation::new(&word, saying, false).map_err(report)?),
        _ => None,
    };
    let (request, dictionary) = engine.pronounced_request(Some(project_id), &sentence, &voice, extra).await.map_err(report)?;
    let device = engine.config().settings.audio.output_device.clone();
    blocking(move || {
        let (phonemes, samples) = engine.say_pronounced(&request, &dictionary)?;
        let mut live = revoice_engine::audio::live::LivePlayback::open(&device, engine.speech()?.sample_rate())?;
        live.push(&samples)?;
        live.finish()?;
        Ok(phonemes)
    })
    .await
}

/// The project's picture as the window plays it (its proxy when `proxy`
/// and one has been made), or `None` without a video.
#[tauri::command]
pub async fn picture_source(studio: State<'_, Studio>, project_id: i64, proxy: Option<bool>) -> Answer<Option<PictureSource>> {
    let engine = studio.engine()?;
    let found = blocking(move || {
        let Some((video, info)) = engine.project_video(project_id)? else { return Ok(None) };
        let played = if proxy.unwrap_or(false) { engine.picture_proxy(project_id)? } else { PathBuf::from(video) };
        Ok(Some((played, info)))
    })
    .await?;
    let Some((played, info)) = found else { return Ok(None) };
    let url = studio.picture_server().await?.url_for(&played);
    Ok(Some(PictureSource { url, info, proxy: proxy.unwrap_or(false) }))
}

/// Adds a bed stem (music, effects, ambience) at `gain_db`, ducking under
/// the voice or not; the project.
#[tauri::command]
pub async fn add_bed_stem(studio: State<'_, Studio>, project_id: i64, path: PathBuf, gain_db: Option<f64>, ducked: Option<bool>) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().add_bed_stem(project_id, &path, gain_db.unwrap_or(0.0), ducked.unwrap_or(true)).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Changes a bed stem's level and ducking; the project.
#[tauri::command]
pub async fn edit_bed_stem(studio: State<'_, Studio>, project_id: i64, stem_id: i64, gain_db: f64, ducked: bool) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().store().edit_bed_stem(project_id, stem_id, gain_db, ducked).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Removes a bed stem; the project.
#[tauri::command]
pub async fn remove_bed_stem(studio: State<'_, Studio>, project_id: i64, stem_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().store().remove_bed_stem(project_id, stem_id).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// How the original dialogue is heard while the dub plays: off, under it at a level, or alone.
#[tauri::command]
pub fn set_original_monitor(studio: State<'_, Studio>, monitor: OriginalMonitor) -> Answer<()> {
    studio.session()?.set_original_monitor(monitor).map_err(report)
}
