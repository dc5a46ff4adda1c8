//! The speech API's server-wide behaviour, on its own server so that the
//! scheduler's counters are this file's alone: the bearer token, batch
//! items rendered as one scheduler batch, a WebSocket client's work
//! cancelled when it disconnects, the cap on uploaded voices, and the bind
//! policy. The tests take turns (one lock), since they read shared counters.

use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use revoice_tests::api_client::*;
use serde_json::json;

const KEY: &str = "test-key-5b1e";

fn server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        start_batching(200, |options| {
            options.api_key = Some(KEY.into());
            options.max_uploaded_voices = 1;
        })
    })
}

fn turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

fn metrics() -> String {
    let r = get(&server().base, "/metrics", Some(KEY));
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

#[test]
fn requests_need_the_api_key_except_health() {
    let _turn = turn();
    let base = &server().base;
    let body = json!({"input": "Locked.", "response_format": "wav"});
    assert_error(&post_json(base, "/v1/audio/speech", &body), 401, None);
    assert_error(&post_raw(base, "/v1/audio/speech", "application/json", body.to_string().as_bytes(), Some("wrong")), 401, None);
    assert_error(&get(base, "/v1/audio/voices", None), 401, None);
    assert_error(&get(base, "/metrics", None), 401, None);
    assert_eq!(get(base, "/health", None).status, 200);
    assert_eq!(post_json_key(base, "/v1/audio/speech", &body, KEY).status, 200);
    assert!(tungstenite::connect(ws_url(base)).is_err(), "the WebSocket needs the key too");
}

#[test]
fn batch_items_go_through_the_scheduler_as_one_batch() {
    let _turn = turn();
    let before = metrics();
    let items: Vec<_> = (0..4).map(|i| json!({"input": format!("Batched item number {i}.")})).collect();
    let r = post_json_key(&server().base, "/v1/audio/speech/batch", &json!({"voice": "af_heart", "response_format": "pcm", "items": items}), KEY);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["succeeded"], 4);
    let after = metrics();
    let batches = metric(&after, "revoice_scheduler_batches_total") - metric(&before, "revoice_scheduler_batches_total");
    let rows = metric(&after, "revoice_scheduler_rows_rendered_total") - metric(&before, "revoice_scheduler_rows_rendered_total");
    assert_eq!((batches, rows), (1.0, 4.0), "four items, one batch");
    let fours = |m: &str| m.lines().find_map(|l| l.strip_prefix("revoice_scheduler_batch_size{rows=\"4\"} ")).map_or(0.0, |v| v.parse::<f64>().unwrap());
    assert_eq!(fours(&after) - fours(&before), 1.0, "one batch of four rows:\n{after}");
}

#[test]
fn a_websocket_client_that_disconnects_has_its_work_cancelled() {
    let _turn = turn();
    let before = metrics();
    let mut socket = ws_connect_key(&server().base, KEY);
    ws_send(&mut socket, &json!({"type": "session.config", "voice": "af_heart", "response_format": "pcm"}));
    let text: String = (0..12).map(|i| format!("This is sentence number {i} of a long reading. ")).collect();
    ws_send(&mut socket, &json!({"type": "input.text", "text": text}));
    ws_send(&mut socket, &json!({"type": "input.done"}));
    loop {
        if let Ok(e) = ws_next(&mut socket) {
            if e["type"] == "audio.start" {
                break;
            }
        }
    }
    // Leave only once the first batch is done: by then every sentence's rows
    // are queued and their waiting threads blocked, which is when a server
    // that only noticed a gone client on its next send rendered them all.
    let rendered_since = |m: &str| metric(m, "revoice_scheduler_rows_rendered_total") - metric(&before, "revoice_scheduler_rows_rendered_total");
    let deadline = Instant::now() + Duration::from_secs(120);
    while rendered_since(&metrics()) < 4.0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(socket);
    let cancelled = |m: &str| metric(m, "revoice_scheduler_rows_cancelled_total") + metric(m, "revoice_scheduler_rows_discarded_total");
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut now = metrics();
    while cancelled(&now) <= cancelled(&before) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        now = metrics();
    }
    assert!(cancelled(&now) > cancelled(&before), "no rows were cancelled:\n{now}");
    let rendered = rendered_since(&now);
    assert!(rendered < 12.0, "{rendered} of 12 sentences were rendered for a client that left");
    // And the server is still there for others.
    let r = post_json_key(&server().base, "/v1/audio/speech", &json!({"input": "Still serving.", "response_format": "wav"}), KEY);
    assert_eq!(r.status, 200);
}

fn upload_key(name: &str, audio: &[u8]) -> Reply {
    let (content_type, body) = multipart(&[("name", name), ("consent", "test speaker")], Some(("r.wav", audio)));
    post_raw(&server().base, "/v1/audio/voices", &content_type, &body, Some(KEY))
}

#[test]
fn the_upload_cap_refuses_new_names_when_full_but_allows_overwrites() {
    let _turn = turn();
    let wav = post_json_key(
        &server().base,
        "/v1/audio/speech",
        &json!({"input": "A voice for the cap test. It needs two sentences.", "voice": "bf_emma", "response_format": "wav"}),
        KEY,
    );
    assert_eq!(wav.status, 200);
    assert_eq!(upload_key("only", &wav.body).status, 200);
    assert_error(&upload_key("second", &wav.body), 400, Some("name"));
    let again = upload_key("only", &wav.body);
    assert_eq!((again.status, again.json()["overwritten"].clone()), (200, json!(true)));
}
