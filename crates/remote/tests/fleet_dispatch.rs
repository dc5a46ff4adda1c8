//! The fleet's dispatch against small stand-in servers (no model): lines
//! spread over the servers and each handed over once; a server without
//! the batch route gets single requests; a cancelled render leaves no
//! server looking busy; a line the servers refuse fails alone with the
//! engine's name and reason.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use revoice_core::config::RemoteEngineSettings;
use revoice_remote::{stand_in, Fleet, RemoteLine, SpeechItem, Uploads};
use revoice_store::Store;
use serde_json::{json, Value};

/// A 16-bit mono WAV of `samples` at 24 kHz.
fn wav(samples: &[i16]) -> Vec<u8> {
    let data = samples.len() as u32 * 2;
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&24_000u32.to_le_bytes());
    out.extend_from_slice(&48_000u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    samples.iter().for_each(|s| out.extend_from_slice(&s.to_le_bytes()));
    out
}

/// What a stand-in server answers and counts.
struct Stand {
    url: String,
    requests: Arc<AtomicUsize>,
}

/// A server that speaks each `input` as a WAV whose length is the input's
/// length in samples (so answers can be told apart), after `delay`;
/// refuses inputs that start with "refuse"; `batch` says whether it has the batch route.
fn stand_in(batch: bool, delay: Duration) -> Stand {
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    let url = stand_in::serve(move |head, body| {
        let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let speak = |item: &Value| -> Result<Vec<u8>, Value> {
            let input = item["input"].as_str().unwrap_or("");
            if input.starts_with("refuse") {
                return Err(json!({"message": "input is not allowed here", "param": "input", "type": "invalid_request_error"}));
            }
            Ok(wav(&vec![100; input.len() * 10]))
        };
        Some(if head.starts_with("GET /health") {
            ("200 OK", "application/json", b"{}".to_vec())
        } else if head.starts_with("POST /v1/audio/speech/batch") {
            if !batch {
                return Some(("404 Not Found", "application/json", br#"{"error":{"message":"no such route"}}"#.to_vec()));
            }
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(delay);
            let results: Vec<Value> = request["items"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, item)| match speak(item) {
                    Ok(audio) => json!({"index": i, "status": "ok", "audio_data": base64::engine::general_purpose::STANDARD.encode(audio)}),
                    Err(error) => json!({"index": i, "status": "error", "error": error}),
                })
                .collect();
            ("200 OK", "application/json", json!({ "results": results }).to_string().into_bytes())
        } else {
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(delay);
            match speak(&request) {
                Ok(audio) => ("200 OK", "audio/wav", audio),
                Err(error) => ("400 Bad Request", "application/json", json!({ "error": error }).to_string().into_bytes()),
            }
        })
    });
    Stand { url, requests }
}

fn fleet(runtime: &tokio::runtime::Runtime, dir: &std::path::Path, urls: Vec<String>) -> Fleet {
    let store = runtime.block_on(Store::open(&dir.join("studio.sqlite3"))).unwrap();
    let uploads = Arc::new(Uploads::new(store, runtime.handle().clone()));
    Fleet::new(RemoteEngineSettings { name: "fleet".into(), urls, api_key: String::new(), model: String::new(), timeout_s: Some(5.0) }, uploads)
}

fn lines(texts: &[String]) -> Vec<RemoteLine> {
    texts
        .iter()
        .map(|t| RemoteLine {
            item: SpeechItem { input: t.clone(), voice: Some("af_bella".into()), ref_audio: None, speed: 1.0, seed: 1, language: None },
            reference: None,
        })
        .collect()
}

#[test]
fn lines_spread_over_the_servers_and_each_is_handed_over_once() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (stand_in(true, Duration::from_millis(50)), stand_in(false, Duration::from_millis(50)));
    let fleet = fleet(&runtime, dir.path(), vec![a.url.clone(), b.url.clone()]);
    let texts: Vec<String> = (0..24).map(|i| format!("line number {i}{}", "!".repeat(i))).collect();
    let mut got = vec![0usize; texts.len()];
    let never = AtomicBool::new(false);
    let run = fleet.render(&lines(&texts), &never, &mut |i, answer| {
        let audio = answer.unwrap();
        assert_eq!(audio.samples.len(), texts[i].len() * 10, "line {i} got its own audio");
        got[i] += 1;
    });
    assert!(got.iter().all(|&n| n == 1), "each line once: {got:?}");
    assert!(run.failovers.is_empty() && !run.cancelled);
    let status = fleet.status();
    assert!(status.iter().all(|s| s.up && s.lines_done > 0 && s.in_flight == 0), "both took lines: {status:?}");
    assert!(a.requests.load(Ordering::SeqCst) < 24 / 2, "the batch server took lines several to a request");
    assert_eq!(b.requests.load(Ordering::SeqCst) as u64, status[1].lines_done, "the server without the batch route got one request a line");
}

#[test]
fn a_refused_line_fails_alone_naming_the_engine_and_the_reason() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let a = stand_in(true, Duration::ZERO);
    let fleet = fleet(&runtime, dir.path(), vec![a.url.clone()]);
    let texts = vec!["fine".to_string(), "refuse me".to_string(), "also fine".to_string()];
    let mut outcomes = vec![None; 3];
    fleet.render(&lines(&texts), &AtomicBool::new(false), &mut |i, answer| outcomes[i] = Some(answer.map(|a| a.samples.len())));
    assert_eq!(outcomes[0], Some(Ok(40)));
    assert_eq!(outcomes[2], Some(Ok(90)));
    let refused = outcomes[1].clone().unwrap().unwrap_err();
    assert!(refused.contains("engine fleet") && refused.contains("input is not allowed here"), "{refused}");
    assert!(fleet.status()[0].up, "a refused line is not the server's fault");
}

#[test]
fn a_cancelled_render_leaves_no_server_looking_busy() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let slow = stand_in(true, Duration::from_millis(300));
    let fleet = fleet(&runtime, dir.path(), vec![slow.url.clone()]);
    let texts: Vec<String> = (0..16).map(|i| format!("line {i}")).collect();
    let cancel = AtomicBool::new(false);
    let run = fleet.render(&lines(&texts), &cancel, &mut |_, _| cancel.store(true, Ordering::Release));
    assert!(run.cancelled);
    // The requests still out finish on their own and free the server's room.
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(fleet.status()[0].in_flight, 0);
    let mut done = 0;
    let again = fleet.render(&lines(&texts[..4]), &AtomicBool::new(false), &mut |_, answer| done += usize::from(answer.is_ok()));
    assert_eq!((done, again.cancelled), (4, false));
}

#[test]
fn a_preview_waits_for_a_server_still_loading_its_model() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ready_at = std::time::Instant::now() + Duration::from_millis(1500);
    let url = stand_in::serve(move |head, _| {
        if std::time::Instant::now() < ready_at {
            return Some(("503 Service Unavailable", "application/json", br#"{"error":{"message":"the speech model is still loading"}}"#.to_vec()));
        }
        Some(if head.starts_with("GET /health") {
            ("200 OK", "application/json", b"{}".to_vec())
        } else {
            // `stream: true` answers raw 16-bit PCM.
            ("200 OK", "audio/pcm", [100i16; 2400].iter().flat_map(|s| s.to_le_bytes()).collect())
        })
    });
    let fleet = fleet(&runtime, dir.path(), vec![url]);
    let line = &lines(&["Hello.".to_string()])[0];
    let mut played = 0;
    let audio = fleet.speak_streaming(line, &AtomicBool::new(false), 24_000, &mut |chunk| {
        played += chunk.len();
        Ok(())
    });
    assert_eq!(audio.unwrap().len(), 2400, "it waited for the model and spoke");
    assert_eq!(played, 2400);
    let status = &fleet.status()[0];
    assert!(status.up && status.last_fault.as_deref().is_some_and(|f| f.contains("503")), "{status:?}");
}
