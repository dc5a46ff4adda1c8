//! Reference recordings on remote servers: a library voice's recording is
//! uploaded to a server once per content (single flight per server and
//! recording; the name it is held under kept in `remote_voices`), under a
//! name made from its content hash, so every server of an engine knows it
//! by the same name. A server that lost it (404) gets it again; a server
//! that takes no uploads gets the recording inline with each request
//! (`ref_audio`); deleting the library voice deletes its uploads.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine as _;

use super::client::{Fault, ServerClient, NO_UPLOADS};
use revoice_core::blocking::wait;
use revoice_store::remote_voices::RemoteUpload;
use revoice_store::Store;

/// A library voice's recording, as a remote engine clones it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// The library voice it belongs to (for messages).
    pub voice: String,
    pub sha256: String,
    pub path: PathBuf,
    /// What is said in it (may be empty).
    pub text: String,
}

impl Reference {
    /// The name every server holds it under.
    pub fn remote_name(&self) -> String {
        format!("revoice-{}", &self.sha256[..self.sha256.len().min(16)])
    }

    /// The recording as a `data:` URI and its text, for `ref_audio`.
    pub fn inline(&self) -> Result<(String, String), String> {
        let bytes = std::fs::read(&self.path).map_err(|e| format!("the recording of {:?} ({}) cannot be read: {e}", self.voice, self.path.display()))?;
        let mime = match self.path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase().as_str() {
            "mp3" => "audio/mpeg",
            "flac" => "audio/flac",
            "ogg" | "opus" => "audio/ogg",
            "m4a" | "mp4" => "audio/mp4",
            "webm" => "audio/webm",
            _ => "audio/wav",
        };
        Ok((format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)), self.text.clone()))
    }
}

/// One lock per (engine, voice) upload in flight, so each is made once.
type Flights = Mutex<HashMap<(String, String), Arc<Mutex<()>>>>;

/// The uploads of every engine.
pub struct Uploads {
    store: Store,
    runtime: tokio::runtime::Handle,
    flights: Flights,
    no_uploads: Mutex<HashSet<String>>,
    made: AtomicU64,
}

impl Uploads {
    pub fn new(store: Store, runtime: tokio::runtime::Handle) -> Uploads {
        Uploads { store, runtime, flights: Mutex::default(), no_uploads: Mutex::default(), made: AtomicU64::new(0) }
    }

    /// Uploads made by this process.
    pub fn made(&self) -> u64 {
        self.made.load(Ordering::Relaxed)
    }

    /// The name `server` of `engine` knows `reference` by, uploading it
    /// first if it has not got it. Blocking.
    pub fn voice_on(&self, engine: &str, server: &ServerClient, reference: &Reference) -> Result<String, Fault> {
        if self.no_uploads.lock().unwrap_or_else(|e| e.into_inner()).contains(&server.base) {
            return Err(Fault::Line(NO_UPLOADS.to_string()));
        }
        let flight = self.flights.lock().unwrap_or_else(|e| e.into_inner()).entry((server.base.clone(), reference.sha256.clone())).or_default().clone();
        let _only_one = flight.lock().unwrap_or_else(|e| e.into_inner());
        let database = |e: revoice_core::error::Error| Fault::Line(format!("the studio database: {e}"));
        if let Some(name) = wait(&self.runtime, self.store.remote_upload(&server.base, &reference.sha256)).map_err(database)? {
            return Ok(name);
        }
        match server.upload_voice(&reference.remote_name(), &reference.path, &reference.text) {
            Ok(name) => {
                self.made.fetch_add(1, Ordering::Relaxed);
                tracing::info!(engine, server = %server.base, voice = %reference.voice, name, "reference recording uploaded");
                let upload = RemoteUpload {
                    engine: engine.to_string(),
                    server: server.base.clone(),
                    reference_sha256: reference.sha256.clone(),
                    remote_name: name.clone(),
                };
                wait(&self.runtime, self.store.save_remote_upload(&upload)).map_err(database)?;
                Ok(name)
            }
            Err(Fault::Line(reason)) if reason.starts_with(NO_UPLOADS) => {
                self.no_uploads.lock().unwrap_or_else(|e| e.into_inner()).insert(server.base.clone());
                Err(Fault::Line(reason))
            }
            Err(Fault::Line(reason)) => Err(Fault::Line(format!("voice {:?}: {reason}", reference.voice))),
            Err(other) => Err(other),
        }
    }

    /// Forgets that `server` holds `reference` (it answered that it has not got it).
    pub fn forget(&self, server: &str, reference: &Reference) {
        if let Err(e) = wait(&self.runtime, self.store.forget_remote_uploads(&reference.sha256, Some(server))) {
            tracing::warn!(error = %e, "could not forget a lost upload");
        }
    }
}
