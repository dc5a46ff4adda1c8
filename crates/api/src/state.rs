//! What every route shares: the engine (its speech stack, voice library
//! and store), the API's own counters, and how the server is run (the
//! bearer token, where references may come from, the library's cap).

use std::sync::Arc;

use super::errors::{ApiError, ApiResult};
use super::metrics::Metrics;
use super::ref_audio::RefAudioPolicy;
use revoice_engine::speech::SpeechStack;
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
    /// Fit uploaded voices in the background.
    pub fit_uploaded_voices: bool,
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
            fit_uploaded_voices: api.fit_uploaded_voices,
        }
    }
}

/// Everything the routes share.
pub struct ApiState {
    pub engine: Arc<Engine>,
    pub metrics: Arc<Metrics>,
    pub ref_policy: RefAudioPolicy,
    pub options: ApiOptions,
}

impl ApiState {
    /// The API over `engine`; its model starts loading in the background
    /// if it has not already.
    pub fn new(engine: Arc<Engine>, options: ApiOptions) -> Arc<ApiState> {
        engine.preload_speech();
        Arc::new(ApiState { engine, metrics: Arc::new(Metrics::default()), ref_policy: options.ref_audio.clone(), options })
    }

    /// The engine's speech stack; 503 while the model is still loading.
    pub fn speech(&self) -> ApiResult<Arc<SpeechStack>> {
        self.engine.speech_ready().map_err(|e| ApiError::from_engine(None, e))
    }
}
