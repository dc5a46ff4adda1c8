//! The HTTP client of one translator: `POST …/v1/chat/completions` and
//! `GET …/v1/models`, with the translator's API key and timeout. Every
//! fault is an error naming the translator and its host: it cannot be
//! reached, does not answer in time, refuses the key, has no such route or
//! model, fails (5xx and 429, tried three times in all), or answers
//! something that is not a chat completion.
//!
//! A reply's form is asked for as a JSON schema where the server takes one
//! (OpenAI's `json_schema` response format, or the `json_object` with a
//! schema that llama.cpp's servers read), which holds a small local model to
//! valid JSON of the right shape; a server that refuses the field is asked
//! again in the next form it may take, down to none, and remembered.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use revoice_core::error::{Error, Result};
use revoice_core::translators::TranslatorSettings;
use serde::Serialize;
use serde_json::{json, Value};

/// The waits before the second and the third try of a request the server
/// failed (5xx, or 429 too many requests).
pub const BACKOFF: [Duration; 2] = [Duration::from_millis(500), Duration::from_millis(1500)];

/// How long `GET /v1/models` may take at most (less when the translator's timeout is shorter).
const MODELS_TIMEOUT: Duration = Duration::from_secs(10);

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    pub content: String,
}

impl Message {
    /// The instructions.
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: "system".into(), content: content.into() }
    }

    /// What is asked.
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: "user".into(), content: content.into() }
    }
}

/// The address of `path` (`/chat/completions`, `/models`) on a server whose
/// configured URL is `url`: `{url}/v1{path}`, or `{url}{path}` when the URL
/// already ends with `/v1`.
pub fn endpoint(url: &str, path: &str) -> String {
    let base = url.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}{path}")
    } else {
        format!("{base}/v1{path}")
    }
}

/// How the reply's shape is asked for, in the order tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyShape {
    /// `response_format: {type: "json_schema", json_schema: {name, strict, schema}}` (OpenAI, vLLM, Ollama, LM Studio, llama.cpp).
    JsonSchema,
    /// `response_format: {type: "json_object", schema}` (llama-cpp-python's server).
    JsonObject,
    /// No response format: the prompt alone says what to answer.
    Prompted,
}

impl ReplyShape {
    fn next(self) -> Option<ReplyShape> {
        match self {
            ReplyShape::JsonSchema => Some(ReplyShape::JsonObject),
            ReplyShape::JsonObject => Some(ReplyShape::Prompted),
            ReplyShape::Prompted => None,
        }
    }
}

/// Talks to one translator.
#[derive(Clone)]
pub struct ChatClient {
    agent: ureq::Agent,
    /// `translator "llama" at 127.0.0.1:8080`: what every error names.
    what: String,
    url: String,
    model: String,
    api_key: String,
    timeout: Duration,
    temperature: f64,
    /// The reply shape this server takes, once learnt (shared by clones).
    shape: Arc<Mutex<ReplyShape>>,
}

impl ChatClient {
    /// A client of the translator `settings` describes (not checked here).
    pub fn new(settings: &TranslatorSettings) -> ChatClient {
        let timeout = settings.timeout();
        let config = ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build();
        ChatClient {
            agent: config.into(),
            what: format!("translator {:?} at {}", settings.name, settings.host()),
            url: settings.url.clone(),
            model: settings.model.clone(),
            api_key: settings.api_key.clone(),
            timeout,
            temperature: settings.temperature(),
            shape: Arc::new(Mutex::new(ReplyShape::JsonSchema)),
        }
    }

    /// The reply shape asked for now.
    pub fn shape(&self) -> ReplyShape {
        *self.shape.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What its errors name: `translator "llama" at 127.0.0.1:8080`.
    pub fn what(&self) -> &str {
        &self.what
    }

    fn with_key<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        if self.api_key.is_empty() {
            request
        } else {
            request.header("Authorization", &format!("Bearer {}", self.api_key))
        }
    }

    /// The request's body: the model (left out when none is configured),
    /// the messages, the translator's temperature, no streaming, at most `max_tokens`
    /// (never the whole context: a model that loops, as a grammar-held one
    /// writing whitespace can, stops instead of running for minutes), and
    /// the reply's `schema` in the form `shape` says.
    pub fn body(&self, messages: &[Message], schema: Option<&Value>, shape: ReplyShape, max_tokens: usize) -> Value {
        let mut body = json!({ "messages": messages, "temperature": self.temperature, "stream": false, "max_tokens": max_tokens });
        if !self.model.is_empty() {
            body["model"] = json!(self.model);
        }
        match (schema, shape) {
            (Some(schema), ReplyShape::JsonSchema) => {
                body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": schema}});
            }
            (Some(schema), ReplyShape::JsonObject) => body["response_format"] = json!({"type": "json_object", "schema": schema}),
            _ => {}
        }
        body
    }

    /// The assistant's answer to `messages` (`choices[0].message.content`,
    /// any `<think>…</think>` before it left out), its form held to
    /// `schema` where the server takes one. A 5xx or 429 is tried again
    /// after [`BACKOFF`]; a refusal of the reply's format (a 400 or 422, or
    /// an error naming `response_format`) is asked again in the next
    /// [`ReplyShape`]; anything else fails at once.
    pub fn complete(&self, messages: &[Message], schema: Option<&Value>, max_tokens: usize) -> Result<String> {
        let url = endpoint(&self.url, "/chat/completions");
        let mut shape = self.shape();
        let mut body = body_text(&self.body(messages, schema, shape, max_tokens));
        let mut tries = 0;
        loop {
            tracing::debug!(translator = %self.what, %url, bytes = body.len(), "chat request");
            let request = self.with_key(self.agent.post(&url)).header("Content-Type", "application/json");
            let mut response = request.send(body.as_bytes()).map_err(|e| self.transport(&e))?;
            let status = response.status().as_u16();
            let answer = response.body_mut().with_config().limit(64 << 20).read_to_vec().map_err(|e| self.transport(&e))?;
            match status {
                200 => return content(&answer).ok_or_else(|| self.not_a_completion(&answer)),
                // Refused for the reply format (a 400 or 422, or any status whose message names it: llama-cpp-python answers 500).
                status if schema.is_some() && shape.next().is_some() && refuses_format(status, &answer) => {
                    let next = shape.next().expect("a next shape");
                    tracing::info!(translator = %self.what, status, said = %message(&answer), ?shape, ?next, "the translator refused the reply format; asking in another");
                    shape = next;
                    *self.shape.lock().unwrap_or_else(|p| p.into_inner()) = next;
                    body = body_text(&self.body(messages, schema, shape, max_tokens));
                }
                429 | 500..=599 if tries < BACKOFF.len() => {
                    tracing::warn!(translator = %self.what, status, said = %message(&answer), "the translator failed; trying again");
                    std::thread::sleep(BACKOFF[tries]);
                    tries += 1;
                }
                429 | 500..=599 => {
                    return Err(Error::busy(&self.what, format!("failed {} times, the last with {status}: {}", tries + 1, message(&answer))));
                }
                status => return Err(self.refusal(status, &answer, &url)),
            }
        }
    }

    /// The ids `GET /v1/models` lists (within 10 s). A server without the
    /// route, or whose answer lists nothing, gives an empty list; one that
    /// cannot be reached, or refuses the key, an error.
    pub fn models(&self) -> Result<Vec<String>> {
        let url = endpoint(&self.url, "/models");
        let request = self.with_key(self.agent.get(&url)).config().timeout_global(Some(self.timeout.min(MODELS_TIMEOUT))).build();
        let mut response = request.call().map_err(|e| self.transport(&e))?;
        let status = response.status().as_u16();
        let answer = response.body_mut().with_config().limit(16 << 20).read_to_vec().map_err(|e| self.transport(&e))?;
        match status {
            200 => Ok(model_ids(&answer)),
            401 | 403 => Err(self.refusal(status, &answer, &url)),
            status => {
                tracing::debug!(translator = %self.what, status, "no model list");
                Ok(Vec::new())
            }
        }
    }

    /// The error of a request that took longer than the timeout.
    pub(crate) fn timed_out(&self) -> Error {
        Error::busy(&self.what, format!("did not answer in {} s (it hangs, or its model needs longer: raise the translator's timeout)", seconds(self.timeout)))
    }

    fn transport(&self, e: &ureq::Error) -> Error {
        let refused = "nothing answers there: the connection was refused (is the server running?)";
        let reason = match e {
            ureq::Error::Timeout(_) => return self.timed_out(),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => return self.timed_out(),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => refused.to_string(),
            ureq::Error::ConnectionFailed => refused.to_string(),
            ureq::Error::HostNotFound => "its host is not found".to_string(),
            other => format!("the connection failed: {other}"),
        };
        Error::busy(&self.what, reason)
    }

    /// The error of a request the server answered with `status`.
    pub(crate) fn refusal(&self, status: u16, body: &[u8], url: &str) -> Error {
        let said = message(body);
        let reason = match status {
            401 | 403 if self.api_key.is_empty() => format!("refused the API key ({status}: none is configured, add one with --api-key): {said}"),
            401 | 403 => format!("refused the API key ({status}): {said}"),
            404 if self.model.is_empty() => format!("answered 404 for {url}: the URL is wrong, or the server has no default model: {said}"),
            404 => format!("answered 404 for {url}: the URL or the model {:?} is wrong: {said}", self.model),
            status => format!("refused the request ({status}): {said}"),
        };
        Error::invalid(&self.what, reason)
    }

    fn not_a_completion(&self, body: &[u8]) -> Error {
        Error::internal(&self.what, format!("answered something that is not a chat completion: {}", start(body)))
    }
}

/// A request's body as text, each schema's `properties` written in the
/// order its `required` lists them (any others after). A server that turns
/// the schema into a grammar (llama.cpp's) has the model write the keys in
/// the order they come, and the order can matter (the beside form: the
/// source before its translation); a `Value` alone writes them sorted.
pub fn body_text(body: &Value) -> String {
    serde_json::to_string(&InOrder(body)).expect("a JSON value is written as JSON")
}

/// A JSON value written with its schemas' properties in `required` order.
struct InOrder<'a>(&'a Value);

impl Serialize for InOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.0 {
            Value::Array(items) => serializer.collect_seq(items.iter().map(InOrder)),
            Value::Object(object) => {
                let required: Vec<&str> =
                    object.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object {
                    match value {
                        Value::Object(properties) if key == "properties" => {
                            let first = required.iter().filter_map(|k| properties.get_key_value(*k));
                            let rest = properties.iter().filter(|(k, _)| !required.contains(&k.as_str()));
                            let ordered: Vec<(&String, InOrder)> = first.chain(rest).map(|(k, v)| (k, InOrder(v))).collect();
                            map.serialize_entry(key, &OrderedMap(ordered))?;
                        }
                        _ => map.serialize_entry(key, &InOrder(value))?,
                    }
                }
                map.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Entries written in the order given.
struct OrderedMap<'a>(Vec<(&'a String, InOrder<'a>)>);

impl Serialize for OrderedMap<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// A duration as people read it: `180`, `1.5`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

/// The first 200 characters of a body, for an error.
fn start(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "an empty body".into();
    }
    let cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// The error envelope's message (`{"error":{"message":…}}`, `{"error":"…"}`,
/// `{"message":…}`), or the body's start.
fn message(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let said =
        parsed.as_ref().and_then(|v| v["error"]["message"].as_str().or_else(|| v["error"].as_str()).or_else(|| v["message"].as_str()).map(str::to_string));
    said.unwrap_or_else(|| start(body))
}

/// Whether a failed request was refused for its response format: a 400
/// or 422, or a server error whose message names the field.
fn refuses_format(status: u16, body: &[u8]) -> bool {
    let said = String::from_utf8_lossy(body);
    matches!(status, 400 | 422) || (status >= 400 && (said.contains("response_format") || said.contains("json_schema")))
}

/// `choices[0].message.content`, after any reasoning the model wrote in `<think>`.
fn content(body: &[u8]) -> Option<String> {
    let answer: Value = serde_json::from_slice(body).ok()?;
    let content = answer["choices"][0]["message"]["content"].as_str()?;
    let content = content.rsplit_once("</think>").map_or(content, |(_, after)| after);
    Some(content.trim().to_string())
}

/// The ids of a model list: `{"data":[{"id":…}]}` (OpenAI), or `models`
/// and `name` as some servers spell them.
fn model_ids(body: &[u8]) -> Vec<String> {
    let Ok(list) = serde_json::from_slice::<Value>(body) else { return Vec::new() };
    let items = list["data"].as_array().or_else(|| list["models"].as_array()).or_else(|| list.as_array()).cloned().unwrap_or_default();
    items
        .iter()
        .filter_map(|m| m.as_str().or_else(|| m["id"].as_str()).or_else(|| m["name"].as_str()).or_else(|| m["model"].as_str()).map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> TranslatorSettings {
        TranslatorSettings {
            name: "llama".into(),
            url: url.into(),
            model: String::new(),
            api_key: String::new(),
            timeout_s: None,
            temperature: None,
            batch_lines: None,
        }
    }

    #[test]
    fn the_endpoint_is_under_v1_once() {
        assert_eq!(endpoint("http://127.0.0.1:8080", "/chat/completions"), "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(endpoint("http://127.0.0.1:8080/", "/models"), "http://127.0.0.1:8080/v1/models");
        assert_eq!(endpoint("https://api.example.com/v1", "/chat/completions"), "https://api.example.com/v1/chat/completions");
        assert_eq!(endpoint("https://api.example.com/v1/", "/models"), "https://api.example.com/v1/models");
        assert_eq!(endpoint("http://host:11434/openai/v1", "/models"), "http://host:11434/openai/v1/models");
    }

    #[test]
    fn the_body_names_the_model_only_when_one_is_configured() {
        let messages = [Message::system("be brief"), Message::user("hi")];
        let body = ChatClient::new(&settings("http://127.0.0.1:8080")).body(&messages, None, ReplyShape::JsonSchema, 300);
        assert!(body.get("model").is_none() && body.get("response_format").is_none());
        assert_eq!((body["temperature"].as_f64(), body["stream"].as_bool()), (Some(0.2), Some(false)));
        assert_eq!(body["max_tokens"].as_u64(), Some(300));
        assert_eq!(body["messages"][1], json!({"role": "user", "content": "hi"}));
        let with_model = ChatClient::new(&TranslatorSettings { model: "gemma3".into(), ..settings("http://127.0.0.1:8080") }).body(
            &messages,
            None,
            ReplyShape::Prompted,
            300,
        );
        assert_eq!(with_model["model"], "gemma3");
    }

    #[test]
    fn the_reply_schema_is_sent_in_each_form_a_server_may_take() {
        let (messages, schema) = ([Message::user("hi")], json!({"type": "object"}));
        let client = ChatClient::new(&settings("http://127.0.0.1:8080"));
        let openai = client.body(&messages, Some(&schema), ReplyShape::JsonSchema, 300);
        assert_eq!(openai["response_format"], json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": schema}}));
        let llama = client.body(&messages, Some(&schema), ReplyShape::JsonObject, 300);
        assert_eq!(llama["response_format"], json!({"type": "json_object", "schema": schema}));
        assert!(client.body(&messages, Some(&schema), ReplyShape::Prompted, 300).get("response_format").is_none());
    }

    #[test]
    fn a_schemas_properties_are_written_in_the_order_required_lists_them() {
        let schema = json!({"type": "object", "properties": {"lines": {"type": "array", "items": {
            "type": "object",
            "properties": {"Spanish": {"type": "string"}, "English": {"type": "string"}, "id": {"type": "integer"}, "note": {"type": "string"}},
            "required": ["id", "English", "Spanish"]
        }}}, "required": ["lines"]});
        let body = ChatClient::new(&settings("http://127.0.0.1:8080")).body(&[Message::user("hi")], Some(&schema), ReplyShape::JsonObject, 300);
        let text = body_text(&body);
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), body, "the same JSON");
        let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle:?} missing from {text}"));
        assert!(at("\"id\":{") < at("\"English\":{") && at("\"English\":{") < at("\"Spanish\":{") && at("\"Spanish\":{") < at("\"note\":{"), "{text}");
    }

    #[test]
    fn a_completion_is_read_and_anything_else_is_not() {
        let body = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":"<think>hmm [1]</think>\n [{\"id\":1}] "}}]}"#;
        assert_eq!(content(body).as_deref(), Some(r#"[{"id":1}]"#));
        assert_eq!(content(b"<html>nope</html>"), None);
        assert_eq!(content(br#"{"choices":[]}"#), None);
        let long = "x".repeat(500);
        assert_eq!(start(long.as_bytes()).chars().count(), 201);
        assert_eq!(message(br#"{"error":{"message":"model not loaded"}}"#), "model not loaded");
        assert_eq!(message(br#"{"error":"busy"}"#), "busy");
        assert_eq!(seconds(Duration::from_secs(180)), "180");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5");
    }

    #[test]
    fn model_lists_are_read_as_servers_spell_them() {
        assert_eq!(model_ids(br#"{"object":"list","data":[{"id":"gemma3:4b"},{"id":"qwen3"}]}"#), ["gemma3:4b", "qwen3"]);
        assert_eq!(model_ids(br#"{"models":[{"name":"llama"}]}"#), ["llama"]);
        assert!(model_ids(b"not json").is_empty());
    }
}
