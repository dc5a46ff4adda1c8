//! The API server: the router, the bind policy (loopback unless remote
//! access is asked for explicitly), the optional bearer token, and the
//! small routes (`/health`, `/metrics`, `DELETE /v1/audio/cache`). The
//! server listens at once; while the engine's model is still loading,
//! speech routes answer 503 (the engine's "busy").

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde_json::json;

use super::errors::{ApiError, ApiResult};
pub use super::state::{ApiOptions, ApiState, API_KEY_ENV};
use revoice_engine::error::{Error, Result};
use revoice_engine::speech::SpeechLoader;
use revoice_engine::Engine;

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

/// `GET /health`: 200 once the model is loaded (`status: ok`), 503 with
/// `status: loading` before.
async fn health(State(state): State<Arc<ApiState>>) -> Response {
    let Some(speech) = state.engine.speech_loaded() else {
        let body = json!({"status": "loading", "version": revoice_engine::ENGINE_VERSION, "loading": state.engine.speech_loading()});
        return (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response();
    };
    let stats = speech.renderer.scheduler_stats();
    Json(json!({
        "status": "ok",
        "version": revoice_engine::ENGINE_VERSION,
        "model": speech.model_id(),
        "sample_rate": speech.sample_rate(),
        "scheduler": {"width": speech.renderer.scheduler().config().width, "batches": stats.batches, "rows_rendered": stats.rows_rendered},
    }))
    .into_response()
}

async fn metrics(State(state): State<Arc<ApiState>>) -> ApiResult<Response> {
    state.metrics.request("metrics");
    let speech = state.speech()?;
    let remote = super::metrics::RemoteMetrics { engines: state.engine.remote().status(), uploads: state.engine.remote().uploads().made() };
    let text = state.metrics.render(&speech.renderer.cache_stats(), &speech.renderer.scheduler_stats(), &speech.batch_sizes.snapshot(), &remote);
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response())
}

async fn clear_cache(State(state): State<Arc<ApiState>>) -> ApiResult<Json<serde_json::Value>> {
    state.metrics.request("cache_clear");
    let speech = state.speech()?;
    let before = speech.renderer.cache_stats();
    speech.renderer.clear_cache();
    Ok(Json(json!({"cleared": true, "entries_removed": before.entries, "bytes_freed": before.bytes})))
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
    let addr = listener.local_addr().map_err(|e| Error::internal("API listener", e.to_string()))?;
    tracing::info!(%addr, "speech API listening");
    axum::serve(listener, router(state)).with_graceful_shutdown(shutdown).await.map_err(|e| Error::internal(format!("API server on {addr}"), e.to_string()))
}

/// Binds `addr` after the bind policy allows it.
pub async fn bind(addr: SocketAddr, allow_remote: bool) -> Result<tokio::net::TcpListener> {
    check_bind(addr.ip(), allow_remote)?;
    tokio::net::TcpListener::bind(addr).await.map_err(|e| Error::conflict(format!("API address {addr}"), format!("cannot listen there: {e}")))
}

/// A server on its own thread and runtime (the desktop shell, tests,
/// benches). Stops when dropped.
pub struct RunningServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The engine it serves.
    pub engine: Arc<Engine>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunningServer {
    /// Opens the engine on `config` with Kokoro, loads the model and
    /// listens on `addr` (port 0: any free port); returns once it accepts
    /// connections with the model loaded.
    pub fn start(config: revoice_engine::EngineConfig, options: ApiOptions, addr: SocketAddr, allow_remote: bool) -> Result<RunningServer> {
        RunningServer::start_with(config, revoice_engine::speech::kokoro(), true, options, addr, allow_remote)
    }

    /// The same over the model `speech` loads; with `wait_for_model`
    /// false it returns as soon as it listens, the model still loading.
    pub fn start_with(
        config: revoice_engine::EngineConfig,
        speech: SpeechLoader,
        wait_for_model: bool,
        options: ApiOptions,
        addr: SocketAddr,
        allow_remote: bool,
    ) -> Result<RunningServer> {
        check_bind(addr.ip(), allow_remote)?;
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(SocketAddr, Arc<Engine>)>>();
        let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("revoice-api".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready_tx.send(Err(Error::internal("API runtime", e.to_string())));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let started = async {
                        let engine = Arc::new(Engine::open_with(config, speech).await?);
                        if wait_for_model {
                            let loading = engine.clone();
                            tokio::task::spawn_blocking(move || loading.speech()).await.map_err(|e| Error::internal("loading the model", e.to_string()))??;
                        }
                        let state = ApiState::new(engine.clone(), options);
                        let listener = bind(addr, allow_remote).await?;
                        Ok::<_, Error>((engine, state, listener))
                    };
                    match started.await {
                        Ok((engine, state, listener)) => {
                            let _ =
                                ready_tx.send(listener.local_addr().map(|a| (a, engine.clone())).map_err(|e| Error::internal("API listener", e.to_string())));
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
            .map_err(|e| Error::internal("API thread", e.to_string()))?;
        let (addr, engine) = ready_rx.recv().map_err(|_| Error::internal("API server", "its thread ended during start-up"))??;
        Ok(RunningServer { addr, engine, shutdown: Some(shutdown_tx), thread: Some(thread) })
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
