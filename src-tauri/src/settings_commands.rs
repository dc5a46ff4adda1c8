//! The settings view's commands: what is set and saving changes into
//! `config.toml` (the engine checks every setting's limits when it writes
//! the file; saved changes apply from the next start).

use revoice_engine::config::SettingsEdit;
use revoice_engine::studio::settings::SettingsView;
use revoice_engine::EngineConfig;
use tauri::State;

use crate::studio::{blocking, text, Answer, Studio};

#[tauri::command]
pub async fn settings(studio: State<'_, Studio>) -> Answer<SettingsView> {
    let engine = studio.engine()?;
    let saved = EngineConfig::load_from(engine.data_dir().to_path_buf()).map_err(text)?;
    blocking(move || Ok(SettingsView::of(&saved, &engine.config().settings))).await
}

#[tauri::command]
pub async fn save_settings(studio: State<'_, Studio>, edit: SettingsEdit) -> Answer<SettingsView> {
    let engine = studio.engine()?;
    let mut saved = EngineConfig::load_from(engine.data_dir().to_path_buf()).map_err(text)?;
    saved.save_edit(&edit).map_err(|e| format!("The settings were not saved: {e}"))?;
    blocking(move || Ok(SettingsView::of(&saved, &engine.config().settings))).await
}
