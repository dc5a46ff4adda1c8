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
}

impl Default for FitFlights {
    fn default() -> FitFlights {
        FitFlights { running: Mutex::default(), background: Arc::new(tokio::sync::Semaphore::new(1)), queued: Arc::default() }
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

    pub fn leave(&self, key: &str, flight: &Arc<Flight>) {
        let mut flights = self.running.lock().unwrap_or_else(|p| p.into_inner());
        // The map and this caller hold it: nobody else is waiting.
        if flights.get(key).is_some_and(|f| Arc::ptr_eq(f, flight)) && Arc::strong_count(flight) == 2 {
            flights.remove(key);
        }
    }
}
