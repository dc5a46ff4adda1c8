//! A stand-in speech server for tests of remote engines: a loopback HTTP
//! listener that hands each request (its head and body) to a closure and
//! writes back what the closure answers, or nothing at all (a server that
//! hangs). Enough HTTP/1.1 for one request per connection.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;

/// What the stand-in answers a request: status line (`200 OK`), content type, body.
pub type Reply = Option<(&'static str, &'static str, Vec<u8>)>;

/// Serves on a free loopback port until the process ends; its base URL.
/// `answer` gets the request's head (request line and headers) and body;
/// `None` leaves the connection open and unanswered.
pub fn serve(answer: impl Fn(&str, &[u8]) -> Reply + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let length: usize =
                    head.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0))).unwrap_or(0);
                let mut body = vec![0u8; length];
                let _ = stream.read_exact(&mut body);
                match answer(&head, &body) {
                    Some((status, kind, body)) => {
                        let mut out =
                            format!("HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).into_bytes();
                        out.extend_from_slice(&body);
                        let _ = stream.write_all(&out);
                    }
                    // Hangs: holds the connection until the client gives up.
                    None => std::thread::sleep(std::time::Duration::from_secs(120)),
                }
            });
        }
    });
    url
}
