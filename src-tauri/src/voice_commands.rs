//! The voice library's commands: the stock voices, the voices registered
//! from reference recordings (with their quality report and the stock
//! voices they match), adding one from a file, renaming, deleting, a
//! spoken preview of any voice or blend, a recording played beside it, and
//! a project's speakers voiced from one clip each.

use std::path::PathBuf;

use revoice_engine::studio::view::ProjectView;
use revoice_engine::studio::voices::{stock_choices, FitInProgress, LibraryVoiceView, VoiceLibraryView};
use revoice_engine::voice::library::VoiceDetails;
use revoice_engine::{NewLibraryVoice, SpeakerClip, SpeakerVoiced};
use tauri::State;

use crate::studio::{blocking, report, Answer, Studio};

/// The voice library: every voice with its kind, figures and recording, and the fits running.
#[tauri::command]
pub async fn voice_library(studio: State<'_, Studio>) -> Answer<VoiceLibraryView> {
    let engine = studio.engine()?;
    let mut library = Vec::new();
    for record in engine.store().voices().await.map_err(report)? {
        let fitting = engine.library_voice_fitting(&record.voice.name);
        let mut view = LibraryVoiceView::of(record);
        view.fitting = fitting.iter().map(|(language, p)| FitInProgress::of(language, p.as_ref())).collect();
        library.push(view);
    }
    Ok(VoiceLibraryView { stock: stock_choices(), library })
}

/// Matches a recording against the stock voices and registers it (a name
/// already in the library is overwritten).
#[tauri::command]
pub async fn add_library_voice(
    studio: State<'_, Studio>,
    name: String,
    path: PathBuf,
    consent: String,
    description: String,
    reference_text: String,
) -> Answer<LibraryVoiceView> {
    let engine = studio.engine()?;
    let details = VoiceDetails { name: name.trim().to_string(), description, reference_text, consent };
    let (record, _, _) = engine
        .add_library_voice(NewLibraryVoice {
            details,
            recording: &path,
            max_voices: None,
            fitted: None,
            language: None,
            recording_language: None,
            hear_text_later: false,
        })
        .await
        .map_err(report)?;
    Ok(LibraryVoiceView::of(record))
}

/// Renames a library voice; the speakers that use it follow.
#[tauri::command]
pub async fn rename_library_voice(studio: State<'_, Studio>, name: String, new_name: String) -> Answer<LibraryVoiceView> {
    let engine = studio.engine()?;
    engine.rename_library_voice(&name, &new_name).await.map(LibraryVoiceView::of).map_err(report)
}

/// Deletes a library voice, its recording when no other voice uses it, and its fitted voice.
#[tauri::command]
pub async fn delete_library_voice(studio: State<'_, Studio>, name: String) -> Answer<()> {
    studio.engine()?.delete_library_voice(&name).await.map(|_| ()).map_err(report)
}

/// Speaks a sample sentence in `voice` (stock, blend or library voice).
/// A `voicePreviewFinished` event says when it is done.
#[tauri::command]
pub fn preview_voice(studio: State<'_, Studio>, voice: String) -> Answer<()> {
    // A voice on a remote engine speaks without the local model.
    if !revoice_engine::voice::VoiceSpec::parse(&voice, |_| false).is_ok_and(|v| v.remote().is_some()) {
        studio.ready_to_speak()?;
    }
    studio.session()?.preview_voice(voice).map_err(report)
}

/// Plays a library voice's own recording (its first seconds), to compare
/// with the voice that speaks for it.
#[tauri::command]
pub fn play_voice_recording(studio: State<'_, Studio>, name: String) -> Answer<()> {
    studio.session()?.play_voice_recording(name).map_err(report)
}

/// Voice every speaker: each clip's speaker gets a library voice made from
/// it on the track in `language`, with a fit queued (fits run one after
/// another); what became of each speaker, and the project.
#[tauri::command]
pub async fn voice_speakers(
    studio: State<'_, Studio>,
    project_id: i64,
    language: Option<String>,
    clips: Vec<SpeakerClip>,
    consent: String,
) -> Answer<(Vec<SpeakerVoiced>, ProjectView)> {
    let session = studio.session()?;
    let voiced = studio.engine()?.voice_speakers(project_id, language.as_deref(), &clips, &consent).await.map_err(report)?;
    Ok((voiced, session.view(project_id).await.map_err(report)?))
}

/// Each speaker's own lines cut from the project's original dialogue into
/// one recording each, with what they say: the clips for `voice_speakers`.
#[tauri::command]
pub async fn original_speaker_clips(studio: State<'_, Studio>, project_id: i64) -> Answer<Vec<SpeakerClip>> {
    let engine = studio.engine()?;
    blocking(move || engine.original_speaker_clips(project_id)).await
}

/// Starts fitting a library voice to its recording in the background, to
/// speak `language` (its own when `null`): a search for a fitted voice, not
/// a clone. The library view shows its progress, and the voice speaks that
/// language as the fitted voice once it is done (the settings' budget).
#[tauri::command]
pub async fn fit_library_voice(studio: State<'_, Studio>, name: String, language: Option<String>) -> Answer<()> {
    let engine = studio.engine()?;
    engine.fit_library_voice_in_background(&name, engine.background_fit_settings(), language.as_deref()).await.map(|_| ()).map_err(report)
}

/// Stops a library voice's fits after their generation (fitting again resumes).
#[tauri::command]
pub async fn cancel_library_voice_fit(studio: State<'_, Studio>, name: String) -> Answer<bool> {
    Ok(studio.engine()?.cancel_library_voice_fit(&name))
}
