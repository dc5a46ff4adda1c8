//! The settings as the settings view shows them: what is set (data
//! folder, output device and the devices there are, batch width, cache
//! budgets, listening back after renders, a voice fit's budget, the speech
//! API's port) and whether the saved file differs from what the running
//! engine started with (the engine reads `config.toml`
//! when it starts, so saved changes apply from the next start).

use serde::Serialize;
use ts_rs::TS;

use revoice_core::config::{EngineConfig, Settings};

/// The settings as the view shows them.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
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
    /// Whisper hears each line after a render; a failing line is taken again once.
    pub listen_back: bool,
    /// The fastest fit-by-re-synthesis may make a line speak (1.0–2.0).
    pub resynthesize_max_speed: f64,
    /// Minutes a background voice fit may search.
    pub fit_minutes: f32,
    pub api_port: u16,
    /// The saved file differs from what the running engine started with.
    pub restart_needed: bool,
}

impl SettingsView {
    /// `saved` as the view shows it, against the `running` engine's settings
    /// (blocking: lists the output devices).
    pub fn of(saved: &EngineConfig, running: &Settings) -> SettingsView {
        let found = revoice_audio::devices::list_output_devices();
        let s = &saved.settings;
        SettingsView {
            data_dir: saved.data_dir.display().to_string(),
            config_file: saved.config_file().display().to_string(),
            output_device: s.audio.output_device.clone(),
            devices: found.devices.iter().map(|d| (d.id.clone(), d.name.clone(), d.is_default)).collect(),
            devices_error: found.error,
            batch_width: s.scheduler.batch_width,
            segment_store_mb: s.dub.segment_store_mb,
            render_cache_mb: s.dub.render_cache_mb,
            listen_back: s.dub.listen_back,
            resynthesize_max_speed: s.dub.resynthesize_max_speed,
            fit_minutes: s.voices.fit_minutes,
            api_port: s.api.port,
            restart_needed: (&s.audio, &s.scheduler, &s.dub, &s.voices, s.api.port)
                != (&running.audio, &running.scheduler, &running.dub, &running.voices, running.api.port),
        }
    }
}
