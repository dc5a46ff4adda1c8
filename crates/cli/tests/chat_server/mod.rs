//! A scripted chat-completions server's plumbing for the CLI's tests: one
//! HTTP request read off a connection, and a JSON answer written back.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// The request line (`POST /v1/chat/completions HTTP/1.1`) and body of
/// the request on `stream`.
pub fn read_request(stream: &TcpStream) -> (String, Vec<u8>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    (first, body)
}

/// Answers `200 OK` with the JSON `answer` and closes.
pub fn answer(stream: &mut TcpStream, answer: &str) {
    let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", answer.len());
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(answer.as_bytes()));
}

/// A chat completion whose message is `content`.
pub fn completion(content: &str) -> String {
    serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).to_string()
}
