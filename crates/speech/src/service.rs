//! The speech stack's one slot in the engine: loaded once, on first need
//! or in the background, and shared by every face. While it loads,
//! [`SpeechService::ready`] answers "busy" at once (the API's 503) where
//! [`SpeechService::get`] waits for it (a render, a preview). A failed
//! load is not kept: the next request tries again, and says why meanwhile.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::stack::{SpeechLoader, SpeechStack};
use revoice_core::config::Settings;
use revoice_core::error::{Error, Result};

enum Slot {
    Idle,
    Loading,
    Ready(Arc<SpeechStack>),
    /// The last load failed, with its message.
    Failed(String),
}

/// The engine's speech stack, loaded once.
pub struct SpeechService {
    loader: SpeechLoader,
    data_dir: PathBuf,
    settings: Settings,
    slot: Mutex<Slot>,
    changed: Condvar,
}

impl SpeechService {
    pub fn new(loader: SpeechLoader, data_dir: PathBuf, settings: Settings) -> SpeechService {
        SpeechService { loader, data_dir, settings, slot: Mutex::new(Slot::Idle), changed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The stack, loading it on this thread if nobody has (blocking:
    /// seconds), or waiting for the load in progress.
    pub fn get(&self) -> Result<Arc<SpeechStack>> {
        let mut slot = self.lock();
        loop {
            match &*slot {
                Slot::Ready(stack) => return Ok(stack.clone()),
                Slot::Loading => slot = self.changed.wait(slot).unwrap_or_else(|p| p.into_inner()),
                Slot::Idle | Slot::Failed(_) => break,
            }
        }
        *slot = Slot::Loading;
        drop(slot);
        tracing::info!(data_dir = %self.data_dir.display(), "loading the speech model");
        let started = std::time::Instant::now();
        let loaded = (self.loader)(&self.data_dir).and_then(|parts| SpeechStack::start(parts, &self.data_dir, &self.settings));
        let mut slot = self.lock();
        let outcome = match loaded {
            Ok(stack) => {
                tracing::info!(seconds = started.elapsed().as_secs_f64(), model = stack.model_id(), "speech model loaded");
                let stack = Arc::new(stack);
                *slot = Slot::Ready(stack.clone());
                Ok(stack)
            }
            Err(e) => {
                tracing::warn!(error = %e, "the speech model did not load");
                *slot = Slot::Failed(e.to_string());
                Err(e)
            }
        };
        self.changed.notify_all();
        outcome
    }

    /// The stack if it is loaded; otherwise starts loading it in the
    /// background and answers busy (or, after a failed load, why).
    pub fn ready(self: &Arc<Self>) -> Result<Arc<SpeechStack>> {
        let failed = match &*self.lock() {
            Slot::Ready(stack) => return Ok(stack.clone()),
            Slot::Loading => return Err(still_loading()),
            Slot::Idle => None,
            Slot::Failed(reason) => Some(reason.clone()),
        };
        self.start_loading();
        match failed {
            Some(reason) => Err(Error::internal("the speech model", format!("did not load ({reason}); trying again"))),
            None => Err(still_loading()),
        }
    }

    /// Starts loading in the background unless it is loaded or loading.
    pub fn start_loading(self: &Arc<Self>) {
        if matches!(&*self.lock(), Slot::Ready(_) | Slot::Loading) {
            return;
        }
        let service = self.clone();
        let spawned = std::thread::Builder::new().name("revoice-model-load".into()).spawn(move || {
            let _ = service.get();
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "could not start loading the speech model in the background");
        }
    }

    /// The stack, if it is loaded.
    pub fn loaded(&self) -> Option<Arc<SpeechStack>> {
        match &*self.lock() {
            Slot::Ready(stack) => Some(stack.clone()),
            _ => None,
        }
    }

    /// Whether a load is in progress.
    pub fn loading(&self) -> bool {
        matches!(&*self.lock(), Slot::Loading)
    }
}

fn still_loading() -> Error {
    Error::busy("the speech model", "is still loading; try again in a few seconds")
}
