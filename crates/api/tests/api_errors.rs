//! The API's refusals, on a server over the scripted model (no real model
//! needed): the bind policy.

#[test]
fn a_non_loopback_address_is_refused_unless_remote_access_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let options = revoice_api::ApiOptions { api_key: None, ref_audio: Default::default(), max_uploaded_voices: 1, scheduler: None };
    let err = revoice_api::RunningServer::start(config, options, "0.0.0.0:0".parse().unwrap(), false).err().expect("refused").to_string();
    assert!(err.contains("--allow-remote"), "{err}");
}
