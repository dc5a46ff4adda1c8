//! The settings view's commands: what is set (data folder, output device
//! and the devices there are, batch width, cache budgets, the speech API's
//! port) and saving changes into `config.toml`. The engine reads the file
//! when it starts, so saved changes apply from the next start.

use revoice_engine::config::SettingsEdit;
use serde::Serialize;
use tauri::State;

use crate::studio::Studio;

/// The settings as the view shows them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub data_dir: String,
    pub config_file: String,
    pub output_device: String,
    /// Output devices found now: (id, name, is the default).
    pub devices: Vec<(String, String, bool)>,
    /// Why no device could be listed, if none could.
    pub devices_error: Option<String>,
    /// 0: the width measured best on this machine.
    pub batch_width: usize,
    pub segment_store_mb: u64,
    pub render_cache_mb: u64,
    pub api_port: u16,
    /// The saved file differs from what the running engine started with.
    pub restart_needed: bool,
}

fn view(running: &revoice_engine::config::Settings, config: &revoice_engine::EngineConfig) -> SettingsView {
    let found = revoice_engine::audio::devices::list_output_devices();
    let s = &config.settings;
    SettingsView {
        data_dir: config.data_dir.display().to_string(),
        config_file: config.config_file().display().to_string(),
        output_device: s.audio.output_device.clone(),
        devices: found.devices.iter().map(|d| (d.id.clone(), d.name.clone(), d.is_default)).collect(),
        devices_error: found.error,
        batch_width: s.scheduler.batch_width,
        segment_store_mb: s.dub.segment_store_mb,
        render_cache_mb: s.dub.render_cache_mb,
        api_port: s.api.port,
        restart_needed: (&s.audio, &s.scheduler, &s.dub, s.api.port) != (&running.audio, &running.scheduler, &running.dub, running.api.port),
    }
}

#[tauri::command]
pub async fn settings(studio: State<'_, Studio>) -> Result<SettingsView, String> {
    let engine = studio.engine()?;
    let config = revoice_engine::EngineConfig::load_from(engine.data_dir().to_path_buf()).map_err(|e| e.to_string())?;
    let running = engine.config().settings.clone();
    tauri::async_runtime::spawn_blocking(move || view(&running, &config)).await.map_err(|e| e.to_string())
}

#[tauri::command]
pub async fn save_settings(studio: State<'_, Studio>, edit: SettingsEdit) -> Result<SettingsView, String> {
    let engine = studio.engine()?;
    if edit.segment_store_mb == Some(0) || edit.render_cache_mb == Some(0) {
        return Err("A cache budget must be at least 1 MiB.".into());
    }
    if edit.batch_width.is_some_and(|w| w > 64) {
        return Err("A batch width over 64 rows is more than the model can use: 0 lets the studio pick the measured best.".into());
    }
    let mut config = revoice_engine::EngineConfig::load_from(engine.data_dir().to_path_buf()).map_err(|e| e.to_string())?;
    config.save_edit(&edit).map_err(|e| format!("The settings were not saved: {e}"))?;
    let running = engine.config().settings.clone();
    tauri::async_runtime::spawn_blocking(move || view(&running, &config)).await.map_err(|e| e.to_string())
}
