//! Translating a track from the window: the translation engines kept in
//! `config.toml` (listed with where their lines go, added, removed and
//! checked), and a track translated in the background with progress
//! (`translating` events) and a cancel that keeps what was written.

use revoice_engine::config::EngineConfig;
use revoice_engine::studio::view::ProjectView;
use revoice_engine::translating::{TranslateReport, TranslateRequest, TranslatorCheck, TranslatorView};
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
