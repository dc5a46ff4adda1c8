//! One server of a remote engine, as the renderer talks to it: speech
//! requests (single, batch, or a streamed single), reference uploads and
//! deletes, and `/health`. Every answer is sorted into what it means for
//! the render: audio for the line, a fault of the line itself (a 400 that
//! names its field, an unknown voice), or a fault of the server (it cannot
//! be reached, errs, hangs past the timeout, refuses the key, or answers
//! audio that does not decode), which takes the server out of rotation.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Map, Value};

/// How a server without the batch route is told apart.
pub const NO_BATCH: &str = "it has no batch route";

/// How "this server takes no uploads" is told apart.
pub const NO_UPLOADS: &str = "it takes no voice uploads";

/// A speech request for one line, as the contract spells it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeechItem {
    pub input: String,
    /// A voice the server knows (a named voice, or a reference's uploaded name).
    pub voice: Option<String>,
    /// A reference recording sent with the request (`task_type: Base`) when
    /// the server takes no uploads: a `data:` URI, and its text.
    pub ref_audio: Option<(String, String)>,
    pub speed: f32,
    pub seed: u64,
    /// The language's name (`English`), or none.
    pub language: Option<String>,
}

impl SpeechItem {
    fn body(&self, model: &str, format: &str) -> Map<String, Value> {
        let mut body = Map::new();
        body.insert("input".into(), json!(self.input));
        if let Some(voice) = &self.voice {
            body.insert("voice".into(), json!(voice));
        }
        if let Some((audio, text)) = &self.ref_audio {
            body.insert("task_type".into(), json!("Base"));
            body.insert("ref_audio".into(), json!(audio));
            if !text.is_empty() {
                body.insert("ref_text".into(), json!(text));
            }
        }
        body.insert("speed".into(), json!(self.speed));
        body.insert("seed".into(), json!(self.seed));
        if let Some(language) = &self.language {
            body.insert("language".into(), json!(language));
        }
        if !model.is_empty() {
            body.insert("model".into(), json!(model));
        }
        body.insert("response_format".into(), json!(format));
        body
    }
}

/// Why a request did not give audio.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// The server is not fit to render: out of rotation, the rows sent elsewhere.
    Server(String),
    /// The server lost an uploaded voice (400 or 404 naming the voice): upload again.
    VoiceGone(String),
    /// The line itself was refused (the same on any server).
    Line(String),
}

impl Fault {
    pub fn reason(&self) -> &str {
        match self {
            Fault::Server(r) | Fault::VoiceGone(r) | Fault::Line(r) => r,
        }
    }
}

/// A line's audio, mono f32 at the server's rate.
#[derive(Debug, Clone, PartialEq)]
pub struct SpokenLine {
    pub samples: Vec<f32>,
    pub sample_rate: u32,
}

/// Talks to one server.
#[derive(Clone)]
pub struct ServerClient {
    agent: ureq::Agent,
    pub base: String,
    api_key: String,
    model: String,
}

fn with_key<B>(request: ureq::RequestBuilder<B>, key: &str) -> ureq::RequestBuilder<B> {
    if key.is_empty() {
        request
    } else {
        request.header("Authorization", &format!("Bearer {key}"))
    }
}

impl ServerClient {
    /// A client of `base` whose requests give up after `timeout`.
    pub fn new(base: &str, api_key: &str, model: &str, timeout: Duration) -> ServerClient {
        let config = ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build();
        ServerClient { agent: config.into(), base: base.trim_end_matches('/').to_string(), api_key: api_key.to_string(), model: model.to_string() }
    }

    fn post_json(&self, path: &str, body: &Value) -> Result<ureq::http::Response<ureq::Body>, Fault> {
        let request = with_key(self.agent.post(&format!("{}{path}", self.base)), &self.api_key).header("Content-Type", "application/json");
        request.send(body.to_string().as_bytes()).map_err(|e| Fault::Server(transport(&e)))
    }

    /// Whether the server says it is ready (`/health` 200, within 5 s).
    pub fn healthy(&self) -> Result<(), String> {
        let request = with_key(self.agent.get(&format!("{}/health", self.base)), &self.api_key).config().timeout_global(Some(Duration::from_secs(5))).build();
        let response = request.call().map_err(|e| transport(&e))?;
        match response.status().as_u16() {
            200 => Ok(()),
            503 => Err("its model is still loading".into()),
            status => Err(format!("/health answers {status}")),
        }
    }

    /// One line, whole, as WAV.
    pub fn speak(&self, item: &SpeechItem) -> Result<SpokenLine, Fault> {
        let mut response = self.post_json("/v1/audio/speech", &Value::Object(item.body(&self.model, "wav")))?;
        let status = response.status().as_u16();
        let body = read_body(&mut response)?;
        if status != 200 {
            return Err(refusal(status, &body, item));
        }
        decode(body)
    }

    /// One line as it renders (`stream: true`, raw 16-bit PCM): `chunk` gets
    /// the samples as they arrive. Returns the whole line.
    pub fn speak_streaming(&self, item: &SpeechItem, chunk: &mut dyn FnMut(&[f32], u32) -> revoice_core::error::Result<()>) -> Result<SpokenLine, Fault> {
        let mut body = item.body(&self.model, "pcm");
        body.insert("stream".into(), json!(true));
        let mut response = self.post_json("/v1/audio/speech", &Value::Object(body))?;
        let status = response.status().as_u16();
        if status != 200 {
            let body = read_body(&mut response)?;
            return Err(refusal(status, &body, item));
        }
        let rate = response.headers().get("x-sample-rate").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u32>().ok()).unwrap_or(24_000);
        let mut reader = response.into_body().into_reader();
        let (mut samples, mut pending, mut buffer) = (Vec::new(), Vec::<u8>::new(), vec![0u8; 16 << 10]);
        loop {
            let n = reader.read(&mut buffer).map_err(|e| Fault::Server(format!("the stream broke: {e}")))?;
            if n == 0 {
                break;
            }
            pending.extend_from_slice(&buffer[..n]);
            let whole = pending.len() / 2 * 2;
            let new: Vec<f32> = pending[..whole].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]) as f32 / 32768.0).collect();
            pending.drain(..whole);
            chunk(&new, rate).map_err(|e| Fault::Line(e.to_string()))?;
            samples.extend_from_slice(&new);
        }
        if samples.is_empty() {
            return Err(Fault::Server("it streamed no audio".into()));
        }
        Ok(SpokenLine { samples, sample_rate: rate })
    }

    /// Several lines in one batch request; each line's own outcome.
    pub fn speak_batch(&self, items: &[SpeechItem]) -> Result<Vec<Result<SpokenLine, Fault>>, Fault> {
        let list: Vec<Value> = items.iter().map(|i| Value::Object(i.body(&self.model, "wav"))).collect();
        let mut response = self.post_json("/v1/audio/speech/batch", &json!({ "items": list }))?;
        let status = response.status().as_u16();
        let body = read_body(&mut response)?;
        if status == 404 || status == 405 {
            return Err(Fault::Server(format!("{NO_BATCH} ({status})")));
        }
        if status != 200 {
            // The whole batch refused: a server fault unless it is plainly the request's.
            return Err(match refusal(status, &body, &items[0]) {
                Fault::Line(reason) => Fault::Server(format!("it refused a batch request: {reason}")),
                other => other,
            });
        }
        let answer: Value = serde_json::from_slice(&body).map_err(|e| Fault::Server(format!("its batch answer is not JSON: {e}")))?;
        let results = answer["results"].as_array().ok_or_else(|| Fault::Server("its batch answer has no results".into()))?;
        let mut out: Vec<Result<SpokenLine, Fault>> = items.iter().map(|_| Err(Fault::Server("its batch answer left this line out".into()))).collect();
        for (i, result) in results.iter().enumerate() {
            let index = result["index"].as_u64().map_or(i, |n| n as usize);
            let Some(slot) = out.get_mut(index) else { continue };
            *slot = if result["status"] == "ok" {
                match result["audio_data"].as_str().map(|a| base64::engine::general_purpose::STANDARD.decode(a)) {
                    Some(Ok(bytes)) => decode(bytes),
                    _ => Err(Fault::Server("its batch answer's audio_data is not base64".into())),
                }
            } else {
                let error = &result["error"];
                let code = error["status"].as_u64().or_else(|| error["code"].as_u64()).unwrap_or(0) as u16;
                let status = if code >= 400 {
                    code
                } else if error["type"] == "server_error" {
                    500
                } else {
                    400
                };
                Err(refusal(status, error.to_string().as_bytes(), &items[index]))
            };
        }
        Ok(out)
    }

    /// Uploads a reference recording as voice `name`; the name it is known by.
    pub fn upload_voice(&self, name: &str, recording: &Path, ref_text: &str) -> Result<String, Fault> {
        let audio = std::fs::read(recording).map_err(|e| Fault::Line(format!("the recording {} cannot be read: {e}", recording.display())))?;
        let file_name = recording.file_name().and_then(|n| n.to_str()).unwrap_or("reference.wav");
        let boundary = format!("revoice{:016x}", rand::random::<u64>());
        let mut body = Vec::new();
        let mut text_field = |field: &str, value: &str| {
            body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{value}\r\n").as_bytes());
        };
        text_field("name", name);
        text_field("consent", "uploaded by Revoice Studio for the voice's owner, with the consent recorded in its library");
        if !ref_text.is_empty() {
            text_field("ref_text", ref_text);
        }
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"audio_sample\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes());
        body.extend_from_slice(&audio);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let request = with_key(self.agent.post(&format!("{}/v1/audio/voices", self.base)), &self.api_key)
            .header("Content-Type", &format!("multipart/form-data; boundary={boundary}"));
        let mut response = request.send(&body[..]).map_err(|e| Fault::Server(transport(&e)))?;
        let status = response.status().as_u16();
        let answer = read_body(&mut response)?;
        match status {
            200 | 201 => {
                Ok(serde_json::from_slice::<Value>(&answer).ok().and_then(|v| v["name"].as_str().map(str::to_string)).unwrap_or_else(|| name.to_string()))
            }
            404 | 405 => Err(Fault::Line(format!("{} ({status})", NO_UPLOADS))),
            400 | 413 | 422 => Err(Fault::Line(format!("it refused the reference recording: {}", message(&answer)))),
            status => Err(Fault::Server(format!("uploading a reference answered {status}: {}", message(&answer)))),
        }
    }

    /// The voices the server names in `GET /v1/audio/voices` (within 3 s).
    pub fn voice_names(&self) -> Result<Vec<String>, String> {
        let request =
            with_key(self.agent.get(&format!("{}/v1/audio/voices", self.base)), &self.api_key).config().timeout_global(Some(Duration::from_secs(3))).build();
        let mut response = request.call().map_err(|e| transport(&e))?;
        if response.status().as_u16() != 200 {
            return Err(format!("/v1/audio/voices answers {}", response.status().as_u16()));
        }
        let body = read_body(&mut response).map_err(|f| f.reason().to_string())?;
        let list: Value = serde_json::from_slice(&body).map_err(|e| format!("/v1/audio/voices is not JSON: {e}"))?;
        // `voices` as names, or as objects with a name (servers differ); uploads of ours left out.
        let names = list["voices"].as_array().or_else(|| list["data"].as_array()).cloned().unwrap_or_default();
        Ok(names
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string).or_else(|| v["name"].as_str().or_else(|| v["id"].as_str()).map(str::to_string)))
            .filter(|n| !n.starts_with("revoice-"))
            .collect())
    }

    /// Deletes an uploaded voice (a voice already gone counts as deleted).
    pub fn delete_voice(&self, name: &str) -> Result<(), String> {
        let request = with_key(self.agent.delete(&format!("{}/v1/audio/voices/{}", self.base, url_segment(name))), &self.api_key);
        let response = request.call().map_err(|e| transport(&e))?;
        match response.status().as_u16() {
            200 | 204 | 404 => Ok(()),
            status => Err(format!("deleting voice {name:?} answered {status}")),
        }
    }
}

fn url_segment(text: &str) -> String {
    text.bytes().map(|b| if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.') { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

fn transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "it did not answer in time (it hangs or is overloaded)".into(),
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => format!("not reachable: {e}"),
        other => format!("the connection failed: {other}"),
    }
}

fn read_body(response: &mut ureq::http::Response<ureq::Body>) -> Result<Vec<u8>, Fault> {
    response.body_mut().with_config().limit(256 << 20).read_to_vec().map_err(|e| Fault::Server(format!("its answer broke off: {}", transport(&e))))
}

/// The error envelope's message, or the body's start.
fn message(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let text = parsed.as_ref().and_then(|v| v["error"]["message"].as_str().or_else(|| v["message"].as_str()).map(str::to_string));
    text.unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).trim().to_string())
}

/// What a non-200 answer means for the line.
fn refusal(status: u16, body: &[u8], item: &SpeechItem) -> Fault {
    let said = message(body);
    let param: Option<String> =
        serde_json::from_slice::<Value>(body).ok().and_then(|v| v["error"]["param"].as_str().or_else(|| v["param"].as_str()).map(str::to_string));
    match status {
        401 | 403 => Fault::Server(format!("it refuses the API key ({status})")),
        // An uploaded voice the server does not know: 400 naming `voice` (the
        // speech contract, `revoice serve` now), or 404 (servers before it).
        400 if item.voice.is_some() && param.as_deref() == Some("voice") => {
            Fault::VoiceGone(format!("it has no voice {:?}: {said}", item.voice.as_deref().unwrap_or_default()))
        }
        404 if item.voice.is_some() && param.as_deref().is_none_or(|p| p == "voice") => match &item.voice {
            Some(voice) => Fault::VoiceGone(format!("it has no voice {voice:?}: {said}")),
            None => Fault::Line(said),
        },
        400..=499 => Fault::Line(format!("it refused the line ({status}{}): {said}", param.map(|p| format!(", {p}")).unwrap_or_default())),
        503 => Fault::Server(format!("it is not ready (503): {said}")),
        status => Fault::Server(format!("it failed ({status}): {said}")),
    }
}

/// A whole answer's audio; anything that does not decode to finite,
/// non-empty audio is the server's fault (garbage).
fn decode(bytes: Vec<u8>) -> Result<SpokenLine, Fault> {
    if bytes.is_empty() {
        return Err(Fault::Server("it answered no audio".into()));
    }
    let decoded =
        revoice_audio::decode::decode_bytes(bytes, Path::new("answer")).map_err(|e| Fault::Server(format!("it answered audio that does not decode: {e}")))?;
    if decoded.samples.is_empty() {
        return Err(Fault::Server("it answered empty audio".into()));
    }
    if decoded.samples.iter().any(|s| !s.is_finite()) {
        return Err(Fault::Server("it answered audio with non-finite samples".into()));
    }
    Ok(SpokenLine { samples: decoded.samples, sample_rate: decoded.sample_rate })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(voice: Option<&str>) -> SpeechItem {
        SpeechItem { input: "Hi.".into(), voice: voice.map(str::to_string), ref_audio: None, speed: 1.0, seed: 7, language: None }
    }

    #[test]
    fn answers_are_sorted_into_line_voice_and_server_faults() {
        let body = br#"{"error":{"message":"input is empty","param":"input"}}"#;
        assert!(matches!(refusal(400, body, &item(Some("x"))), Fault::Line(r) if r.contains("input is empty") && r.contains("input")));
        assert!(matches!(refusal(404, br#"{"error":{"message":"no such voice","param":"voice"}}"#, &item(Some("revoice-ab"))), Fault::VoiceGone(_)));
        assert!(matches!(refusal(400, br#"{"error":{"message":"no such voice","param":"voice"}}"#, &item(Some("revoice-ab"))), Fault::VoiceGone(_)));
        assert!(matches!(refusal(400, br#"{"error":{"message":"no such voice","param":"voice"}}"#, &item(None)), Fault::Line(_)));
        assert!(matches!(refusal(401, b"", &item(None)), Fault::Server(r) if r.contains("API key")));
        assert!(matches!(refusal(500, b"boom", &item(None)), Fault::Server(r) if r.contains("500") && r.contains("boom")));
        assert!(matches!(decode(b"RIFF not really".to_vec()), Err(Fault::Server(r)) if r.contains("does not decode")));
        assert!(matches!(decode(Vec::new()), Err(Fault::Server(_))));
    }

    #[test]
    fn a_request_spells_the_contract() {
        let mut with_ref = item(None);
        with_ref.ref_audio = Some(("data:audio/wav;base64,AAAA".into(), "Hello there.".into()));
        with_ref.language = Some("English".into());
        let body = with_ref.body("omnivoice", "wav");
        assert_eq!(body["task_type"], "Base");
        assert_eq!(body["ref_text"], "Hello there.");
        assert_eq!((body["model"].as_str(), body["language"].as_str(), body["seed"].as_u64()), (Some("omnivoice"), Some("English"), Some(7)));
        assert!(!item(Some("af_bella")).body("", "wav").contains_key("model"));
        assert_eq!(url_segment("revoice-ab c"), "revoice-ab%20c");
    }
}
