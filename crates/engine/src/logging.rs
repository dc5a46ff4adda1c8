//! Structured logging for every face of the engine: human-readable lines on
//! stderr and a daily log file under `<data dir>/logs`, both from `tracing`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter};

use revoice_core::error::{Error, Result};

/// Keeps the log file writer flushing; drop it only when the process ends.
pub struct LogGuard {
    _file: tracing_appender::non_blocking::WorkerGuard,
    /// Folder that holds the log files.
    pub dir: PathBuf,
}

/// Folder for log files inside a data directory.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts logging to stderr and to `<data dir>/logs/revoice.<date>.log`.
///
/// `RUST_LOG` overrides `filter`. A second call in the same process (tests)
/// keeps the first subscriber and still returns a guard.
pub fn init(data_dir: &Path, filter: &str) -> Result<LogGuard> {
    let dir = log_dir(data_dir);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("create the log folder", &dir, e))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("revoice")
        .filename_suffix("log")
        .max_log_files(14)
        .build(&dir)
        .map_err(|e| Error::Config { path: dir.clone(), reason: format!("cannot open a log file there: {e}") })?;
    let (file_writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(filter))
        .map_err(|e| Error::InvalidInput { input: format!("log filter {filter:?}"), reason: e.to_string() })?;
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(fmt::layer().with_writer(std::io::stderr).with_ansi(std::io::stderr().is_terminal()).with_target(false).compact())
        .with(fmt::layer().with_writer(file_writer).with_ansi(false))
        .try_init();
    Ok(LogGuard { _file: guard, dir })
}
