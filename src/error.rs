//! The engine's one error type. Every failure names what it was working on
//! (a file, a setting, a device) and why it failed, so that any face (GUI,
//! CLI, HTTP) can show it to a person as it is.

use std::path::{Path, PathBuf};

/// Result with the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong inside the engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file system operation failed on `path`.
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The config file exists but cannot be used.
    #[error("config file {}: {reason}", path.display())]
    Config { path: PathBuf, reason: String },
    /// The project database failed.
    #[error("database {}: {source}", path.display())]
    Database {
        path: PathBuf,
        #[source]
        source: sqlx::Error,
    },
    /// Applying the database's schema migrations failed.
    #[error("database {}: migration failed: {source}", path.display())]
    Migration {
        path: PathBuf,
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// Audio output or device enumeration failed.
    #[error("audio: {0}")]
    Audio(String),
    /// Work stopped because the user cancelled it.
    #[error("{0} was cancelled")]
    Cancelled(String),
    /// Input from a user (a file, a text, a name) was rejected.
    #[error("{input}: {reason}")]
    InvalidInput { input: String, reason: String },
    /// Another error, with what the engine was doing when it happened.
    #[error("{context}: {source}")]
    Context {
        context: String,
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// An I/O failure while doing `action` (a verb phrase: "create", "read") on `path`.
    pub fn io(action: &'static str, path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// Wraps this error with what the engine was doing.
    pub fn context(self, context: impl Into<String>) -> Self {
        Error::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }
}

/// Adds `.context(...)` to engine results.
pub trait ResultExt<T> {
    /// On error, says what the engine was doing; the closure runs only on error.
    fn context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| e.context(context()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_names_the_path_and_the_action() {
        let err = Error::io(
            "read",
            "/nowhere/config.toml",
            std::io::Error::from(std::io::ErrorKind::NotFound),
        );
        let text = err.to_string();
        assert!(text.contains("could not read /nowhere/config.toml"), "{text}");
    }

    #[test]
    fn context_is_prepended_and_the_cause_is_kept() {
        let err: Result<()> = Err(Error::Audio("no device".into()));
        let err = err.context(|| "opening playback").unwrap_err();
        assert_eq!(err.to_string(), "opening playback: audio: no device");
        assert!(std::error::Error::source(&err).is_some());
    }
}
