//! The editor's commands on dub projects: list, create, import a script,
//! open, rename, delete; edit lines and voices; render, preview, play;
//! undo and redo; export. Each hands the work to the engine's studio
//! session and answers with the project as the timeline shows it, or an
//! error message a person can act on. Progress and line states arrive as
//! `studio://event` events.

use std::path::PathBuf;

use revoice_engine::dub::export::{export_project as export_all, ExportFormat, ExportSelection};
use revoice_engine::dub::mix::MixSettings;
use revoice_engine::dub::stack::open_segments;
use revoice_engine::studio::session::PlaybackView;
use revoice_engine::studio::view::ProjectView;
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::studio::{text, Answer, Studio};

/// A project in the recent list.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSummary {
    pub id: i64,
    pub name: String,
    pub updated_at: String,
}

/// Projects, most recently edited first.
#[tauri::command]
pub async fn list_projects(studio: State<'_, Studio>) -> Answer<Vec<ProjectSummary>> {
    let engine = studio.engine()?;
    let mut projects = engine.store().projects().await.map_err(text)?;
    projects.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    Ok(projects.into_iter().map(|p| ProjectSummary { id: p.id, name: p.name, updated_at: p.updated_at }).collect())
}

/// A new, empty project with one track in `language`.
#[tauri::command]
pub async fn create_project(studio: State<'_, Studio>, name: String, language: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    let (project, _) = session.engine().store().create_project(&name, &language).await.map_err(text)?;
    session.view(project.id).await.map_err(text)
}

/// Adds a script's lines (SRT, WebVTT or plain text) to the project's track
/// in `language` (added if new; the first track when `None`).
#[tauri::command]
pub async fn import_script(studio: State<'_, Studio>, project_id: i64, path: PathBuf, language: Option<String>) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    let cues = revoice_engine::dub::subtitles::read_script(&path).map_err(text)?;
    let track = match language {
        Some(language) => store.track_for_language(project_id, &language).await.map_err(text)?,
        None => store.tracks(project_id).await.map_err(text)?.into_iter().next().ok_or_else(|| format!("Project {project_id} has no track."))?,
    };
    store.import_cues(&track, &cues).await.map_err(text)?;
    session.view(project_id).await.map_err(text)
}

/// The project as the timeline shows it.
#[tauri::command]
pub async fn open_project(studio: State<'_, Studio>, project_id: i64) -> Answer<ProjectView> {
    studio.session()?.view(project_id).await.map_err(text)
}

#[tauri::command]
pub async fn rename_project(studio: State<'_, Studio>, project_id: i64, name: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().store().rename_project(project_id, &name).await.map_err(text)?;
    session.view(project_id).await.map_err(text)
}

/// Deletes a project (the window asks the user first).
#[tauri::command]
pub async fn delete_project(studio: State<'_, Studio>, project_id: i64) -> Answer<()> {
    let session = studio.session()?;
    if session.rendering() == Some(project_id) {
        return Err("This project is rendering: cancel the render first.".into());
    }
    session.engine().store().delete_project(project_id).await.map_err(text)
}

/// What the inspector changes on a line; absent fields stay as they are.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SegmentEdit {
    pub text: Option<String>,
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub speaker_id: Option<i64>,
    pub speed: Option<f64>,
    pub gain_db: Option<f64>,
    /// `""` clears the override.
    pub strategy: Option<String>,
}

/// Edits one line in one undoable step.
#[tauri::command]
pub async fn edit_segment(studio: State<'_, Studio>, segment_id: i64, edit: SegmentEdit) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    if let Some(strategy) = edit.strategy.as_deref().filter(|s| !s.is_empty()) {
        revoice_engine::dub::pipeline::parse_strategy(strategy).map_err(text)?;
    }
    let described = describe(&edit);
    let segment = store
        .edit_segment(segment_id, &described, |f| {
            if let Some(t) = edit.text {
                f.text = t;
            }
            if let Some(s) = edit.start {
                f.start_s = s;
            }
            if let Some(e) = edit.end {
                f.end_s = e;
            }
            if edit.speaker_id.is_some() {
                f.speaker_id = edit.speaker_id;
            }
            if let Some(s) = edit.speed {
                f.speed = s;
            }
            if let Some(g) = edit.gain_db {
                f.gain_db = g;
            }
            if let Some(s) = edit.strategy {
                f.timing_strategy = (!s.is_empty()).then_some(s);
            }
        })
        .await
        .map_err(text)?;
    let _ = session.refresh_playback(vec![segment.id]);
    let track = store.track(segment.track_id).await.map_err(text)?;
    session.view(track.project_id).await.map_err(text)
}

fn describe(edit: &SegmentEdit) -> String {
    let mut what = Vec::new();
    if edit.text.is_some() {
        what.push("text");
    }
    if edit.start.is_some() || edit.end.is_some() {
        what.push("timing");
    }
    if edit.speaker_id.is_some() {
        what.push("speaker");
    }
    if edit.speed.is_some() {
        what.push("speed");
    }
    if edit.gain_db.is_some() {
        what.push("gain");
    }
    if edit.strategy.is_some() {
        what.push("strategy");
    }
    format!("edit line ({})", what.join(", "))
}

/// Gives a speaker a voice, for all languages or (with `language`) one.
#[tauri::command]
pub async fn set_speaker_voice(studio: State<'_, Studio>, project_id: i64, speaker_id: i64, voice: String, language: Option<String>) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    let known = revoice_engine::model::kokoro::release::stock_voices();
    let registered = store.voice(&voice).await.map_err(text)?.is_some();
    let stock = voice.split(',').all(|part| known.iter().any(|v| v.name == part.split(':').next().unwrap_or("").trim()));
    if !registered && !stock {
        return Err(format!("{voice} is neither a stock voice nor one in your library."));
    }
    match language {
        Some(language) => store.set_speaker_language_voice(speaker_id, &language, Some(&voice)).await.map_err(text)?,
        None => store.set_speaker_voice(speaker_id, &voice).await.map_err(text)?,
    };
    session.view(project_id).await.map_err(text)
}

/// A voice for the voice pickers.
#[derive(Serialize)]
pub struct VoiceChoice {
    pub name: String,
    pub language: String,
    pub gender: String,
}

/// Kokoro's stock voices, by name with language and gender.
pub fn stock_choices() -> Vec<VoiceChoice> {
    revoice_engine::model::kokoro::release::stock_voices()
        .into_iter()
        .map(|v| VoiceChoice { name: v.name, language: v.language.to_string(), gender: v.gender.to_string() })
        .collect()
}

/// The stock voices, and the registered ones (language "library").
#[tauri::command]
pub async fn stock_voices(studio: State<'_, Studio>) -> Answer<Vec<VoiceChoice>> {
    let engine = studio.engine()?;
    let mut voices = stock_choices();
    for v in engine.store().voices().await.map_err(text)? {
        voices.push(VoiceChoice { name: v.voice.name, language: "library".into(), gender: String::new() });
    }
    Ok(voices)
}

/// Sets the project's timing strategy (lines with an override keep theirs).
/// Only placement changes: nothing is synthesised again, except lines
/// whose strategy asks the model for a length (fit by re-synthesis).
#[tauri::command]
pub async fn set_project_strategy(studio: State<'_, Studio>, project_id: i64, strategy: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    revoice_engine::dub::pipeline::parse_strategy(&strategy).map_err(text)?;
    session.engine().store().set_timing_strategy(project_id, &strategy).await.map_err(text)?;
    let lines: Vec<i64> = session.view(project_id).await.map_err(text)?.tracks.iter().flat_map(|t| t.segments.iter().map(|s| s.id)).collect();
    let _ = session.refresh_playback(lines);
    session.view(project_id).await.map_err(text)
}

/// Renders what is stale (only `segment_ids` when given) in the background.
#[tauri::command]
pub fn render_project(studio: State<'_, Studio>, project_id: i64, segment_ids: Option<Vec<i64>>) -> Answer<()> {
    studio.session()?.render(project_id, segment_ids).map_err(text)
}

#[tauri::command]
pub fn cancel_render(studio: State<'_, Studio>) -> Answer<bool> {
    Ok(studio.session()?.cancel_render())
}

/// Plays one line alone, streamed as it renders.
#[tauri::command]
pub fn preview_segment(studio: State<'_, Studio>, segment_id: i64) -> Answer<()> {
    studio.session()?.preview(segment_id).map_err(text)
}

#[tauri::command]
pub async fn play(studio: State<'_, Studio>, project_id: i64, track_id: i64, from: f64, loop_from: Option<f64>, loop_to: Option<f64>) -> Answer<PlaybackView> {
    let session = studio.session()?;
    let looping = loop_from.zip(loop_to);
    let s = session.clone();
    tauri::async_runtime::spawn_blocking(move || s.play(project_id, track_id, from, looping)).await.map_err(|e| e.to_string())?.map_err(text)?;
    Ok(session.playback())
}

#[tauri::command]
pub fn pause(studio: State<'_, Studio>) -> Answer<()> {
    studio.session()?.pause().map_err(text)
}

#[tauri::command]
pub fn resume(studio: State<'_, Studio>) -> Answer<()> {
    studio.session()?.resume().map_err(text)
}

#[tauri::command]
pub fn seek(studio: State<'_, Studio>, seconds: f64) -> Answer<()> {
    studio.session()?.seek(seconds).map_err(text)
}

#[tauri::command]
pub fn stop(studio: State<'_, Studio>) -> Answer<()> {
    studio.session()?.stop().map_err(text)
}

#[tauri::command]
pub fn playback_state(studio: State<'_, Studio>) -> Answer<PlaybackView> {
    Ok(studio.session()?.playback())
}

/// Undoes the last edit; the answer says what was undone.
#[tauri::command]
pub async fn undo(studio: State<'_, Studio>, project_id: i64) -> Answer<(Option<String>, ProjectView)> {
    let session = studio.session()?;
    let what = session.engine().store().undo(project_id).await.map_err(text)?;
    Ok((what, session.view(project_id).await.map_err(text)?))
}

#[tauri::command]
pub async fn redo(studio: State<'_, Studio>, project_id: i64) -> Answer<(Option<String>, ProjectView)> {
    let session = studio.session()?;
    let what = session.engine().store().redo(project_id).await.map_err(text)?;
    Ok((what, session.view(project_id).await.map_err(text)?))
}

/// A written file, for the export dialog.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedFile {
    pub path: String,
    pub seconds: Option<f64>,
}

/// Exports the chosen tracks' mixes (every track when `languages` is
/// `None`), with stems and subtitles unless turned off, into `folder`.
#[tauri::command]
pub async fn export_project(
    studio: State<'_, Studio>,
    project_id: i64,
    folder: PathBuf,
    format: String,
    loudness: f64,
    languages: Option<Vec<String>>,
    stems: Option<bool>,
    subtitles: Option<bool>,
) -> Answer<Vec<ExportedFile>> {
    let session = studio.session()?;
    let format = match format.as_str() {
        "wav" => ExportFormat::Wav,
        "flac" => ExportFormat::Flac,
        "mp3" => ExportFormat::Mp3,
        other => return Err(format!("{other} is not an export format: choose wav, flac or mp3.")),
    };
    let engine = session.engine().clone();
    let runtime = tauri::async_runtime::handle().inner().clone();
    tauri::async_runtime::spawn_blocking(move || {
        let segments = open_segments(engine.data_dir(), &engine.config().settings)?;
        let settings = MixSettings { loudness_target_lufs: loudness, ..MixSettings::default() };
        std::fs::create_dir_all(&folder).map_err(|e| revoice_engine::Error::io("create", &folder, e))?;
        let selection = ExportSelection { languages, stems: stems.unwrap_or(true), subtitles: subtitles.unwrap_or(true) };
        export_all(&runtime, engine.store(), &segments, project_id, &folder, format, &settings, &selection, &mut |_| {})
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(text)
    .map(|tracks| tracks.into_iter().flat_map(|t| t.report.files).map(|f| ExportedFile { path: f.path.display().to_string(), seconds: f.duration_s }).collect())
}

/// Splits a line at `at` seconds into two (the text divides at the nearest word).
#[tauri::command]
pub async fn split_segment(studio: State<'_, Studio>, segment_id: i64, at: f64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    let parts = store.split_segment(segment_id, at).await.map_err(text)?;
    let _ = session.refresh_playback(parts.iter().map(|s| s.id).collect());
    view_of_track(&session, parts[0].track_id).await
}

/// Joins two lines of one track into the first.
#[tauri::command]
pub async fn merge_segments(studio: State<'_, Studio>, first: i64, second: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let merged = session.engine().store().merge_segments(first, second).await.map_err(text)?;
    view_of_track(&session, merged.track_id).await
}

/// Adds a line at `at` seconds: two seconds long, or up to the next line.
#[tauri::command]
pub async fn insert_segment(studio: State<'_, Studio>, track_id: i64, at: f64, speaker_id: Option<i64>) -> Answer<(i64, ProjectView)> {
    let session = studio.session()?;
    let store = session.engine().store();
    let next = store.segments(track_id).await.map_err(text)?.into_iter().map(|s| s.fields.start_s).filter(|&s| s > at + 0.5).fold(f64::INFINITY, f64::min);
    let fields = revoice_engine::store::SegmentFields::new_line(at.max(0.0), at.max(0.0) + 2.0f64.min(next - at), "New line".into(), speaker_id);
    let added = store.insert_segment(track_id, &fields).await.map_err(text)?;
    Ok((added.id, view_of_track(&session, track_id).await?))
}

/// Deletes a line (undo brings it back with its takes).
#[tauri::command]
pub async fn delete_segment(studio: State<'_, Studio>, segment_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let store = session.engine().store();
    let segment = store.segment(segment_id).await.map_err(text)?;
    store.delete_segment(segment_id).await.map_err(text)?;
    view_of_track(&session, segment.track_id).await
}

async fn view_of_track(session: &revoice_engine::studio::session::StudioSession, track_id: i64) -> Answer<ProjectView> {
    let track = session.engine().store().track(track_id).await.map_err(text)?;
    session.view(track.project_id).await.map_err(text)
}

/// A rendered line's waveform as placed on the timeline (`None`: not rendered).
#[tauri::command]
pub async fn segment_peaks(studio: State<'_, Studio>, segment_id: i64) -> Answer<Option<revoice_engine::audio::peaks::Peaks>> {
    let session = studio.session()?;
    tauri::async_runtime::spawn_blocking(move || session.segment_peaks(segment_id)).await.map_err(|e| e.to_string())?.map_err(text)
}

/// The bed's waveform (`None`: no bed).
#[tauri::command]
pub async fn bed_peaks(studio: State<'_, Studio>, project_id: i64) -> Answer<Option<revoice_engine::audio::peaks::Peaks>> {
    let session = studio.session()?;
    tauri::async_runtime::spawn_blocking(move || session.bed_peaks(project_id)).await.map_err(|e| e.to_string())?.map_err(text)
}
