//! Shared by the API tests: a real server (`RunningServer`) on a scratch
//! data folder that links the test install's models and stock embeddings
//! but has its own database, and small blocking HTTP and WebSocket clients
//! (ureq, tungstenite) that speak to it over loopback like any other app.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use revoice_api::{ApiOptions, RunningServer};
use serde_json::Value;

/// A server and the folders it lives in (removed when dropped).
pub struct TestServer {
    pub server: RunningServer,
    pub base: String,
    /// Its data folder.
    pub dir: tempfile::TempDir,
    /// The one folder `file://` references may point into.
    pub media: tempfile::TempDir,
}

/// Starts a server; `adjust` changes the options first. The scheduler
/// batches up to 4 rows, waiting 30 ms for company, one attempt each.
pub fn start(adjust: impl FnOnce(&mut ApiOptions)) -> TestServer {
    start_batching(30, adjust)
}

/// Like [`start`], the scheduler's first row waiting `window_ms` for company.
pub fn start_batching(window_ms: u64, adjust: impl FnOnce(&mut ApiOptions)) -> TestServer {
    let dir = crate::data::scratch_data_dir();
    let media = tempfile::tempdir().unwrap();
    let mut config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    config.settings.scheduler = revoice_engine::config::SchedulerSettings { batch_width: 4, batch_window_ms: window_ms, max_attempts: 1, continuous: false };
    let mut options = ApiOptions {
        api_key: None,
        ref_audio: revoice_api::ref_audio::RefAudioPolicy { media_folders: vec![media.path().to_path_buf()], ..Default::default() },
        max_uploaded_voices: 100,
        // Fits take minutes on Kokoro; tests/voice_fit.rs covers them.
        fit_uploaded_voices: false,
    };
    adjust(&mut options);
    let server = RunningServer::start(config, options, "127.0.0.1:0".parse().unwrap(), false).expect("the API server starts");
    let base = server.url();
    TestServer { server, base, dir, media }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(Duration::from_secs(900))).build().into()
}

fn reply(mut response: ureq::http::Response<ureq::Body>) -> Reply {
    let status = response.status().as_u16();
    let headers = response.headers().iter().map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string())).collect();
    let body = response.body_mut().with_config().limit(256 << 20).read_to_vec().unwrap();
    Reply { status, headers, body }
}

/// POSTs raw bytes, with a bearer token when given.
pub fn post_raw(base: &str, path: &str, content_type: &str, body: &[u8], key: Option<&str>) -> Reply {
    let mut request = agent().post(format!("{base}{path}")).header("Content-Type", content_type);
    if let Some(key) = key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    reply(request.send(body).unwrap())
}

pub fn post_json(base: &str, path: &str, body: &Value) -> Reply {
    post_raw(base, path, "application/json", body.to_string().as_bytes(), None)
}

pub fn get(base: &str, path: &str, key: Option<&str>) -> Reply {
    let mut request = agent().get(format!("{base}{path}"));
    if let Some(key) = key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    reply(request.call().unwrap())
}

pub fn delete(base: &str, path: &str) -> Reply {
    reply(agent().delete(format!("{base}{path}")).call().unwrap())
}

/// A multipart form: text fields, then the file part `audio_sample`.
pub fn multipart(fields: &[(&str, &str)], file: Option<(&str, &[u8])>) -> (String, Vec<u8>) {
    let boundary = "revoiceTestBoundary7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes());
    }
    if let Some((file_name, bytes)) = file {
        body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"audio_sample\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend(b"\r\n");
    }
    body.extend(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Uploads a voice.
pub fn upload(base: &str, name: &str, file_name: &str, audio: &[u8]) -> Reply {
    let (content_type, body) = multipart(
        &[("name", name), ("consent", "test speaker, signed form"), ("ref_text", "two sentences"), ("speaker_description", "test voice")],
        Some((file_name, audio)),
    );
    post_raw(base, "/v1/audio/voices", &content_type, &body, None)
}

/// Asserts the error envelope: status, type, param and code.
pub fn assert_error(reply: &Reply, status: u16, param: Option<&str>) {
    assert_eq!(reply.status, status, "{}", reply.text());
    let body = reply.json();
    let error = &body["error"];
    let kind = match status {
        404 => "NotFoundError",
        401 => "AuthenticationError",
        _ => "BadRequestError",
    };
    assert_eq!(error["type"], kind, "{body}");
    assert_eq!(error["code"], status, "{body}");
    assert_eq!(error["param"].as_str(), param, "{body}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

/// Decodes audio bytes with the engine's decoder (the name gives the format hint).
pub fn decode(bytes: &[u8], name: &str) -> revoice_engine::audio::decode::DecodedAudio {
    revoice_engine::audio::decode::decode_bytes(bytes.to_vec(), Path::new(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Root mean square of samples.
pub fn rms(samples: &[f32]) -> f32 {
    (samples.iter().map(|s| s * s).sum::<f32>() / samples.len().max(1) as f32).sqrt()
}

/// s16le bytes as samples.
pub fn pcm_samples(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]) as f32 / 32768.0).collect()
}

/// The WebSocket URL of a server.
pub fn ws_url(base: &str) -> String {
    format!("{}/v1/audio/speech/stream", base.replacen("http://", "ws://", 1))
}

pub type Socket = tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<std::net::TcpStream>>;

pub fn ws_connect(base: &str) -> Socket {
    tungstenite::connect(ws_url(base)).expect("WebSocket handshake").0
}

pub fn ws_send(socket: &mut Socket, value: &Value) {
    socket.send(tungstenite::Message::text(value.to_string())).unwrap();
}

pub fn ws_send_text(socket: &mut Socket, text: &str) {
    socket.send(tungstenite::Message::text(text.to_string())).unwrap();
}

/// The next message: JSON events as `Ok`, binary frames as `Err(bytes)`.
pub fn ws_next(socket: &mut Socket) -> Result<Value, Vec<u8>> {
    loop {
        match socket.read().expect("WebSocket read") {
            tungstenite::Message::Text(t) => return Ok(serde_json::from_str(t.as_str()).unwrap()),
            tungstenite::Message::Binary(b) => return Err(b.to_vec()),
            _ => continue,
        }
    }
}

/// POSTs JSON with a bearer token.
pub fn post_json_key(base: &str, path: &str, body: &Value, key: &str) -> Reply {
    post_raw(base, path, "application/json", body.to_string().as_bytes(), Some(key))
}

/// Connects to the WebSocket with a bearer token.
pub fn ws_connect_key(base: &str, key: &str) -> Socket {
    use tungstenite::client::IntoClientRequest;
    let mut request = ws_url(base).into_client_request().unwrap();
    request.headers_mut().insert("Authorization", format!("Bearer {key}").parse().unwrap());
    tungstenite::connect(request).expect("WebSocket handshake").0
}

/// A number from the Prometheus text of `/metrics`.
pub fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')).map(|v| v.trim().parse::<f64>().unwrap()))
        .unwrap_or_else(|| panic!("{name} is not in /metrics:\n{text}"))
}
