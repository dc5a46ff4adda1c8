//! A translator against a scripted chat-completions server on loopback: a
//! thread that answers canned responses in order and records what it was
//! sent. Good batches, the replies small models write, and each fault a
//! server can have.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use revoice_translate::{Batch, BatchLine, Shorten, Translator, TranslatorSettings};
use serde_json::{json, Value};

/// What the scripted server does with one request.
enum Answer {
    /// A status and a body.
    Send(u16, String),
    /// Reads the request and never answers.
    Hang,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

struct Script {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Script {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn chats(&self) -> Vec<Seen> {
        self.seen().into_iter().filter(|s| s.path.ends_with("/chat/completions")).collect()
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut parts = first.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let length = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("content-length")).and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen { method, path, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

/// A server answering chat requests with `chats` in order; `GET …/models`
/// with `models` (404 when `None`). A request past the script gets a 418.
fn serve(models: Option<&str>, chats: Vec<Answer>) -> Script {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let models = models.map(str::to_string);
    std::thread::spawn(move || {
        let mut chats = chats.into_iter();
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Some(request) = read_request(&mut stream) else { continue };
            let is_chat = request.path.ends_with("/chat/completions");
            log.lock().unwrap().push(request);
            let answer = match (is_chat, &models) {
                (true, _) => chats.next().unwrap_or(Answer::Send(418, r#"{"error":{"message":"the script ran out"}}"#.into())),
                (false, Some(list)) => Answer::Send(200, list.clone()),
                (false, None) => Answer::Send(404, "Not Found".into()),
            };
            match answer {
                Answer::Send(status, body) => {
                    let head =
                        format!("HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes()));
                }
                Answer::Hang => held.push(stream),
            }
        }
    });
    Script { url, seen }
}

/// A chat completion whose message is `content`.
fn completion(content: &str) -> Answer {
    Answer::Send(200, json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}).to_string())
}

fn settings(url: &str) -> TranslatorSettings {
    TranslatorSettings {
        name: "llama".into(),
        url: url.into(),
        model: String::new(),
        api_key: String::new(),
        timeout_s: Some(5.0),
        temperature: None,
        batch_lines: None,
    }
}

fn line(id: i64, text: &str) -> BatchLine {
    BatchLine { id, speaker: Some("Ana".into()), text: text.into(), seconds: 1.5 }
}

fn batch() -> Batch {
    Batch {
        from: "en-US".into(),
        to: "es".into(),
        lines: vec![line(11, "Where have you been all night?"), line(12, "Out looking for the dog.")],
        before: vec![line(10, "You're late.")],
        after: vec![],
        glossary: vec![],
        keep: vec![],
        notes: String::new(),
    }
}

const GOOD: &str = r#"[{"id": 11, "text": "¿Dónde has estado toda la noche?"}, {"id": 12, "text": "Buscando al perro."}]"#;

fn good() -> Vec<String> {
    vec!["¿Dónde has estado toda la noche?".to_string(), "Buscando al perro.".to_string()]
}

#[test]
fn a_good_batch_comes_back_in_order_with_the_key_and_model_sent() {
    let server = serve(None, vec![completion(GOOD)]);
    let translator = Translator::new(TranslatorSettings { api_key: "sk-test".into(), model: "gemma3:4b".into(), ..settings(&server.url) });
    assert_eq!(translator.translate(&batch()).unwrap(), good());
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-test"));
    let body = seen[0].json();
    assert_eq!((body["model"].as_str(), body["temperature"].as_f64(), body["stream"].as_bool()), (Some("gemma3:4b"), Some(0.2), Some(false)));
    assert_eq!(body["messages"][0]["role"], "system");
    let user: Value = serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(user["translate"][0]["id"], 11);
    assert_eq!(user["before"][0]["text"], "You're late.");
    assert_eq!(translator.model(), "gemma3:4b");
}

#[test]
fn the_reply_form_is_asked_as_a_schema_and_a_server_refusing_it_is_asked_in_the_next_form_it_takes() {
    let refused = || Answer::Send(422, r#"{"detail":[{"msg":"Input should be 'text' or 'json_object'"}]}"#.into());
    let server = serve(None, vec![refused(), completion(GOOD), completion(GOOD)]);
    let translator = Translator::new(settings(&server.url));
    assert_eq!(translator.translate(&batch()).unwrap(), good());
    assert_eq!(translator.translate(&batch()).unwrap(), good());
    let formats: Vec<Value> = server.chats().iter().map(|c| c.json()["response_format"].clone()).collect();
    assert_eq!(formats[0]["type"], "json_schema", "{formats:?}");
    assert_eq!(formats[0]["json_schema"]["schema"]["properties"]["lines"]["maxItems"], 2);
    assert_eq!(formats[1]["type"], "json_object", "asked again in llama-cpp-python's form");
    assert_eq!(formats[2]["type"], "json_object", "and remembered");
    // llama-cpp-python refuses the field with a 500 that names it: asked in the next form at once, not retried.
    let server = serve(
        None,
        vec![
            Answer::Send(500, r#"{"error":"1 validation error: ('body', 'response_format', 'type') Input should be 'text' or 'json_object'"}"#.into()),
            completion(GOOD),
        ],
    );
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
    assert_eq!(server.chats()[1].json()["response_format"]["type"], "json_object");
    // A server that takes no response format at all is asked with the prompt alone.
    let server = serve(None, vec![refused(), refused(), completion(GOOD)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
    assert!(server.chats()[2].json().get("response_format").is_none());
}

#[test]
fn no_key_sends_no_authorization_and_no_model_sends_none() {
    let server = serve(None, vec![completion(GOOD)]);
    Translator::new(settings(&server.url)).translate(&batch()).unwrap();
    let seen = &server.seen()[0];
    assert_eq!(seen.header("authorization"), None);
    assert!(seen.json().get("model").is_none());
}

#[test]
fn a_url_ending_in_v1_is_not_given_another() {
    let server = serve(Some(r#"{"object":"list","data":[{"id":"qwen3"}]}"#), vec![completion(GOOD)]);
    let translator = Translator::new(settings(&format!("{}/v1/", server.url)));
    assert_eq!(translator.translate(&batch()).unwrap(), good());
    assert_eq!(translator.models().unwrap(), ["qwen3"]);
    assert_eq!(translator.model(), "qwen3");
    let paths: Vec<String> = server.seen().into_iter().map(|s| s.path).collect();
    assert_eq!(paths, ["/v1/chat/completions", "/v1/models"]);
}

#[test]
fn a_reply_in_fences_with_prose_is_read() {
    let reply = format!("Sure! Here are the translations:\n\n```json\n{GOOD}\n```\n\nI kept the tone casual.");
    let server = serve(None, vec![completion(&reply)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
}

#[test]
fn a_translations_object_is_read() {
    let reply = format!(r#"{{"translations": {GOOD}}}"#);
    let server = serve(None, vec![completion(&reply)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
}

#[test]
fn the_wrong_lines_are_asked_again_once_then_an_error_naming_the_translator_and_lines() {
    let short = r#"[{"id": 11, "text": "¿Dónde has estado toda la noche?"}]"#;
    let server = serve(None, vec![completion(short), completion(short)]);
    let err = Translator::new(settings(&server.url)).translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("translator \"llama\"") && err.contains("left out line 12") && err.contains("ids 11, 12"), "{err}");
    assert_eq!(server.chats().len(), 2);
}

#[test]
fn the_wrong_lines_then_the_right_ones_succeed() {
    let server = serve(None, vec![completion(r#"[{"id": 11, "text": "Hola."}]"#), completion(GOOD)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
    assert_eq!(server.chats().len(), 2);
}

#[test]
fn a_reply_repeating_the_source_is_an_error() {
    let copied = r#"[{"id": 11, "text": "¿Dónde has estado toda la noche?"}, {"id": 12, "text": "Out looking for the dog."}]"#;
    let server = serve(None, vec![completion(copied), completion(copied)]);
    let err = Translator::new(settings(&server.url)).translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("repeated the source instead of translating line 12"), "{err}");
}

/// The first reply of a small model that echoes: each line's source again.
const ECHO: &str = r#"{"lines": [{"id": 11, "text": "Where have you been all night?"}, {"id": 12, "text": "Out looking for the dog."}]}"#;

#[test]
fn an_echo_is_asked_again_in_the_beside_form_and_its_translations_used() {
    let beside = r#"{"lines": [{"id": 11, "English": "Where have you been all night?", "Spanish": "¿Dónde has estado toda la noche?"},
        {"id": 12, "English": "Out looking for the dog.", "Spanish": "Buscando al perro."}]}"#;
    let server = serve(None, vec![completion(ECHO), completion(beside)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
    let chats = server.chats();
    assert_eq!(chats.len(), 2);
    let (first, second) = (chats[0].json(), chats[1].json());
    assert_eq!(first["response_format"]["json_schema"]["schema"]["properties"]["lines"]["items"]["required"], json!(["id", "text"]));
    let items = &second["response_format"]["json_schema"]["schema"]["properties"]["lines"]["items"];
    assert_eq!(items["required"], json!(["id", "English", "Spanish"]), "{second}");
    assert_eq!(items["properties"]["id"]["enum"], json!([11, 12]));
    // Sent in that order: a grammar-held model writes the keys as they come.
    let body = &chats[1].body;
    let at = |needle: &str| body.find(needle).unwrap_or_else(|| panic!("{needle:?} missing from {body}"));
    assert!(at(r#""id":{"enum""#) < at(r#""English":{"#) && at(r#""English":{"#) < at(r#""Spanish":{"#), "{body}");
    let user: Value = serde_json::from_str(second["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(user["lines"], json!([{"id": 11, "English": "Where have you been all night?"}, {"id": 12, "English": "Out looking for the dog."}]));
    assert_eq!(user["before"], json!([{"id": 10, "English": "You're late."}]));
    assert!(second["max_tokens"].as_u64() > first["max_tokens"].as_u64(), "room for the source written again");
}

#[test]
fn a_beside_reply_that_echoes_too_is_an_error_naming_the_translator_and_the_line() {
    let beside = r#"{"lines": [{"id": 11, "English": "Where have you been all night?", "Spanish": "¿Dónde has estado toda la noche?"},
        {"id": 12, "English": "Out looking for the dog.", "Spanish": "Out looking for the dog"}]}"#;
    let server = serve(None, vec![completion(ECHO), completion(beside)]);
    let err = Translator::new(settings(&server.url)).translate(&batch()).unwrap_err().to_string();
    assert!(
        err.contains("translator \"llama\"") && err.contains("repeated the source instead of translating line 12") && err.contains("asked 2 times"),
        "{err}"
    );
    assert_eq!(server.chats().len(), 2);
}

#[test]
fn languages_of_one_name_are_asked_again_in_the_first_form() {
    let same = Batch { to: "en-GB".into(), ..batch() };
    let server = serve(None, vec![completion("No."), completion(r#"[{"id": 11, "text": "Where were you?"}, {"id": 12, "text": "Looking for the dog."}]"#)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&same).unwrap(), ["Where were you?", "Looking for the dog."]);
    let chats = server.chats();
    assert_eq!(chats[1].json(), chats[0].json());
}

#[test]
fn a_500_then_a_200_succeeds_after_the_retry() {
    let server = serve(None, vec![Answer::Send(500, r#"{"error":{"message":"slot unavailable"}}"#.into()), completion(GOOD)]);
    assert_eq!(Translator::new(settings(&server.url)).translate(&batch()).unwrap(), good());
    assert_eq!(server.chats().len(), 2);
}

#[test]
fn a_503_three_times_is_an_error_with_the_status_and_message() {
    let busy = || Answer::Send(503, r#"{"error":{"message":"Loading model"}}"#.into());
    let server = serve(None, vec![busy(), busy(), busy()]);
    let err = Translator::new(settings(&server.url)).translate(&batch()).unwrap_err();
    assert_eq!(err.kind(), revoice_core::error::ErrorKind::Busy);
    let err = err.to_string();
    assert!(err.contains("translator \"llama\"") && err.contains("503") && err.contains("Loading model") && err.contains("3 times"), "{err}");
    assert_eq!(server.chats().len(), 3);
}

#[test]
fn a_refused_key_is_said_and_not_retried() {
    let server = serve(None, vec![Answer::Send(401, r#"{"error":{"message":"Invalid API Key"}}"#.into())]);
    let translator = Translator::new(TranslatorSettings { api_key: "wrong".into(), ..settings(&server.url) });
    let err = translator.translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("refused the API key") && err.contains("Invalid API Key") && err.contains("llama"), "{err}");
    assert_eq!(server.chats().len(), 1);
}

#[test]
fn a_404_says_the_url_or_model_is_wrong() {
    let server = serve(None, vec![Answer::Send(404, r#"{"error":{"message":"model 'nope' not found"}}"#.into())]);
    let translator = Translator::new(TranslatorSettings { model: "nope".into(), ..settings(&server.url) });
    let err = translator.translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("404") && err.contains("the URL or the model \"nope\" is wrong"), "{err}");
    assert_eq!(server.chats().len(), 1);
}

#[test]
fn a_server_that_never_answers_times_out_naming_the_host() {
    let server = serve(None, vec![Answer::Hang]);
    let translator = Translator::new(TranslatorSettings { timeout_s: Some(1.0), ..settings(&server.url) });
    let err = translator.translate(&batch()).unwrap_err().to_string();
    let host = server.url.trim_start_matches("http://");
    assert!(err.contains(&format!("translator \"llama\" at {host}")) && err.contains("did not answer in 1 s"), "{err}");
    assert_eq!(server.chats().len(), 1);
}

#[test]
fn a_closed_port_is_said_to_refuse_the_connection() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = Translator::new(settings(&format!("http://127.0.0.1:{port}"))).translate(&batch()).unwrap_err().to_string();
    assert!(err.contains(&format!("translator \"llama\" at 127.0.0.1:{port}")) && err.contains("refused"), "{err}");
}

#[test]
fn a_garbage_body_is_not_a_chat_completion() {
    let server = serve(None, vec![Answer::Send(200, "<html><body>It works!</body></html>".into())]);
    let err = Translator::new(settings(&server.url)).translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("answered something that is not a chat completion: <html><body>It works!"), "{err}");
    assert_eq!(server.chats().len(), 1);
}

#[test]
fn a_reply_that_is_not_json_is_asked_again_then_an_error() {
    let server = serve(None, vec![completion("Lo siento, no puedo."), completion("Lo siento.")]);
    let err = Translator::new(settings(&server.url)).translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("no JSON array") && err.contains("Lo siento.") && err.contains("asked 2 times"), "{err}");
    assert_eq!(server.chats().len(), 2);
}

#[test]
fn a_line_is_said_shorter() {
    let server = serve(None, vec![completion("```json\n{\"text\": \"¿Dónde estabas?\"}\n```")]);
    let request = Shorten {
        from: "en-US".into(),
        to: "es".into(),
        line: line(11, "Where have you been all night?"),
        current: "¿Dónde has estado durante toda la noche entera?".into(),
        current_seconds: 2.6,
        target_syllables: 6,
        glossary: vec![],
        keep: vec![],
        notes: String::new(),
    };
    assert_eq!(Translator::new(settings(&server.url)).shorten(&request).unwrap(), "¿Dónde estabas?");
    let body = server.chats()[0].json();
    assert!(body["messages"][0]["content"].as_str().unwrap().contains("about 6 syllables"));
}

#[test]
fn the_check_lists_models_and_says_what_good_morning_became() {
    let server = serve(Some(r#"{"data":[{"id":"gemma3:4b"},{"id":"qwen3:8b"}]}"#), vec![completion(r#"[{"id": 1, "text": "Buenos días."}]"#)]);
    let report = Translator::new(settings(&server.url)).check().unwrap();
    assert_eq!(report.models, ["gemma3:4b", "qwen3:8b"]);
    assert_eq!(report.answered, "Buenos días.");
    assert!(report.seconds >= 0.0);
    let user: Value = serde_json::from_str(server.chats()[0].json()["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(user["translate"][0]["text"], "Good morning.");
    assert_eq!(user["to"], "Spanish");
}

#[test]
fn the_check_passes_a_server_without_a_model_list() {
    let server = serve(None, vec![completion(r#"[{"id": 1, "text": "Buenos días."}]"#)]);
    let translator = Translator::new(settings(&server.url));
    let report = translator.check().unwrap();
    assert!(report.models.is_empty());
    assert_eq!(translator.model(), "default");
}

#[test]
fn an_address_that_is_no_url_fails_naming_the_translator() {
    let err = Translator::new(settings("127.0.0.1:8080")).translate(&batch()).unwrap_err().to_string();
    assert!(err.contains("translator \"llama\""), "{err}");
}
