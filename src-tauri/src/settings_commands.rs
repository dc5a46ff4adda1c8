//! The settings view's commands: what is set and saving changes into
//! `config.toml` (the engine checks every setting's limits when it writes
//! the file; saved changes apply from the next start), and the remote
//! engines kept there: listed, added, removed and checked.

use revoice_engine::config::{RemoteEngineSettings, SettingsEdit};
use revoice_engine::engines::EngineReport;
use revoice_engine::error::ErrorReport;
use revoice_engine::studio::settings::SettingsView;
use revoice_engine::{EngineConfig, ErrorKind};
use tauri::State;

use crate::studio::{blocking, Answer, Studio};

/// The settings a person can change, with their limits.
#[tauri::command]
pub async fn settings(studio: State<'_, Studio>) -> Answer<SettingsView> {
    let engine = studio.engine()?;
    blocking(move || Ok(SettingsView::of(&EngineConfig::load_from(engine.data_dir().to_path_buf())?, &engine.config().settings))).await
}

/// Saves the changed settings to `config.toml` (out-of-limit values refused naming the setting); the settings as saved.
#[tauri::command]
pub async fn save_settings(studio: State<'_, Studio>, edit: SettingsEdit) -> Answer<SettingsView> {
    let engine = studio.engine()?;
    blocking(move || {
        let mut saved = EngineConfig::load_from(engine.data_dir().to_path_buf())?;
        saved.save_edit(&edit).map_err(|e| e.context("The settings were not saved"))?;
        Ok(SettingsView::of(&saved, &engine.config().settings))
    })
    .await
}

/// The servers of the remote engines this window has rendered through:
/// in rotation or out (and why), lines done, pace, lines in flight.
#[tauri::command]
pub async fn remote_status(studio: State<'_, Studio>) -> Answer<Vec<revoice_engine::remote::EngineStatus>> {
    Ok(studio.engine()?.remote().status())
}

/// The remote engines in `config.toml`.
#[tauri::command]
pub async fn remote_engines(studio: State<'_, Studio>) -> Answer<Vec<RemoteEngineSettings>> {
    let engine = studio.engine()?;
    blocking(move || Ok(EngineConfig::load_from(engine.data_dir().to_path_buf())?.settings.engines)).await
}

/// Adds a remote engine (or replaces the one of its name); the engines.
#[tauri::command]
pub async fn save_remote_engine(studio: State<'_, Studio>, remote: RemoteEngineSettings) -> Answer<Vec<RemoteEngineSettings>> {
    let engine = studio.engine()?;
    blocking(move || {
        let mut saved = EngineConfig::load_from(engine.data_dir().to_path_buf())?;
        saved.save_remote_engine(&remote).map_err(|e| e.context("The engine was not saved"))?;
        Ok(saved.settings.engines)
    })
    .await
}

/// Removes a remote engine; the engines left.
#[tauri::command]
pub async fn remove_remote_engine(studio: State<'_, Studio>, name: String) -> Answer<Vec<RemoteEngineSettings>> {
    let engine = studio.engine()?;
    blocking(move || {
        let mut saved = EngineConfig::load_from(engine.data_dir().to_path_buf())?;
        saved.remove_remote_engine(&name)?;
        Ok(saved.settings.engines)
    })
    .await
}

/// Asks each server of a remote engine what it is and can do.
#[tauri::command]
pub async fn check_remote_engine(studio: State<'_, Studio>, name: String) -> Answer<EngineReport> {
    let engine = studio.engine()?;
    let saved = blocking(move || EngineConfig::load_from(engine.data_dir().to_path_buf())).await?;
    let missing =
        || ErrorReport { kind: ErrorKind::NotFound, message: format!("There is no engine {name:?} in config.toml"), input: Some(format!("engine {name:?}")) };
    let remote = saved.settings.engines.into_iter().find(|e| e.name.eq_ignore_ascii_case(&name)).ok_or_else(missing)?;
    blocking(move || Ok(revoice_engine::engines::check_engine(&remote))).await
}
