//! The engine: one per process, owning one of each service every face
//! uses. It holds the data folder's settings, the project database, the
//! segment store (rendered lines on disk), the one registered-voice
//! artifact cache, and the speech stack (model, scheduler, render cache,
//! reference encodes), loaded once on first need or in the background,
//! and the listener (Whisper), loaded on first use.
//! The faces (the app's commands, the CLI, the HTTP API) call the engine's
//! operations (here, and in `projects.rs`, `rendering.rs`, `voices.rs`)
//! and only translate their input and output.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::doctor::{self, Diagnosis};
use crate::dub::lines::TrackLines;
use crate::dub::segment_store::SegmentStore;
use crate::dub::timing::FitLimits;
use crate::listening::Listener;
use crate::{logging, ENGINE_VERSION};
use revoice_audio as audio;
use revoice_core::config::EngineConfig;
use revoice_core::error::{Error, Result, ResultExt};
use revoice_model as model;
use revoice_speech::cache::{ReferenceEncodeConfig, VoiceArtifactCache};
use revoice_speech::voice_spec::VoiceSpec;
use revoice_speech::{SpeechLoader, SpeechService, SpeechStack};
use revoice_store::{RenderJob, Store};
use revoice_voices::encoding::{MatcherHooks, ReferenceVoices};
use revoice_voices::MatchedVoice;

/// Bytes the registered voices' artifacts may hold in memory.
const VOICE_ARTIFACT_BYTES: usize = 16 << 20;

/// Where a data folder keeps rendered lines.
pub fn segment_dir(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("segments")
}

/// The running engine; share it as `Arc<Engine>`.
pub struct Engine {
    config: EngineConfig,
    store: Store,
    runtime: tokio::runtime::Handle,
    interrupted: Vec<RenderJob>,
    segments: SegmentStore,
    voices: VoiceArtifactCache<MatchedVoice>,
    speech: Arc<SpeechService>,
    /// The reference-encode service, opened on first use.
    references: Mutex<Option<Arc<ReferenceVoices>>>,
    /// Projects this process is rendering now.
    pub(crate) rendering: Mutex<Vec<i64>>,
    /// Voice fits running now, one per fit key.
    pub(crate) fits: revoice_voices::fit::flights::FitFlights,
    /// Whisper, loaded on first use.
    listener: Arc<Listener>,
    /// Remote engines' servers as this process has found them.
    remote: revoice_remote::RemoteEngines,
}

impl Engine {
    /// Opens the engine on a loaded config with Kokoro as its model (loaded
    /// when speech is first needed): see [`Engine::open_with`].
    pub async fn open(config: EngineConfig) -> Result<Engine> {
        Engine::open_with(config, revoice_speech::kokoro()).await
    }

    /// Opens the engine over the model `speech` loads: creates the data
    /// folder's layout, opens (migrating) the project database, marks
    /// render jobs a killed process left running as interrupted, and opens
    /// the segment store. Must be called inside a tokio runtime, whose
    /// handle the engine's blocking operations use for the database.
    pub async fn open_with(config: EngineConfig, speech: SpeechLoader) -> Result<Engine> {
        let db_path = config.data_dir.join(revoice_store::DATABASE_FILE_NAME);
        let store = Store::open(&db_path).await.context(|| "opening the studio database")?;
        store.interrupted_render_jobs().await?;
        let interrupted = store.unresumed_render_jobs().await?;
        for job in &interrupted {
            tracing::warn!(project = job.project_id, done = job.done, total = job.total, "a render was interrupted; rendering the project again resumes it");
        }
        let segments = SegmentStore::open(&segment_dir(&config.data_dir), config.settings.dub.segment_store_mb << 20)?;
        let speech = Arc::new(SpeechService::new(speech, config.data_dir.clone(), config.settings.clone()));
        tracing::info!(data_dir = %config.data_dir.display(), version = ENGINE_VERSION, "engine open");
        Ok(Engine {
            runtime: tokio::runtime::Handle::current(),
            voices: VoiceArtifactCache::new(VOICE_ARTIFACT_BYTES)?,
            rendering: Mutex::new(Vec::new()),
            references: Mutex::new(None),
            fits: Default::default(),
            listener: Arc::new(Listener::new(&config.data_dir)),
            remote: revoice_remote::RemoteEngines::new(config.data_dir.clone(), store.clone(), tokio::runtime::Handle::current()),
            config,
            store,
            interrupted,
            segments,
            speech,
        })
    }

    /// Interrupted render jobs not yet resumed, as found when the engine
    /// opened (a project resumes where it stopped when rendered again).
    pub fn interrupted_renders(&self) -> &[RenderJob] {
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
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The runtime the engine's blocking operations reach the database through.
    pub fn runtime(&self) -> &tokio::runtime::Handle {
        &self.runtime
    }

    /// Rendered lines on disk.
    pub fn segments(&self) -> &SegmentStore {
        &self.segments
    }

    /// The registered voices' artifacts, by name and version.
    pub fn voice_artifacts(&self) -> &VoiceArtifactCache<MatchedVoice> {
        &self.voices
    }

    /// Remote engines: their fleets, server status and reference uploads.
    pub fn remote(&self) -> &revoice_remote::RemoteEngines {
        &self.remote
    }

    /// The engine's ears: Whisper, loaded on first use (blocking calls).
    pub fn listener(&self) -> &Arc<Listener> {
        &self.listener
    }

    /// The speech stack, loading it first if nobody has (blocking: seconds;
    /// never call it on an async worker).
    pub fn speech(&self) -> Result<Arc<SpeechStack>> {
        self.speech.get()
    }

    /// The speech stack if it is loaded; otherwise starts loading it and
    /// answers busy ([`revoice_core::ErrorKind::Busy`]) at once.
    pub fn speech_ready(&self) -> Result<Arc<SpeechStack>> {
        self.speech.ready()
    }

    /// Starts loading the speech stack in the background.
    pub fn preload_speech(&self) {
        self.speech.start_loading();
    }

    /// The speech stack, if it is loaded.
    pub fn speech_loaded(&self) -> Option<Arc<SpeechStack>> {
        self.speech.loaded()
    }

    /// Whether the speech stack is loading now.
    pub fn speech_loading(&self) -> bool {
        self.speech.loading()
    }

    /// The one reference-encode service (speaker encoder and the stock
    /// voices' embeddings), opened on first use (blocking: it loads the
    /// encoder, and computes the embeddings once per data folder). When the
    /// speech stack is loaded by then, encodes run on its scheduler's owner
    /// thread between batches; otherwise on the caller's thread (the CLI
    /// matches a recording without loading Kokoro). A failed open is not
    /// kept: the next call tries again.
    pub fn references(&self) -> Result<Arc<ReferenceVoices>> {
        let mut slot = self.references.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(service) = slot.as_ref() {
            return Ok(service.clone());
        }
        let between_batches = self.speech_loaded().map(|s| s.renderer.scheduler().tasks());
        let config = ReferenceEncodeConfig { max_bytes: 16 << 20, follower_timeout: std::time::Duration::from_secs(120) };
        let service = Arc::new(MatcherHooks::service(self.data_dir(), between_batches, config)?);
        *slot = Some(service.clone());
        Ok(service)
    }

    /// Reads a voice name: a library voice, a stock voice or a blend.
    pub async fn voice_spec(&self, text: &str) -> Result<VoiceSpec> {
        let registered = self.store.voice(text.trim()).await?.is_some();
        let spec = VoiceSpec::parse(text, |_| registered)?;
        // A remote voice names a configured engine, and a library voice to clone that exists.
        self.remote.check(&spec).await?;
        Ok(spec)
    }

    /// A voice as it speaks: a library voice becomes its fitted voice or
    /// matched blend in its own language; stock voices and blends stay as
    /// they are.
    pub async fn resolve_voice(&self, spec: &VoiceSpec) -> Result<VoiceSpec> {
        self.resolve_voice_in(spec, None).await
    }

    /// A voice as it speaks `language` (its own when `None`): a library
    /// voice becomes its fit for that language, or else the blend of that
    /// language's closest stock voices; other voices stay as they are.
    pub async fn resolve_voice_in(&self, spec: &VoiceSpec, language: Option<&str>) -> Result<VoiceSpec> {
        let Some(name) = spec.library_name() else { return Ok(spec.clone()) };
        let matched = revoice_voices::library::artifact(&self.store, &self.voices, name)
            .await?
            .ok_or_else(|| Error::not_found(format!("voice {name:?}"), "is no longer in the library"))?;
        match language {
            Some(language) => matched.speaking_voice_in(language),
            None => matched.speaking_voice(),
        }
    }

    /// A track's lines, resolved (see [`TrackLines`]).
    pub async fn track_lines(&self, track_id: i64) -> Result<TrackLines> {
        TrackLines::load(&self.store, &self.voices, track_id, self.fit_limits()).await
    }

    /// Every track of a project, resolved.
    pub async fn project_lines(&self, project_id: i64) -> Result<Vec<TrackLines>> {
        TrackLines::load_project(&self.store, &self.voices, project_id, self.fit_limits()).await
    }

    /// How a voice fit made in the background searches: the defaults, for
    /// the settings' budget.
    pub fn background_fit_settings(&self) -> revoice_voices::fit::FitSettings {
        revoice_voices::fit::FitSettings { minutes: self.config.settings.voices.fit_minutes, ..Default::default() }
    }

    /// The limits lines are fitted within (the settings' re-synthesis cap).
    pub fn fit_limits(&self) -> FitLimits {
        FitLimits { resynthesize_max_speed: self.config.settings.dub.resynthesize_max_speed, ..FitLimits::default() }
    }

    /// Runs every health check; never fails, problems are in the report.
    pub async fn diagnose(&self) -> Diagnosis {
        let data_dir = self.data_dir().to_path_buf();
        let sqlite_version = self.store.sqlite_version().await.map_err(|e| e.to_string());
        let devices = tokio::task::spawn_blocking(audio::list_output_devices).await.unwrap_or_else(|e| audio::OutputDevices {
            host: "unknown".into(),
            devices: Vec::new(),
            error: Some(format!("device listing crashed: {e}")),
        });
        let configured = &self.config.settings.audio.output_device;
        let models: Vec<_> = model::assets::ALL.iter().map(|m| m.status(&data_dir)).collect();
        let lib_dirs: Vec<&Path> = doctor::LINUX_LIB_DIRS.iter().map(Path::new).collect();

        let mut checks = vec![doctor::check_data_dir(&data_dir), doctor::check_database(self.store.path(), &sqlite_version)];
        checks.extend(models.iter().map(doctor::check_model));
        checks.push(doctor::check_audio(&devices, configured));
        checks.push(doctor::check_display(
            std::env::var("DISPLAY").ok().filter(|v| !v.is_empty()),
            std::env::var("WAYLAND_DISPLAY").ok().filter(|v| !v.is_empty()),
        ));
        checks.push(doctor::check_webview(&lib_dirs));
        checks.push(doctor::check_espeak(which::which("espeak-ng").ok()));
        checks.push(doctor::check_ffmpeg(crate::dub::picture::ffmpeg_version()));
        // Remote engines are asked over the network, off the async workers.
        let engines = self.config().settings.engines.clone();
        let reports = tokio::task::spawn_blocking(move || engines.iter().map(crate::engines::check_engine).collect::<Vec<_>>()).await.unwrap_or_default();
        checks.extend(reports.iter().map(doctor::check_remote_engine));

        Diagnosis {
            engine_version: ENGINE_VERSION.to_string(),
            config_file: self.config.config_file(),
            log_dir: logging::log_dir(&data_dir),
            database: self.store.path().to_path_buf(),
            sqlite_version: sqlite_version.ok(),
            audio_output: devices.chosen(configured).map(|d| d.id.clone()),
            models,
            audio: devices,
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
