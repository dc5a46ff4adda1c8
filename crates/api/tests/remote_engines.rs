//! Checking a remote engine against real servers of this contract: two
//! `revoice serve` servers over the scripted model on loopback (one with an
//! API key), one still loading and one that is not there. Each server is
//! asked what it is and can do; an engine can do what all its ready
//! servers can.

use std::sync::Arc;

use revoice_api::{ApiOptions, RunningServer};
use revoice_engine::config::RemoteEngineSettings;
use revoice_engine::engines::{check_engine, FORMATS};
use revoice_engine::testing::{scripted_loader, LoadGate, ScriptedModel};

fn server(api_key: Option<&str>, gate: Option<Arc<LoadGate>>) -> (RunningServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let options = ApiOptions { api_key: api_key.map(str::to_string), ref_audio: Default::default(), max_uploaded_voices: 4, fit_uploaded_voices: false };
    let wait = gate.is_none();
    let loader = scripted_loader(Arc::new(ScriptedModel::new()), gate);
    (RunningServer::start_with(config, loader, wait, options, "127.0.0.1:0".parse().unwrap(), false).expect("the server starts"), dir)
}

fn engine(urls: Vec<String>, api_key: &str) -> RemoteEngineSettings {
    RemoteEngineSettings { name: "fleet".into(), urls, api_key: api_key.into(), model: "kokoro".into(), timeout_s: None }
}

#[test]
fn a_fleet_is_checked_server_by_server_and_can_do_what_its_ready_servers_can() {
    let (open, _a) = server(None, None);
    let (keyed, _b) = server(Some("s3cret"), None);
    let gate = LoadGate::shut();
    let (loading, _c) = server(None, Some(gate.clone()));
    let dead = "http://127.0.0.1:9".to_string();
    let report = check_engine(&engine(vec![open.url(), keyed.url(), loading.url(), dead.clone()], "s3cret"));
    assert_eq!(report.ready(), 2, "{report:#?}");
    for node in &report.nodes[..2] {
        assert!(node.ready && node.version.as_deref() == Some(revoice_engine::ENGINE_VERSION) && node.speak_ms.is_some(), "{node:?}");
        assert_eq!(node.capabilities.formats, FORMATS.map(String::from));
        assert!(node.capabilities.batch && node.capabilities.streaming && node.capabilities.voice_upload && node.capabilities.cloning, "{node:?}");
    }
    assert!(
        report.nodes[2].reachable && !report.nodes[2].ready && report.nodes[2].problem.as_deref() == Some("its model is still loading"),
        "{:?}",
        report.nodes[2]
    );
    assert!(!report.nodes[3].reachable, "{:?}", report.nodes[3]);
    assert_eq!(report.capabilities.describe(), "wav, pcm, mp3, opus, aac, flac; batch, streaming, voice upload, cloning from ref_audio");

    // Without its key the keyed server is reachable but refuses.
    let refused = check_engine(&engine(vec![keyed.url()], ""));
    assert_eq!(refused.ready(), 0);
    assert_eq!(refused.nodes[0].problem.as_deref(), Some("it refuses the API key"), "{:?}", refused.nodes[0]);
    gate.open();
}
