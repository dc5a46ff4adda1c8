//! Where the engine keeps its things and how it is tuned.
//!
//! The data directory holds the config file, logs, the project database and
//! installed model assets. It is chosen by, in order: an explicit path (the
//! CLI's `--data-dir`), the `REVOICE_DATA_DIR` environment variable, and the
//! platform's data directory. The config file (`config.toml` inside it) is
//! written with defaults on first use; unknown keys are an error that names
//! the file, so a typo never silently falls back to a default.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "REVOICE_DATA_DIR";
/// Name of the config file inside the data directory.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// Settings a user may change in `config.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub log: LogSettings,
    pub audio: AudioSettings,
    pub scheduler: SchedulerSettings,
    pub dub: DubSettings,
    pub api: ApiSettings,
    pub voices: VoiceSettings,
    /// Remote engines: servers that speak the speech API (`[[engines]]`,
    /// written only when there are some, after the other sections).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<RemoteEngineSettings>,
    /// Translation engines (`[[translators]]`, written only when there are
    /// some, last): see [`crate::translators`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub translators: Vec<crate::translators::TranslatorSettings>,
}

/// A remote engine: one or more servers (a fleet) that speak the same
/// OpenAI-compatible speech API, with its key and model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct RemoteEngineSettings {
    /// How voices on it are named: `NAME/voice`.
    pub name: String,
    /// Base URLs of its servers (`http://host:8880`), one or several.
    pub urls: Vec<String>,
    /// Bearer token, if its servers ask for one.
    #[serde(default)]
    pub api_key: String,
    /// The `model` sent with each request (empty: the server's default).
    #[serde(default)]
    pub model: String,
    /// Seconds a request may take before its server counts as hung
    /// (default [`RemoteEngineSettings::DEFAULT_TIMEOUT_S`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout_s: Option<f64>,
}

impl RemoteEngineSettings {
    /// How long a request may take by default, seconds.
    pub const DEFAULT_TIMEOUT_S: f64 = 120.0;

    /// How long a request may take.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.timeout_s.unwrap_or(Self::DEFAULT_TIMEOUT_S))
    }

    /// Checks a remote engine: its name (letters, digits, `-`, `_`; not
    /// `local`) and that each URL is http(s) with a host.
    pub fn check(&self) -> std::result::Result<(), String> {
        let name = &self.name;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')) {
            return Err(format!("[[engines]] name {name:?} must be letters, digits, '-' or '_'"));
        }
        if name.eq_ignore_ascii_case("local") {
            return Err("[[engines]] name \"local\" is the studio's own engine".into());
        }
        if self.urls.is_empty() {
            return Err(format!("[[engines]] {name} has no urls"));
        }
        if let Some(t) = self.timeout_s {
            if !(0.5..=3600.0).contains(&t) {
                return Err(format!("[[engines]] {name}: timeout_s {t} is outside 0.5 to 3600 seconds"));
            }
        }
        for url in &self.urls {
            let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
            if rest.is_none_or(|r| r.split('/').next().unwrap_or("").is_empty()) {
                return Err(format!("[[engines]] {name}: {url:?} is not an http:// or https:// address"));
            }
        }
        Ok(())
    }
}

/// Logging settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogSettings {
    /// A `tracing` filter such as `info` or `revoice=debug,info`.
    /// `RUST_LOG`, when set, takes precedence.
    pub filter: String,
}

impl Default for LogSettings {
    fn default() -> Self {
        LogSettings { filter: "info".to_string() }
    }
}

/// Audio output settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct AudioSettings {
    /// Output device id as `host:device` (for example `alsa:null`);
    /// empty means the system's default output device.
    pub output_device: String,
}

/// How the synthesis scheduler groups rows (see `scheduler`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerSettings {
    /// Rows per batch; 0 picks the width `revoice bench engine` measured
    /// best on this machine, or the CPU count before it has been measured.
    pub batch_width: usize,
    /// How long the first row of a batch waits for others to join.
    pub batch_window_ms: u64,
    /// Renders per row when takes come out bad (silent, or far too long or
    /// short for their phonemes), buffered requests only; 1 = no retries.
    pub max_attempts: u32,
    /// Keep one batch open and start each new row as soon as a slot frees,
    /// instead of batch after batch.
    pub continuous: bool,
}

impl Default for SchedulerSettings {
    fn default() -> Self {
        SchedulerSettings { batch_width: 0, batch_window_ms: 20, max_attempts: 3, continuous: false }
    }
}

/// Budgets of the dub caches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DubSettings {
    /// Rendered lines kept on disk (`<data>/segments`), MiB.
    pub segment_store_mb: u64,
    /// Rendered rows kept in memory while rendering, MiB.
    pub render_cache_mb: u64,
    /// After each render in the app, Whisper hears every line rendered and
    /// a line that fails is taken again once (see `checking`).
    pub listen_back: bool,
    /// The fastest fit-by-re-synthesis may make a line speak, relative to
    /// its own speed (1.25 = 25 % faster); a line that needs more is placed
    /// whole past its room and flagged.
    pub resynthesize_max_speed: f64,
}

impl Default for DubSettings {
    fn default() -> Self {
        DubSettings { segment_store_mb: 4096, render_cache_mb: 256, listen_back: true, resynthesize_max_speed: 1.25 }
    }
}

/// The fastest a setting may let fit-by-re-synthesis speak.
pub const MAX_RESYNTHESIZE_SPEED: f64 = 2.0;

/// The local OpenAI-compatible speech API (`revoice serve`, or the app's switch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApiSettings {
    /// Whether the app starts the API with the studio.
    pub enabled: bool,
    /// TCP port on 127.0.0.1.
    pub port: u16,
    /// A bearer token every request must carry; empty = none
    /// (`REVOICE_API_KEY` or `--api-key` override it).
    pub api_key: String,
    /// Folders whose files `ref_audio: "file://..."` may name; none = no file references.
    pub media_folders: Vec<PathBuf>,
    /// Most voices the API lets clients upload into the library.
    pub max_uploaded_voices: usize,
    /// Whether an uploaded voice is fitted in the background (it speaks as
    /// the quick match until the fitted voice is ready).
    pub fit_uploaded_voices: bool,
}

impl Default for ApiSettings {
    fn default() -> Self {
        ApiSettings { enabled: false, port: 8880, api_key: String::new(), media_folders: Vec::new(), max_uploaded_voices: 100, fit_uploaded_voices: true }
    }
}

/// Voices made from recordings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VoiceSettings {
    /// Time budget of a voice fit made in the background (the app's "Fit
    /// voice", "Voice every speaker", an uploaded voice), in minutes.
    pub fit_minutes: f32,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        VoiceSettings { fit_minutes: DEFAULT_FIT_MINUTES }
    }
}

/// A voice fit's budget unless one is set, in minutes. Five: with two
/// probe sets read in turn and the naturalness guard at 0.4 of its first
/// cost, 5-minute fits on 2 cores reach what 8-minute fits reached
/// (`revoice bench voicefit`, sessions 54-55: held-out similarity and
/// naturalness on every measured row, Italian with 8 minutes no better).
pub const DEFAULT_FIT_MINUTES: f32 = 5.0;

/// The range a fit's budget may be set in, minutes.
pub const FIT_MINUTES: std::ops::RangeInclusive<f32> = 0.1..=120.0;

/// Most rows a batch can usefully hold.
pub const MAX_BATCH_WIDTH: usize = 64;
/// Longest a batch's first row waits for company, ms.
pub const MAX_BATCH_WINDOW_MS: u64 = 10_000;
/// Most renders of one row when its takes come out bad.
pub const MAX_ATTEMPTS: u32 = 10;

impl Settings {
    /// The limits every setting must keep, whichever face wrote it (the
    /// settings view, a hand-edited file): checked whenever `config.toml`
    /// is read or written. The reason names the setting.
    pub fn check(&self) -> std::result::Result<(), String> {
        let s = &self.scheduler;
        if s.batch_width > MAX_BATCH_WIDTH {
            return Err(format!(
                "[scheduler] batch_width {} is more rows than the model can use (at most {MAX_BATCH_WIDTH}; 0 picks the width measured best)",
                s.batch_width
            ));
        }
        if s.batch_window_ms > MAX_BATCH_WINDOW_MS {
            return Err(format!("[scheduler] batch_window_ms {} would hold a row back for too long (at most {MAX_BATCH_WINDOW_MS})", s.batch_window_ms));
        }
        if !(1..=MAX_ATTEMPTS).contains(&s.max_attempts) {
            return Err(format!("[scheduler] max_attempts {} must be from 1 to {MAX_ATTEMPTS}", s.max_attempts));
        }
        if self.dub.segment_store_mb == 0 {
            return Err("[dub] segment_store_mb must be at least 1 MiB".into());
        }
        if self.dub.render_cache_mb == 0 {
            return Err("[dub] render_cache_mb must be at least 1 MiB".into());
        }
        let fastest = self.dub.resynthesize_max_speed;
        if !(1.0..=MAX_RESYNTHESIZE_SPEED).contains(&fastest) {
            return Err(format!(
                "[dub] resynthesize_max_speed {fastest} must be from 1.0 (never faster than the line's own speed) to {MAX_RESYNTHESIZE_SPEED}"
            ));
        }
        if !FIT_MINUTES.contains(&self.voices.fit_minutes) {
            return Err(format!("[voices] fit_minutes {} must be from {} to {} minutes", self.voices.fit_minutes, FIT_MINUTES.start(), FIT_MINUTES.end()));
        }
        if self.api.max_uploaded_voices == 0 {
            return Err("[api] max_uploaded_voices must be at least 1".into());
        }
        for (i, engine) in self.engines.iter().enumerate() {
            engine.check()?;
            if self.engines[..i].iter().any(|e| e.name.eq_ignore_ascii_case(&engine.name)) {
                return Err(format!("[[engines]] name {:?} is used twice", engine.name));
            }
        }
        for (i, translator) in self.translators.iter().enumerate() {
            translator.check()?;
            if self.translators[..i].iter().any(|t| t.name.eq_ignore_ascii_case(&translator.name)) {
                return Err(format!("[[translators]] name {:?} is used twice", translator.name));
            }
        }
        if tracing_subscriber::EnvFilter::try_new(&self.log.filter).is_err() {
            return Err(format!("[log] filter {:?} is not a tracing filter (for example \"info\" or \"revoice=debug,info\")", self.log.filter));
        }
        Ok(())
    }
}

/// Everything `Engine::open` needs: where the data lives and the settings.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    pub data_dir: PathBuf,
    pub settings: Settings,
}

impl EngineConfig {
    /// Resolves the data directory, creates it if needed and loads (or
    /// writes the default) `config.toml` from it.
    pub fn load(data_dir_override: Option<PathBuf>) -> Result<EngineConfig> {
        let data_dir = resolve_data_dir(data_dir_override)?;
        Self::load_from(data_dir)
    }

    /// Loads the config from a known data directory, creating both if missing.
    pub fn load_from(data_dir: PathBuf) -> Result<EngineConfig> {
        std::fs::create_dir_all(&data_dir).map_err(|e| Error::io("create the data directory", &data_dir, e))?;
        let path = data_dir.join(CONFIG_FILE_NAME);
        let settings = match std::fs::read_to_string(&path) {
            Ok(text) => parse_settings(&path, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let settings = Settings::default();
                write_default_config(&path, &settings)?;
                settings
            }
            Err(e) => return Err(Error::io("read", &path, e)),
        };
        Ok(EngineConfig { data_dir, settings })
    }

    /// The config file's path.
    pub fn config_file(&self) -> PathBuf {
        self.data_dir.join(CONFIG_FILE_NAME)
    }

    /// Sets `[api] enabled` in the config file, keeping the rest of it (the
    /// user's comments and order) as it is; the next start obeys it.
    pub fn save_api_enabled(&mut self, enabled: bool) -> Result<()> {
        self.save_edit(&SettingsEdit { api_enabled: Some(enabled), ..SettingsEdit::default() })
    }

    /// Adds a remote engine to the config file (or replaces the one of the
    /// same name), keeping the rest of the file as it is; checked first.
    pub fn save_remote_engine(&mut self, engine: &RemoteEngineSettings) -> Result<()> {
        engine.check().map_err(|reason| Error::invalid(format!("engine {:?}", engine.name), reason))?;
        self.edit_document(|document| {
            let mut table = toml_edit::Table::new();
            table["name"] = toml_edit::value(engine.name.as_str());
            let mut urls = toml_edit::Array::new();
            engine.urls.iter().for_each(|u| urls.push(u.as_str()));
            table["urls"] = toml_edit::value(urls);
            if !engine.api_key.is_empty() {
                table["api_key"] = toml_edit::value(engine.api_key.as_str());
            }
            if !engine.model.is_empty() {
                table["model"] = toml_edit::value(engine.model.as_str());
            }
            if let Some(timeout) = engine.timeout_s {
                table["timeout_s"] = toml_edit::value(timeout);
            }
            if document.get("engines").and_then(|e| e.as_array_of_tables()).is_none() {
                document["engines"] = toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new());
            }
            let engines = document["engines"].as_array_of_tables_mut().expect("an array of tables");
            let at = engines.iter().position(|t| t.get("name").and_then(|n| n.as_str()).is_some_and(|n| n.eq_ignore_ascii_case(&engine.name)));
            match at {
                Some(i) => *engines.get_mut(i).expect("found") = table,
                None => engines.push(table),
            }
        })
    }

    /// Removes the remote engine `name` from the config file.
    pub fn remove_remote_engine(&mut self, name: &str) -> Result<()> {
        if !self.settings.engines.iter().any(|e| e.name.eq_ignore_ascii_case(name)) {
            let known: Vec<&str> = self.settings.engines.iter().map(|e| e.name.as_str()).collect();
            return Err(Error::not_found(
                format!("engine {name:?}"),
                if known.is_empty() { "there are no remote engines".to_string() } else { format!("the engines are: {}", known.join(", ")) },
            ));
        }
        self.edit_document(|document| {
            if let Some(engines) = document.get_mut("engines").and_then(|e| e.as_array_of_tables_mut()) {
                engines.retain(|t| !t.get("name").and_then(|n| n.as_str()).is_some_and(|n| n.eq_ignore_ascii_case(name)));
                if engines.is_empty() {
                    document.remove("engines");
                }
            }
        })
    }

    /// Edits the config file's document, then parses and checks the result
    /// before it replaces the file (a file that would not load is never written).
    pub(crate) fn edit_document(&mut self, edit: impl FnOnce(&mut toml_edit::DocumentMut)) -> Result<()> {
        let path = self.config_file();
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
        let mut document: toml_edit::DocumentMut = text.parse().map_err(|e| Error::Config { path: path.clone(), reason: format!("{e}") })?;
        edit(&mut document);
        let written = document.to_string();
        let settings = parse_settings(&path, &written)?;
        crate::fsutil::write_atomically(&path, written.as_bytes())?;
        self.settings = settings;
        Ok(())
    }

    /// Writes the settings `edit` names into the config file, keeping the
    /// rest of it (comments, order) as it is. The edited file is parsed
    /// before it replaces the old one, so a file that would not load is
    /// never written.
    pub fn save_edit(&mut self, edit: &SettingsEdit) -> Result<()> {
        self.edit_document(|document| {
            let mut set = |section: &str, key: &str, value: toml_edit::Item| {
                if document.get(section).is_none() {
                    document[section] = toml_edit::table();
                }
                document[section][key] = value;
            };
            if let Some(v) = &edit.output_device {
                set("audio", "output_device", toml_edit::value(v.as_str()));
            }
            if let Some(v) = edit.batch_width {
                set("scheduler", "batch_width", toml_edit::value(v as i64));
            }
            if let Some(v) = edit.segment_store_mb {
                set("dub", "segment_store_mb", toml_edit::value(v as i64));
            }
            if let Some(v) = edit.render_cache_mb {
                set("dub", "render_cache_mb", toml_edit::value(v as i64));
            }
            if let Some(v) = edit.listen_back {
                set("dub", "listen_back", toml_edit::value(v));
            }
            if let Some(v) = edit.resynthesize_max_speed {
                set("dub", "resynthesize_max_speed", toml_edit::value(v));
            }
            if let Some(v) = edit.fit_minutes {
                set("voices", "fit_minutes", toml_edit::value(v as f64));
            }
            if let Some(v) = edit.api_enabled {
                set("api", "enabled", toml_edit::value(v));
            }
            if let Some(v) = edit.api_port {
                set("api", "port", toml_edit::value(v as i64));
            }
        })
    }
}

impl EngineConfig {
    /// Adds a translator to the config file (or replaces the one of the
    /// same name), keeping the rest of the file as it is; checked first.
    pub fn save_translator(&mut self, translator: &crate::translators::TranslatorSettings) -> Result<()> {
        translator.check().map_err(|reason| Error::invalid(format!("translator {:?}", translator.name), reason))?;
        self.edit_document(|document| {
            let mut table = toml_edit::Table::new();
            table["name"] = toml_edit::value(translator.name.as_str());
            table["url"] = toml_edit::value(translator.url.as_str());
            if !translator.model.is_empty() {
                table["model"] = toml_edit::value(translator.model.as_str());
            }
            if !translator.api_key.is_empty() {
                table["api_key"] = toml_edit::value(translator.api_key.as_str());
            }
            if let Some(timeout) = translator.timeout_s {
                table["timeout_s"] = toml_edit::value(timeout);
            }
            if let Some(lines) = translator.batch_lines {
                table["batch_lines"] = toml_edit::value(lines as i64);
            }
            if let Some(temperature) = translator.temperature {
                table["temperature"] = toml_edit::value(temperature);
            }
            if document.get("translators").and_then(|e| e.as_array_of_tables()).is_none() {
                document["translators"] = toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new());
            }
            let translators = document["translators"].as_array_of_tables_mut().expect("an array of tables");
            let at = translators.iter().position(|t| t.get("name").and_then(|n| n.as_str()).is_some_and(|n| n.eq_ignore_ascii_case(&translator.name)));
            match at {
                Some(i) => *translators.get_mut(i).expect("found") = table,
                None => translators.push(table),
            }
        })
    }

    /// Removes the translator `name` from the config file.
    pub fn remove_translator(&mut self, name: &str) -> Result<()> {
        self.translator(Some(name))?;
        self.edit_document(|document| {
            if let Some(translators) = document.get_mut("translators").and_then(|e| e.as_array_of_tables_mut()) {
                translators.retain(|t| !t.get("name").and_then(|n| n.as_str()).is_some_and(|n| n.eq_ignore_ascii_case(name)));
            }
        })
    }

    /// The translator `name`, or the first configured for `None`; refused
    /// naming the ones there are, or saying how to add one when there are none.
    pub fn translator(&self, name: Option<&str>) -> Result<&crate::translators::TranslatorSettings> {
        let all = &self.settings.translators;
        let found = match name {
            Some(name) => all.iter().find(|t| t.name.eq_ignore_ascii_case(name)),
            None => all.first(),
        };
        found.ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
            Error::not_found(
                name.map_or_else(|| "translator".to_string(), |name| format!("translator {name:?}")),
                if known.is_empty() {
                    "no translator is configured: add one with `revoice translators add NAME --url URL` or in Settings".to_string()
                } else {
                    format!("the translators are: {}", known.join(", "))
                },
            )
        })
    }
}

/// Settings a person changes from the app; `None` leaves one as it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields)]
pub struct SettingsEdit {
    pub output_device: Option<String>,
    pub batch_width: Option<usize>,
    pub segment_store_mb: Option<u64>,
    pub render_cache_mb: Option<u64>,
    pub api_enabled: Option<bool>,
    pub api_port: Option<u16>,
    pub listen_back: Option<bool>,
    pub resynthesize_max_speed: Option<f64>,
    pub fit_minutes: Option<f32>,
}

/// Picks the data directory: explicit override, then `REVOICE_DATA_DIR`,
/// then the platform's data directory.
pub fn resolve_data_dir(data_dir_override: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(dir) = data_dir_override {
        return Ok(dir);
    }
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::data_dir().map(|d| d.join("revoice-studio")).ok_or_else(|| Error::InvalidInput {
        input: "data directory".into(),
        reason: format!("this system reports no data directory; set {DATA_DIR_ENV} or pass --data-dir"),
    })
}

fn parse_settings(path: &Path, text: &str) -> Result<Settings> {
    let settings: Settings = toml::from_str(text).map_err(|e| Error::Config { path: path.to_path_buf(), reason: e.to_string().trim_end().to_string() })?;
    settings.check().map_err(|reason| Error::Config { path: path.to_path_buf(), reason })?;
    Ok(settings)
}

fn write_default_config(path: &Path, settings: &Settings) -> Result<()> {
    let body = toml::to_string_pretty(settings).expect("default settings serialise");
    let text = format!("# Revoice Studio settings. Delete this file to get the defaults back.\n\n{body}");
    crate::fsutil::write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_data_dir_gets_a_default_config_file_that_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().join("studio");
        let first = EngineConfig::load_from(data_dir.clone()).unwrap();
        assert_eq!(first.settings, Settings::default());
        assert!(first.config_file().exists());
        let again = EngineConfig::load_from(data_dir).unwrap();
        assert_eq!(again, first);
    }

    #[test]
    fn the_api_switch_is_saved_keeping_the_users_comments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE_NAME), "# my studio\n[audio]\noutput_device = \"alsa:null\" # the null sink\n").unwrap();
        let mut cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        cfg.save_api_enabled(true).unwrap();
        let text = std::fs::read_to_string(cfg.config_file()).unwrap();
        assert!(text.contains("# my studio") && text.contains("# the null sink"), "{text}");
        let again = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        assert!(again.settings.api.enabled && cfg.settings.api.enabled);
        assert_eq!(again.settings.audio.output_device, "alsa:null");
    }

    #[test]
    fn settings_saved_from_the_app_keep_the_users_comments_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE_NAME), "# mine\n[dub]\nrender_cache_mb = 64 # small box\n").unwrap();
        let mut cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        let edit = SettingsEdit {
            output_device: Some("alsa:null".into()),
            batch_width: Some(2),
            segment_store_mb: Some(1024),
            api_port: Some(9000),
            ..SettingsEdit::default()
        };
        cfg.save_edit(&edit).unwrap();
        let text = std::fs::read_to_string(cfg.config_file()).unwrap();
        assert!(text.contains("# mine") && text.contains("# small box"), "{text}");
        let again = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        assert_eq!(again.settings, cfg.settings);
        let s = &again.settings;
        assert_eq!(
            (s.audio.output_device.as_str(), s.scheduler.batch_width, s.dub.segment_store_mb, s.dub.render_cache_mb, s.api.port),
            ("alsa:null", 2, 1024, 64, 9000)
        );
    }

    #[test]
    fn edited_settings_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE_NAME), "[audio]\noutput_device = \"alsa:null\"\n").unwrap();
        let cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        assert_eq!(cfg.settings.audio.output_device, "alsa:null");
        assert_eq!(cfg.settings.log, LogSettings::default());
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_the_file_and_the_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE_NAME), "[audio]\noutput_devcie = \"x\"\n").unwrap();
        let err = EngineConfig::load_from(dir.path().to_path_buf()).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(CONFIG_FILE_NAME), "{text}");
        assert!(text.contains("output_devcie"), "{text}");
    }

    #[test]
    fn broken_toml_is_an_error_and_the_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE_NAME);
        std::fs::write(&path, "[audio\n").unwrap();
        assert!(EngineConfig::load_from(dir.path().to_path_buf()).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[audio\n");
    }

    #[test]
    fn settings_out_of_their_limits_are_refused_when_read_and_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE_NAME);
        for (text, named) in [
            ("[scheduler]\nbatch_width = 65\n", "batch_width"),
            ("[scheduler]\nmax_attempts = 0\n", "max_attempts"),
            ("[dub]\nrender_cache_mb = 0\n", "render_cache_mb"),
            ("[dub]\nsegment_store_mb = 0\n", "segment_store_mb"),
            ("[log]\nfilter = \"[[[\"\n", "filter"),
        ] {
            std::fs::write(&path, text).unwrap();
            let err = EngineConfig::load_from(dir.path().to_path_buf()).unwrap_err().to_string();
            assert!(err.contains(CONFIG_FILE_NAME) && err.contains(named), "{text}: {err}");
        }
        std::fs::write(&path, "# mine\n").unwrap();
        let mut cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        let err = cfg.save_edit(&SettingsEdit { batch_width: Some(100), ..SettingsEdit::default() }).unwrap_err().to_string();
        assert!(err.contains("batch_width"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# mine\n", "a refused edit leaves the file alone");
    }

    #[test]
    fn an_explicit_data_dir_wins() {
        let chosen = resolve_data_dir(Some(PathBuf::from("/tmp/explicit"))).unwrap();
        assert_eq!(chosen, PathBuf::from("/tmp/explicit"));
    }

    #[test]
    fn remote_engines_are_added_replaced_and_removed_keeping_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        let path = cfg.config_file();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("# my note\n{text}")).unwrap();
        let mut cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        let fleet = RemoteEngineSettings {
            name: "fleet".into(),
            urls: vec!["http://10.0.0.2:8880".into(), "http://10.0.0.3:8880".into()],
            api_key: "k".into(),
            model: String::new(),
            timeout_s: None,
        };
        cfg.save_remote_engine(&fleet).unwrap();
        cfg.save_remote_engine(&RemoteEngineSettings {
            name: "gpu".into(),
            urls: vec!["https://gpu.example:8000".into()],
            api_key: String::new(),
            model: "omnivoice".into(),
            timeout_s: Some(30.0),
        })
        .unwrap();
        cfg.save_remote_engine(&RemoteEngineSettings { urls: vec!["http://10.0.0.4:8880".into()], ..fleet.clone() }).unwrap();
        let again = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        assert_eq!(again.settings.engines.len(), 2);
        assert_eq!(again.settings.engines[0].urls, ["http://10.0.0.4:8880"], "replaced in place");
        assert_eq!(again.settings.engines[1].model, "omnivoice");
        assert_eq!((again.settings.engines[0].timeout_s, again.settings.engines[1].timeout_s), (None, Some(30.0)), "a timeout only when given");
        let refused = cfg.save_remote_engine(&RemoteEngineSettings { timeout_s: Some(0.0), ..fleet.clone() }).unwrap_err().to_string();
        assert!(refused.contains("timeout_s"), "{refused}");
        assert!(std::fs::read_to_string(&path).unwrap().starts_with("# my note"));
        let err = cfg.save_remote_engine(&RemoteEngineSettings { name: "bad name".into(), ..fleet.clone() }).unwrap_err().to_string();
        assert!(err.contains("bad name"), "{err}");
        cfg.remove_remote_engine("FLEET").unwrap();
        assert_eq!(cfg.settings.engines.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["gpu"]);
        assert!(cfg.remove_remote_engine("fleet").unwrap_err().to_string().contains("gpu"));
    }

    fn local_translator() -> crate::translators::TranslatorSettings {
        crate::translators::TranslatorSettings {
            name: "llama".into(),
            url: "http://127.0.0.1:8080".into(),
            model: String::new(),
            api_key: String::new(),
            timeout_s: None,
            temperature: None,
            batch_lines: None,
        }
    }

    #[test]
    fn a_translator_is_saved_read_back_replaced_and_removed_keeping_the_users_comments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE_NAME), "# mine\n[dub]\nlisten_back = false # quiet\n").unwrap();
        let mut cfg = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        cfg.save_translator(&local_translator()).unwrap();
        let hosted = crate::translators::TranslatorSettings {
            name: "hosted".into(),
            url: "https://api.example.com/v1".into(),
            model: "m".into(),
            api_key: "k".into(),
            timeout_s: Some(30.0),
            temperature: Some(0.0),
            batch_lines: Some(2),
        };
        cfg.save_translator(&hosted).unwrap();
        cfg.save_translator(&crate::translators::TranslatorSettings { model: "gemma".into(), ..local_translator() }).unwrap();
        let again = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
        assert_eq!(again.settings.translators, vec![crate::translators::TranslatorSettings { model: "gemma".into(), ..local_translator() }, hosted.clone()]);
        assert!(std::fs::read_to_string(again.config_file()).unwrap().contains("# quiet"));
        assert_eq!(again.translator(Some("HOSTED")).unwrap(), &hosted);
        let mut cfg = again;
        cfg.remove_translator("llama").unwrap();
        let err = cfg.remove_translator("llama").unwrap_err().to_string();
        assert!(err.contains("hosted"), "{err}");
        assert_eq!(EngineConfig::load_from(dir.path().to_path_buf()).unwrap().settings.translators, vec![hosted]);
    }
}
