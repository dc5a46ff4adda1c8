//! `revoice translators …` as a user runs it: a real process, a temporary
//! data folder, and a scripted chat-completions server on loopback.

use std::net::TcpListener;

mod chat_server;
mod run;

use run::revoice;

/// A server on loopback that lists one model and translates every request
/// as "Buenos días." (line 1); its base URL.
fn scripted_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (first, _) = chat_server::read_request(&stream);
            let answer = if first.contains("/v1/models") {
                r#"{"object":"list","data":[{"id":"tiny-translator"}]}"#.to_string()
            } else {
                chat_server::completion(r#"[{"id": 1, "text": "Buenos días."}]"#)
            };
            chat_server::answer(&mut stream, &answer);
        }
    });
    url
}

#[test]
fn translators_are_added_listed_and_removed_saying_where_lines_go() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = revoice(dir.path(), &["translators", "list"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no translators") && out.contains("revoice translators add"), "{out}");

    let (code, out, err) = revoice(dir.path(), &["translators", "add", "llama", "--url", "http://127.0.0.1:8080", "--timeout", "60"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("lines sent to llama go to 127.0.0.1:8080 (this machine)"), "{out}");
    let (code, out, err) =
        revoice(dir.path(), &["translators", "add", "hosted", "--url", "https://api.example.com/v1", "--model", "big", "--api-key", "sk-secret"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("lines sent to hosted go to api.example.com (another machine: the script leaves this computer)"), "{out}");
    let config = std::fs::read_to_string(dir.path().join("config.toml")).unwrap();
    assert!(config.contains("[[translators]]") && config.contains("timeout_s = 60"), "{config}");

    let (code, out, _) = revoice(dir.path(), &["translators", "list"]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("llama: http://127.0.0.1:8080") && lines[0].contains("; local"), "{out}");
    assert!(lines[1].starts_with("hosted: https://api.example.com/v1, model big, with an API key; not local"), "{out}");
    assert!(!out.contains("sk-secret"), "the key is not printed: {out}");

    let (code, out, _) = revoice(dir.path(), &["translators", "remove", "LLAMA"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("removed translator"), "{out}");
    let (_, out, _) = revoice(dir.path(), &["translators", "list"]);
    assert!(!out.contains("llama") && out.contains("hosted"), "{out}");
    let (code, _, err) = revoice(dir.path(), &["translators", "remove", "llama"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("translator \"llama\"") && err.contains("hosted"), "{err}");
}

#[test]
fn a_bad_translator_is_refused_and_not_saved() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = revoice(dir.path(), &["translators", "add", "my llama", "--url", "http://127.0.0.1:8080"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("name"), "{err}");
    let (code, _, err) = revoice(dir.path(), &["translators", "add", "llama", "--url", "127.0.0.1:8080"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("http"), "{err}");
    let (_, out, _) = revoice(dir.path(), &["translators", "list"]);
    assert!(out.contains("no translators"), "{out}");
}

#[test]
fn check_lists_the_models_and_what_good_morning_became() {
    let dir = tempfile::tempdir().unwrap();
    let url = scripted_server();
    let (code, _, err) = revoice(dir.path(), &["translators", "add", "llama", "--url", &url]);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = revoice(dir.path(), &["translators", "check", "llama"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("(this machine)") && out.contains("models: tiny-translator"), "{out}");
    assert!(out.contains("\"Good morning.\" into Spanish: \"Buenos días.\" (tiny-translator,"), "{out}");
}

#[test]
fn check_against_a_closed_port_fails_naming_the_translator() {
    let dir = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    assert_eq!(revoice(dir.path(), &["translators", "add", "llama", "--url", &url]).0, Some(0));
    let (code, _, err) = revoice(dir.path(), &["translators", "check", "llama"]);
    assert_eq!(code, Some(1));
    assert!(err.contains(&format!("translator \"llama\" at 127.0.0.1:{port}")) && err.contains("refused"), "{err}");
    let (code, _, err) = revoice(dir.path(), &["translators", "check", "nobody"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("translator \"nobody\"") && err.contains("llama"), "{err}");
}

#[test]
fn doctor_lists_the_translators_and_where_each_is() {
    let dir = tempfile::tempdir().unwrap();
    let (_, out, _) = revoice(dir.path(), &["doctor"]);
    assert!(out.contains("Translators: none configured"), "{out}");
    assert_eq!(revoice(dir.path(), &["translators", "add", "llama", "--url", "http://127.0.0.1:9"]).0, Some(0));
    assert_eq!(revoice(dir.path(), &["translators", "add", "hosted", "--url", "https://api.example.com/v1"]).0, Some(0));
    let (_, out, _) = revoice(dir.path(), &["doctor"]);
    assert!(out.contains("Translators (2):"), "{out}");
    assert!(out.lines().any(|l| l.contains("llama") && l.contains("127.0.0.1:9 (this machine)")), "{out}");
    assert!(out.lines().any(|l| l.contains("hosted") && l.contains("api.example.com (another machine")), "{out}");
}
