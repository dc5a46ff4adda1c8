//! `GET /v1/audio/speech/stream` (WebSocket): incremental text in, audio out
//! per sentence or clause. The client sends `session.config` (voice,
//! `response_format: "pcm"`, `stream_audio`, `split_granularity`, and
//! optionally speed and language), then `input.text` pieces and
//! `input.done`. As soon as a sentence (or clause) is complete in the text
//! received so far it is prepared and its rows go to the renderer, so later
//! sentences render while earlier ones are sent; the answers go out in
//! order: `audio.start`, binary s16le PCM frames, `audio.done`, and at the
//! end `session.done`. Malformed messages get an `error` event and the
//! session goes on. When the client goes away, everything it queued is
//! dropped, which cancels the rows that have not started.

use std::sync::Arc;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::errors::{ApiError, ApiResult};
use super::speech::{self, ChosenVoice, SpeechRequest};
use super::state::ApiState;
use revoice_engine::text::sentences::split_sentences;
use revoice_engine::Delivery;

/// Samples per binary frame (0.4 s at 24 kHz).
const FRAME_SAMPLES: usize = 9600;

/// Where a clause ends inside a sentence (full-width ones included).
const CLAUSE_MARKS: [char; 8] = [',', ';', ':', '—', '，', '；', '：', '、'];
/// Full-width marks that end a sentence, and a clause.
const FULL_WIDTH_ENDS: [char; 5] = ['。', '！', '？', '」', '』'];
const FULL_WIDTH_CLAUSES: [char; 4] = ['，', '；', '：', '、'];

/// How the text is cut into pieces that are spoken one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    Sentence,
    Clause,
}

/// `GET /v1/audio/speech/stream`.
pub async fn stream(State(state): State<Arc<ApiState>>, ws: WebSocketUpgrade) -> Response {
    state.metrics.request("speech_stream");
    ws.on_upgrade(move |socket| session(state, socket))
}

fn event(value: Value) -> Message {
    Message::Text(Utf8Bytes::from(value.to_string()))
}

fn error_event(message: impl Into<String>) -> Message {
    event(json!({"type": "error", "message": message.into()}))
}

/// The pieces of `buffer` that are complete, and what is left over. With
/// `done`, everything is complete.
pub fn complete_pieces(buffer: &str, granularity: Granularity, done: bool) -> (Vec<String>, String) {
    let mut pieces: Vec<String> = Vec::new();
    for sentence in split_sentences(buffer) {
        match granularity {
            Granularity::Sentence => pieces.push(sentence),
            Granularity::Clause => {
                let mut clause = String::new();
                for c in sentence.chars() {
                    clause.push(c);
                    if CLAUSE_MARKS.contains(&c) && !clause.trim().is_empty() {
                        pieces.push(clause.trim().to_string());
                        clause.clear();
                    }
                }
                if !clause.trim().is_empty() {
                    pieces.push(clause.trim().to_string());
                }
            }
        }
    }
    if done {
        return (pieces, String::new());
    }
    // Full-width marks end a piece with nothing after them (Chinese and
    // Japanese put no space there); the others once a space follows.
    let last = buffer.trim_end().chars().last();
    let full_width = last.is_some_and(|c| FULL_WIDTH_ENDS.contains(&c) || (granularity == Granularity::Clause && FULL_WIDTH_CLAUSES.contains(&c)));
    let ends_piece = full_width
        || buffer.ends_with(char::is_whitespace) && {
            let marks: &[char] = match granularity {
                Granularity::Sentence => &['.', '!', '?', '…', '"', '”', ')'],
                Granularity::Clause => &['.', '!', '?', '…', '"', '”', ')', ',', ';', ':', '—'],
            };
            last.is_some_and(|c| marks.contains(&c))
        };
    if ends_piece || pieces.is_empty() {
        let rest = if pieces.is_empty() { buffer.to_string() } else { String::new() };
        return (pieces, rest);
    }
    // The unfinished piece stays as it was typed (spaces included).
    let last = pieces.pop().unwrap_or_default();
    let rest = buffer.rfind(last.as_str()).map_or(last, |at| buffer[at..].to_string());
    (pieces, rest)
}

/// A piece on its way: its rows are being prepared and rendered.
struct Piece {
    index: usize,
    text: String,
    rows: JoinHandle<ApiResult<mpsc::Receiver<revoice_engine::Result<revoice_engine::speech::AudioPiece>>>>,
}

enum Work {
    Piece(Piece),
    Done,
}

/// What `session.config` set up.
struct Session {
    request: SpeechRequest,
    voice: ChosenVoice,
    granularity: Granularity,
}

async fn configure(state: &Arc<ApiState>, message: &Map<String, Value>) -> ApiResult<(Session, bool)> {
    let format = message.get("response_format").and_then(Value::as_str).unwrap_or("pcm");
    if !format.eq_ignore_ascii_case("pcm") {
        return Err(ApiError::bad_request(Some("response_format"), format!("the stream sends raw PCM only: response_format must be \"pcm\", not {format:?}")));
    }
    let granularity = match message.get("split_granularity").and_then(Value::as_str).unwrap_or("sentence") {
        "sentence" => Granularity::Sentence,
        "clause" => Granularity::Clause,
        other => return Err(ApiError::bad_request(Some("split_granularity"), format!("split_granularity {other:?} is not \"sentence\" or \"clause\""))),
    };
    let stream_audio = match message.get("stream_audio") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(ApiError::bad_request(Some("stream_audio"), "stream_audio must be true or false")),
    };
    let mut body: Map<String, Value> = ["voice", "speed", "language", "task_type", "instructions", "ref_audio", "ref_text", "seed"]
        .iter()
        .filter_map(|k| message.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    body.insert("input".into(), json!("config"));
    body.insert("response_format".into(), json!("pcm"));
    let request = speech::parse(&body)?;
    let voice = speech::choose_voice(state, &request).await?;
    Ok((Session { request, voice, granularity }, stream_audio))
}

fn start_piece(state: &Arc<ApiState>, session: &Session, index: usize, text: String) -> Piece {
    let (state, voice) = (state.clone(), session.voice.clone());
    let request = SpeechRequest { input: text.clone(), ..session.request.clone() };
    let rows = tokio::spawn(async move {
        let prepared = speech::prepare(&state, &request, &voice, Delivery::Pieces).await?;
        Ok(speech::render_pieces(&state, prepared))
    });
    Piece { index, text, rows }
}

async fn session(state: Arc<ApiState>, socket: WebSocket) {
    let (mut sink, mut source) = socket.split();
    let (out, mut outgoing) = mpsc::channel::<Message>(32);
    let writer = tokio::spawn(async move {
        while let Some(m) = outgoing.recv().await {
            if sink.send(m).await.is_err() {
                break;
            }
        }
    });
    let (work, queue) = mpsc::unbounded_channel::<Work>();
    let mut queue = Some(queue);
    let mut speaker: Option<JoinHandle<()>> = None;
    let mut session: Option<Session> = None;
    let (mut buffer, mut next_index, mut finished) = (String::new(), 0usize, false);

    while let Some(message) = source.next().await {
        let text = match message {
            Ok(Message::Text(text)) => text,
            Ok(Message::Binary(_)) => {
                let _ = out.send(error_event("binary messages are not taken: send JSON text messages")).await;
                continue;
            }
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => continue,
        };
        let message = match serde_json::from_str::<Value>(text.as_str()) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                let _ = out.send(error_event("each message must be a JSON object with a \"type\"")).await;
                continue;
            }
            Err(e) => {
                let _ = out.send(error_event(format!("malformed JSON: {e}"))).await;
                continue;
            }
        };
        let kind = message.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "session.config" => {
                if session.is_some() {
                    let _ = out.send(error_event("the session is already configured")).await;
                    continue;
                }
                match configure(&state, &message).await {
                    Ok((configured, stream_audio)) => {
                        let rate = state.engine.speech_loaded().map(|s| s.sample_rate());
                        let _ = out
                            .send(event(json!({"type": "session.created", "voice": configured.voice.spec.to_string(), "sample_rate": rate, "format": "pcm"})))
                            .await;
                        session = Some(configured);
                        speaker = Some(tokio::spawn(speak(state.clone(), queue.take().expect("configured once"), out.clone(), stream_audio)));
                    }
                    Err(e) => {
                        let _ = out.send(event(json!({"type": "error", "message": e.message, "param": e.param}))).await;
                    }
                }
            }
            "input.text" | "input.done" if session.is_none() => {
                let _ = out.send(error_event(format!("{kind} before session.config: configure the session first"))).await;
            }
            "input.text" | "input.done" if finished => {
                let _ = out.send(error_event(format!("{kind} after input.done: the session's input is closed"))).await;
            }
            "input.text" => {
                let Some(piece) = message.get("text").and_then(Value::as_str) else {
                    let _ = out.send(error_event("input.text needs \"text\": a string")).await;
                    continue;
                };
                buffer.push_str(piece);
                let s = session.as_ref().expect("checked above");
                let (pieces, rest) = complete_pieces(&buffer, s.granularity, false);
                buffer = rest;
                for text in pieces {
                    let _ = work.send(Work::Piece(start_piece(&state, s, next_index, text)));
                    next_index += 1;
                }
            }
            "input.done" => {
                let s = session.as_ref().expect("checked above");
                let (pieces, _) = complete_pieces(&buffer, s.granularity, true);
                buffer.clear();
                for text in pieces {
                    let _ = work.send(Work::Piece(start_piece(&state, s, next_index, text)));
                    next_index += 1;
                }
                let _ = work.send(Work::Done);
                finished = true;
            }
            other => {
                let _ = out.send(error_event(format!("unknown message type {other:?}: send session.config, input.text or input.done"))).await;
            }
        }
    }
    // The client is gone: drop its queued work (cancelling unstarted rows).
    if let Some(speaker) = speaker {
        speaker.abort();
    }
    drop(work);
    writer.abort();
}

/// Sends each piece's audio in order.
async fn speak(state: Arc<ApiState>, mut queue: mpsc::UnboundedReceiver<Work>, out: mpsc::Sender<Message>, stream_audio: bool) {
    let mut total = 0usize;
    while let Some(work) = queue.recv().await {
        let piece = match work {
            Work::Done => {
                let _ = out.send(event(json!({"type": "session.done", "total_sentences": total}))).await;
                continue;
            }
            Work::Piece(piece) => piece,
        };
        total += 1;
        let rate = state.engine.speech_loaded().map(|s| s.sample_rate());
        let start = json!({"type": "audio.start", "sentence_index": piece.index, "sentence_text": piece.text, "format": "pcm", "sample_rate": rate});
        if out.send(event(start)).await.is_err() {
            return;
        }
        let (mut bytes, mut held, mut failure) = (0usize, Vec::new(), None::<String>);
        match piece.rows.await {
            Ok(Ok(mut rows)) => {
                while let Some(audio) = rows.recv().await {
                    match audio {
                        Ok(audio) => {
                            let pcm = super::formats::pcm16_bytes(&audio.samples);
                            bytes += pcm.len();
                            if stream_audio {
                                for frame in pcm.chunks(FRAME_SAMPLES * 2) {
                                    if out.send(Message::Binary(frame.to_vec().into())).await.is_err() {
                                        return;
                                    }
                                }
                            } else {
                                held.extend_from_slice(&pcm);
                            }
                        }
                        Err(e) => {
                            failure = Some(e.to_string());
                            break;
                        }
                    }
                }
            }
            Ok(Err(e)) => failure = Some(e.message),
            Err(e) => failure = Some(format!("the piece's worker failed: {e}")),
        }
        if !held.is_empty() && failure.is_none() && out.send(Message::Binary(held.into())).await.is_err() {
            return;
        }
        let mut done = json!({"type": "audio.done", "sentence_index": piece.index, "total_bytes": bytes, "error": failure.is_some()});
        if let Some(message) = failure {
            done["message"] = json!(message);
        }
        if out.send(event(done)).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finished_sentences_are_spoken_before_the_input_is_done() {
        let (pieces, rest) = complete_pieces("Hello there. How are", Granularity::Sentence, false);
        assert_eq!((pieces, rest.as_str()), (vec!["Hello there.".to_string()], "How are"));
        let (pieces, rest) = complete_pieces("Hello there. ", Granularity::Sentence, false);
        assert_eq!((pieces, rest.as_str()), (vec!["Hello there.".to_string()], ""));
        let (pieces, rest) = complete_pieces("Hello there", Granularity::Sentence, false);
        assert_eq!((pieces.len(), rest.as_str()), (0, "Hello there"));
        let (pieces, rest) = complete_pieces("Hello there", Granularity::Sentence, true);
        assert_eq!((pieces, rest.as_str()), (vec!["Hello there".to_string()], ""));
    }

    #[test]
    fn clauses_split_at_commas_and_semicolons() {
        let (pieces, rest) = complete_pieces("First, second; third. Fourth", Granularity::Clause, false);
        assert_eq!(pieces, ["First,", "second;", "third."]);
        assert_eq!(rest, "Fourth");
        let (_, rest) = complete_pieces("Done. How are ", Granularity::Sentence, false);
        assert_eq!(rest, "How are ", "the space before the next word is kept");
    }

    #[test]
    fn chinese_punctuation_cuts_sentences_and_clauses_with_no_space_after_it() {
        let (pieces, rest) = complete_pieces("你好，世界；今天很好。明天", Granularity::Clause, false);
        assert_eq!((pieces, rest.as_str()), (vec!["你好，".to_string(), "世界；".to_string(), "今天很好。".to_string()], "明天"));
        let (pieces, rest) = complete_pieces("你好，世界！", Granularity::Sentence, false);
        assert_eq!((pieces, rest.as_str()), (vec!["你好，世界！".to_string()], ""));
        let (pieces, rest) = complete_pieces("你好，", Granularity::Clause, false);
        assert_eq!((pieces, rest.as_str()), (vec!["你好，".to_string()], ""));
        let (pieces, rest) = complete_pieces("你好，", Granularity::Sentence, false);
        assert_eq!((pieces.len(), rest.as_str()), (0, "你好，"));
    }
}
