//! `POST /v1/audio/speech/batch`: 1 to 32 items, each a speech request made
//! of the top-level fields overridden by the item's own. Every item is
//! checked and prepared on its own (one bad item becomes that item's error
//! and never fails the others); then all items' rows are handed to the
//! renderer at once, so rows that share batch settings reach the scheduler
//! inside one batch window and are rendered together.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::State;
use axum::Json;
use base64::Engine as _;
use futures_util::future::join_all;
use serde_json::{json, Map, Value};

use super::errors::{ApiError, ApiResult};
use super::speech::{self, ChosenVoice, SpeechRequest};
use super::state::ApiState;
use revoice_engine::{Delivery, PreparedSpeech};

/// Most items in one batch.
pub const MAX_ITEMS: usize = 32;

/// Fields the top level may give every item.
const SHARED: &[&str] =
    &["model", "voice", "response_format", "speed", "seed", "language", "task_type", "instructions", "ref_audio", "ref_text", "max_new_tokens"];

/// One item's request: the shared fields, then the item's own.
fn merged(top: &Map<String, Value>, item: &Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> = SHARED.iter().filter_map(|k| top.get(*k).map(|v| (k.to_string(), v.clone()))).collect();
    for (k, v) in item {
        out.insert(k.clone(), v.clone());
    }
    out
}

/// Checks, chooses the voice and prepares one item.
async fn prepare(state: &Arc<ApiState>, body: Map<String, Value>) -> ApiResult<(SpeechRequest, ChosenVoice, PreparedSpeech)> {
    if body.get("stream").is_some_and(|v| v != &Value::Bool(false)) {
        return Err(ApiError::bad_request(Some("stream"), "batch items are answered whole: stream is not available here"));
    }
    let request = speech::parse(&body)?;
    let voice = speech::choose_voice(state, &request).await?;
    let prepared = speech::prepare(state, &request, &voice, Delivery::Whole).await?;
    Ok((request, voice, prepared))
}

async fn render(state: &Arc<ApiState>, request: SpeechRequest, prepared: PreparedSpeech, arrived: Instant) -> ApiResult<Value> {
    let rendered = speech::render_all(state, prepared, arrived).await?;
    let (bytes, rate) = speech::encode(rendered, request.format).await?;
    Ok(json!({
        "audio_data": base64::engine::general_purpose::STANDARD.encode(bytes),
        "media_type": request.format.content_type(),
        "response_format": request.format.name(),
        "sample_rate": rate,
    }))
}

fn error_item(index: usize, e: &ApiError) -> Value {
    json!({"index": index, "status": "error", "error": e.body()})
}

/// `POST /v1/audio/speech/batch`.
pub async fn batch(State(state): State<Arc<ApiState>>, body: Bytes) -> ApiResult<Json<Value>> {
    state.metrics.request("speech_batch");
    let arrived = Instant::now();
    let top = speech::json_object(&body)?;
    let items = match top.get("items") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(ApiError::bad_request(Some("items"), "items must be an array of speech requests")),
        None => return Err(ApiError::bad_request(Some("items"), "items is required: 1 to 32 speech requests")),
    };
    if items.is_empty() || items.len() > MAX_ITEMS {
        return Err(ApiError::bad_request(Some("items"), format!("items holds {} requests; a batch takes 1 to {MAX_ITEMS}", items.len())));
    }
    let prepared = join_all(items.iter().map(|item| {
        let state = &state;
        let top = &top;
        async move {
            match item {
                Value::Object(item) => prepare(state, merged(top, item)).await,
                _ => Err(ApiError::bad_request(Some("items"), "each item must be a JSON object")),
            }
        }
    }))
    .await;
    // Every item's rows go to the renderer together.
    let results = join_all(prepared.into_iter().enumerate().map(|(index, item)| {
        let state = &state;
        async move {
            let outcome = match item {
                Ok((request, _voice, prepared)) => render(state, request, prepared, arrived).await,
                Err(e) => Err(e),
            };
            match outcome {
                Ok(mut ok) => {
                    ok["index"] = json!(index);
                    ok["status"] = json!("ok");
                    ok
                }
                Err(e) => error_item(index, &e),
            }
        }
    }))
    .await;
    let succeeded = results.iter().filter(|r| r["status"] == "ok").count();
    let id = format!("batch_{:016x}", rand::random::<u64>());
    Ok(Json(json!({
        "id": id,
        "results": results,
        "total": results.len(),
        "succeeded": succeeded,
        "failed": results.len() - succeeded,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_override_the_shared_fields() {
        let top = json!({"voice": "af_heart", "speed": 1.0, "items": []});
        let item = json!({"input": "hi", "speed": 1.5});
        let m = merged(top.as_object().unwrap(), item.as_object().unwrap());
        assert_eq!(m["voice"], "af_heart");
        assert_eq!(m["speed"], 1.5);
        assert!(!m.contains_key("items"));
    }
}
