//! The app's hold on the engine: opened once at start-up and shared by every
//! command. If the engine cannot open (a broken config file, an unreadable
//! database), the window still opens and shows why, instead of vanishing.

use std::path::PathBuf;
use std::sync::Arc;

use revoice::logging::LogGuard;
use revoice::studio::session::{EventSink, StudioSession};
use revoice::Engine;

/// Managed state: the engine and the editor's session on it, or the
/// reason they did not open.
pub struct Studio {
    engine: Result<Arc<Engine>, String>,
    session: Result<Arc<StudioSession>, String>,
    _log: Option<LogGuard>,
}

impl Studio {
    /// Opens the engine on `data_dir` (or the default data folder) and a
    /// session whose events go to `sink`.
    pub fn start(data_dir: Option<PathBuf>, sink: EventSink) -> Studio {
        match tauri::async_runtime::block_on(revoice::start(data_dir)) {
            Ok((engine, log)) => {
                let engine = Arc::new(engine);
                let runtime = tauri::async_runtime::handle().inner().clone();
                let session = StudioSession::new(engine.clone(), runtime, sink).map_err(|e| e.to_string());
                Studio { engine: Ok(engine), session, _log: Some(log) }
            }
            Err(e) => {
                eprintln!("Revoice Studio: the engine did not start: {e}");
                Studio {
                    engine: Err(e.to_string()),
                    session: Err(e.to_string()),
                    _log: None,
                }
            }
        }
    }

    /// The editor's session, or a message saying why there is none.
    pub fn session(&self) -> Result<Arc<StudioSession>, String> {
        self.session.clone().map_err(|e| format!("The engine did not start: {e}"))
    }

    /// The engine, or a message saying why it is not running.
    pub fn engine(&self) -> Result<Arc<Engine>, String> {
        self.engine
            .clone()
            .map_err(|e| format!("The engine did not start: {e}"))
    }
}

/// Reads `--data-dir DIR` or `--data-dir=DIR` from the app's arguments.
pub fn data_dir_from_args(mut args: impl Iterator<Item = String>) -> Option<PathBuf> {
    while let Some(arg) = args.next() {
        if arg == "--data-dir" {
            return args.next().map(PathBuf::from);
        }
        if let Some(dir) = arg.strip_prefix("--data-dir=") {
            return Some(PathBuf::from(dir));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter().map(|s| s.to_string()).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn the_data_dir_flag_is_read_in_both_spellings() {
        assert_eq!(
            data_dir_from_args(args(&["--data-dir", "/a b"])),
            Some(PathBuf::from("/a b"))
        );
        assert_eq!(
            data_dir_from_args(args(&["-v", "--data-dir=/c"])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(data_dir_from_args(args(&["--other"])), None);
    }

    #[test]
    fn an_engine_that_cannot_open_leaves_a_reason_for_the_window() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), "not = [valid").unwrap();
        let studio = Studio::start(Some(dir.path().to_path_buf()), Arc::new(|_| {}));
        let reason = studio.engine().err().expect("a broken config must not open");
        assert!(reason.contains("config.toml"), "{reason}");
    }

    #[test]
    fn an_engine_opens_on_a_fresh_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let studio = Studio::start(Some(dir.path().join("new")), Arc::new(|_| {}));
        let engine = studio.engine().expect("engine opens");
        assert_eq!(engine.data_dir(), dir.path().join("new"));
    }
}
