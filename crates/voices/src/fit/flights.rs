//! The voice fits in flight in this process: one per fit key (callers of
//! a running fit wait for it and share its progress), and the queue that
//! background fits take turns in (one at a time: a fit keeps both cores busy).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::FitProgress;

pub struct Flight {
    /// Held by the caller running the fit; the others wait on it.
    pub turn: tokio::sync::Mutex<()>,
    pub progress: watch::Sender<Option<FitProgress>>,
    pub cancelled: AtomicBool,
}

/// Background fits waiting behind the one running, at most.
pub const MAX_QUEUED_FITS: usize = 8;

/// The fits running in this process, by fit key, and the queue that
/// background fits take turns in (one at a time: a fit keeps both cores busy).
pub struct FitFlights {
    pub running: Mutex<HashMap<String, Arc<Flight>>>,
    pub background: Arc<tokio::sync::Semaphore>,
    pub queued: Arc<std::sync::atomic::AtomicUsize>,
    /// Background fits of library voices, queued or running: by voice
    /// name, the language and fit key of each.
    library: Mutex<HashMap<String, Vec<(String, String)>>>,
}

impl Default for FitFlights {
    fn default() -> FitFlights {
        FitFlights { running: Mutex::default(), background: Arc::new(tokio::sync::Semaphore::new(1)), queued: Arc::default(), library: Mutex::default() }
    }
}

impl FitFlights {
    pub fn join(&self, key: &str) -> Arc<Flight> {
        let mut flights = self.running.lock().unwrap_or_else(|p| p.into_inner());
        flights
            .entry(key.to_string())
            .or_insert_with(|| Arc::new(Flight { turn: tokio::sync::Mutex::new(()), progress: watch::channel(None).0, cancelled: AtomicBool::new(false) }))
            .clone()
    }

    /// Notes a library voice's background fit for `language` under `key`.
    pub fn library_fit_queued(&self, voice: &str, language: &str, key: &str) {
        let mut library = self.library.lock().unwrap_or_else(|p| p.into_inner());
        let fits = library.entry(voice.to_string()).or_default();
        if !fits.iter().any(|(_, k)| k == key) {
            fits.push((language.to_string(), key.to_string()));
        }
    }

    /// A library voice's background fit under `key` has ended.
    pub fn library_fit_ended(&self, voice: &str, key: &str) {
        let mut library = self.library.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(fits) = library.get_mut(voice) {
            fits.retain(|(_, k)| k != key);
            if fits.is_empty() {
                library.remove(voice);
            }
        }
    }

    /// A library voice's background fits, queued or running: the language
    /// and key of each, in the order they were asked for.
    pub fn library_fits(&self, voice: &str) -> Vec<(String, String)> {
        self.library.lock().unwrap_or_else(|p| p.into_inner()).get(voice).cloned().unwrap_or_default()
    }

    pub fn leave(&self, key: &str, flight: &Arc<Flight>) {
        let mut flights = self.running.lock().unwrap_or_else(|p| p.into_inner());
        // The map and this caller hold it: nobody else is waiting.
        if flights.get(key).is_some_and(|f| Arc::ptr_eq(f, flight)) && Arc::strong_count(flight) == 2 {
            flights.remove(key);
        }
    }
}
