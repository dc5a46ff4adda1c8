//! What every Revoice crate shares: the one error type (each failure names
//! its input and reason, and has a kind that faces map to their own
//! answers) and atomic file writes.

pub mod error;
pub mod fsutil;

pub use error::{Error, ErrorKind, Result, ResultExt};
