//! Translating a track from the window: the translation engines kept in
//! `config.toml` (listed with where their lines go, added, removed and
//! checked), a track translated in the background with progress
//! (`translating` events) and a cancel that keeps what was written, a
//! translated track's links to its source lines, and the project's glossary.

use revoice_engine::config::EngineConfig;
use revoice_engine::store::GlossaryEntry;
use revoice_engine::studio::view::ProjectView;
use revoice_engine::translating::{TranslateReport, TranslateRequest, TranslatorCheck, TranslatorView};
use revoice_engine::translation_view::TrackTranslations;
use revoice_engine::translators::TranslatorSettings;
use tauri::State;

use crate::studio::{blocking, report, Answer, Studio};

/// The translators in `config.toml`, each with where its lines go.
#[tauri::command]
pub async fn translators(studio: State<'_, Studio>) -> Answer<Vec<TranslatorView>> {
    let engine = studio.engine()?;
    blocking(move || Ok(engine.translators()?.iter().map(TranslatorView::of).collect())).await
}

/// Adds a translator (or replaces the one of its name); the translators.
#[tauri::command]
pub async fn save_translator(studio: State<'_, Studio>, translator: TranslatorSettings) -> Answer<Vec<TranslatorView>> {
    let engine = studio.engine()?;
    blocking(move || {
        let mut saved = EngineConfig::load_from(engine.data_dir().to_path_buf())?;
        saved.save_translator(&translator).map_err(|e| e.context("The translator was not saved"))?;
        Ok(saved.settings.translators.iter().map(TranslatorView::of).collect())
    })
    .await
}

/// Removes a translator; the translators left.
#[tauri::command]
pub async fn remove_translator(studio: State<'_, Studio>, name: String) -> Answer<Vec<TranslatorView>> {
    let engine = studio.engine()?;
    blocking(move || {
        let mut saved = EngineConfig::load_from(engine.data_dir().to_path_buf())?;
        saved.remove_translator(&name)?;
        Ok(saved.settings.translators.iter().map(TranslatorView::of).collect())
    })
    .await
}

/// Asks a translator for its models and to translate "Good morning." into Spanish.
#[tauri::command]
pub async fn check_translator(studio: State<'_, Studio>, name: String) -> Answer<TranslatorCheck> {
    let engine = studio.engine()?;
    blocking(move || engine.check_translator(&name)).await
}

/// Translates a track into another language through a translator (its
/// track made when missing), with `translating` events as lines are
/// written; what it did, and the project.
#[tauri::command]
pub async fn translate_track(studio: State<'_, Studio>, request: TranslateRequest) -> Answer<(TranslateReport, ProjectView)> {
    studio.session()?.translate(request).await.map_err(report)
}

/// Stops the running translation after its batch (what was written stays); whether one was running.
#[tauri::command]
pub fn cancel_translation(studio: State<'_, Studio>) -> Answer<bool> {
    Ok(studio.session()?.cancel_translation())
}

/// A track's translated lines beside their source lines: what changed
/// since, what was edited by hand, who translated each, and the glossary
/// terms each leaves out.
#[tauri::command]
pub async fn track_translations(studio: State<'_, Studio>, track_id: i64) -> Answer<TrackTranslations> {
    studio.engine()?.track_translations(track_id).await.map_err(report)
}

/// A project's glossary; for a language, the entries that apply to lines
/// translated into it (its own and its primary language's).
#[tauri::command]
pub async fn glossary(studio: State<'_, Studio>, project_id: i64, language: Option<String>) -> Answer<Vec<GlossaryEntry>> {
    studio.engine()?.glossary(project_id, language.as_deref()).await.map_err(report)
}

/// Says a term is translated into a language one way in a project
/// (replacing that term's entry); the entry.
#[tauri::command]
pub async fn set_glossary_term(studio: State<'_, Studio>, project_id: i64, language: String, term: String, translation: String) -> Answer<GlossaryEntry> {
    studio.engine()?.set_glossary_term(project_id, &language, &term, &translation).await.map_err(report)
}

/// Removes an entry of a project's glossary.
#[tauri::command]
pub async fn remove_glossary_term(studio: State<'_, Studio>, project_id: i64, id: i64) -> Answer<()> {
    studio.engine()?.remove_glossary_term(project_id, id).await.map_err(report)
}
