//! Remote engines: servers that speak the OpenAI-compatible speech API
//! (another studio's `revoice serve`, or a cloning server with the same
//! contract), one or several per engine (a fleet), kept in `config.toml`
//! (`[[engines]]`). Checking an engine probes each of its servers: is it
//! reachable and ready (its version and model from `/health`), and what
//! it can do — the response formats it renders, batch requests, the
//! WebSocket stream, voice uploads, and cloning from `ref_audio` — each
//! found by asking, never assumed. An engine can do what all its reachable
//! servers can.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

use revoice_core::config::RemoteEngineSettings;

/// The formats of the contract, each probed with a one-word render.
pub const FORMATS: [&str; 6] = ["wav", "pcm", "mp3", "opus", "aac", "flac"];

/// What one server of an engine answered.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct NodeReport {
    pub url: String,
    /// Answered at all.
    pub reachable: bool,
    /// Ready to speak (its model loaded).
    pub ready: bool,
    pub version: Option<String>,
    pub model: Option<String>,
    /// How long a one-word render took, ms.
    pub speak_ms: Option<f64>,
    pub capabilities: Capabilities,
    /// Why it is not reachable or not ready.
    pub problem: Option<String>,
}

/// What a server (or every server of an engine) can do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub formats: Vec<String>,
    pub batch: bool,
    pub streaming: bool,
    pub voice_upload: bool,
    /// Takes a reference recording (`task_type: Base`, `ref_audio`).
    pub cloning: bool,
}

impl Capabilities {
    /// What both can do.
    fn and(&self, other: &Capabilities) -> Capabilities {
        Capabilities {
            formats: self.formats.iter().filter(|f| other.formats.contains(f)).cloned().collect(),
            batch: self.batch && other.batch,
            streaming: self.streaming && other.streaming,
            voice_upload: self.voice_upload && other.voice_upload,
            cloning: self.cloning && other.cloning,
        }
    }

    /// In words: `wav, pcm, mp3; batch, streaming, voice upload, cloning`.
    pub fn describe(&self) -> String {
        let mut can: Vec<&str> = Vec::new();
        for (has, what) in [(self.batch, "batch"), (self.streaming, "streaming"), (self.voice_upload, "voice upload"), (self.cloning, "cloning from ref_audio")]
        {
            if has {
                can.push(what);
            }
        }
        let formats = if self.formats.is_empty() { "no format".to_string() } else { self.formats.join(", ") };
        if can.is_empty() {
            formats
        } else {
            format!("{formats}; {}", can.join(", "))
        }
    }
}

/// An engine checked.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineReport {
    pub name: String,
    pub model: String,
    pub nodes: Vec<NodeReport>,
    /// What every ready server can do.
    pub capabilities: Capabilities,
}

impl EngineReport {
    /// Servers ready to speak.
    pub fn ready(&self) -> usize {
        self.nodes.iter().filter(|n| n.ready).count()
    }
}

/// One probe's HTTP answer: status and body.
struct Answer {
    status: u16,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// Talks to one server.
struct Client {
    agent: ureq::Agent,
    base: String,
    api_key: String,
}

impl Client {
    fn new(base: &str, api_key: &str, timeout: Duration) -> Client {
        let config = ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build();
        Client { agent: config.into(), base: base.trim_end_matches('/').to_string(), api_key: api_key.to_string() }
    }

    fn get(&self, path: &str) -> Result<Answer, String> {
        let mut request = self.agent.get(&format!("{}{path}", self.base));
        if !self.api_key.is_empty() {
            request = request.header("Authorization", &format!("Bearer {}", self.api_key));
        }
        request.call().map_err(|e| e.to_string()).and_then(read)
    }

    fn post(&self, path: &str, body: &Value) -> Result<Answer, String> {
        let mut request = self.agent.post(&format!("{}{path}", self.base)).header("Content-Type", "application/json");
        if !self.api_key.is_empty() {
            request = request.header("Authorization", &format!("Bearer {}", self.api_key));
        }
        request.send(body.to_string().as_bytes()).map_err(|e| e.to_string()).and_then(read)
    }
}

fn read(mut response: ureq::http::Response<ureq::Body>) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let body = response.body_mut().with_config().limit(32 << 20).read_to_vec().map_err(|e| e.to_string())?;
    Ok(Answer { status, body })
}

/// Whether the server answers a WebSocket handshake at `path` (plain HTTP
/// only; over TLS the stream is not probed and counts as absent).
fn websocket_upgrades(base: &str, path: &str, api_key: &str, timeout: Duration) -> bool {
    let Some(rest) = base.strip_prefix("http://") else { return false };
    let host = rest.split('/').next().unwrap_or("");
    let Ok(addrs) = std::net::ToSocketAddrs::to_socket_addrs(&if host.contains(':') { host.to_string() } else { format!("{host}:80") }) else { return false };
    let Some(addr) = addrs.into_iter().next() else { return false };
    let Ok(mut stream) = std::net::TcpStream::connect_timeout(&addr, timeout) else { return false };
    let _ = stream.set_read_timeout(Some(timeout));
    let auth = if api_key.is_empty() { String::new() } else { format!("Authorization: Bearer {api_key}\r\n") };
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: cmV2b2ljZS1wcm9iZS0xMg==\r\nSec-WebSocket-Version: 13\r\n{auth}\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 64];
    let n = stream.read(&mut head).unwrap_or(0);
    String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 101")
}

/// Probes one server of `engine`.
pub fn probe_node(engine: &RemoteEngineSettings, url: &str) -> NodeReport {
    let quick = Client::new(url, &engine.api_key, Duration::from_secs(5));
    let mut report = NodeReport {
        url: url.to_string(),
        reachable: false,
        ready: false,
        version: None,
        model: None,
        speak_ms: None,
        capabilities: Capabilities::default(),
        problem: None,
    };
    // Reachable and ready: /health (this contract's servers), else the OpenAI model list.
    match quick.get("/health") {
        Ok(answer) => {
            report.reachable = true;
            let health = answer.json();
            report.version = health["version"].as_str().map(str::to_string);
            report.model = health["model"].as_str().map(str::to_string);
            match answer.status {
                200 => report.ready = true,
                401 | 403 => report.problem = Some("it refuses the API key".into()),
                503 => report.problem = Some("its model is still loading".into()),
                404 => report.ready = quick.get("/v1/models").is_ok_and(|a| a.status == 200),
                other => report.problem = Some(format!("/health answers {other}")),
            }
        }
        Err(e) => {
            report.problem = Some(format!("not reachable: {e}"));
            return report;
        }
    }
    // /health answers everyone; the speech routes want the key.
    let voices = quick.get("/v1/audio/voices");
    if report.ready && voices.as_ref().is_ok_and(|a| a.status == 401 || a.status == 403) {
        report.ready = false;
        report.problem = Some("it refuses the API key".into());
    }
    if !report.ready {
        report.problem.get_or_insert_with(|| "it does not answer /health or /v1/models".into());
        return report;
    }
    let model = |mut body: Value| {
        if !engine.model.is_empty() {
            body["model"] = json!(engine.model);
        }
        body
    };
    // Formats: a one-word render in each (the server's cache makes the repeats cheap).
    let speaking = Client::new(url, &engine.api_key, Duration::from_secs(60));
    for format in FORMATS {
        let started = Instant::now();
        if let Ok(answer) = speaking.post("/v1/audio/speech", &model(json!({"input": "Hi.", "response_format": format}))) {
            if answer.status == 200 && !answer.body.is_empty() {
                report.speak_ms.get_or_insert(started.elapsed().as_secs_f64() * 1000.0);
                report.capabilities.formats.push(format.to_string());
            }
        }
    }
    if report.capabilities.formats.is_empty() {
        report.problem = Some("it does not render \"Hi.\" in any format".into());
    }
    // The rest answers a request it must refuse: 400 means the route and field are known.
    let knows = |path: &str, body: Value, param: Option<&str>| {
        quick.post(path, &model(body)).is_ok_and(|a| a.status == 400 && param.is_none_or(|p| a.json()["error"]["param"].as_str() == Some(p)))
    };
    report.capabilities.batch = knows("/v1/audio/speech/batch", json!({"items": []}), None);
    report.capabilities.cloning = knows("/v1/audio/speech", json!({"input": "Hi.", "task_type": "Base"}), Some("ref_audio"));
    report.capabilities.voice_upload = voices.is_ok_and(|a| a.status == 200);
    report.capabilities.streaming = websocket_upgrades(url, "/v1/audio/speech/stream", &engine.api_key, Duration::from_secs(5));
    report
}

/// Probes every server of `engine` (one after another).
pub fn check_engine(engine: &RemoteEngineSettings) -> EngineReport {
    let nodes: Vec<NodeReport> = engine.urls.iter().map(|url| probe_node(engine, url)).collect();
    let mut ready = nodes.iter().filter(|n| n.ready);
    let capabilities = match ready.next() {
        Some(first) => ready.fold(first.capabilities.clone(), |all, n| all.and(&n.capabilities)),
        None => Capabilities::default(),
    };
    EngineReport { name: engine.name.clone(), model: engine.model.clone(), nodes, capabilities }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_can_do_what_all_its_servers_can() {
        let a = Capabilities { formats: vec!["wav".into(), "mp3".into()], batch: true, streaming: true, voice_upload: true, cloning: true };
        let b = Capabilities { formats: vec!["wav".into(), "flac".into()], batch: true, streaming: false, voice_upload: true, cloning: true };
        let both = a.and(&b);
        assert_eq!(both.formats, ["wav"]);
        assert!(both.batch && !both.streaming && both.voice_upload);
        assert_eq!(both.describe(), "wav; batch, voice upload, cloning from ref_audio");
    }

    #[test]
    fn a_server_that_is_not_there_is_said_to_be_unreachable() {
        let engine = RemoteEngineSettings {
            name: "gone".into(),
            urls: vec!["http://127.0.0.1:9".into()],
            api_key: String::new(),
            model: String::new(),
            timeout_s: None,
        };
        let report = check_engine(&engine);
        assert_eq!(report.ready(), 0);
        assert!(!report.nodes[0].reachable && report.nodes[0].problem.as_deref().is_some_and(|p| p.starts_with("not reachable")), "{report:?}");
    }

    #[test]
    fn names_and_addresses_are_checked() {
        let engine = |name: &str, url: &str| RemoteEngineSettings {
            name: name.into(),
            urls: vec![url.into()],
            api_key: String::new(),
            model: String::new(),
            timeout_s: None,
        };
        assert!(engine("fleet", "http://10.0.0.2:8880").check().is_ok());
        assert!(engine("local", "http://a").check().unwrap_err().contains("local"));
        assert!(engine("my fleet", "http://a").check().unwrap_err().contains("letters"));
        assert!(engine("fleet", "ftp://a").check().unwrap_err().contains("ftp://a"));
        assert!(engine("fleet", "http://").check().is_err());
    }
}
