//! What every Revoice crate shares: the one error type (each failure names
//! its input and reason, and has a kind that faces map to their own
//! answers), atomic file writes, and the settings every service is tuned
//! by (`config.toml` and the data directory, the translation engines); and the one place sync
//! work waits for async work (`blocking::wait`).

pub mod blocking;
pub mod config;
pub mod error;
pub mod fsutil;
pub mod translators;

pub use error::{Error, ErrorKind, Result, ResultExt};
