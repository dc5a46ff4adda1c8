//! A loopback HTTP file server for installer tests: serves fixed bodies by
//! path, honours `Range`, answers 404 for anything else, and can cut the
//! first few responses short to simulate dropped connections.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub struct TestServer {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    /// Set by callers that serve one file: its full URL.
    pub url: String,
    pub requests: Arc<AtomicUsize>,
    pub ranged: Arc<AtomicUsize>,
}

impl TestServer {
    /// Serves `files`; the first `drops` responses stop after `drop_after` body bytes.
    pub fn start(files: Vec<(String, Vec<u8>)>, drops: usize, drop_after: usize) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let files: HashMap<String, Vec<u8>> = files.into_iter().collect();
        let requests = Arc::new(AtomicUsize::new(0));
        let ranged = Arc::new(AtomicUsize::new(0));
        let (req_count, range_count) = (requests.clone(), ranged.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mut start = 0usize;
                let mut line = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                        start = v.trim().trim_end_matches('-').parse().unwrap_or(0);
                        range_count.fetch_add(1, Ordering::SeqCst);
                    }
                }
                let n = req_count.fetch_add(1, Ordering::SeqCst);
                let Some(body) = files.get(&path) else {
                    let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    continue;
                };
                let rest = &body[start.min(body.len())..];
                let head = if start > 0 {
                    format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {}-{}/{}\r\nConnection: close\r\n\r\n",
                        rest.len(),
                        start,
                        body.len() - 1,
                        body.len()
                    )
                } else {
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", rest.len())
                };
                let _ = stream.write_all(head.as_bytes());
                let cut = if n < drops { drop_after.min(rest.len()) } else { rest.len() };
                let _ = stream.write_all(&rest[..cut]);
                let _ = stream.flush();
            }
        });
        TestServer { base, url: String::new(), requests, ranged }
    }
}
