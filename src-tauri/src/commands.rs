//! Commands the editor UI invokes. Each one hands the work to the engine and
//! returns its answer, or an error report: its kind and a message a person
//! can act on.

use revoice_engine::Diagnosis;
use tauri::State;

use crate::studio::{report, Answer, Studio};

/// The engine's health report: version, data folder, database, models, audio.
#[tauri::command]
pub async fn diagnose(studio: State<'_, Studio>) -> Answer<Diagnosis> {
    let engine = studio.engine()?;
    Ok(engine.diagnose().await)
}

/// Shows the data folder in the system's file manager.
#[tauri::command]
pub fn open_data_dir(studio: State<'_, Studio>) -> Answer<()> {
    let engine = studio.engine()?;
    Ok(reveal(engine.data_dir())?)
}

/// Shows a folder the user chose (an export's) in the file manager.
#[tauri::command]
pub fn reveal_folder(path: std::path::PathBuf) -> Answer<()> {
    if !path.is_dir() {
        return Err(format!("{} is not a folder.", path.display()).into());
    }
    Ok(reveal(&path)?)
}

/// Opens a folder in the file manager, with an error that names it (the
/// menu shows it as text).
pub fn reveal(dir: &std::path::Path) -> Result<(), String> {
    open::that_detached(dir).map_err(|e| format!("Could not open {} in the file manager: {e}", dir.display()))
}

/// The local speech API's URL while it runs.
#[tauri::command]
pub async fn api_status(studio: State<'_, Studio>) -> Answer<Option<String>> {
    Ok(studio.api_url().await)
}

/// Starts (true) or stops (false) the local speech API, and saves the
/// choice (`[api] enabled`) so the next start does the same; its URL while
/// it runs.
#[tauri::command]
pub async fn set_api_running(studio: State<'_, Studio>, running: bool) -> Answer<Option<String>> {
    let url = if running {
        Some(studio.start_api().await?)
    } else {
        studio.stop_api().await;
        None
    };
    let engine = studio.engine()?;
    let mut config = revoice_engine::EngineConfig::load_from(engine.data_dir().to_path_buf()).map_err(report)?;
    config
        .save_api_enabled(running)
        .map_err(|e| report(e.context(format!("The speech API is {}, but the setting was not saved", if running { "on" } else { "off" }))))?;
    Ok(url)
}
