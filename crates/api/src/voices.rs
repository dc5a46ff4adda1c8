//! `/v1/audio/voices`: the voice list (stock voices, registered voices with
//! their details, the languages with the experimental ones marked, and the
//! registered-voice artifact cache's statistics), uploads (multipart; the
//! recording is decoded, checked and matched to a blend of stock voices
//! through the reference-encode service, then registered in the library,
//! overwriting a voice of the same name), and deletes. Uploads and deletes
//! take one lock for the cap check and the write, so racing requests for
//! one name leave at most one entry.

use std::path::Path;
use std::sync::Arc;

use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{Path as UrlPath, State};
use axum::Json;
use serde_json::{json, Value};

use super::errors::{ApiError, ApiResult};
use super::state::ApiState;
use revoice_engine::language::LANGUAGES;
use revoice_engine::model::kokoro::release::stock_voices;
use revoice_engine::store::VoiceRecord;
use revoice_engine::voice::library::VoiceDetails;
use revoice_engine::voice::MatchedVoice;
use revoice_engine::NewLibraryVoice;

/// Largest upload.
pub const MAX_UPLOAD_BYTES: usize = 10 << 20;

fn uploaded(record: &VoiceRecord) -> Value {
    let blend = serde_json::from_str::<MatchedVoice>(&record.voice.artifact_json).map(|m| m.blend_spec()).ok();
    json!({
        "name": record.voice.name,
        "consent": record.voice.consent,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "version": record.version,
        "file_size": record.voice.file_size,
        "mime_type": record.voice.mime_type,
        "ref_text": record.voice.reference_text,
        "speaker_description": record.voice.description,
        "blend": blend,
    })
}

/// `GET /v1/audio/voices`.
pub async fn list(State(state): State<Arc<ApiState>>) -> ApiResult<Json<Value>> {
    state.metrics.request("voices_list");
    let records = state.engine.store().voices().await.map_err(|e| ApiError::from_engine(None, e))?;
    let stock = stock_voices();
    let mut names: Vec<String> = stock.iter().map(|v| v.name.clone()).collect();
    names.extend(records.iter().map(|r| r.voice.name.clone()));
    let details: Vec<Value> = stock
        .iter()
        .map(|v| {
            let native = revoice_engine::language::of_tag(v.language).is_none_or(|l| l.native);
            json!({"name": v.name, "language": v.language, "gender": v.gender, "experimental": !native})
        })
        .collect();
    let languages: Vec<Value> = LANGUAGES
        .iter()
        .map(|l| {
            json!({
                "name": l.name,
                "codes": l.codes,
                "default_voice": l.default_voice,
                "support": if l.native { "native" } else { "experimental" },
                "reading": if l.native { "this build's G2P" } else { "espeak-ng phonemes with the nearest Kokoro voice" },
            })
        })
        .collect();
    let stats = state.engine.voice_artifacts().stats();
    Ok(Json(json!({
        "voices": names,
        "uploaded_voices": records.iter().map(uploaded).collect::<Vec<_>>(),
        "stock_voices": details,
        "languages": languages,
        "cache_stats": {
            "entries": stats.entries,
            "memory_bytes": stats.memory_bytes,
            "max_bytes": stats.max_bytes,
            "eviction_count": stats.eviction_count,
            "hit_count": stats.hit_count,
            "miss_count": stats.miss_count,
            "delete_invalidation_counter": stats.delete_invalidation_counter,
        },
    })))
}

/// A multipart form as the upload reads it.
#[derive(Default)]
struct Form {
    name: Option<String>,
    consent: Option<String>,
    ref_text: String,
    description: String,
    file_name: String,
    audio: Option<Vec<u8>>,
}

fn form_error(e: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(None, format!("the multipart form cannot be read: {e}"))
}

async fn read_form(mut multipart: Multipart) -> ApiResult<Form> {
    let mut form = Form::default();
    while let Some(mut field) = multipart.next_field().await.map_err(form_error)? {
        let name = field.name().unwrap_or("").to_string();
        match name.as_str() {
            "audio_sample" | "file" => {
                form.file_name = field.file_name().unwrap_or("audio_sample").to_string();
                let mut bytes = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(form_error)? {
                    bytes.extend_from_slice(&chunk);
                    if bytes.len() > MAX_UPLOAD_BYTES {
                        return Err(ApiError::bad_request(Some("audio_sample"), format!("audio_sample is over the {} MiB limit", MAX_UPLOAD_BYTES >> 20)));
                    }
                }
                form.audio = Some(bytes);
            }
            _ => {
                let text = field.text().await.map_err(form_error)?;
                match name.as_str() {
                    "name" => form.name = Some(text),
                    "consent" => form.consent = Some(text),
                    "ref_text" => form.ref_text = text,
                    "speaker_description" => form.description = text,
                    _ => {}
                }
            }
        }
    }
    Ok(form)
}

/// The file extension the library stores a recording under, from its content.
fn extension_of(container: &str) -> Option<&'static str> {
    Some(match container {
        "WAV" | "RIFF" => "wav",
        "MP3" => "mp3",
        "FLAC" => "flac",
        "Ogg" => "ogg",
        "AAC (ADTS)" => "aac",
        "MP4/M4A" => "m4a",
        "WebM/Matroska" => "webm",
        _ => return None,
    })
}

/// `POST /v1/audio/voices` (multipart: `name`, `consent`, `ref_text`,
/// `speaker_description`, file `audio_sample`).
pub async fn upload(State(state): State<Arc<ApiState>>, multipart: Result<Multipart, MultipartRejection>) -> ApiResult<Json<Value>> {
    state.metrics.request("voices_upload");
    let form = read_form(multipart.map_err(form_error)?).await?;
    let name = form.name.ok_or_else(|| ApiError::bad_request(Some("name"), "name is required"))?;
    let details = VoiceDetails { name: name.clone(), description: form.description, reference_text: form.ref_text, consent: form.consent.unwrap_or_default() };
    revoice_engine::store::voices::check_voice_name(&name).map_err(|e| ApiError::from_engine(Some("name"), e))?;
    if details.consent.trim().is_empty() {
        return Err(ApiError::bad_request(Some("consent"), "consent is required: say who consented to this voice being used, and how"));
    }
    let audio = form.audio.ok_or_else(|| ApiError::bad_request(Some("audio_sample"), "audio_sample (the recording) is required"))?;
    let file_name = form.file_name;
    // Decode first: garbage and fakes are refused before any encoder work.
    let (bytes, label) = (audio.clone(), file_name.clone());
    let decoded = tokio::task::spawn_blocking(move || revoice_engine::audio::decode::decode_bytes(bytes, Path::new(&label)))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| ApiError::from_engine(Some("audio_sample"), e))?;
    let extension = extension_of(decoded.container).ok_or_else(|| {
        ApiError::bad_request(Some("audio_sample"), format!("{} audio is not taken here; send WAV, MP3, FLAC, Ogg, AAC, WebM or MP4 audio", decoded.container))
    })?;
    if decoded.samples.is_empty() {
        return Err(ApiError::bad_request(Some("audio_sample"), "audio_sample holds no audio"));
    }
    let dir = tempfile::tempdir().map_err(|e| ApiError::internal(e.to_string()))?;
    let recording = dir.path().join(format!("upload.{extension}"));
    tokio::fs::write(&recording, &audio).await.map_err(|e| ApiError::internal(e.to_string()))?;
    let voice = NewLibraryVoice {
        details,
        recording: &recording,
        max_voices: Some(state.options.max_uploaded_voices),
        fitted: None,
        language: None,
        recording_language: None,
        hear_text_later: true,
    };
    let (record, matched, existing) = state.engine.add_library_voice(voice).await.map_err(|e| {
        let param = if e.to_string().contains("library is full") { "name" } else { "audio_sample" };
        ApiError::from_engine(Some(param), e)
    })?;
    // The quick match speaks at once; a fitted voice replaces it when its fit finishes.
    let speech = matched.quality.speech_seconds;
    let fit = if !state.options.fit_uploaded_voices {
        json!({ "status": "off" })
    } else if speech < revoice_engine::voice::quality::MIN_SPEECH_SECONDS {
        json!({ "status": "not started", "reason": format!("{speech:.1} s of speech is too little to fit a voice to") })
    } else {
        match state.engine.fit_library_voice_in_background(&record.voice.name, state.engine.background_fit_settings(), None).await {
            Ok(key) => json!({ "status": "queued", "key": key }),
            Err(e) => json!({ "status": "not started", "reason": e.to_string() }),
        }
    };
    Ok(Json(json!({
        "success": true,
        "overwritten": existing,
        "voice": uploaded(&record),
        "blend": matched.blend_spec(),
        // Any decodable recording is taken; what it is worth as a reference is said here.
        "quality": {
            "seconds": matched.quality.seconds,
            "speech_seconds": matched.quality.speech_seconds,
            "snr_db": matched.quality.snr_db,
            "warnings": matched.quality.warnings,
        },
        "fit": fit,
        "note": "the recording was matched to a blend of Kokoro's stock voices (not a clone of the speaker); a voice fitted to it by search replaces the blend when its fit finishes",
    })))
}

/// `DELETE /v1/audio/voices/{name}`.
pub async fn remove(State(state): State<Arc<ApiState>>, UrlPath(name): UrlPath<String>) -> ApiResult<Json<Value>> {
    state.metrics.request("voices_delete");
    let record = state.engine.delete_library_voice(&name).await.map_err(|e| ApiError::from_engine(Some("name"), e))?;
    Ok(Json(json!({"deleted": true, "success": true, "name": record.voice.name})))
}
