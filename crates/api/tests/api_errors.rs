//! The API's answers when things are not as a request needs them, on a
//! server over the scripted model (no real model needed): each carries the
//! error envelope with the status the engine's error kind calls for. An
//! unknown voice is 404; a request while the model is still loading is 503
//! (and the same request succeeds once it has loaded); a store that fails
//! under it is 500; a non-loopback address is refused.

use std::sync::Arc;
use std::time::Duration;

use revoice_api::{ApiOptions, RunningServer};
use revoice_engine::testing::{scripted_loader, LoadGate, ScriptedModel};
use serde_json::Value;

struct Reply {
    status: u16,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(Duration::from_secs(60))).build().into()
}

fn send(request: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut response = request.expect("the server answers");
    let status = response.status().as_u16();
    Reply { status, body: response.body_mut().read_to_vec().unwrap() }
}

fn options() -> ApiOptions {
    ApiOptions { api_key: None, ref_audio: Default::default(), max_uploaded_voices: 4, fit_uploaded_voices: false }
}

/// A server over the scripted model, loading behind `gate` when given.
fn server(gate: Option<Arc<LoadGate>>) -> (RunningServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let wait = gate.is_none();
    let loader = scripted_loader(Arc::new(ScriptedModel::new()), gate);
    let server = RunningServer::start_with(config, loader, wait, options(), "127.0.0.1:0".parse().unwrap(), false).expect("the server starts");
    (server, dir)
}

/// The envelope: `{"error": {"message", "type", "param", "code"}}` with `code` the status.
fn assert_envelope(reply: &Reply, status: u16, kind: &str) -> Value {
    assert_eq!(reply.status, status, "{}", String::from_utf8_lossy(&reply.body));
    let error = reply.json()["error"].clone();
    assert_eq!(error["code"], status);
    assert_eq!(error["type"], kind);
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
    assert!(error.get("param").is_some(), "{error}");
    error
}

const SPEECH: &str = r#"{"model":"kokoro","input":"Good evening.","voice":"af_heart","response_format":"wav"}"#;

#[test]
fn deleting_a_voice_the_library_does_not_hold_is_a_404_naming_it() {
    let (server, _dir) = server(None);
    let reply = send(agent().delete(format!("{}/v1/audio/voices/Nobody%20Here", server.url())).call());
    let error = assert_envelope(&reply, 404, "NotFoundError");
    assert!(error["message"].as_str().unwrap().contains("Nobody Here"), "{error}");
    assert_eq!(error["param"], "name");
}

#[test]
fn speech_while_the_model_is_loading_is_a_503_and_works_once_it_has_loaded() {
    let gate = LoadGate::shut();
    let (server, _dir) = server(Some(gate.clone()));
    let post = || send(agent().post(format!("{}/v1/audio/speech", server.url())).header("content-type", "application/json").send(SPEECH));
    let error = assert_envelope(&post(), 503, "InternalServerError");
    assert!(error["message"].as_str().unwrap().contains("still loading"), "{error}");
    assert_eq!(error["param"], Value::Null);
    assert_eq!(send(agent().get(format!("{}/health", server.url())).call()).status, 503, "health says it is not ready");

    gate.open();
    let loaded = server.engine.clone();
    std::thread::spawn(move || loaded.speech().map(|_| ())).join().unwrap().unwrap();
    let reply = post();
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
    assert!(reply.body.starts_with(b"RIFF"), "a WAV file");
    assert_eq!(send(agent().get(format!("{}/health", server.url())).call()).status, 200);
}

#[test]
fn a_store_that_fails_under_a_request_is_a_500_not_the_clients_fault() {
    let (server, _dir) = server(None);
    let list = || send(agent().get(format!("{}/v1/audio/voices", server.url())).call());
    assert_eq!(list().status, 200);
    let engine = server.engine.clone();
    tokio::runtime::Runtime::new().unwrap().block_on(engine.store().close());
    let error = assert_envelope(&list(), 500, "InternalServerError");
    assert!(error["message"].as_str().unwrap().contains("database"), "{error}");
    assert_eq!(error["param"], Value::Null);
}

#[test]
fn a_non_loopback_address_is_refused_unless_remote_access_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let err = RunningServer::start(config, options(), "0.0.0.0:0".parse().unwrap(), false).err().expect("refused").to_string();
    assert!(err.contains("--allow-remote"), "{err}");
}
