//! A project's glossary from the command line, and what a translation does
//! with it, against a scripted chat-completions server on loopback that
//! records each request and answers each line as `[es] <source>` (with
//! `Lighthouse` said as `el Faro` only in lines that say "kept"): the
//! glossary for the target language reaches every batch; a line that leaves
//! a term out is written and reported; a batch whose reply cannot be used
//! is reported line by line while the next batch is written, and the same
//! command then translates only those lines; a refused key stops the job
//! at its first batch.

use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

mod chat_server;
mod run;
use run::track_lines;

/// Runs `revoice` on `data`: whether it succeeded, stdout and stderr.
fn revoice(data: &Path, args: &[&str]) -> (bool, String, String) {
    let (code, out, err) = run::revoice(data, args);
    (code == Some(0), out, err)
}

/// How the scripted server answers chat requests.
#[derive(Clone, Copy, PartialEq)]
enum Mood {
    /// Every batch translated.
    Helpful,
    /// The first batch asked (both times it is asked) gets prose instead of lines; the rest are translated.
    FirstBatchUnusable,
    /// Every request refused with 401.
    RefusesKey,
    /// The chat requests of these numbers (counted from 1 since the server
    /// started) get no answer for 2 s; the others are translated.
    Hangs(&'static [usize]),
}

struct Server {
    url: String,
    /// The bodies of the chat requests, in order.
    chats: Arc<Mutex<Vec<Value>>>,
    mood: Arc<Mutex<Mood>>,
}

impl Server {
    fn start(mood: Mood) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (chats, mood) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(mood)));
        let (log, moody) = (chats.clone(), mood.clone());
        let count = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (log, moody, count) = (log.clone(), moody.clone(), count.clone());
                // A connection each: one left hanging keeps no other waiting.
                std::thread::spawn(move || {
                    let (first, body) = chat_server::read_request(&stream);
                    if first.contains("/v1/models") {
                        chat_server::answer(&mut stream, r#"{"object":"list","data":[{"id":"scripted"}]}"#);
                        return;
                    }
                    let request: Value = serde_json::from_slice(&body).unwrap();
                    log.lock().unwrap().push(request.clone());
                    let number = count.fetch_add(1, Ordering::SeqCst) + 1;
                    match *moody.lock().unwrap() {
                        Mood::RefusesKey => {
                            let said = r#"{"error":{"message":"invalid api key"}}"#;
                            let head = format!(
                                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                said.len()
                            );
                            let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(said.as_bytes()));
                            return;
                        }
                        // The first batch is asked twice when its reply cannot be used.
                        Mood::FirstBatchUnusable if number <= 2 => {
                            chat_server::answer(&mut stream, &chat_server::completion("I would rather talk about lighthouses."));
                            return;
                        }
                        Mood::Hangs(numbers) if numbers.contains(&number) => {
                            std::thread::sleep(std::time::Duration::from_secs(2));
                            return;
                        }
                        _ => {}
                    }
                    let user: Value = serde_json::from_str(request["messages"][1]["content"].as_str().unwrap()).unwrap();
                    let said = |text: &str| match text.contains("kept") {
                        true => format!("[es] {}", text.replace("Lighthouse", "el Faro")),
                        false => format!("[es] {text}"),
                    };
                    let texts: Vec<Value> =
                        user["translate"].as_array().unwrap().iter().map(|l| json!({"id": l["id"], "text": said(l["text"].as_str().unwrap())})).collect();
                    chat_server::answer(&mut stream, &chat_server::completion(&serde_json::to_string(&texts).unwrap()));
                });
            }
        });
        Server { url, chats, mood }
    }

    fn chats(&self) -> Vec<Value> {
        self.chats.lock().unwrap().clone()
    }

    /// The ids of the lines each chat request asked for, in order (under
    /// `translate`, or `lines` in the second ask's beside form).
    fn asked(&self) -> Vec<i64> {
        self.chats()
            .iter()
            .flat_map(|r| {
                let user: Value = serde_json::from_str(r["messages"][1]["content"].as_str().unwrap()).unwrap();
                let lines = user["translate"].as_array().or(user["lines"].as_array()).unwrap().clone();
                lines.iter().map(|l| l["id"].as_i64().unwrap()).collect::<Vec<_>>()
            })
            .collect()
    }
}

/// A data folder with the server as its translator (answering within
/// `timeout` seconds) and a project of `count` English lines (12: two
/// batches); the project id and the lines' ids.
fn project(data: &Path, server: &Server, count: usize, timeout: &str) -> (String, Vec<i64>) {
    let (ok, _, err) = revoice(data, &["translators", "add", "scripted", "--url", &server.url, "--timeout", timeout]);
    assert!(ok, "{err}");
    let script = data.join("quay.srt");
    let text = |i: usize| match i {
        0 => "The Lighthouse is dark.".to_string(),
        9 => "The kept Lighthouse is lit.".to_string(),
        10 => "The Lighthouse again.".to_string(),
        i => format!("Line number {} is here.", i + 1),
    };
    let lines: String =
        (0..count).map(|i| format!("{}\n00:00:{:02},000 --> 00:00:{:02},500\n[{}] {}\n\n", i + 1, 2 * i, 2 * i + 1, ["Ana", "Ben"][i % 2], text(i))).collect();
    std::fs::write(&script, lines).unwrap();
    let (ok, out, err) = revoice(data, &["project", "new", "Quay"]);
    assert!(ok, "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    assert!(revoice(data, &["project", "import", &id, script.to_str().unwrap()]).0);
    let lines = track_lines(data, &id, "en-US").into_iter().map(|(line, _)| line).collect();
    (id, lines)
}

#[test]
fn glossary_entries_are_set_listed_by_language_and_removed() {
    let data = tempfile::tempdir().unwrap();
    let (ok, out, _) = revoice(data.path(), &["project", "new", "Quay"]);
    assert!(ok);
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    let glossary = |args: &[&str]| revoice(data.path(), &[&["project", "glossary", &id], args].concat());

    let (ok, out, err) = glossary(&["set", "--to", "es", "Lighthouse", "el Faro"]);
    assert!(ok && out.contains("Lighthouse → el Faro (es)"), "{out}{err}");
    let entry = out.split_whitespace().nth(2).unwrap().trim_end_matches(':').to_string();
    assert!(glossary(&["set", "--to", "es-MX", "Quay", "el muelle"]).0);
    assert!(glossary(&["set", "--to", "fr", "Quay", "le quai"]).0);
    // The same term in another case replaces the entry.
    let (ok, out, _) = glossary(&["set", "--to", "es", "lighthouse", "el faro"]);
    assert!(ok && out.contains(&format!("glossary entry {entry}:")), "{out}");

    let (ok, out, _) = glossary(&["list", "--to", "es-MX"]);
    assert!(ok && out.contains("lighthouse → el faro") && out.contains("Quay → el muelle") && !out.contains("le quai"), "{out}");
    let (_, out, _) = glossary(&["list"]);
    assert_eq!(out.lines().count(), 3, "{out}");

    let (ok, out, _) = glossary(&["remove", &entry]);
    assert!(ok && out.contains(&format!("glossary entry {entry} removed")), "{out}");
    let (ok, _, err) = glossary(&["remove", &entry]);
    assert!(!ok && err.contains(&format!("glossary entry {entry}")), "{err}");
    let (ok, _, err) = glossary(&["set", "--to", "xx", "Quay", "x"]);
    assert!(!ok && err.contains("\"xx\"") && err.contains("not a language"), "{err}");
    let (ok, _, err) = glossary(&["set", "--to", "es", "Quay", " "]);
    assert!(!ok && err.contains("empty"), "{err}");
}

#[test]
fn a_failed_batch_is_reported_while_the_next_is_written_and_the_same_command_translates_only_its_lines() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(Mood::FirstBatchUnusable);
    let (id, english) = project(data.path(), &server, 12, "60");
    assert!(revoice(data.path(), &["project", "glossary", &id, "set", "--to", "es", "Lighthouse", "el Faro"]).0);
    assert!(revoice(data.path(), &["project", "glossary", &id, "set", "--to", "fr", "Lighthouse", "le Phare"]).0);

    let (ok, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    assert!(!ok, "a failed batch fails the command: {out}");
    assert!(out.contains("translated 4 lines from en-US into es"), "{out}");
    assert!(err.contains("8 lines were not translated") && err.contains("run the same command again"), "{err}");
    let failed = english[..8].iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    assert!(err.contains(&format!("source lines {failed}:")) && err.contains("asked 2 times"), "names the lines and why: {err}");
    let spanish = track_lines(data.path(), &id, "es");
    assert_eq!(
        spanish.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>()[..2],
        ["[es] Line number 9 is here.", "[es] The kept el Faro is lit."].map(String::from)[..]
    );
    assert_eq!(spanish.len(), 4, "nothing of the failed batch is written: {spanish:?}");
    // The Spanish glossary went with every batch, the French one with none.
    for chat in server.chats() {
        let rules = chat["messages"][0]["content"].as_str().unwrap();
        assert!(rules.contains(r#""Lighthouse" -> "el Faro""#) && !rules.contains("le Phare"), "{rules}");
    }
    // Line 11 kept "Lighthouse" untranslated: written, and reported.
    assert!(out.contains(&format!("line {}: \"Lighthouse\" is not translated as \"el Faro\"", spanish[2].0)), "{out}");
    assert!(!out.contains(&format!("line {}:", spanish[1].0)), "the line that says el Faro is not reported: {out}");

    let asked_before = server.asked().len();
    *server.mood.lock().unwrap() = Mood::Helpful;
    let (ok, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("translated 8 lines from en-US into es") && out.contains("4 were translated before"), "{out}");
    assert_eq!(server.asked()[asked_before..], english[..8], "only the failed lines are asked for again");
    let spanish = track_lines(data.path(), &id, "es");
    assert_eq!(spanish.len(), 12);
    assert_eq!(spanish[0].1, "[es] The Lighthouse is dark.");
    assert!(out.contains(&format!("line {}: \"Lighthouse\"", spanish[0].0)), "{out}");
}

#[test]
fn a_refused_key_stops_the_job_at_its_first_batch() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(Mood::RefusesKey);
    let (id, _) = project(data.path(), &server, 12, "60");
    let (ok, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    assert!(!ok, "{out}");
    assert!(err.contains("refused the API key"), "{err}");
    assert_eq!(server.chats().len(), 1, "every batch would be refused alike: the second is not asked");
    assert!(track_lines(data.path(), &id, "es").is_empty());
}

#[test]
fn a_batch_that_times_out_is_reported_and_a_second_timeout_in_a_row_stops_the_job() {
    let data = tempfile::tempdir().unwrap();
    // Three batches (8, 8 and 4 lines): the first and the third get no answer in time.
    let server = Server::start(Mood::Hangs(&[1, 3, 4, 5]));
    let (id, english) = project(data.path(), &server, 20, "1");
    let (ok, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    assert!(!ok, "{out}");
    assert!(out.contains("translated 8 lines"), "a timeout with an answer after it goes on: {out}{err}");
    assert!(err.contains("12 lines were not translated") && err.contains("did not answer in 1 s"), "{err}");
    assert_eq!(track_lines(data.path(), &id, "es").len(), 8);

    // Asked again, the 12 lines are two batches, and both time out: the job stops at the second.
    let (ok, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    assert!(!ok && err.contains("did not answer in 1 s") && !out.contains("translated"), "{out}{err}");
    let asked = server.asked();
    assert_eq!(asked.len(), 8 + 8 + 4 + 8 + 4, "no batch asked after the second timeout in a row");
    assert_eq!(asked[20..], [&english[..8], &english[16..]].concat()[..], "only the lines missing");
}
