//! The voice library's commands: the stock voices, the voices registered
//! from reference recordings (with their quality report and the stock
//! voices they match), adding one from a file, renaming, deleting, and a
//! spoken preview of any voice or blend.

use std::path::PathBuf;

use revoice_engine::voice::library::{self, VoiceDetails};
use revoice_engine::voice::quality::QualityReport;
use revoice_engine::voice::reference::VoiceMatcher;
use revoice_engine::voice::MatchedVoice;
use serde::Serialize;
use tauri::State;

use crate::dub_commands::{stock_choices, VoiceChoice};
use crate::studio::{text, Answer, Studio};

/// A close stock voice.
#[derive(Serialize)]
pub struct MatchView {
    pub voice: String,
    pub similarity: f32,
}

/// A voice registered from a recording.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryVoiceView {
    pub name: String,
    pub description: String,
    pub reference_text: String,
    pub consent: String,
    pub file_size: i64,
    pub mime_type: String,
    pub created_at: String,
    pub version: i64,
    /// `None` when the stored artifact cannot be read.
    pub quality: Option<QualityReport>,
    /// The closest stock voices, most similar first.
    pub matches: Vec<MatchView>,
    /// What the voice speaks with: a blend of the closest stock voices.
    pub blend: String,
}

/// Everything the voice library view shows.
#[derive(Serialize)]
pub struct VoiceLibraryView {
    pub stock: Vec<VoiceChoice>,
    pub library: Vec<LibraryVoiceView>,
}

fn library_view(record: revoice_engine::store::VoiceRecord) -> LibraryVoiceView {
    let matched: Option<MatchedVoice> = serde_json::from_str(&record.voice.artifact_json).ok();
    LibraryVoiceView {
        quality: matched.as_ref().map(|m| m.quality.clone()),
        matches: matched.as_ref().map(|m| m.matches.iter().take(3).map(|v| MatchView { voice: v.voice.clone(), similarity: v.similarity }).collect()).unwrap_or_default(),
        blend: matched.as_ref().map(MatchedVoice::blend_spec).unwrap_or_default(),
        name: record.voice.name,
        description: record.voice.description,
        reference_text: record.voice.reference_text,
        consent: record.voice.consent,
        file_size: record.voice.file_size,
        mime_type: record.voice.mime_type,
        created_at: record.created_at,
        version: record.version,
    }
}

#[tauri::command]
pub async fn voice_library(studio: State<'_, Studio>) -> Answer<VoiceLibraryView> {
    let engine = studio.engine()?;
    let stock = stock_choices();
    let library = engine.store().voices().await.map_err(text)?.into_iter().map(library_view).collect();
    Ok(VoiceLibraryView { stock, library })
}

/// Matches a recording against the stock voices and registers it (a name
/// already in the library is overwritten).
#[tauri::command]
pub async fn add_library_voice(studio: State<'_, Studio>, name: String, path: PathBuf, consent: String, description: String, reference_text: String) -> Answer<LibraryVoiceView> {
    let session = studio.session()?;
    let details = VoiceDetails { name: name.trim().to_string(), description, reference_text, consent };
    details.check().map_err(text)?;
    let (data_dir, file) = (session.data_dir(), path.clone());
    let matched = tauri::async_runtime::spawn_blocking(move || VoiceMatcher::open(&data_dir, &|_, _, _| {})?.match_file(&file))
        .await
        .map_err(|e| e.to_string())?
        .map_err(text)?;
    let record = library::register(session.engine().store(), &session.data_dir(), session.voice_artifacts(), &path, &details, &matched).await.map_err(text)?;
    Ok(library_view(record))
}

#[tauri::command]
pub async fn rename_library_voice(studio: State<'_, Studio>, name: String, new_name: String) -> Answer<LibraryVoiceView> {
    let session = studio.session()?;
    let record = session.engine().store().rename_voice(&name, new_name.trim()).await.map_err(text)?;
    session.voice_artifacts().voice_deleted(&name);
    Ok(library_view(record))
}

#[tauri::command]
pub async fn delete_library_voice(studio: State<'_, Studio>, name: String) -> Answer<()> {
    let session = studio.session()?;
    match library::delete(session.engine().store(), &session.data_dir(), session.voice_artifacts(), &name).await.map_err(text)? {
        Some(_) => Ok(()),
        None => Err(format!("{name} is not in the voice library.")),
    }
}

/// Speaks a sample sentence in `voice` (stock, blend or library voice).
#[tauri::command]
pub fn preview_voice(studio: State<'_, Studio>, voice: String) -> Answer<()> {
    studio.session()?.preview_voice(voice).map_err(text)
}
