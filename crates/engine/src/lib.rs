//! Revoice Studio's engine: one library that the desktop app, the `revoice`
//! CLI and the local HTTP API (`api`) all drive. [`Engine`] owns the data
//! directory, the settings and the project database; each face is a thin
//! layer that turns user actions into engine calls and shows the results.

pub mod cache;
pub mod config;
pub mod doctor;
pub mod dub;
pub mod logging;
pub mod render;
pub mod scheduler;
pub mod store;
pub mod studio;
pub mod synth;
pub mod text;
pub mod voice;

use std::path::{Path, PathBuf};

pub use revoice_audio as audio;
pub use revoice_core::{error, fsutil};
pub use revoice_model as model;

pub use config::{EngineConfig, Settings};
pub use doctor::{Check, CheckStatus, Diagnosis};
pub use error::{Error, ErrorKind, Result, ResultExt};

/// The engine's version, as built.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The running engine. Cheap to share behind an `Arc`.
pub struct Engine {
    config: EngineConfig,
    store: store::Store,
    interrupted: Vec<store::RenderJob>,
}

impl Engine {
    /// Opens the engine on a loaded config: creates the data directory's
    /// layout, opens (migrating) the project database, and marks render
    /// jobs a killed or crashed process left running as interrupted.
    pub async fn open(config: EngineConfig) -> Result<Engine> {
        let db_path = config.data_dir.join(store::DATABASE_FILE_NAME);
        let store = store::Store::open(&db_path)
            .await
            .context(|| "opening the studio database")?;
        store.interrupted_render_jobs().await?;
        let interrupted = store.unresumed_render_jobs().await?;
        for job in &interrupted {
            tracing::warn!(project = job.project_id, done = job.done, total = job.total, "a render was interrupted; rendering the project again resumes it");
        }
        tracing::info!(
            data_dir = %config.data_dir.display(),
            version = ENGINE_VERSION,
            "engine open"
        );
        Ok(Engine { config, store, interrupted })
    }

    /// Interrupted render jobs not yet resumed, as found when the engine
    /// opened (a project resumes where it stopped when rendered again).
    pub fn interrupted_renders(&self) -> &[store::RenderJob] {
        &self.interrupted
    }

    /// The config the engine was opened with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.config.data_dir
    }

    /// The project database.
    pub fn store(&self) -> &store::Store {
        &self.store
    }

    /// Runs every health check; never fails, problems are in the report.
    pub async fn diagnose(&self) -> Diagnosis {
        let data_dir = self.data_dir().to_path_buf();
        let sqlite_version = self.store.sqlite_version().await.map_err(|e| e.to_string());
        let audio = tokio::task::spawn_blocking(audio::list_output_devices)
            .await
            .unwrap_or_else(|e| audio::OutputDevices {
                host: "unknown".into(),
                devices: Vec::new(),
                error: Some(format!("device listing crashed: {e}")),
            });
        let configured = &self.config.settings.audio.output_device;
        let models: Vec<_> = model::assets::ALL.iter().map(|m| m.status(&data_dir)).collect();
        let lib_dirs: Vec<&Path> = doctor::LINUX_LIB_DIRS.iter().map(Path::new).collect();

        let mut checks = vec![
            doctor::check_data_dir(&data_dir),
            doctor::check_database(self.store.path(), &sqlite_version),
        ];
        checks.extend(models.iter().map(doctor::check_model));
        checks.push(doctor::check_audio(&audio, configured));
        checks.push(doctor::check_display(
            std::env::var("DISPLAY").ok().filter(|v| !v.is_empty()),
            std::env::var("WAYLAND_DISPLAY").ok().filter(|v| !v.is_empty()),
        ));
        checks.push(doctor::check_webview(&lib_dirs));
        checks.push(doctor::check_espeak(which::which("espeak-ng").ok()));

        Diagnosis {
            engine_version: ENGINE_VERSION.to_string(),
            config_file: self.config.config_file(),
            log_dir: logging::log_dir(&data_dir),
            database: self.store.path().to_path_buf(),
            sqlite_version: sqlite_version.ok(),
            audio_output: audio.chosen(configured).map(|d| d.id.clone()),
            models,
            audio,
            checks,
            checked_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            data_dir,
        }
    }

    /// Closes the database cleanly.
    pub async fn close(&self) {
        self.store.close().await;
    }
}

/// Convenience for faces: resolve the data dir, load the config, start
/// logging and open the engine, in that order.
pub async fn start(data_dir_override: Option<PathBuf>) -> Result<(Engine, logging::LogGuard)> {
    let config = EngineConfig::load(data_dir_override)?;
    let guard = logging::init(&config.data_dir, &config.settings.log.filter)?;
    let engine = Engine::open(config).await?;
    Ok((engine, guard))
}
