//! The speech API over real HTTP and WebSocket, on the real model: a server
//! started by the test on a scratch data folder (models from the test
//! install), every contract of the API and its malformed cases. Texts are
//! short; repeated texts come from the render cache.

use std::io::{Read, Write};
use std::sync::OnceLock;

use base64::Engine as _;
use revoice_tests::api_client::*;
use serde_json::{json, Value};

fn server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| start(|_| {}))
}

fn base() -> &'static str {
    &server().base
}

fn speech(body: Value) -> Reply {
    post_json(base(), "/v1/audio/speech", &body)
}

/// About four seconds of af_bella as a WAV file: a reference recording.
fn reference_wav() -> &'static [u8] {
    static WAV: OnceLock<Vec<u8>> = OnceLock::new();
    WAV.get_or_init(|| {
        let r = speech(json!({"input": "The reference clip is read aloud. It holds two clear sentences.", "voice": "af_bella", "response_format": "wav"}));
        assert_eq!(r.status, 200, "{}", r.text());
        r.body
    })
}

#[test]
fn every_response_format_is_real_audio_with_its_content_type() {
    let text = "Formats test.";
    let wav = speech(json!({"model": "kokoro", "input": text, "voice": "af_heart", "response_format": "wav"}));
    assert_eq!(wav.status, 200, "{}", wav.text());
    assert_eq!(wav.header("content-type"), Some("audio/wav"));
    assert_eq!(&wav.body[..4], b"RIFF");
    assert_eq!(&wav.body[8..16], b"WAVEfmt ");
    assert_eq!(u16::from_le_bytes([wav.body[34], wav.body[35]]), 16, "16-bit PCM");
    let reference = decode(&wav.body, "a.wav");
    assert_eq!(reference.sample_rate, 24_000);
    assert!(rms(&reference.samples) > 0.01 && reference.seconds() > 0.4, "{} s", reference.seconds());

    let pcm = speech(json!({"input": text, "voice": "af_heart", "response_format": "pcm"}));
    assert_eq!((pcm.status, pcm.header("content-type"), pcm.header("x-sample-rate")), (200, Some("audio/pcm"), Some("24000")));
    assert_eq!(pcm.body, wav.body[44..], "pcm is the WAV's data chunk, raw");

    for (format, content_type, name) in
        [("mp3", "audio/mpeg", "a.mp3"), ("opus", "audio/ogg", "a.opus"), ("aac", "audio/aac", "a.aac"), ("flac", "audio/flac", "a.flac")]
    {
        let r = speech(json!({"input": text, "voice": "af_heart", "response_format": format}));
        assert_eq!((r.status, r.header("content-type")), (200, Some(content_type)), "{format}: {}", r.text());
        let audio = decode(&r.body, name);
        assert!((audio.seconds() - reference.seconds()).abs() < 0.15, "{format}: {} s vs {} s", audio.seconds(), reference.seconds());
        assert!(rms(&audio.samples) > 0.01, "{format} is silent");
    }
}

#[test]
fn bad_speech_requests_get_the_error_envelope_naming_the_field() {
    let cases = [
        (json!({"model": "kokoro", "voice": "af_heart"}), "input"),
        (json!({"input": ""}), "input"),
        (json!({"input": " \n\t "}), "input"),
        (json!({"input": 42}), "input"),
        (json!({"input": ["a"]}), "input"),
        (json!({"input": "x".repeat(4097)}), "input"),
        (json!({"input": "Hi.", "response_format": "ogg"}), "response_format"),
        (json!({"input": "Hi.", "speed": 0.1}), "speed"),
        (json!({"input": "Hi.", "speed": 4.01}), "speed"),
        (json!({"input": "Hi.", "speed": "fast"}), "speed"),
        (json!({"input": "Hi.", "seed": -3}), "seed"),
        (json!({"input": "Hi.", "language": "Klingon"}), "language"),
        (json!({"input": "Hi.", "stream": true, "response_format": "mp3"}), "stream"),
        (json!({"input": "Hi.", "stream": true, "response_format": "wav"}), "stream"),
        (json!({"input": "Hi.", "task_type": "Clone"}), "task_type"),
        (json!({"input": "Hi.", "task_type": "Base"}), "ref_audio"),
        (json!({"input": "Hi.", "task_type": "VoiceDesign"}), "instructions"),
        (json!({"input": "Hi.", "task_type": "VoiceDesign", "instructions": "make it nice"}), "instructions"),
        (json!({"input": "Hi.", "ref_audio": "file:///etc/passwd"}), "ref_audio"),
        (json!({"input": "Hi.", "ref_audio": "ftp://example.com/a.wav"}), "ref_audio"),
        (json!({"input": "Hi.", "ref_audio": "data:audio/wav;base64,@@@"}), "ref_audio"),
        (json!({"input": "Hi.", "voice": "af_heart:x,am_adam:1"}), "voice"),
        (json!({"input": "Hi.", "max_new_tokens": 0}), "max_new_tokens"),
        (json!({"input": "Hi.", "max_new_tokens": 2.5}), "max_new_tokens"),
        (json!({"input": "Hi.", "max_new_tokens": "many"}), "max_new_tokens"),
    ];
    for (body, param) in cases {
        let r = speech(body.clone());
        assert_error(&r, 400, Some(param));
        let _ = body;
    }
    let r = post_raw(base(), "/v1/audio/speech", "application/json", b"{not json", None);
    assert_error(&r, 400, None);
    let r = post_raw(base(), "/v1/audio/speech", "application/json", b"[1, 2]", None);
    assert_error(&r, 400, None);
    // A whole input of 4,096 characters is fine (it is only checked, not spoken, when the voice is unknown).
    let r = speech(json!({"input": "a ".repeat(2048), "voice": "nobody_here"}));
    assert_error(&r, 400, Some("voice"));
}

#[test]
fn a_maximum_length_input_with_a_token_budget_renders() {
    // max_new_tokens bounds what an autoregressive model generates; Kokoro
    // generates none, so the budget is taken and the whole input speaks.
    // Streamed, the first sentence's audio is read and the rest let go.
    let input = "The boats are in. ".repeat(227);
    assert!(input.len() <= 4096 && input.len() > 4000);
    let addr = base().trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    let body = json!({"input": input, "voice": "af_heart", "response_format": "pcm", "stream": true, "max_new_tokens": 2048}).to_string();
    write!(
        stream,
        "POST /v1/audio/speech HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    let mut buffer = [0u8; 65536];
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") || raw.len() < 20_000 {
        let n = stream.read(&mut buffer).unwrap();
        assert!(n > 0, "the answer ended early: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buffer[..n]);
    }
    let head = String::from_utf8_lossy(&raw[..raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap()]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200") && head.contains("x-max-new-tokens: taken"), "{head}");
}

/// Reads a chunked HTTP/1.1 answer to `body` over a raw socket: headers and chunks.
fn chunked_post(path: &str, body: &Value) -> (String, Vec<Vec<u8>>) {
    let addr = base().trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut rest = &raw[split + 4..];
    let mut chunks = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).unwrap().trim(), 16).unwrap();
        rest = &rest[line_end + 2..];
        if size == 0 {
            break;
        }
        chunks.push(rest[..size].to_vec());
        rest = &rest[size + 2..];
    }
    (head, chunks)
}

#[test]
fn a_streamed_request_sends_each_sentence_as_its_own_chunk() {
    let first = speech(json!({"input": "Stream one.", "voice": "af_heart", "response_format": "pcm"}));
    assert_eq!(first.status, 200);
    let (head, chunks) = chunked_post(
        "/v1/audio/speech",
        &json!({"input": "Stream one. Stream two! Stream three?", "voice": "af_heart", "response_format": "pcm", "stream": true}),
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("transfer-encoding: chunked") && lower.contains("x-sample-rate: 24000") && lower.contains("content-type: audio/pcm"), "{head}");
    assert_eq!(chunks.len(), 3, "one chunk per sentence");
    assert_eq!(chunks[0], first.body, "the first chunk is the first sentence, complete");
    assert!(chunks.iter().all(|c| c.len() % 2 == 0 && rms(&pcm_samples(c)) > 0.01));
}

#[test]
fn a_streamed_long_sentence_starts_with_a_quarter_second_and_streams_inside_itself() {
    let text = "Please remember to bring your passport, two photographs, and the signed form on Friday.";
    let (head, chunks) = chunked_post("/v1/audio/speech", &json!({"input": text, "voice": "bf_emma", "response_format": "pcm", "stream": true}));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(chunks[0].len(), 2 * 6000, "the first chunk is the sentence's first quarter second");
    assert!(chunks.len() >= 4, "a sentence over 2 s comes in pieces: {} chunks", chunks.len());
    let whole = speech(json!({"input": text, "voice": "bf_emma", "response_format": "pcm"}));
    assert_eq!(whole.status, 200);
    let streamed: Vec<u8> = chunks.concat();
    assert_eq!(streamed.len(), whole.body.len(), "as long as the one pass");
    let distance = revoice_engine::audio::compare::log_mel_l1(&pcm_samples(&streamed), &pcm_samples(&whole.body), 24_000);
    assert!(distance < 0.35, "the stream is {distance:.3} log-mel L1 from the one pass");
}

#[test]
fn languages_are_spoken_natively_or_through_espeak_and_the_list_says_which() {
    for (language, text) in [("German", "Guten Tag."), ("es", "Hola amigo."), ("Japanese", "こんにちは。")] {
        let r = speech(json!({"input": text, "language": language, "response_format": "wav"}));
        assert_eq!(r.status, 200, "{language}: {}", r.text());
        assert!(rms(&decode(&r.body, "a.wav").samples) > 0.01, "{language} is silent");
    }
    let list = get(base(), "/v1/audio/voices", None).json();
    let support = |name: &str| list["languages"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap()["support"].clone();
    assert_eq!(support("German"), "experimental");
    assert_eq!((support("Spanish"), support("Japanese"), support("Chinese")), (json!("native"), json!("native"), json!("native")));
    let jf = list["stock_voices"].as_array().unwrap().iter().find(|v| v["name"] == "jf_alpha").unwrap().clone();
    assert_eq!(jf["experimental"], false, "Japanese is read by the studio's own G2P");
}

#[test]
fn text_the_voice_cannot_read_is_refused_naming_its_script_never_spoken_as_something_else() {
    for (body, script) in [
        (json!({"input": "第一段，第二段；第三段。"}), "Han (Chinese characters)"),
        (json!({"input": "Hello, 世界.", "voice": "af_heart"}), "Han (Chinese characters)"),
        (json!({"input": "Привет, друзья.", "voice": "ef_dora"}), "Cyrillic"),
    ] {
        let r = speech(body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        let message = r.json()["error"]["message"].as_str().unwrap_or_default().to_string();
        assert!(message.contains(script) && message.contains("cannot read"), "{body}: {message}");
    }
    // The same text with a language whose reading reads it is spoken.
    let r = speech(json!({"input": "你好。", "language": "Chinese", "response_format": "wav"}));
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn a_blend_of_stock_voices_and_the_default_voice_speak() {
    for voice in ["af_heart:0.7,af_bella:0.3", "default", "bm_george"] {
        let r = speech(json!({"input": "Blend.", "voice": voice, "response_format": "wav", "speed": 1.5, "seed": 3}));
        assert_eq!(r.status, 200, "{voice}: {}", r.text());
        assert!(rms(&decode(&r.body, "a.wav").samples) > 0.01, "{voice} is silent");
    }
}

#[test]
fn voice_design_says_which_stock_voices_it_picked() {
    let r = speech(json!({"input": "Design.", "task_type": "VoiceDesign", "instructions": "A warm British woman", "response_format": "wav"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let picked = r.header("x-voice-design").unwrap();
    assert!(!picked.is_empty() && picked.split(',').all(|p| p.starts_with("bf_")), "{picked}");
    let attributes = r.header("x-voice-design-attributes").unwrap();
    assert!(attributes.contains("gender=female") && attributes.contains("accent=British"), "{attributes}");
}

/// Serves `body` to every GET on a loopback port; returns the URL.
fn serve_file(body: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/ref.wav", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(&body);
        }
    });
    url
}

#[test]
fn a_reference_by_data_uri_loopback_url_or_media_folder_is_matched_to_stock_voices() {
    let wav = reference_wav();
    let data_uri = format!("data:audio/wav;base64,{}", base64::engine::general_purpose::STANDARD.encode(wav));
    let in_media = server().media.path().join("ref.wav");
    std::fs::write(&in_media, wav).unwrap();
    for ref_audio in [data_uri, serve_file(wav.to_vec()), format!("file://{}", in_media.display())] {
        let r = speech(json!({"input": "Matched.", "task_type": "Base", "ref_audio": ref_audio, "ref_text": "two clear sentences", "response_format": "wav"}));
        assert_eq!(r.status, 200, "{}: {}", &ref_audio[..ref_audio.len().min(60)], r.text());
        let blend = r.header("x-voice-blend").unwrap();
        assert!(blend.contains("af_bella"), "af_bella's own voice is among the matches: {blend}");
        assert!(r.header("x-voice-match").unwrap().contains("not a clone"));
    }
    for refused in ["http://10.1.2.3/ref.wav", "http://169.254.169.254/latest", "http://[fe80::1]/a.wav", "file:///etc/passwd", "file:///proc/self/environ"] {
        let r = speech(json!({"input": "Refused.", "ref_audio": refused}));
        assert_error(&r, 400, Some("ref_audio"));
    }
    let too_big = serve_file(vec![0u8; (10 << 20) + 1024]);
    let r = speech(json!({"input": "Refused.", "ref_audio": too_big}));
    assert_error(&r, 400, Some("ref_audio"));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("MiB"), "{}", r.text());
    let garbage = format!("data:audio/wav;base64,{}", base64::engine::general_purpose::STANDARD.encode(b"this is not audio at all"));
    assert_error(&speech(json!({"input": "Refused.", "ref_audio": garbage})), 400, Some("ref_audio"));
}

#[test]
fn uploaded_voices_are_listed_used_overwritten_and_deleted() {
    let wav = reference_wav();
    let first = upload(base(), "Ana Test", "ana.wav", wav);
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.json()["overwritten"], false);
    let list = get(base(), "/v1/audio/voices", None).json();
    assert!(list["voices"].as_array().unwrap().iter().any(|v| v == "af_heart") && list["voices"].as_array().unwrap().iter().any(|v| v == "Ana Test"));
    let entry = list["uploaded_voices"].as_array().unwrap().iter().find(|v| v["name"] == "Ana Test").unwrap().clone();
    for field in ["consent", "created_at", "file_size", "mime_type", "ref_text", "speaker_description"] {
        assert!(!entry[field].is_null(), "{field} missing: {entry}");
    }
    assert_eq!((entry["mime_type"].as_str(), entry["file_size"].as_u64()), (Some("audio/wav"), Some(wav.len() as u64)));
    for key in ["entries", "memory_bytes", "max_bytes", "eviction_count", "hit_count", "miss_count", "delete_invalidation_counter"] {
        assert!(list["cache_stats"][key].is_number(), "cache_stats.{key}: {list}");
    }

    let used = speech(json!({"input": "Registered.", "voice": "Ana Test", "response_format": "wav"}));
    assert_eq!(used.status, 200, "{}", used.text());
    assert_eq!(used.header("x-voice-registered"), Some("Ana Test"));

    let again = upload(base(), "Ana Test", "ana.wav", wav);
    assert_eq!((again.status, again.json()["overwritten"].clone()), (200, json!(true)));

    let deleted = delete(base(), "/v1/audio/voices/Ana%20Test");
    assert_eq!((deleted.status, deleted.json()["deleted"].clone()), (200, json!(true)), "{}", deleted.text());
    let missing = delete(base(), "/v1/audio/voices/Ana%20Test");
    assert_error(&missing, 404, Some("name"));
    assert_eq!(missing.json()["success"], false);
    // Speech naming the deleted voice is a bad request (400, the envelope); the DELETE of it, not found (404).
    let gone = speech(json!({"input": "Registered.", "voice": "Ana Test"}));
    assert_error(&gone, 400, Some("voice"));
    let stats = get(base(), "/v1/audio/voices", None).json()["cache_stats"].clone();
    assert!(stats["delete_invalidation_counter"].as_u64().unwrap() >= 1, "{stats}");
}

fn ffmpeg(input: &std::path::Path, output: &std::path::Path, codec: &str) {
    let status = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-i"])
        .arg(input)
        .args(["-vn", "-c:a", codec])
        .arg(output)
        .status()
        .expect("ffmpeg runs (scripts/test installs it)");
    assert!(status.success(), "ffmpeg {codec}");
}

#[test]
fn uploads_of_every_container_are_accepted_and_fakes_garbage_and_oversize_are_refused() {
    let wav = reference_wav();
    let samples = decode(wav, "r.wav").samples;
    let encode = |f| revoice_api::formats::encode(&samples, 24_000, f).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let wav_path = dir.path().join("r.wav");
    std::fs::write(&wav_path, wav).unwrap();
    ffmpeg(&wav_path, &dir.path().join("r.webm"), "libopus");
    ffmpeg(&wav_path, &dir.path().join("r.mp4"), "aac");
    use revoice_api::formats::ResponseFormat as F;
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("r.mp3", encode(F::Mp3)),
        ("r.flac", encode(F::Flac)),
        ("r.ogg", encode(F::Opus)),
        ("r.aac", encode(F::Aac)),
        ("r.webm", std::fs::read(dir.path().join("r.webm")).unwrap()),
        ("r.mp4", std::fs::read(dir.path().join("r.mp4")).unwrap()),
    ];
    for (i, (name, bytes)) in files.iter().enumerate() {
        let r = upload(base(), &format!("format-{i}"), name, bytes);
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_eq!(delete(base(), &format!("/v1/audio/voices/format-{i}")).status, 200);
    }
    let mut fake = b"RIFF\x24\x00\x00\x00WAVEfmt ".to_vec();
    fake.extend(std::iter::repeat_n(0x5a, 400));
    let mut fake_mp3 = b"ID3\x03\x00\x00\x00\x00\x00\x00".to_vec();
    fake_mp3.extend(std::iter::repeat_n(0u8, 300));
    let oversize = vec![0u8; (10 << 20) + 1];
    for (name, bytes) in [("fake.wav", fake), ("fake.mp3", fake_mp3), ("garbage.wav", b"hello, I am text".to_vec()), ("big.wav", oversize)] {
        let r = upload(base(), "refused", name, &bytes);
        assert_error(&r, 400, Some("audio_sample"));
    }
    let (content_type, body) = multipart(&[("name", "no-consent")], Some(("r.wav", wav)));
    assert_error(&post_raw(base(), "/v1/audio/voices", &content_type, &body, None), 400, Some("consent"));
    let (content_type, body) = multipart(&[("name", "no-file"), ("consent", "yes")], None);
    assert_error(&post_raw(base(), "/v1/audio/voices", &content_type, &body, None), 400, Some("audio_sample"));
    assert_error(&post_raw(base(), "/v1/audio/voices", "application/json", b"{}", None), 400, None);
}

#[test]
fn short_and_unusual_references_are_taken_with_their_quality_said() {
    // 1.2 s of speech, a second of silence, and a tone: each decodes, so each is taken.
    let speech_samples = decode(reference_wav(), "r.wav").samples;
    let short: Vec<f32> = speech_samples[..(1.2 * 24_000.0) as usize].to_vec();
    let silence = vec![0f32; 24_000];
    let tone: Vec<f32> = (0..48_000).map(|n| 0.3 * (n as f32 * 0.05).sin()).collect();
    let wav = |samples: &[f32]| revoice_api::formats::encode(samples, 24_000, revoice_api::formats::ResponseFormat::Wav).unwrap();
    for (name, samples, warning) in [("short-clip", &short, "short"), ("silent-clip", &silence, "silent"), ("tone-clip", &tone, "")] {
        let r = upload(base(), name, &format!("{name}.wav"), &wav(samples));
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        let body = r.json();
        let warnings: Vec<String> = body["quality"]["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect();
        assert!(warning.is_empty() || warnings.iter().any(|w| w.contains(warning)), "{name}: {warnings:?}");
        assert!(body["quality"]["seconds"].as_f64().unwrap() > 0.9);
        // It speaks.
        let said = speech(json!({"input": "Taken.", "voice": name, "response_format": "wav"}));
        assert_eq!(said.status, 200, "{name}: {}", said.text());
        assert_eq!(delete(base(), &format!("/v1/audio/voices/{name}")).status, 200);
    }
    // As ref_audio too: the answer says what the reference is worth.
    let uri = format!("data:audio/wav;base64,{}", base64::Engine::encode(&base64::engine::general_purpose::STANDARD, wav(&short)));
    let r = speech(json!({"input": "From a short clip.", "task_type": "Base", "ref_audio": uri, "response_format": "wav"}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("x-reference-quality").is_some_and(|q| q.contains("short")), "{:?}", r.header("x-reference-quality"));
    // An empty recording is still refused.
    let mut empty = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec { channels: 1, sample_rate: 24_000, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    hound::WavWriter::new(&mut empty, spec).unwrap().finalize().unwrap();
    let r = upload(base(), "empty-clip", "empty.wav", empty.get_ref());
    assert_error(&r, 400, Some("audio_sample"));
}

#[test]
fn concurrent_upload_and_delete_of_one_name_leave_at_most_one_entry() {
    let wav = reference_wav();
    let threads: Vec<_> = (0..6)
        .map(|i| {
            std::thread::spawn(move || if i % 2 == 0 { upload(base(), "racer", "r.wav", wav).status } else { delete(base(), "/v1/audio/voices/racer").status })
        })
        .collect();
    for t in threads {
        assert!([200, 404].contains(&t.join().unwrap()));
    }
    let list = get(base(), "/v1/audio/voices", None).json();
    let entries = list["uploaded_voices"].as_array().unwrap().iter().filter(|v| v["name"] == "racer").count();
    assert!(entries <= 1, "{list}");
    let library = server().dir.path().join("voices/library");
    let files = std::fs::read_dir(&library).map(|d| d.count()).unwrap_or(0);
    let registered = list["uploaded_voices"].as_array().unwrap().len();
    assert!(files <= registered, "{files} recordings for {registered} voices");
}

#[test]
fn a_batch_answers_every_item_and_one_bad_item_fails_alone() {
    let body = json!({
        "model": "kokoro", "voice": "af_heart", "response_format": "wav", "speed": 1.0,
        "items": [
            {"input": "Batch one."},
            {"input": ""},
            {"input": "Batch three.", "response_format": "mp3", "speed": 1.2},
            {"input": "Batch four.", "language": "Klingon"},
        ]
    });
    let r = post_json(base(), "/v1/audio/speech/batch", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert!(v["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!((v["total"].clone(), v["succeeded"].clone(), v["failed"].clone()), (json!(4), json!(2), json!(2)));
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.iter().map(|r| r["index"].as_u64().unwrap()).collect::<Vec<_>>(), [0, 1, 2, 3]);
    let audio = |i: usize| base64::engine::general_purpose::STANDARD.decode(results[i]["audio_data"].as_str().unwrap()).unwrap();
    assert_eq!((results[0]["status"].as_str(), results[0]["media_type"].as_str()), (Some("ok"), Some("audio/wav")));
    assert!(rms(&decode(&audio(0), "a.wav").samples) > 0.01);
    assert_eq!((results[2]["status"].as_str(), results[2]["media_type"].as_str()), (Some("ok"), Some("audio/mpeg")));
    assert!(rms(&decode(&audio(2), "a.mp3").samples) > 0.01);
    assert_eq!((results[1]["status"].as_str(), results[1]["error"]["param"].as_str()), (Some("error"), Some("input")));
    assert_eq!((results[3]["status"].as_str(), results[3]["error"]["param"].as_str()), (Some("error"), Some("language")));

    let items: Vec<Value> = (0..33).map(|i| json!({"input": format!("Item {i}.")})).collect();
    assert_error(&post_json(base(), "/v1/audio/speech/batch", &json!({"voice": "af_heart", "items": items})), 400, Some("items"));
    assert_error(&post_json(base(), "/v1/audio/speech/batch", &json!({"items": []})), 400, Some("items"));
    assert_error(&post_json(base(), "/v1/audio/speech/batch", &json!({"items": "x"})), 400, Some("items"));
    assert_error(&post_json(base(), "/v1/audio/speech/batch", &json!({})), 400, Some("items"));
}

/// Runs a session to its end: (audio.start events, audio bytes per sentence, audio.done events, session.done).
fn session(socket: &mut Socket) -> (Vec<Value>, Vec<Vec<u8>>, Vec<Value>, Value) {
    let (mut starts, mut audio, mut dones) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        match ws_next(socket) {
            Err(bytes) => audio.last_mut().map(|a: &mut Vec<u8>| a.extend(bytes)).expect("audio after audio.start"),
            Ok(e) if e["type"] == "audio.start" => {
                starts.push(e);
                audio.push(Vec::new());
            }
            Ok(e) if e["type"] == "audio.done" => dones.push(e),
            Ok(e) if e["type"] == "session.done" => return (starts, audio, dones, e),
            Ok(e) if e["type"] == "session.created" => {}
            Ok(e) => panic!("unexpected event {e}"),
        }
    }
}

#[test]
fn the_websocket_speaks_each_sentence_in_order_as_the_text_arrives() {
    let mut socket = ws_connect(base());
    ws_send(
        &mut socket,
        &json!({"type": "session.config", "voice": "af_heart", "response_format": "pcm", "stream_audio": true, "split_granularity": "sentence"}),
    );
    for piece in ["Socket one. Sock", "et two", "! Socket three"] {
        ws_send(&mut socket, &json!({"type": "input.text", "text": piece}));
    }
    ws_send(&mut socket, &json!({"type": "input.done"}));
    let (starts, audio, dones, done) = session(&mut socket);
    let texts: Vec<&str> = starts.iter().map(|s| s["sentence_text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["Socket one.", "Socket two!", "Socket three"]);
    for (i, (start, end)) in starts.iter().zip(&dones).enumerate() {
        assert_eq!((start["sentence_index"].as_u64(), start["format"].as_str(), start["sample_rate"].as_u64()), (Some(i as u64), Some("pcm"), Some(24_000)));
        assert_eq!((end["sentence_index"].as_u64(), end["error"].clone()), (Some(i as u64), json!(false)));
        assert_eq!(end["total_bytes"].as_u64(), Some(audio[i].len() as u64));
        assert!(rms(&pcm_samples(&audio[i])) > 0.01);
    }
    assert_eq!(done["total_sentences"], 3);

    let mut socket = ws_connect(base());
    ws_send(
        &mut socket,
        &json!({"type": "session.config", "voice": "af_heart", "response_format": "pcm", "stream_audio": false, "split_granularity": "clause"}),
    );
    ws_send(&mut socket, &json!({"type": "input.text", "text": "First clause, second clause."}));
    ws_send(&mut socket, &json!({"type": "input.done"}));
    let (starts, audio, _, done) = session(&mut socket);
    assert_eq!(starts.iter().map(|s| s["sentence_text"].as_str().unwrap()).collect::<Vec<_>>(), ["First clause,", "second clause."]);
    assert!(audio.iter().all(|a| !a.is_empty()));
    assert_eq!(done["total_sentences"], 2);
}

#[test]
fn the_websocket_speaks_each_chinese_clause_and_sentence_on_its_own() {
    // Full-width punctuation (，；。！？) with no space after it cuts the pieces.
    let mut socket = ws_connect(base());
    ws_send(
        &mut socket,
        &json!({"type": "session.config", "voice": "zf_xiaobei", "language": "Chinese", "response_format": "pcm", "stream_audio": true, "split_granularity": "clause"}),
    );
    for piece in ["你好，世", "界；今天很好。明天", "呢！你好吗？"] {
        ws_send(&mut socket, &json!({"type": "input.text", "text": piece}));
    }
    ws_send(&mut socket, &json!({"type": "input.done"}));
    let (starts, audio, dones, done) = session(&mut socket);
    let texts: Vec<&str> = starts.iter().map(|s| s["sentence_text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["你好，", "世界；", "今天很好。", "明天呢！", "你好吗？"]);
    for (i, (start, end)) in starts.iter().zip(&dones).enumerate() {
        assert_eq!(
            (start["sentence_index"].as_u64(), end["sentence_index"].as_u64(), end["error"].clone()),
            (Some(i as u64), Some(i as u64), json!(false)),
            "{end}"
        );
        assert!(!audio[i].is_empty());
    }
    assert_eq!(done["total_sentences"], 5);
}

#[test]
fn the_websocket_reports_malformed_messages_and_input_before_config() {
    let mut socket = ws_connect(base());
    ws_send(&mut socket, &json!({"type": "input.done"}));
    let e = ws_next(&mut socket).unwrap();
    assert_eq!(e["type"], "error", "{e}");
    assert!(e["message"].as_str().unwrap().contains("session.config"), "{e}");
    ws_send_text(&mut socket, "{this is not json");
    let e = ws_next(&mut socket).unwrap();
    assert_eq!(e["type"], "error");
    assert!(e["message"].as_str().unwrap().contains("JSON"), "{e}");
    ws_send(&mut socket, &json!({"type": "session.config", "voice": "af_heart", "response_format": "mp3"}));
    assert_eq!(ws_next(&mut socket).unwrap()["type"], "error");
    ws_send(&mut socket, &json!({"type": "session.config", "voice": "af_heart", "split_granularity": "word"}));
    assert_eq!(ws_next(&mut socket).unwrap()["type"], "error");
    ws_send(&mut socket, &json!({"type": "session.config", "voice": "nobody_here"}));
    assert_eq!(ws_next(&mut socket).unwrap()["type"], "error");
    // The session still works after all that.
    ws_send(&mut socket, &json!({"type": "session.config", "voice": "af_heart"}));
    assert_eq!(ws_next(&mut socket).unwrap()["type"], "session.created");
    ws_send(&mut socket, &json!({"type": "input.text", "text": "Still here."}));
    ws_send(&mut socket, &json!({"type": "input.done"}));
    let (_, _, _, done) = session(&mut socket);
    assert_eq!(done["total_sentences"], 1);
}

#[test]
fn the_render_cache_answers_repeats_and_can_be_emptied() {
    let body = json!({"input": "Cache me once.", "voice": "am_adam", "response_format": "flac"});
    let first = speech(body.clone());
    assert_eq!((first.status, first.header("x-cache")), (200, Some("MISS")));
    let second = speech(body.clone());
    assert_eq!(second.header("x-cache"), Some("HIT"));
    assert_eq!(first.body, second.body);
    let cleared = delete(base(), "/v1/audio/cache");
    assert_eq!((cleared.status, cleared.json()["cleared"].clone()), (200, json!(true)));
    assert_eq!(speech(body).header("x-cache"), Some("MISS"));

    let metrics = get(base(), "/metrics", None);
    assert_eq!(metrics.status, 200);
    let text = metrics.text();
    assert!(metric(&text, "revoice_render_cache_hits_total") >= 1.0);
    assert!((0.0..=1.0).contains(&metric(&text, "revoice_render_cache_hit_rate")));
    assert!(metric(&text, "revoice_queue_depth_rows") >= 0.0);
    assert!(metric(&text, "revoice_ttfa_seconds_count") >= 1.0 && metric(&text, "revoice_rtf_count") >= 1.0);
    assert!(text.contains("revoice_scheduler_batch_size{rows=\"1\"}") || text.contains("revoice_scheduler_batch_size{rows=\"2\"}"), "{text}");
    let health = get(base(), "/health", None);
    assert_eq!((health.status, health.json()["status"].clone()), (200, json!("ok")));
}

#[test]
fn unknown_routes_and_methods_get_the_envelope() {
    assert_error(&get(base(), "/v1/nothing", None), 404, None);
    let r = get(base(), "/v1/audio/speech", None);
    assert_eq!(r.status, 405);
    assert!(r.json()["error"]["message"].is_string());
}

/// The Python with the `openai` package that scripts/test installs.
fn python() -> std::path::PathBuf {
    let path = std::env::var_os("REVOICE_TEST_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/test-venv/bin/python"));
    assert!(path.exists(), "no Python with the openai package at {} (run scripts/test, or set REVOICE_TEST_PYTHON)", path.display());
    path
}

#[test]
fn the_openai_python_client_gets_all_six_formats() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("api_openai_client.py");
    let output = std::process::Command::new(python()).arg(script).arg(format!("{}/v1", base())).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(output.status.success(), "the openai client run failed:\n{stdout}\n{stderr}");
    for format in ["wav", "pcm", "mp3", "opus", "aac", "flac"] {
        assert!(stdout.lines().any(|l| l.starts_with(&format!("{format} ok"))), "{format} missing:\n{stdout}");
    }
}
