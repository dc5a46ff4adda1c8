//! `revoice bench api`: a bounded load test of the speech API on loopback.
//! A server runs in this process on a scratch copy of the data folder (the
//! models and cached stock embeddings linked, a fresh database), and
//! `requests` clients start at once, a mix of whole speech in several
//! formats, streamed PCM, batches, WebSocket sessions and voice uploads,
//! while a probe asks `/health` every 100 ms to see that the server stays
//! responsive. Prints per kind the p50/p95 latency and time to first audio,
//! the batch sizes the scheduler formed, and the process's peak memory.
//! Any failed request makes the bench fail.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use revoice_api::metrics::quantile;
use revoice_api::{ApiOptions, RunningServer};
use revoice_engine::{Error, Result};
use serde_json::{json, Value};

fn fail(what: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidInput { input: format!("bench api: {what}"), reason: reason.to_string() }
}

/// A data folder sharing `data_dir`'s models and stock embeddings, with its own database.
pub(crate) fn scratch(data_dir: &Path) -> Result<tempfile::TempDir> {
    let dir = tempfile::tempdir().map_err(|e| fail("scratch folder", e))?;
    // The links must not depend on the working directory (`--data-dir target/test-data`).
    let data_dir = &std::path::absolute(data_dir).map_err(|e| Error::io("resolve", data_dir, e))?;
    let link = |from: &Path, to: &Path| std::os::unix::fs::symlink(from, to).map_err(|e| Error::io("link", to, e));
    link(&data_dir.join("models"), &dir.path().join("models"))?;
    std::fs::create_dir_all(dir.path().join("voices")).map_err(|e| Error::io("create", dir.path().join("voices"), e))?;
    for file in ["voices/stock-embeddings.safetensors", "calibration.json"] {
        if data_dir.join(file).exists() {
            link(&data_dir.join(file), &dir.path().join(file))?;
        }
    }
    Ok(dir)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(Duration::from_secs(600))).build().into()
}

/// Status, body and the time the first body bytes arrived.
fn post(agent: &ureq::Agent, url: &str, content_type: &str, body: &[u8], started: Instant) -> std::result::Result<(u16, Vec<u8>, Duration), String> {
    let mut response = agent.post(url).header("Content-Type", content_type).send(body).map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let mut reader = response.body_mut().with_config().limit(256 << 20).reader();
    let mut first = [0u8; 4096];
    let n = std::io::Read::read(&mut reader, &mut first).map_err(|e| e.to_string())?;
    let ttfa = started.elapsed();
    let mut all = first[..n].to_vec();
    std::io::Read::read_to_end(&mut reader, &mut all).map_err(|e| e.to_string())?;
    Ok((status, all, ttfa))
}

fn multipart(name: &str, audio: &[u8]) -> (String, Vec<u8>) {
    let boundary = format!("revoicebench{:016x}", rand::random::<u64>());
    let mut body = Vec::new();
    for (field, value) in [("name", name), ("consent", "bench: synthetic voice"), ("ref_text", ""), ("speaker_description", "bench upload")] {
        body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{value}\r\n").as_bytes());
    }
    body.extend(
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"audio_sample\"; filename=\"ref.wav\"\r\nContent-Type: audio/wav\r\n\r\n").as_bytes(),
    );
    body.extend_from_slice(audio);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// One client's result.
struct Outcome {
    kind: &'static str,
    latency: Duration,
    ttfa: Option<Duration>,
    error: Option<String>,
}

fn websocket(base: &str, text: &str, started: Instant) -> std::result::Result<Option<Duration>, String> {
    use tungstenite::Message;
    let url = format!("{}/v1/audio/speech/stream", base.replacen("http", "ws", 1));
    let (mut socket, _) = tungstenite::connect(url).map_err(|e| e.to_string())?;
    let send = |socket: &mut tungstenite::WebSocket<_>, v: Value| socket.send(Message::text(v.to_string())).map_err(|e: tungstenite::Error| e.to_string());
    send(&mut socket, json!({"type": "session.config", "voice": "af_heart", "response_format": "pcm", "stream_audio": true, "split_granularity": "sentence"}))?;
    send(&mut socket, json!({"type": "input.text", "text": text}))?;
    send(&mut socket, json!({"type": "input.done"}))?;
    let mut first = None;
    loop {
        match socket.read().map_err(|e| e.to_string())? {
            Message::Binary(_) => {
                first.get_or_insert(started.elapsed());
            }
            Message::Text(t) => {
                let v: Value = serde_json::from_str(t.as_str()).map_err(|e| e.to_string())?;
                match v["type"].as_str() {
                    Some("session.done") => break,
                    Some("error") => return Err(format!("error event: {v}")),
                    Some("audio.done") if v["error"] == true => return Err(format!("failed sentence: {v}")),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let _ = socket.close(None);
    Ok(first)
}

fn client(i: usize, base: &str, reference: &[u8]) -> Outcome {
    let agent = agent();
    let text = format!("Request {i} reaches the studio. It asks for a short line.");
    let started = Instant::now();
    let speech = |format: &str, stream: bool| -> std::result::Result<Option<Duration>, String> {
        let body = json!({"model": "kokoro", "input": text, "voice": "af_heart", "response_format": format, "stream": stream});
        let (status, bytes, ttfa) = post(&agent, &format!("{base}/v1/audio/speech"), "application/json", body.to_string().as_bytes(), started)?;
        if status != 200 || bytes.len() < 1000 {
            return Err(format!("HTTP {status}, {} bytes: {}", bytes.len(), String::from_utf8_lossy(&bytes[..bytes.len().min(300)])));
        }
        Ok(Some(ttfa))
    };
    let (kind, result): (&'static str, std::result::Result<Option<Duration>, String>) = match i % 8 {
        0 => ("speech wav", speech("wav", false)),
        1 => ("speech mp3", speech("mp3", false)),
        2 => ("speech opus/aac", speech(if i % 16 == 2 { "opus" } else { "aac" }, false)),
        3 | 7 => ("speech stream", speech("pcm", true)),
        4 => ("batch", {
            let items: Vec<Value> = (0..3).map(|k| json!({"input": format!("Batch {i} item {k} is here."), "response_format": "wav"})).collect();
            let body = json!({"model": "kokoro", "voice": "af_heart", "items": items});
            post(&agent, &format!("{base}/v1/audio/speech/batch"), "application/json", body.to_string().as_bytes(), started).and_then(|(status, bytes, _)| {
                let v: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
                if status == 200 && v["succeeded"] == 3 {
                    Ok(None)
                } else {
                    Err(format!("HTTP {status}: {v}"))
                }
            })
        }),
        5 => ("websocket", websocket(base, &text, started)),
        _ => ("voice upload", {
            let (content_type, body) = multipart(&format!("bench-{i}"), reference);
            post(&agent, &format!("{base}/v1/audio/voices"), &content_type, &body, started).and_then(|(status, bytes, _)| {
                if status == 200 {
                    Ok(None)
                } else {
                    Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&bytes)))
                }
            })
        }),
    };
    let latency = started.elapsed();
    match result {
        Ok(ttfa) => Outcome { kind, latency, ttfa, error: None },
        Err(e) => Outcome { kind, latency, ttfa: None, error: Some(e) },
    }
}

fn seconds(values: &mut [f64]) -> String {
    values.sort_by(f64::total_cmp);
    if values.is_empty() {
        return "-".into();
    }
    format!("p50 {:6.2} s  p95 {:6.2} s", quantile(values, 0.5), quantile(values, 0.95))
}

/// Runs the load test.
pub fn api(data_dir: &Path, requests: usize) -> Result<()> {
    let dir = scratch(data_dir)?;
    let config = revoice_engine::EngineConfig::load_from(dir.path().to_path_buf())?;
    let options = ApiOptions { api_key: None, ref_audio: Default::default(), max_uploaded_voices: requests + 8, fit_uploaded_voices: false };
    let loading = Instant::now();
    let server = RunningServer::start(config, options, "127.0.0.1:0".parse().expect("address"), false)?;
    let base = server.url();
    eprintln!("server up on {base} in {:.1} s", loading.elapsed().as_secs_f64());

    let agent = agent();
    let reference_request =
        json!({"input": "The studio records a short reference. It has two sentences of clear speech.", "voice": "af_bella", "response_format": "wav"});
    let (status, reference, _) = post(&agent, &format!("{base}/v1/audio/speech"), "application/json", reference_request.to_string().as_bytes(), Instant::now())
        .map_err(|e| fail("reference clip", e))?;
    if status != 200 {
        return Err(fail("reference clip", format!("HTTP {status}")));
    }
    let width = {
        let (_, bytes, _) = agent
            .get(&format!("{base}/health"))
            .call()
            .map_err(|e| fail("health", e))
            .and_then(|mut r| r.body_mut().read_to_vec().map(|b| (0, b, 0)).map_err(|e| fail("health", e)))?;
        serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v["scheduler"]["width"].as_u64()).unwrap_or(0)
    };

    let stop = Arc::new(AtomicBool::new(false));
    let probe = {
        let (stop, url) = (stop.clone(), format!("{base}/health"));
        std::thread::spawn(move || {
            let agent = self::agent();
            let mut times = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let ok = agent.get(&url).call().map(|r| r.status().as_u16() == 200).unwrap_or(false);
                times.push((t.elapsed().as_secs_f64(), ok));
                std::thread::sleep(Duration::from_millis(100));
            }
            times
        })
    };

    let barrier = Arc::new(Barrier::new(requests));
    let reference = Arc::new(reference);
    let started = Instant::now();
    let clients: Vec<_> = (0..requests)
        .map(|i| {
            let (barrier, base, reference) = (barrier.clone(), base.clone(), reference.clone());
            std::thread::spawn(move || {
                barrier.wait();
                client(i, &base, &reference)
            })
        })
        .collect();
    let outcomes: Vec<Outcome> = clients.into_iter().map(|c| c.join().expect("client thread")).collect();
    let wall = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let health = probe.join().expect("probe thread");

    let (_, metrics, _) = agent
        .get(&format!("{base}/metrics"))
        .call()
        .map_err(|e| fail("metrics", e))
        .and_then(|mut r| r.body_mut().read_to_string().map(|b| (0, b, 0)).map_err(|e| fail("metrics", e)))?;

    println!("{requests} concurrent requests on loopback in {:.1} s (scheduler width {width})", wall.as_secs_f64());
    println!("{:<16} {:>3} {:>3}  {:<28}  time to first audio", "kind", "n", "ok", "latency");
    let mut kinds: Vec<&str> = outcomes.iter().map(|o| o.kind).collect();
    kinds.sort();
    kinds.dedup();
    for kind in kinds {
        let of: Vec<&Outcome> = outcomes.iter().filter(|o| o.kind == kind).collect();
        let ok = of.iter().filter(|o| o.error.is_none()).count();
        let mut latency: Vec<f64> = of.iter().map(|o| o.latency.as_secs_f64()).collect();
        let mut ttfa: Vec<f64> = of.iter().filter_map(|o| o.ttfa).map(|d| d.as_secs_f64()).collect();
        println!("{kind:<16} {:>3} {ok:>3}  {}  {}", of.len(), seconds(&mut latency), seconds(&mut ttfa));
    }
    let mut all: Vec<f64> = outcomes.iter().map(|o| o.latency.as_secs_f64()).collect();
    let mut all_ttfa: Vec<f64> = outcomes.iter().filter_map(|o| o.ttfa).map(|d| d.as_secs_f64()).collect();
    println!(
        "{:<16} {:>3} {:>3}  {}  {}",
        "all",
        outcomes.len(),
        outcomes.iter().filter(|o| o.error.is_none()).count(),
        seconds(&mut all),
        seconds(&mut all_ttfa)
    );
    let mut probe_times: Vec<f64> = health.iter().map(|(t, _)| *t).collect();
    let probe_failures = health.iter().filter(|(_, ok)| !ok).count();
    probe_times.sort_by(f64::total_cmp);
    println!(
        "/health during the load: {} probes, {} failed, p50 {:.1} ms, max {:.1} ms",
        health.len(),
        probe_failures,
        quantile(&probe_times, 0.5) * 1000.0,
        probe_times.last().copied().unwrap_or(f64::NAN) * 1000.0
    );
    println!("scheduler (from /metrics):");
    for line in metrics.lines().filter(|l| {
        l.starts_with("revoice_scheduler_")
            || l.starts_with("revoice_ttfa_seconds{")
            || l.starts_with("revoice_rtf{")
            || l.starts_with("revoice_render_cache_hit_rate")
    }) {
        println!("  {line}");
    }
    let (peak, _) = revoice_engine::doctor::memory_mib();
    println!("peak resident memory of this process (server and clients): {peak:.0} MiB");
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.error.is_some()).collect();
    for o in &failed {
        eprintln!("failed {}: {}", o.kind, o.error.as_deref().unwrap_or(""));
    }
    drop(server);
    if !failed.is_empty() || probe_failures > 0 {
        return Err(fail("load", format!("{} of {requests} requests and {probe_failures} health probes failed", failed.len())));
    }
    Ok(())
}
