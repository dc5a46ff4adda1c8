//! `POST /v1/audio/speech`: the request's fields checked one by one (each
//! error names its field), the voice chosen by task type (a stock voice,
//! blend or registered voice; a reference matched to stock voices; or a
//! description; a voice on a remote engine too), then said through the
//! engine's one speaking operation (`Engine::prepare_speech`, then
//! `Engine::speak_prepared`: the same render cache as `revoice say` and the
//! editor's previews). A whole answer is encoded in the asked format with
//! `X-Cache: HIT` when every sentence came from the cache; `stream: true`
//! with `pcm` answers chunked raw PCM as the pieces arrive. Dropping the
//! answer (a client that hangs up) stops the speaking, which cancels the
//! sentences not yet started.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use super::errors::{ApiError, ApiResult};
use super::formats::{self, ResponseFormat, FORMAT_NAMES};
use super::state::ApiState;
use super::{ref_audio, voice_design};
use revoice_engine::language::{self, Language};
use revoice_engine::speech::AudioPiece;
use revoice_engine::voice::VoiceSpec;
use revoice_engine::{Delivery, PreparedSpeech, SpeakRequest, StopSpeaking};

/// Longest `input`, in characters.
pub const MAX_INPUT_CHARS: usize = 4096;

/// How the voice is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskType {
    /// From `ref_audio`: the stock voices closest to the recording, blended.
    Base,
    /// A named voice: stock, blend or registered.
    CustomVoice,
    /// From `instructions` describing the voice.
    VoiceDesign,
}

/// A checked speech request.
#[derive(Debug, Clone)]
pub struct SpeechRequest {
    pub input: String,
    pub voice: String,
    pub format: ResponseFormat,
    pub speed: f32,
    pub seed: Option<u64>,
    pub language: Option<&'static Language>,
    pub task: TaskType,
    pub instructions: Option<String>,
    pub ref_audio: Option<String>,
    pub ref_text: Option<String>,
    pub max_new_tokens: Option<usize>,
    pub stream: bool,
}

fn bad(param: &str, message: impl Into<String>) -> ApiError {
    ApiError::bad_request(Some(param), message)
}

/// The body as a JSON object.
pub fn json_object(body: &[u8]) -> ApiResult<Map<String, Value>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::bad_request(None, "the request body must be a JSON object")),
        Err(e) => Err(ApiError::bad_request(None, format!("the request body is not valid JSON: {e}"))),
    }
}

fn string(body: &Map<String, Value>, field: &str) -> ApiResult<Option<String>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(bad(field, format!("{field} must be a string, not {}", kind(other)))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks every field of a speech request.
pub fn parse(body: &Map<String, Value>) -> ApiResult<SpeechRequest> {
    string(body, "model")?;
    let input = match body.get("input") {
        None | Some(Value::Null) => return Err(bad("input", "input is required: the text to speak")),
        Some(Value::String(s)) => s.clone(),
        Some(other) => return Err(bad("input", format!("input must be a string, not {}", kind(other)))),
    };
    if input.trim().is_empty() {
        return Err(bad("input", "input is empty: there is nothing to say"));
    }
    let chars = input.chars().count();
    if chars > MAX_INPUT_CHARS {
        return Err(bad("input", format!("input is {chars} characters long; the limit is {MAX_INPUT_CHARS}")));
    }
    let format_name = string(body, "response_format")?.unwrap_or_else(|| "mp3".into());
    let format =
        ResponseFormat::parse(&format_name).ok_or_else(|| bad("response_format", format!("response_format {format_name:?} is not one of {FORMAT_NAMES}")))?;
    let speed = match body.get("speed") {
        None | Some(Value::Null) => 1.0,
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => return Err(bad("speed", format!("speed must be a number, not {}", kind(other)))),
    };
    if !(0.25..=4.0).contains(&speed) {
        return Err(bad("speed", format!("speed {speed} is outside 0.25 to 4.0")));
    }
    let seed = match body.get("seed") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.as_u64().ok_or_else(|| bad("seed", format!("seed {n} must be a whole number from 0 up")))?),
        Some(other) => return Err(bad("seed", format!("seed must be an integer, not {}", kind(other)))),
    };
    let language = match string(body, "language")? {
        None => None,
        Some(l) => language::parse(&l).map_err(|e| bad("language", e))?,
    };
    let instructions = string(body, "instructions")?.filter(|s| !s.trim().is_empty());
    let ref_audio = string(body, "ref_audio")?.filter(|s| !s.trim().is_empty());
    let ref_text = string(body, "ref_text")?;
    let task = match string(body, "task_type")?.as_deref() {
        None => {
            if ref_audio.is_some() {
                TaskType::Base
            } else {
                TaskType::CustomVoice
            }
        }
        Some(t) => match t.to_ascii_lowercase().as_str() {
            "base" => TaskType::Base,
            "customvoice" | "custom_voice" => TaskType::CustomVoice,
            "voicedesign" | "voice_design" => TaskType::VoiceDesign,
            _ => return Err(bad("task_type", format!("task_type {t:?} is not Base, CustomVoice or VoiceDesign"))),
        },
    };
    if task == TaskType::Base && ref_audio.is_none() {
        return Err(bad("ref_audio", "task_type Base needs ref_audio: a recording to match (data: URI, http(s) URL or file:// URL)"));
    }
    if task == TaskType::VoiceDesign && instructions.is_none() {
        return Err(bad("instructions", "task_type VoiceDesign needs instructions describing the voice"));
    }
    let max_new_tokens = match body.get("max_new_tokens") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if v >= 1 => Some(v as usize),
            _ => return Err(bad("max_new_tokens", format!("max_new_tokens {n} must be a whole number from 1 up"))),
        },
        Some(other) => return Err(bad("max_new_tokens", format!("max_new_tokens must be an integer, not {}", kind(other)))),
    };
    let stream = match body.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(bad("stream", format!("stream must be true or false, not {}", kind(other)))),
    };
    if stream && format != ResponseFormat::Pcm {
        return Err(bad("stream", format!("stream: true needs response_format \"pcm\" (raw chunks); {format_name:?} is only sent whole")));
    }
    let voice = string(body, "voice")?.unwrap_or_else(|| "default".into());
    Ok(SpeechRequest { input, voice, format, speed: speed as f32, seed, language, task, instructions, ref_audio, ref_text, max_new_tokens, stream })
}

/// A voice ready for the synthesizer, and headers that say what it is.
#[derive(Debug, Clone)]
pub struct ChosenVoice {
    /// The voice as it speaks: a stock voice, a blend, a fitted voice or a voice on a remote engine.
    pub spec: VoiceSpec,
    /// How to read the text (see [`language::reading_for`]).
    pub reading: Option<&'static str>,
    pub headers: Vec<(&'static str, String)>,
}

fn join<T>(result: Result<T, tokio::task::JoinError>) -> ApiResult<T> {
    result.map_err(|e| ApiError::internal(format!("a worker thread failed: {e}")))
}

/// Chooses the voice for `request`.
pub async fn choose_voice(state: &Arc<ApiState>, request: &SpeechRequest) -> ApiResult<ChosenVoice> {
    let mut headers = Vec::new();
    let stock = |spec: String| VoiceSpec::parse_stock(&spec).map_err(|e| ApiError::from_engine_field("voice", e));
    let voice = match request.task {
        TaskType::Base => {
            let value = request.ref_audio.clone().expect("checked by parse");
            let policy = state.ref_policy.clone();
            let input = join(tokio::task::spawn_blocking(move || ref_audio::resolve(&value, &policy)).await)??;
            let engine = state.engine.clone();
            let recording = input.clone();
            let matched =
                join(tokio::task::spawn_blocking(move || engine.match_recording(recording)).await)?.map_err(|e| ApiError::from_engine_field("ref_audio", e))?;
            // Any decodable reference is taken; what it is worth is said.
            if !matched.quality.warnings.is_empty() {
                headers.push(("x-reference-quality", matched.quality.warnings.join("; ")));
            }
            // A voice fitted to this recording before (an upload of it) speaks; else the quick match.
            let request = revoice_engine::FitRequest { recording: input, settings: state.engine.background_fit_settings(), language: matched.language.clone() };
            match state.engine.fitted_before(&request).await.ok().flatten() {
                Some(fitted) => {
                    headers.push(("x-voice-match", "a voice fitted to ref_audio by search (a fitted voice, not a clone)".to_string()));
                    headers.push(("x-voice-fitted-similarity", format!("{:.3}", fitted.held_out.fitted_similarity)));
                    VoiceSpec::from_fitted(&fitted.recipe, &fitted.held_out.best_stock)
                }
                None => {
                    headers.push(("x-voice-match", "stock voices closest to ref_audio, blended (a match, not a clone)".to_string()));
                    headers.push(("x-voice-blend", matched.blend_spec()));
                    stock(matched.blend_spec())?
                }
            }
        }
        TaskType::VoiceDesign => {
            let text = request.instructions.as_deref().expect("checked by parse");
            let letter = request.language.and_then(|l| l.default_voice.chars().next());
            let designed = voice_design::design(text, letter).ok_or_else(|| {
                bad("instructions", "instructions name no attribute a voice can be picked by: say a gender (female, male), an accent or language (British, American, French, ...) or a timbre (deep, soft, warm, bright, narrator)")
            })?;
            headers.push(("x-voice-design", designed.spec.clone()));
            headers.push(("x-voice-design-attributes", designed.attributes.join(", ")));
            stock(designed.spec)?
        }
        TaskType::CustomVoice => {
            let name = request.voice.trim();
            if name.is_empty() || name.eq_ignore_ascii_case("default") {
                stock(request.language.map_or("af_heart", |l| l.default_voice).to_string())?
            } else {
                let named = state.engine.voice_spec(name).await.map_err(|e| ApiError::from_engine_field("voice", e))?;
                let speaks = state.engine.resolve_voice(&named).await.map_err(|e| ApiError::from_engine_field("voice", e))?;
                if named.library_name().is_some() {
                    headers.push(("x-voice-registered", name.to_string()));
                    headers.push(("x-voice-blend", speaks.to_string()));
                }
                speaks
            }
        }
    };
    let reading = language::reading_for(request.language, voice.language().unwrap_or("en-US"));
    if request.max_new_tokens.is_some() {
        headers.push(("x-max-new-tokens", "taken, bounds nothing: Kokoro renders whole sentences and generates no tokens".into()));
    }
    if request.task == TaskType::CustomVoice && request.instructions.is_some() {
        headers.push(("x-instructions", "not applied: Kokoro has no style control; task_type VoiceDesign picks voices by description".into()));
    }
    Ok(ChosenVoice { spec: voice, reading, headers })
}

/// The text through the engine's front end, on a blocking thread: bad
/// text, or a language the voice cannot read, is refused here naming its
/// field. A local voice answers 503 while the model is still loading.
pub async fn prepare(state: &Arc<ApiState>, request: &SpeechRequest, voice: &ChosenVoice, delivery: Delivery) -> ApiResult<PreparedSpeech> {
    if voice.spec.remote().is_none() {
        state.speech()?;
    }
    let speak = SpeakRequest {
        speed: request.speed,
        seed: request.seed,
        reading: voice.reading,
        delivery,
        ..SpeakRequest::new(request.input.clone(), voice.spec.clone())
    };
    let reading = voice.reading;
    // `max_new_tokens` bounds what an autoregressive model generates; Kokoro
    // generates no tokens (it renders each sentence whole), so a valid value
    // is taken and bounds nothing (`x-max-new-tokens` says so).
    let engine = state.engine.clone();
    join(tokio::task::spawn_blocking(move || engine.prepare_speech(speak)).await)?.map_err(|e| {
        let param = if reading.is_some() { "language" } else { "input" };
        ApiError::from_engine(Some(param), e)
    })
}

/// Says `prepared` on a blocking thread, sending its pieces as they come;
/// once all are sent, how many of its sentences came from the render cache
/// goes to `said`. Dropping the receiver stops the speaking and cancels what
/// has not started.
fn speak(state: &Arc<ApiState>, prepared: PreparedSpeech, said: Option<oneshot::Sender<usize>>) -> mpsc::Receiver<revoice_engine::Result<AudioPiece>> {
    let (tx, rx) = mpsc::channel(8);
    let engine = state.engine.clone();
    let stop = Arc::new(StopSpeaking::default());
    let watcher = {
        let (tx, stop) = (tx.clone(), stop.clone());
        tokio::spawn(async move {
            tx.closed().await;
            stop.stop();
        })
    };
    tokio::task::spawn_blocking(move || {
        let spoken = engine.speak_prepared(&prepared, &stop, &mut |piece| {
            tx.blocking_send(Ok(piece.clone())).map_err(|_| revoice_engine::Error::Cancelled("speaking to a client that left".into()))
        });
        match spoken {
            Ok(spoken) => {
                if let Some(said) = said {
                    let _ = said.send(spoken.cache_hits);
                }
            }
            Err(e) if !stop.stopped() => {
                let _ = tx.blocking_send(Err(e));
            }
            Err(_) => {}
        }
        watcher.abort();
    });
    rx
}

/// Says `prepared` for listening now (the first sentence not cached
/// streams inside itself), its pieces as they come; dropping the receiver
/// stops it and cancels what has not started.
pub fn render_pieces(state: &Arc<ApiState>, prepared: PreparedSpeech) -> mpsc::Receiver<revoice_engine::Result<AudioPiece>> {
    speak(state, prepared, None)
}

/// A whole rendered request.
pub struct Rendered {
    pub samples: Vec<f32>,
    pub sample_rate: u32,
    /// Every row came from the render cache.
    pub cache_hit: bool,
}

/// Says every sentence of `prepared` and records TTFA and RTF from `arrived`.
pub async fn render_all(state: &Arc<ApiState>, prepared: PreparedSpeech, arrived: Instant) -> ApiResult<Rendered> {
    let count = prepared.rows();
    let started = Instant::now();
    let mut waiting = state.metrics.waiting(count);
    let (said, hits) = oneshot::channel();
    let mut pieces = speak(state, prepared, Some(said));
    let (mut samples, mut rate, mut row) = (Vec::new(), 24_000, None);
    while let Some(piece) = pieces.recv().await {
        let piece = piece.map_err(|e| ApiError::internal(format!("synthesis failed: {e}")))?;
        if row.is_none() {
            state.metrics.ttfa.record(arrived.elapsed().as_secs_f64());
        }
        if row != Some(piece.row) {
            waiting.arrived();
            row = Some(piece.row);
        }
        rate = piece.sample_rate;
        samples.extend_from_slice(&piece.samples);
    }
    let hits = hits.await.map_err(|_| ApiError::internal("the speech stopped before every sentence was said"))?;
    let cache_hit = hits == count;
    if !cache_hit && !samples.is_empty() {
        state.metrics.rtf.record(started.elapsed().as_secs_f64() / (samples.len() as f64 / rate as f64));
    }
    Ok(Rendered { samples, sample_rate: rate, cache_hit })
}

/// Encodes on a blocking thread.
pub async fn encode(rendered: Rendered, format: ResponseFormat) -> ApiResult<(Vec<u8>, u32)> {
    let rate = rendered.sample_rate;
    let bytes = join(tokio::task::spawn_blocking(move || formats::encode(&rendered.samples, rate, format)).await)?
        .map_err(|e| ApiError::internal(format!("encoding {} failed: {e}", format.name())))?;
    Ok((bytes, rate))
}

/// A header value, with anything not visible ASCII replaced.
pub fn header_value(text: &str) -> HeaderValue {
    let clean: String = text.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' }).collect();
    HeaderValue::from_str(&clean).unwrap_or_else(|_| HeaderValue::from_static("?"))
}

fn audio_headers(format: ResponseFormat, rate: u32, voice: &ChosenVoice) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(format.content_type()));
    headers.insert("x-sample-rate", HeaderValue::from(rate));
    for (name, value) in &voice.headers {
        headers.insert(HeaderName::from_static(name), header_value(value));
    }
    headers
}

/// `POST /v1/audio/speech`.
pub async fn speech(State(state): State<Arc<ApiState>>, body: Bytes) -> Response {
    state.metrics.request("speech");
    let arrived = Instant::now();
    match answer(&state, &body, arrived).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

async fn answer(state: &Arc<ApiState>, body: &[u8], arrived: Instant) -> ApiResult<Response> {
    let request = parse(&json_object(body)?)?;
    let voice = choose_voice(state, &request).await?;
    if request.stream {
        let prepared = prepare(state, &request, &voice, Delivery::Pieces).await?;
        return stream_pcm(state, prepared, &voice, arrived).await;
    }
    let prepared = prepare(state, &request, &voice, Delivery::Whole).await?;
    let rendered = render_all(state, prepared, arrived).await?;
    let hit = rendered.cache_hit;
    let counter = if hit { &state.metrics.x_cache_hits } else { &state.metrics.x_cache_misses };
    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (bytes, rate) = encode(rendered, request.format).await?;
    let mut headers = audio_headers(request.format, rate, &voice);
    headers.insert("x-cache", HeaderValue::from_static(if hit { "HIT" } else { "MISS" }));
    Ok((StatusCode::OK, headers, bytes).into_response())
}

/// Chunked raw PCM: the answer starts with the first piece of the first
/// row (rows stream inside themselves: see [`render_pieces`]).
async fn stream_pcm(state: &Arc<ApiState>, prepared: PreparedSpeech, voice: &ChosenVoice, arrived: Instant) -> ApiResult<Response> {
    let mut waiting = state.metrics.waiting(prepared.rows());
    let mut pieces = render_pieces(state, prepared);
    // The first piece before the headers, so a failure is still a proper error.
    let first = match pieces.recv().await {
        Some(Ok(piece)) => piece,
        Some(Err(e)) => return Err(ApiError::internal(format!("synthesis failed: {e}"))),
        None => return Err(ApiError::internal("the scheduler stopped before the first row")),
    };
    state.metrics.ttfa.record(arrived.elapsed().as_secs_f64());
    waiting.arrived();
    let headers = audio_headers(ResponseFormat::Pcm, first.sample_rate, voice);
    let first_chunk = Bytes::from(formats::pcm16_bytes(&first.samples));
    let rest = futures_util::stream::unfold((pieces, waiting, first.row), |(mut pieces, mut waiting, mut row)| async move {
        match pieces.recv().await? {
            Ok(piece) => {
                if piece.row != row {
                    waiting.arrived();
                    row = piece.row;
                }
                let chunk = Bytes::from(formats::pcm16_bytes(&piece.samples));
                Some((Ok::<_, std::io::Error>(chunk), (pieces, waiting, row)))
            }
            Err(e) => {
                tracing::warn!(error = %e, "a streamed row failed; ending the stream");
                Some((Err(std::io::Error::other(e.to_string())), (pieces, waiting, row)))
            }
        }
    });
    let stream = futures_util::StreamExt::chain(futures_util::stream::once(async move { Ok(first_chunk) }), rest);
    Ok((StatusCode::OK, headers, Body::from_stream(stream)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(body: Value) -> Result<SpeechRequest, (u16, Option<String>)> {
        parse(body.as_object().unwrap()).map_err(|e| (e.status.as_u16(), e.param))
    }

    fn param(body: Value) -> Option<String> {
        check(body).unwrap_err().1
    }

    #[test]
    fn bad_inputs_name_their_field() {
        assert_eq!(param(json!({})), Some("input".into()));
        assert_eq!(param(json!({"input": ""})), Some("input".into()));
        assert_eq!(param(json!({"input": "  \n"})), Some("input".into()));
        assert_eq!(param(json!({"input": 5})), Some("input".into()));
        assert_eq!(param(json!({"input": "a".repeat(4097)})), Some("input".into()));
        assert!(check(json!({"input": "a".repeat(4096)})).is_ok());
        assert_eq!(param(json!({"input": "hi", "speed": 4.5})), Some("speed".into()));
        assert_eq!(param(json!({"input": "hi", "speed": 0.2})), Some("speed".into()));
        assert_eq!(param(json!({"input": "hi", "speed": "fast"})), Some("speed".into()));
        assert_eq!(param(json!({"input": "hi", "response_format": "ogg"})), Some("response_format".into()));
        assert_eq!(param(json!({"input": "hi", "language": "Klingon"})), Some("language".into()));
        assert_eq!(param(json!({"input": "hi", "stream": true, "response_format": "wav"})), Some("stream".into()));
        assert_eq!(param(json!({"input": "hi", "task_type": "Base"})), Some("ref_audio".into()));
        assert_eq!(param(json!({"input": "hi", "task_type": "VoiceDesign"})), Some("instructions".into()));
        assert_eq!(param(json!({"input": "hi", "seed": -1})), Some("seed".into()));
        assert_eq!(param(json!({"input": "hi", "max_new_tokens": 0})), Some("max_new_tokens".into()));
    }

    #[test]
    fn defaults_follow_the_openai_api() {
        let r = check(json!({"input": "hi", "model": "tts-1"})).unwrap();
        assert_eq!((r.format, r.speed, r.task, r.voice.as_str(), r.stream), (ResponseFormat::Mp3, 1.0, TaskType::CustomVoice, "default", false));
        let r = check(json!({"input": "hi", "ref_audio": "data:,x"})).unwrap();
        assert_eq!(r.task, TaskType::Base);
    }
}
