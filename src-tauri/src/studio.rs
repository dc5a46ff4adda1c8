//! The app's hold on the engine: opened once at start-up and shared by every
//! command, with the editor's session on it. If the engine cannot open (a
//! broken config file, an unreadable database), the window still opens and
//! shows why, instead of vanishing. It also runs the local speech API on
//! that engine when `[api] enabled` (or when a command starts it), on
//! 127.0.0.1 at `[api] port`: one model, scheduler and cache for both.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use revoice_api::server::{bind, serve, ApiOptions, ApiState};
use revoice_engine::error::ErrorReport;
use revoice_engine::logging::LogGuard;
use revoice_engine::studio::session::{EventSink, StudioSession};
use revoice_engine::Engine;

/// What a command answers: its value, or the error as the window acts on
/// it (its kind, the message a person reads, the input it names). A plain
/// message (`String`) becomes an internal error by `?`.
pub type Answer<T> = Result<T, ErrorReport>;

/// An engine error as the window receives it.
pub fn report(e: revoice_engine::Error) -> ErrorReport {
    ErrorReport::from(e)
}

/// Runs blocking engine work off the async workers; its answer.
pub async fn blocking<T: Send + 'static>(work: impl FnOnce() -> revoice_engine::Result<T> + Send + 'static) -> Answer<T> {
    tauri::async_runtime::spawn_blocking(work).await.map_err(|e| ErrorReport::internal(format!("The engine's worker failed: {e}")))?.map_err(report)
}

/// The speech API while it runs: where it listens and how to stop it.
struct ApiServer {
    url: String,
    stop: tokio::sync::oneshot::Sender<()>,
}

/// Managed state: the engine and the editor's session on it, or the
/// reason they did not open.
pub struct Studio {
    engine: Result<Arc<Engine>, String>,
    session: Result<Arc<StudioSession>, String>,
    _log: Option<LogGuard>,
    api: tokio::sync::Mutex<Option<ApiServer>>,
    /// Serves the picture to the window, started when first asked for.
    picture: tokio::sync::OnceCell<crate::picture_server::PictureServer>,
}

impl Studio {
    /// Opens the engine on `data_dir` (or the default data folder) and a
    /// session whose events go to `sink`.
    pub fn start(data_dir: Option<PathBuf>, sink: EventSink) -> Studio {
        match tauri::async_runtime::block_on(revoice_engine::start(data_dir)) {
            Ok((engine, log)) => {
                let engine = Arc::new(engine);
                let session = StudioSession::new(engine.clone(), sink).map_err(|e| e.to_string());
                Studio { engine: Ok(engine), session, _log: Some(log), api: Default::default(), picture: Default::default() }
            }
            Err(e) => {
                eprintln!("Revoice Studio: the engine did not start: {e}");
                Studio { engine: Err(e.to_string()), session: Err(e.to_string()), _log: None, api: Default::default(), picture: Default::default() }
            }
        }
    }

    /// The editor's session, or a message saying why there is none.
    pub fn session(&self) -> Result<Arc<StudioSession>, String> {
        self.session.clone().map_err(|e| format!("The engine did not start: {e}"))
    }

    /// Whether the speech model is loaded: while it loads (started here if
    /// it has not), an error of kind busy, which the window shows as busy
    /// and asks again on, instead of a command that sits waiting.
    pub fn ready_to_speak(&self) -> Answer<()> {
        self.engine()?.speech_ready().map(|_| ()).map_err(report)
    }

    /// The engine, or a message saying why it is not running.
    pub fn engine(&self) -> Result<Arc<Engine>, String> {
        self.engine.clone().map_err(|e| format!("The engine did not start: {e}"))
    }

    /// The server the window plays pictures from (started on first use).
    pub async fn picture_server(&self) -> Result<&crate::picture_server::PictureServer, String> {
        self.picture.get_or_try_init(crate::picture_server::PictureServer::start).await.map_err(|e| format!("The picture cannot be served to the window: {e}"))
    }

    /// Whether the settings ask for the speech API at start-up.
    pub fn api_enabled(&self) -> bool {
        self.engine.as_ref().is_ok_and(|e| e.config().settings.api.enabled)
    }

    /// Starts the local speech API on this engine (127.0.0.1, `[api] port`);
    /// its URL. It listens at once, answering 503 to speech requests until
    /// the model has loaded. Starting it again answers the running one's URL.
    pub async fn start_api(&self) -> Answer<String> {
        let engine = self.engine()?;
        let mut api = self.api.lock().await;
        if let Some(running) = api.as_ref() {
            return Ok(running.url.clone());
        }
        if !revoice_engine::model::assets::KOKORO.status(engine.data_dir()).is_installed() {
            return Err(ErrorReport::internal("The speech API did not start: Kokoro is not installed: run `revoice models install`"));
        }
        let addr = SocketAddr::from(([127, 0, 0, 1], engine.config().settings.api.port));
        let listener = bind(addr, false).await.map_err(report)?;
        let state = ApiState::new(engine.clone(), ApiOptions::from_engine(&engine));
        let local = listener.local_addr().map_err(|e| format!("The speech API has no address: {e}"))?;
        let url = format!("http://{local}");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tauri::async_runtime::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            if let Err(e) = serve(listener, state, shutdown).await {
                tracing::error!(error = %e, "the speech API stopped");
            }
        });
        *api = Some(ApiServer { url: url.clone(), stop });
        Ok(url)
    }

    /// Stops the speech API; whether it was running.
    pub async fn stop_api(&self) -> bool {
        match self.api.lock().await.take() {
            Some(running) => running.stop.send(()).is_ok(),
            None => false,
        }
    }

    /// The running speech API's URL.
    pub async fn api_url(&self) -> Option<String> {
        self.api.lock().await.as_ref().map(|r| r.url.clone())
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

/// The app's commands' tests: a studio on a scratch data folder with one
/// project, "Harbour", whose script has one line of Ana's.
#[cfg(test)]
pub(crate) mod test_scene {
    use std::sync::Arc;

    use revoice_engine::studio::session::StudioSession;

    use super::Studio;

    pub(crate) struct Harbour {
        pub session: Arc<StudioSession>,
        pub project: i64,
        pub ana: i64,
        /// Kept for the studio's life: the data folder goes with it.
        pub _dir: tempfile::TempDir,
    }

    pub(crate) fn harbour() -> Harbour {
        use tauri::async_runtime::block_on;
        let dir = tempfile::tempdir().unwrap();
        let studio = Studio::start(Some(dir.path().to_path_buf()), Arc::new(|_| {}));
        let session = studio.session().unwrap();
        let engine = session.engine().clone();
        let script = dir.path().join("scene.srt");
        std::fs::write(&script, "1\n00:00:00,500 --> 00:00:02,000\n[Ana] The boats are in.\n").unwrap();
        let (project, _) = block_on(engine.create_project("Harbour", "en-US")).unwrap();
        block_on(engine.import_script(project.id, &script, None)).unwrap();
        let ana = block_on(engine.speaker_named(project.id, "Ana")).unwrap();
        Harbour { session, project: project.id, ana: ana.id, _dir: dir }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter().map(|s| s.to_string()).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn the_data_dir_flag_is_read_in_both_spellings() {
        assert_eq!(data_dir_from_args(args(&["--data-dir", "/a b"])), Some(PathBuf::from("/a b")));
        assert_eq!(data_dir_from_args(args(&["-v", "--data-dir=/c"])), Some(PathBuf::from("/c")));
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
    fn the_window_gets_the_engines_kind_and_a_plain_message_as_internal() {
        use revoice_engine::ErrorKind;
        let busy = tauri::async_runtime::block_on(blocking(|| -> revoice_engine::Result<()> {
            Err(revoice_engine::Error::busy("the speech model", "is still loading; try again in a few seconds"))
        }))
        .unwrap_err();
        assert_eq!(busy.kind, ErrorKind::Busy);
        let sent = serde_json::to_value(&busy).unwrap();
        assert_eq!(sent, serde_json::json!({"kind": "busy", "message": "the speech model: is still loading; try again in a few seconds", "input": null}));

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), "not = [valid").unwrap();
        let studio = Studio::start(Some(dir.path().to_path_buf()), Arc::new(|_| {}));
        let opened = || -> Answer<()> {
            studio.engine()?;
            Ok(())
        };
        let refused = opened().unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Internal);
        assert!(refused.message.starts_with("The engine did not start: ") && refused.message.contains("config.toml"), "{refused}");
    }

    #[test]
    fn the_speech_api_without_an_installed_model_says_why_and_is_not_running() {
        let dir = tempfile::tempdir().unwrap();
        let studio = Studio::start(Some(dir.path().to_path_buf()), Arc::new(|_| {}));
        assert!(!studio.api_enabled(), "off unless the settings turn it on");
        let err = tauri::async_runtime::block_on(studio.start_api()).unwrap_err();
        assert!(err.message.contains("models install"), "{err}");
        assert_eq!(err.kind, revoice_engine::ErrorKind::Internal);
        assert_eq!(tauri::async_runtime::block_on(studio.api_url()), None);
        assert!(!tauri::async_runtime::block_on(studio.stop_api()));
    }

    /// A data folder with the test install's models (`scripts/test` makes it).
    fn data_dir_with_models() -> tempfile::TempDir {
        let dir = revoice_tests::data::scratch_data_dir();
        std::fs::write(dir.path().join("config.toml"), "[api]\nenabled = true\nport = 0\n").unwrap();
        dir
    }

    #[test]
    fn the_shell_starts_and_stops_the_speech_api_on_its_engine() {
        use std::io::{Read, Write};
        let dir = data_dir_with_models();
        let studio = Studio::start(Some(dir.path().to_path_buf()), Arc::new(|_| {}));
        assert!(studio.api_enabled());
        let url = tauri::async_runtime::block_on(studio.start_api()).unwrap();
        assert_eq!(tauri::async_runtime::block_on(studio.start_api()).unwrap(), url, "started once");
        // The editor's model, loaded through the session: the API serves on it.
        let editor = studio.session().unwrap().speech().unwrap();
        let addr = url.trim_start_matches("http://").to_string();
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(stream, "GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200") && answer.contains("\"status\":\"ok\""), "{answer}");
        // Speech through the API lands in the editor's scheduler: one model, one scheduler, one cache.
        let before = editor.renderer.scheduler_stats().rows_rendered;
        let body = r#"{"model":"kokoro","input":"One shared engine.","voice":"af_heart","response_format":"wav"}"#;
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "POST /v1/audio/speech HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).unwrap();
        assert!(reply.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&reply[..reply.len().min(300)]));
        assert!(editor.renderer.scheduler_stats().rows_rendered > before, "the API's row went through the editor's scheduler");
        assert!(tauri::async_runtime::block_on(studio.stop_api()));
        assert_eq!(tauri::async_runtime::block_on(studio.api_url()), None);
    }

    #[test]
    fn an_engine_opens_on_a_fresh_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let studio = Studio::start(Some(dir.path().join("new")), Arc::new(|_| {}));
        let engine = studio.engine().expect("engine opens");
        assert_eq!(engine.data_dir(), dir.path().join("new"));
    }
}
