//! Rendering through remote engines: servers that speak the speech API
//! (`[[engines]]` in `config.toml`). `client.rs` talks to one server,
//! `fleet.rs` spreads lines over an engine's servers with failover,
//! `uploads.rs` keeps reference recordings uploaded once per server.
//! [`RemoteEngines`] holds one [`Fleet`] per engine for the process, so
//! a server's standing (in or out of rotation, and why) outlives a render;
//! an engine edited in `config.toml` is picked up on its next use.

pub mod client;
pub mod fleet;
pub mod stand_in;
pub mod uploads;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Serialize;

pub use client::{SpeechItem, SpokenLine};
pub use fleet::{Failover, Fleet, FleetRun, RemoteLine, ServerStatus};
pub use uploads::{Reference, Uploads};

use revoice_core::blocking::wait;
use revoice_core::config::{EngineConfig, RemoteEngineSettings};
use revoice_core::error::{Error, Result};
use revoice_speech::voice_spec::{RemoteVoice, VoiceSpec};
use revoice_store::Store;

/// An engine's servers as they stand.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineStatus {
    pub name: String,
    pub servers: Vec<ServerStatus>,
}

/// The remote engines of one process.
pub struct RemoteEngines {
    data_dir: PathBuf,
    runtime: tokio::runtime::Handle,
    store: Store,
    uploads: Arc<Uploads>,
    fleets: Mutex<HashMap<String, Arc<Fleet>>>,
    /// The engines as last read, and the file's stamp then.
    read: Mutex<Option<(ConfigStamp, Vec<RemoteEngineSettings>)>>,
}

/// When `config.toml` last changed, and its size: read again when either moves.
type ConfigStamp = (std::time::SystemTime, u64);

impl RemoteEngines {
    pub fn new(data_dir: PathBuf, store: Store, runtime: tokio::runtime::Handle) -> RemoteEngines {
        let uploads = Arc::new(Uploads::new(store.clone(), runtime.clone()));
        RemoteEngines { data_dir, runtime, store, uploads, fleets: Mutex::default(), read: Mutex::default() }
    }

    /// The engines in `config.toml` now (read again only when the file
    /// changed: a render asks once per remote line).
    pub fn configured(&self) -> Result<Vec<RemoteEngineSettings>> {
        let stamp = std::fs::metadata(self.data_dir.join(revoice_core::config::CONFIG_FILE_NAME)).and_then(|m| Ok((m.modified()?, m.len()))).ok();
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some(stamp), Some((at, engines))) = (stamp, read.as_ref()) {
            if *at == stamp {
                return Ok(engines.clone());
            }
        }
        let engines = EngineConfig::load_from(self.data_dir.clone())?.settings.engines;
        *read = stamp.map(|stamp| (stamp, engines.clone()));
        Ok(engines)
    }

    /// Engine `name`'s fleet (kept while its settings stay the same).
    pub fn fleet(&self, name: &str) -> Result<Arc<Fleet>> {
        let configured = self.configured()?;
        let Some(settings) = configured.iter().find(|e| e.name.eq_ignore_ascii_case(name)) else {
            let known: Vec<&str> = configured.iter().map(|e| e.name.as_str()).collect();
            let hint = if known.is_empty() {
                "no remote engines are configured (`revoice engines add NAME URL`, or Settings)".to_string()
            } else {
                format!("the remote engines are {}", known.join(", "))
            };
            return Err(Error::not_found(format!("engine {name:?}"), hint));
        };
        let mut fleets = self.fleets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fleet) = fleets.get(&settings.name).filter(|f| &f.settings == settings) {
            return Ok(fleet.clone());
        }
        let fleet = Arc::new(Fleet::new(settings.clone(), self.uploads.clone()));
        fleets.insert(settings.name.clone(), fleet.clone());
        Ok(fleet)
    }

    /// The servers of every engine used by this process.
    pub fn status(&self) -> Vec<EngineStatus> {
        let fleets = self.fleets.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<EngineStatus> = fleets.values().map(|f| EngineStatus { name: f.settings.name.clone(), servers: f.status() }).collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    /// Each configured engine and the voices its first reachable server
    /// names (none when no server answers in time). Blocking.
    pub fn voice_lists(&self) -> Vec<(String, Vec<String>)> {
        let Ok(configured) = self.configured() else { return Vec::new() };
        configured
            .iter()
            .map(|engine| {
                let names = engine
                    .urls
                    .iter()
                    .find_map(|url| client::ServerClient::new(url, &engine.api_key, &engine.model, engine.timeout()).voice_names().ok())
                    .unwrap_or_default();
                (engine.name.clone(), names)
            })
            .collect()
    }

    /// The reference uploads.
    pub fn uploads(&self) -> &Arc<Uploads> {
        &self.uploads
    }

    /// Checks that a remote voice can be used: its engine is configured and
    /// a library voice it clones exists.
    pub async fn check(&self, spec: &VoiceSpec) -> Result<()> {
        let Some((engine, voice)) = spec.remote() else { return Ok(()) };
        self.fleet(engine)?;
        if let RemoteVoice::Reference(name) = voice {
            self.reference(name).await?;
        }
        Ok(())
    }

    /// A library voice's recording, for cloning on a remote engine.
    pub async fn reference(&self, voice: &str) -> Result<Reference> {
        let record = self
            .store
            .voice(voice)
            .await?
            .ok_or_else(|| Error::not_found(format!("voice {voice:?}"), "is not in your library (after '@' name a library voice)"))?;
        Ok(Reference {
            voice: voice.to_string(),
            sha256: record.voice.reference_sha256.clone(),
            path: self.data_dir.join(&record.voice.reference_file),
            text: record.voice.reference_text.clone(),
        })
    }

    /// The line for `spec`'s engine: its request, and the recording it clones.
    pub async fn line(&self, spec: &VoiceSpec, text: &str, speed: f32, seed: u64, language: Option<&str>) -> Result<RemoteLine> {
        let (_, voice) = spec.remote().ok_or_else(|| Error::invalid(format!("voice {:?}", spec.to_string()), "is not a voice on a remote engine"))?;
        let language = language.and_then(|l| revoice_text::language::parse(l).ok().flatten()).map(|l| l.name.to_string());
        let mut item = SpeechItem { input: text.to_string(), voice: None, ref_audio: None, speed, seed, language };
        let reference = match voice {
            RemoteVoice::Named(name) => {
                item.voice = Some(name.clone());
                None
            }
            RemoteVoice::Reference(name) => Some(self.reference(name).await?),
        };
        Ok(RemoteLine { item, reference })
    }

    /// Says `text` with a remote voice, streamed from its engine (for `say`
    /// and previews): `play` gets the audio at `rate` as it arrives; the
    /// whole line is returned. Blocking.
    #[allow(clippy::too_many_arguments)]
    pub fn speak(
        &self,
        spec: &VoiceSpec,
        text: &str,
        speed: f32,
        language: Option<&str>,
        cancel: &std::sync::atomic::AtomicBool,
        rate: u32,
        play: &mut dyn FnMut(&[f32]) -> Result<()>,
    ) -> Result<Vec<f32>> {
        let (engine, _) = spec.remote().ok_or_else(|| Error::invalid(format!("voice {:?}", spec.to_string()), "is not a voice on a remote engine"))?;
        let fleet = self.fleet(engine)?;
        let line = wait(&self.runtime, self.line(spec, text, speed, 1, language))?;
        fleet.speak_streaming(&line, cancel, rate, play)
    }

    /// Deletes a recording's uploads from the servers that hold it (in the
    /// background; a server that cannot be reached keeps it).
    pub async fn forget_recording(&self, reference_sha256: &str) {
        let uploads = match self.store.forget_remote_uploads(reference_sha256, None).await {
            Ok(u) => u,
            Err(e) => return tracing::warn!(error = %e, "could not read a deleted voice's uploads"),
        };
        let Ok(configured) = self.configured() else { return };
        for upload in uploads {
            let key = configured.iter().find(|e| e.name == upload.engine).map(|e| e.api_key.clone()).unwrap_or_default();
            std::thread::spawn(move || {
                let client = client::ServerClient::new(&upload.server, &key, "", std::time::Duration::from_secs(10));
                if let Err(e) = client.delete_voice(&upload.remote_name) {
                    tracing::warn!(server = %upload.server, error = %e, "a deleted voice's upload stays on its server");
                }
            });
        }
    }
}
