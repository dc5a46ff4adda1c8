//! The one error type every Revoice crate returns. Every failure names what
//! it was working on (a file, a setting, a project, a voice) and why it
//! failed, so that any face (GUI, CLI, HTTP) can show it to a person as it
//! is; and every failure has an [`ErrorKind`], which a face maps to its own
//! answer (the API to an HTTP status, the CLI to its message, the window
//! to an [`ErrorReport`] it acts on by kind).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Result with the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Any error from a library the engine uses, kept as the cause.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What sort of failure an error is, for the faces to answer by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The thing asked for (a project, a line, a voice) does not exist.
    NotFound,
    /// The input (a file, a text, a setting, a name) was rejected.
    InvalidInput,
    /// The request clashes with the state things are in (a name taken, a
    /// project that is rendering).
    Conflict,
    /// The engine cannot take this now but will soon (the model is still
    /// loading); asking again later works.
    Busy,
    /// The user stopped the work.
    Cancelled,
    /// The engine failed in a way the input did not cause (a database, a
    /// disk, a device, the model).
    Internal,
}

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
        source: Cause,
    },
    /// Applying the database's schema migrations failed.
    #[error("database {}: migration failed: {source}", path.display())]
    Migration {
        path: PathBuf,
        #[source]
        source: Cause,
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
    /// What was asked for does not exist.
    #[error("{what}: {reason}")]
    NotFound { what: String, reason: String },
    /// The request clashes with the state things are in.
    #[error("{input}: {reason}")]
    Conflict { input: String, reason: String },
    /// The engine cannot take this now; it can later.
    #[error("{what}: {reason}")]
    Busy { what: String, reason: String },
    /// The engine itself failed (the model, a worker thread).
    #[error("{what}: {reason}")]
    Internal { what: String, reason: String },
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
        Error::Io { action, path: path.as_ref().to_path_buf(), source }
    }

    /// A failure of the database at `path`.
    pub fn database(path: impl AsRef<Path>, source: impl Into<Cause>) -> Self {
        Error::Database { path: path.as_ref().to_path_buf(), source: source.into() }
    }

    /// `input` was rejected because `reason`.
    pub fn invalid(input: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidInput { input: input.into(), reason: reason.into() }
    }

    /// `what` does not exist; `reason` says where it was looked for or what there is.
    pub fn not_found(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::NotFound { what: what.into(), reason: reason.into() }
    }

    /// `input` clashes with the state things are in.
    pub fn conflict(input: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Conflict { input: input.into(), reason: reason.into() }
    }

    /// `what` cannot be done now; `reason` says why and when it can.
    pub fn busy(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Busy { what: what.into(), reason: reason.into() }
    }

    /// The engine failed at `what`.
    pub fn internal(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Internal { what: what.into(), reason: reason.into() }
    }

    /// Wraps this error with what the engine was doing. A context the
    /// error already begins with (the same voice or file named twice) is
    /// not added again.
    pub fn context(self, context: impl Into<String>) -> Self {
        let context = context.into();
        if self.to_string().strip_prefix(context.as_str()).is_some_and(|rest| rest.starts_with(':')) {
            return self;
        }
        Error::Context { context, source: Box::new(self) }
    }

    /// What sort of failure this is (through any context).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::InvalidInput { .. } | Error::Config { .. } => ErrorKind::InvalidInput,
            Error::Conflict { .. } => ErrorKind::Conflict,
            Error::Busy { .. } => ErrorKind::Busy,
            Error::Cancelled(_) => ErrorKind::Cancelled,
            Error::Io { .. } | Error::Database { .. } | Error::Migration { .. } | Error::Audio(_) | Error::Internal { .. } => ErrorKind::Internal,
            Error::Context { source, .. } => source.kind(),
        }
    }

    /// The error under any context wrappers.
    pub fn root(&self) -> &Error {
        match self {
            Error::Context { source, .. } => source.root(),
            other => other,
        }
    }
}

/// An error as the window receives it: its kind to act on, its message as
/// people read it (the error's whole text, context and all), and what it
/// names as rejected or missing, so a form can mark that field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ErrorReport {
    pub kind: ErrorKind,
    pub message: String,
    /// The root error's input (invalid input, a conflict), what was not
    /// found, or the setting a config file's refusal opens with
    /// (`[dub] segment_store_mb`); `None` for other errors.
    pub input: Option<String>,
}

impl ErrorReport {
    /// A failure the engine did not classify (a worker that died, a
    /// window that cannot be found): kind internal, naming no input.
    pub fn internal(message: impl Into<String>) -> Self {
        ErrorReport { kind: ErrorKind::Internal, message: message.into(), input: None }
    }
}

impl From<&Error> for ErrorReport {
    fn from(error: &Error) -> Self {
        let input = match error.root() {
            Error::InvalidInput { input, .. } | Error::Conflict { input, .. } => Some(input.clone()),
            Error::NotFound { what, .. } => Some(what.clone()),
            Error::Config { reason, .. } => setting_named(reason),
            _ => None,
        };
        ErrorReport { kind: error.kind(), message: error.to_string(), input }
    }
}

impl From<Error> for ErrorReport {
    fn from(error: Error) -> Self {
        ErrorReport::from(&error)
    }
}

/// A message that was only ever text is an internal failure.
impl From<String> for ErrorReport {
    fn from(message: String) -> Self {
        ErrorReport::internal(message)
    }
}

impl From<&str> for ErrorReport {
    fn from(message: &str) -> Self {
        ErrorReport::internal(message)
    }
}

impl std::fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ErrorReport {}

/// The setting a refusal of the config file names first, as the settings'
/// checks write it: `[section] key` (`[dub] segment_store_mb must be …`).
fn setting_named(reason: &str) -> Option<String> {
    let (section, rest) = reason.strip_prefix('[')?.split_once("] ")?;
    let key: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (!section.is_empty() && !section.contains(' ') && !key.is_empty()).then(|| format!("[{section}] {key}"))
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
        let err = Error::io("read", "/nowhere/config.toml", std::io::Error::from(std::io::ErrorKind::NotFound));
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

    #[test]
    fn a_context_the_error_already_names_is_not_said_twice() {
        let err = Error::invalid("voice \"jf_alpha\"", "speaks ja, which this build cannot read yet").context("voice \"jf_alpha\"");
        assert_eq!(err.to_string(), "voice \"jf_alpha\": speaks ja, which this build cannot read yet");
        let other = Error::invalid("voice \"jf_alpha\"", "speaks ja").context("voice \"jf\"");
        assert_eq!(other.to_string(), "voice \"jf\": voice \"jf_alpha\": speaks ja");
    }

    #[test]
    fn the_kind_survives_context_and_says_who_is_at_fault() {
        let missing = Error::not_found("voice \"Bob\"", "is not in the library").context("rendering line 3");
        assert_eq!(missing.kind(), ErrorKind::NotFound);
        assert_eq!(missing.to_string(), "rendering line 3: voice \"Bob\": is not in the library");
        assert_eq!(Error::busy("speech", "the model is still loading").kind(), ErrorKind::Busy);
        assert_eq!(Error::conflict("voice \"A\"", "the name is taken").kind(), ErrorKind::Conflict);
        assert_eq!(Error::database("/x.sqlite3", std::io::Error::other("disk I/O error")).kind(), ErrorKind::Internal);
        assert_eq!(Error::invalid("text", "is empty").kind(), ErrorKind::InvalidInput);
        assert!(matches!(missing.root(), Error::NotFound { .. }));
    }

    #[test]
    fn a_report_keeps_the_kind_through_context_and_names_the_roots_input() {
        let refused = Error::invalid("voice name \"A/B\"", "use letters").context("adding a voice").context("the voice library");
        let report = ErrorReport::from(&refused);
        assert_eq!(report.kind, ErrorKind::InvalidInput);
        assert_eq!(report.message, "the voice library: adding a voice: voice name \"A/B\": use letters", "the whole text, unchanged");
        assert_eq!(report.input.as_deref(), Some("voice name \"A/B\""), "the root's input, not a context");

        let missing = ErrorReport::from(Error::not_found("segment 7", "there is no such segment").context("rendering"));
        assert_eq!((missing.kind, missing.input.as_deref()), (ErrorKind::NotFound, Some("segment 7")));
        let taken = ErrorReport::from(Error::conflict("render of project 2", "it is rendering already"));
        assert_eq!((taken.kind, taken.input.as_deref()), (ErrorKind::Conflict, Some("render of project 2")));
        let loading = ErrorReport::from(Error::busy("the speech model", "is still loading").context("previewing line 3"));
        assert_eq!((loading.kind, loading.input), (ErrorKind::Busy, None));
        assert_eq!(loading.message, "previewing line 3: the speech model: is still loading");
        let disk = ErrorReport::from(Error::io("read", "/x", std::io::Error::other("gone")));
        assert_eq!((disk.kind, disk.input), (ErrorKind::Internal, None));
    }

    #[test]
    fn a_refused_setting_is_named_by_its_section_and_key() {
        let config = |reason: &str| ErrorReport::from(Error::Config { path: "/d/config.toml".into(), reason: reason.into() });
        let refused = config("[dub] segment_store_mb must be at least 1 MiB").input;
        assert_eq!(refused.as_deref(), Some("[dub] segment_store_mb"));
        assert_eq!(config("[scheduler] batch_width 65 is more rows than the model can use").input.as_deref(), Some("[scheduler] batch_width"));
        assert_eq!(config("TOML parse error at line 1, column 5").input, None);
        let wrapped = ErrorReport::from(
            Error::Config { path: "/d/config.toml".into(), reason: "[api] max_uploaded_voices must be at least 1".into() }
                .context("The settings were not saved"),
        );
        assert_eq!(wrapped.kind, ErrorKind::InvalidInput);
        assert_eq!(wrapped.message, "The settings were not saved: config file /d/config.toml: [api] max_uploaded_voices must be at least 1");
        assert_eq!(wrapped.input.as_deref(), Some("[api] max_uploaded_voices"));
    }

    #[test]
    fn the_window_reads_a_report_in_camel_case_and_text_becomes_internal() {
        // Serialised as the window reads it (through toml's value, the serialiser core has).
        let report = toml::Value::try_from(ErrorReport::from(Error::invalid("text", "is empty"))).unwrap();
        assert_eq!(report.get("kind").and_then(|v| v.as_str()), Some("invalidInput"));
        assert_eq!(report.get("message").and_then(|v| v.as_str()), Some("text: is empty"));
        assert_eq!(report.get("input").and_then(|v| v.as_str()), Some("text"));
        let kinds = [ErrorKind::NotFound, ErrorKind::InvalidInput, ErrorKind::Conflict, ErrorKind::Busy, ErrorKind::Cancelled, ErrorKind::Internal];
        let names: Vec<String> = kinds.iter().map(|k| toml::Value::try_from(k).unwrap().as_str().unwrap().to_string()).collect();
        assert_eq!(names, ["notFound", "invalidInput", "conflict", "busy", "cancelled", "internal"]);
        let plain = ErrorReport::from(format!("The engine did not start: {}", "no data folder"));
        assert_eq!((plain.kind, plain.input.as_deref()), (ErrorKind::Internal, None));
        assert_eq!(plain.to_string(), "The engine did not start: no data folder", "its text is its message");
    }
}
