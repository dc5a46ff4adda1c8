//! The API server: its shared state (the engine pieces every route uses),
//! the router, the bind policy (loopback unless remote access is asked for
//! explicitly), the optional bearer token, and the small routes (`/health`,
//! `/metrics`, `DELETE /v1/audio/cache`). [`ApiState::open`] loads one
//! synthesizer, starts one renderer (render cache + scheduler owner thread)
//! and one reference-encode service whose encodes run between the
//! scheduler's batches, exactly as the CLI composes them.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde_json::json;

use super::errors::ApiError;
use super::metrics::{BatchSizes, Metrics};
use super::ref_audio::RefAudioPolicy;
use revoice_engine::cache::{ReferenceEncodeConfig, VoiceArtifactCache};
use revoice_engine::dub::stack::RenderStack;
use revoice_engine::error::{Error, Result};
use revoice_engine::model::speech::SpeechModel;
use revoice_engine::render::Renderer;
use revoice_engine::scheduler::SchedulerConfig;
use revoice_engine::store::Store;
use revoice_engine::synth::Synthesizer;
use revoice_engine::voice::encoding::{MatcherHooks, ReferenceVoices};
use revoice_engine::voice::MatchedVoice;
use revoice_engine::Engine;

/// Environment variable holding the API's bearer token.
pub const API_KEY_ENV: &str = "REVOICE_API_KEY";

/// How the server is run, beyond the engine's own settings.
#[derive(Debug, Clone)]
pub struct ApiOptions {
    /// The bearer token requests must carry; `None` = open (loopback only by default).
    pub api_key: Option<String>,
    /// Rules for `ref_audio`.
    pub ref_audio: RefAudioPolicy,
    /// Most voices clients may upload.
    pub max_uploaded_voices: usize,
    /// Scheduler settings instead of the engine's `[scheduler]` (tests, benches).
    pub scheduler: Option<SchedulerConfig>,
}

impl ApiOptions {
    /// From the engine's `[api]` settings; `REVOICE_API_KEY` overrides the key.
    pub fn from_engine(engine: &Engine) -> ApiOptions {
        let api = &engine.config().settings.api;
        let key = std::env::var(API_KEY_ENV).ok().filter(|k| !k.is_empty()).or_else(|| Some(api.api_key.clone()).filter(|k| !k.is_empty()));
        ApiOptions {
            api_key: key,
            ref_audio: RefAudioPolicy { media_folders: api.media_folders.clone(), ..RefAudioPolicy::default() },
            max_uploaded_voices: api.max_uploaded_voices,
            scheduler: None,
        }
    }
}

/// Everything the routes share.
pub struct ApiState {
    pub store: Store,
    pub data_dir: PathBuf,
    pub synth: Arc<Synthesizer>,
    pub renderer: Arc<Renderer>,
    pub references: Arc<ReferenceVoices>,
    pub artifacts: VoiceArtifactCache<MatchedVoice>,
    pub metrics: Arc<Metrics>,
    pub batch_sizes: Arc<BatchSizes>,
    pub ref_policy: RefAudioPolicy,
    pub options: ApiOptions,
    /// Serialises voice uploads and deletes (the cap check and the write).
    pub voice_writes: tokio::sync::Mutex<()>,
}

impl ApiState {
    /// Loads the model and starts the renderer and the reference service
    /// for `engine` (blocking work runs off the async workers).
    pub async fn open(engine: &Engine, options: ApiOptions) -> Result<Arc<ApiState>> {
        let data_dir = engine.data_dir().to_path_buf();
        let settings = engine.config().settings.clone();
        let scheduler = options.scheduler.clone();
        let stack = tokio::task::spawn_blocking(move || match scheduler {
            Some(fixed) => RenderStack::open_with(&data_dir, &settings, fixed),
            None => RenderStack::open(&data_dir, &settings),
        })
        .await
        .map_err(|e| Error::InvalidInput { input: "API start-up".into(), reason: format!("loading the engine crashed: {e}") })??;
        ApiState::on_stack(engine, Arc::new(stack), options)
    }

    /// The API on a stack that is already running (the app's: the editor
    /// and the API then share one model, one scheduler and one render cache).
    pub fn on_stack(engine: &Engine, stack: Arc<RenderStack>, options: ApiOptions) -> Result<Arc<ApiState>> {
        let data_dir = engine.data_dir().to_path_buf();
        let config = ReferenceEncodeConfig { max_bytes: 16 << 20, follower_timeout: Duration::from_secs(120) };
        let references = MatcherHooks::service(&data_dir, Some(stack.renderer.scheduler().tasks()), config)?;
        Ok(Arc::new(ApiState {
            store: engine.store().clone(),
            data_dir,
            synth: stack.synth.clone(),
            renderer: stack.renderer.clone(),
            references: Arc::new(references),
            artifacts: VoiceArtifactCache::new(16 << 20)?,
            metrics: Arc::new(Metrics::default()),
            batch_sizes: stack.batch_sizes.clone(),
            ref_policy: options.ref_audio.clone(),
            options,
            voice_writes: tokio::sync::Mutex::new(()),
        }))
    }
}

/// Refuses to listen beyond this machine unless `allow_remote`.
pub fn check_bind(host: IpAddr, allow_remote: bool) -> Result<()> {
    if host.is_loopback() || allow_remote {
        return Ok(());
    }
    Err(Error::InvalidInput {
        input: format!("--host {host}"),
        reason: "is not a loopback address: other machines could use this engine. Pass --allow-remote (and set an API key) to mean it".into(),
    })
}

/// Every route.
pub fn router(state: Arc<ApiState>) -> Router {
    let api = Router::new()
        .route("/v1/audio/speech", post(super::speech::speech))
        .route("/v1/audio/speech/batch", post(super::batch::batch))
        .route("/v1/audio/speech/stream", get(super::stream_ws::stream))
        .route("/v1/audio/voices", get(super::voices::list).post(super::voices::upload))
        .route("/v1/audio/voices/{name}", delete(super::voices::remove))
        .route("/v1/audio/cache", delete(clear_cache))
        .route("/metrics", get(metrics))
        .route_layer(middleware::from_fn_with_state(state.clone(), require_key));
    Router::new()
        .route("/health", get(health))
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(32 << 20))
        .with_state(state)
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn require_key(State(state): State<Arc<ApiState>>, request: Request, next: Next) -> Response {
    if let Some(key) = &state.options.api_key {
        let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer ")).unwrap_or("");
        if !same(given.trim().as_bytes(), key.as_bytes()) {
            return ApiError::unauthorized().into_response();
        }
    }
    next.run(request).await
}

async fn health(State(state): State<Arc<ApiState>>) -> Json<serde_json::Value> {
    let stats = state.renderer.scheduler_stats();
    Json(json!({
        "status": "ok",
        "version": revoice_engine::ENGINE_VERSION,
        "model": state.synth.model().id(),
        "sample_rate": state.synth.sample_rate(),
        "scheduler": {"width": state.renderer.scheduler().config().width, "batches": stats.batches, "rows_rendered": stats.rows_rendered},
    }))
}

async fn metrics(State(state): State<Arc<ApiState>>) -> Response {
    state.metrics.request("metrics");
    let text = state.metrics.render(&state.renderer.cache_stats(), &state.renderer.scheduler_stats(), &state.batch_sizes.snapshot());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn clear_cache(State(state): State<Arc<ApiState>>) -> Json<serde_json::Value> {
    state.metrics.request("cache_clear");
    let before = state.renderer.cache_stats();
    state.renderer.clear_cache();
    Json(json!({"cleared": true, "entries_removed": before.entries, "bytes_freed": before.bytes}))
}

async fn not_found(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(None, format!("no route {method} {}", uri.path()))
}

async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> Response {
    let e = ApiError { status: StatusCode::METHOD_NOT_ALLOWED, message: format!("{method} is not allowed on {}", uri.path()), param: None };
    e.into_response()
}

/// Serves on `listener` until `shutdown` resolves.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<ApiState>, shutdown: impl std::future::Future<Output = ()> + Send + 'static) -> Result<()> {
    let addr = listener.local_addr().map_err(|e| Error::InvalidInput { input: "API listener".into(), reason: e.to_string() })?;
    tracing::info!(%addr, "speech API listening");
    axum::serve(listener, router(state)).with_graceful_shutdown(shutdown).await.map_err(|e| Error::InvalidInput { input: format!("API server on {addr}"), reason: e.to_string() })
}

/// Binds `addr` after the bind policy allows it.
pub async fn bind(addr: SocketAddr, allow_remote: bool) -> Result<tokio::net::TcpListener> {
    check_bind(addr.ip(), allow_remote)?;
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::InvalidInput { input: format!("API address {addr}"), reason: format!("cannot listen there: {e}") })
}

/// A server on its own thread and runtime (the desktop shell, tests,
/// benches). Stops when dropped.
pub struct RunningServer {
    /// Where it listens.
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunningServer {
    /// Opens the engine on `config`, loads the API state and listens on
    /// `addr` (port 0: any free port); returns once it accepts connections.
    pub fn start(config: revoice_engine::EngineConfig, options: ApiOptions, addr: SocketAddr, allow_remote: bool) -> Result<RunningServer> {
        check_bind(addr.ip(), allow_remote)?;
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<SocketAddr>>();
        let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("revoice-api".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready_tx.send(Err(Error::InvalidInput { input: "API runtime".into(), reason: e.to_string() }));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let started = async {
                        let engine = Engine::open(config).await?;
                        let state = ApiState::open(&engine, options).await?;
                        let listener = bind(addr, allow_remote).await?;
                        Ok::<_, Error>((engine, state, listener))
                    };
                    match started.await {
                        Ok((engine, state, listener)) => {
                            let _ = ready_tx.send(listener.local_addr().map_err(|e| Error::InvalidInput { input: "API listener".into(), reason: e.to_string() }));
                            if let Err(e) = serve(listener, state, async move {
                                let _ = shutdown_rx.await;
                            })
                            .await
                            {
                                tracing::error!(error = %e, "the speech API stopped");
                            }
                            engine.close().await;
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                        }
                    }
                });
            })
            .map_err(|e| Error::InvalidInput { input: "API thread".into(), reason: e.to_string() })?;
        let addr = ready_rx
            .recv()
            .map_err(|_| Error::InvalidInput { input: "API server".into(), reason: "its thread ended during start-up".into() })??;
        Ok(RunningServer { addr, shutdown: Some(shutdown_tx), thread: Some(thread) })
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_allowed_without_asking() {
        assert!(check_bind("127.0.0.1".parse().unwrap(), false).is_ok());
        assert!(check_bind("::1".parse().unwrap(), false).is_ok());
        let err = check_bind("0.0.0.0".parse().unwrap(), false).unwrap_err().to_string();
        assert!(err.contains("--allow-remote"), "{err}");
        assert!(check_bind("0.0.0.0".parse().unwrap(), true).is_ok());
    }

    #[test]
    fn keys_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
    }
}
