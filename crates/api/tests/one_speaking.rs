//! `revoice say`, the speech API and the editor's voice preview say a text
//! through the engine's one speaking operation: the same text in the same
//! voice is the same samples from one render cache, synthesised once
//! whichever face asked first (counted on the scripted model).

use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::Duration;

use revoice_api::{ApiOptions, RunningServer};
use revoice_engine::studio::session::{StudioEvent, StudioSession};
use revoice_engine::testing::{scripted_loader, ScriptedModel};
use revoice_engine::voice::VoiceSpec;
use revoice_engine::{SpeakRequest, StopSpeaking};

fn server(model: Arc<ScriptedModel>) -> (RunningServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let options = ApiOptions { api_key: None, ref_audio: Default::default(), max_uploaded_voices: 4, fit_uploaded_voices: false };
    let server =
        RunningServer::start_with(config, scripted_loader(model, None), true, options, "127.0.0.1:0".parse().unwrap(), false).expect("the server starts");
    (server, dir)
}

/// The API's answer as 16-bit PCM samples, with its `x-cache` header.
fn api_speech(server: &RunningServer, text: &str, stream: bool) -> (Vec<i16>, String) {
    let body = serde_json::json!({"model": "kokoro", "input": text, "voice": "af_heart", "response_format": "pcm", "seed": 1, "stream": stream});
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(60))).build().into();
    let mut reply =
        agent.post(format!("{}/v1/audio/speech", server.url())).header("content-type", "application/json").send(body.to_string()).expect("speech answers 200");
    let cache = reply.headers().get("x-cache").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let bytes = reply.body_mut().read_to_vec().unwrap();
    (bytes.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect(), cache)
}

/// Samples as the API's PCM carries them.
fn pcm16(samples: &[f32]) -> Vec<i16> {
    samples.iter().map(|&s| (s as f64 * 32768.0).round().clamp(-32768.0, 32767.0) as i16).collect()
}

/// Panics naming the first sample that differs (or the lengths).
fn assert_same(a: &[i16], b: &[i16], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
        panic!("{what}: sample {i} of {} differs: {} against {}", a.len(), a[i], b[i]);
    }
}

/// What `revoice say` does: the engine's speaking operation.
fn say(server: &RunningServer, text: &str) -> revoice_engine::Spoken {
    let request = SpeakRequest { seed: Some(1), ..SpeakRequest::new(text, VoiceSpec::parse_stock("af_heart").unwrap()) };
    server.engine.speak(&request, &StopSpeaking::default(), &mut |_| Ok(())).expect("said")
}

/// The Voices page's play button: the voice's sample sentence, played.
fn preview(server: &RunningServer) {
    let (tx, events) = channel();
    let session = StudioSession::new(server.engine.clone(), Arc::new(move |e| drop(tx.send(e)))).unwrap();
    session.preview_voice("af_heart".into()).unwrap();
    loop {
        match events.recv_timeout(Duration::from_secs(60)).expect("the preview finishes") {
            StudioEvent::VoicePreviewFinished { error, .. } => return assert_eq!(error, None),
            _ => continue,
        }
    }
}

#[test]
fn the_api_then_say_then_a_preview_synthesise_the_text_once() {
    let model = Arc::new(ScriptedModel::new());
    let (server, _dir) = server(model.clone());
    let text = revoice_engine::language::sample_sentence("en-US");

    let (from_api, cache) = api_speech(&server, text, false);
    let synthesised = model.rows_rendered();
    assert!(synthesised > 0 && !from_api.is_empty());
    assert_eq!(cache, "MISS");

    let said = say(&server, text);
    assert_eq!(model.rows_rendered(), synthesised, "say found the API's audio in the render cache");
    assert_eq!((said.cache_hits, said.rows), (said.rows, said.rows));
    assert_same(&pcm16(&said.samples), &from_api, "say and the API");

    preview(&server);
    assert_eq!(model.rows_rendered(), synthesised, "the preview found it too");

    let (streamed, _) = api_speech(&server, text, true);
    assert_same(&streamed, &from_api, "a streamed answer and a whole one");
    assert_eq!(api_speech(&server, text, false).1, "HIT");
    assert_eq!(model.rows_rendered(), synthesised);
}

#[test]
fn a_preview_then_the_api_and_say_synthesise_the_text_once() {
    let model = Arc::new(ScriptedModel::new());
    let (server, _dir) = server(model.clone());
    let text = revoice_engine::language::sample_sentence("en-US");

    preview(&server);
    let synthesised = model.rows_rendered();
    assert!(synthesised > 0);

    let (from_api, cache) = api_speech(&server, text, false);
    assert_eq!(cache, "HIT", "the preview's audio answers the API");
    let said = say(&server, text);
    assert_same(&pcm16(&said.samples), &from_api, "say and the API");
    assert_eq!(model.rows_rendered(), synthesised, "nothing synthesised twice");
}
