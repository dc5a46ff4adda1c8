//! The window's picture, served over loopback HTTP. WebKitGTK hands a
//! `<video>`'s address to GStreamer, which has no source for the app's own
//! URI schemes, so the video (or its proxy) is served on 127.0.0.1 at a
//! port the system picks, under a random name per file: only files the
//! editor asked for are served, with byte ranges (players seek by them),
//! read in pieces so a long film never sits in memory.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// Bytes read at a time.
const PIECE: usize = 256 * 1024;

type Files = Arc<Mutex<HashMap<String, PathBuf>>>;

/// The running server: where it listens and the files it serves.
pub struct PictureServer {
    base: String,
    files: Files,
}

impl PictureServer {
    /// Starts listening on 127.0.0.1 (a free port) on the app's runtime.
    pub async fn start() -> std::io::Result<PictureServer> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let base = format!("http://{}", listener.local_addr()?);
        let files: Files = Default::default();
        let app = axum::Router::new().route("/picture/{name}", get(serve_file)).with_state(files.clone());
        tauri::async_runtime::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!(error = %e, "the picture server stopped");
            }
        });
        Ok(PictureServer { base, files })
    }

    /// The address the window plays `file` from (the same one each time it is asked).
    pub fn url_for(&self, file: &Path) -> String {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let name = match files.iter().find(|(_, path)| path.as_path() == file) {
            Some((name, _)) => name.clone(),
            None => {
                let name = format!("{:032x}.{}", rand::random::<u128>(), file.extension().and_then(|e| e.to_str()).unwrap_or("bin"));
                files.insert(name.clone(), file.to_path_buf());
                name
            }
        };
        format!("{}/picture/{name}", self.base)
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("mp4" | "m4v") => "video/mp4",
        Some("webm") => "video/webm",
        Some("mkv") => "video/x-matroska",
        Some("mov") => "video/quicktime",
        Some("avi") => "video/x-msvideo",
        _ => "application/octet-stream",
    }
}

/// `bytes=a-b`, `bytes=a-` or `bytes=-n` of a file of `size` bytes: the first and last byte.
fn byte_range(value: &str, size: u64) -> Option<(u64, u64)> {
    let spec = value.trim().strip_prefix("bytes=")?.split(',').next()?.trim();
    let (from, to) = spec.split_once('-')?;
    let (first, last) = match (from.trim(), to.trim()) {
        ("", n) => {
            let n: u64 = n.parse().ok()?;
            (size.saturating_sub(n), size.checked_sub(1)?)
        }
        (a, "") => (a.parse().ok()?, size.checked_sub(1)?),
        (a, b) => (a.parse().ok()?, b.parse::<u64>().ok()?.min(size.checked_sub(1)?)),
    };
    (first <= last && last < size).then_some((first, last))
}

async fn serve_file(State(files): State<Files>, UrlPath(name): UrlPath<String>, headers: HeaderMap) -> Response {
    let Some(path) = files.lock().unwrap_or_else(|p| p.into_inner()).get(&name).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Ok(size) = std::fs::metadata(&path).map(|m| m.len()) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let asked = headers.get(header::RANGE).and_then(|v| v.to_str().ok());
    let (status, first, last) = match asked {
        None => (StatusCode::OK, 0, size.saturating_sub(1)),
        Some(range) => match byte_range(range, size) {
            Some((first, last)) => (StatusCode::PARTIAL_CONTENT, first, last),
            None => return (StatusCode::RANGE_NOT_SATISFIABLE, [(header::CONTENT_RANGE, format!("bytes */{size}"))]).into_response(),
        },
    };
    let length = if size == 0 { 0 } else { last - first + 1 };
    // Pieces read on a blocking thread, one at a time, as the player takes them.
    let pieces = futures_util::stream::unfold((path.clone(), first, length), |(path, at, left)| async move {
        if left == 0 {
            return None;
        }
        let want = left.min(PIECE as u64) as usize;
        let read = tokio::task::spawn_blocking({
            let path = path.clone();
            move || -> std::io::Result<Vec<u8>> {
                let mut file = std::fs::File::open(&path)?;
                file.seek(SeekFrom::Start(at))?;
                let mut piece = vec![0; want];
                file.read_exact(&mut piece)?;
                Ok(piece)
            }
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        match read {
            Ok(piece) => Some((Ok::<_, std::io::Error>(piece), (path, at + want as u64, left - want as u64))),
            Err(e) => Some((Err(e), (path, at, 0))),
        }
    });
    let mut response = Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type(&path))
        .header(header::ACCEPT_RANGES, "bytes")
        .header(header::CONTENT_LENGTH, length);
    if status == StatusCode::PARTIAL_CONTENT {
        response = response.header(header::CONTENT_RANGE, format!("bytes {first}-{last}/{size}"));
    }
    response.body(Body::from_stream(pieces)).unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_read_as_players_send_them() {
        assert_eq!(byte_range("bytes=0-", 1000), Some((0, 999)));
        assert_eq!(byte_range("bytes=100-199", 1000), Some((100, 199)));
        assert_eq!(byte_range("bytes=900-5000", 1000), Some((900, 999)));
        assert_eq!(byte_range("bytes=-100", 1000), Some((900, 999)));
        assert_eq!(byte_range("bytes=1000-", 1000), None);
        assert_eq!(byte_range("bytes=5-2", 1000), None);
        assert_eq!(byte_range("items=0-1", 1000), None);
    }

    #[tokio::test]
    async fn only_asked_files_are_served_and_a_range_comes_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("scene.webm");
        let bytes: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&file, &bytes).unwrap();
        let files: Files = Default::default();
        let server = PictureServer { base: String::new(), files: files.clone() };
        let url = server.url_for(&file);
        assert_eq!(url, server.url_for(&file), "one name per file");
        let name = url.rsplit('/').next().unwrap().to_string();
        let mut headers = HeaderMap::new();
        headers.insert(header::RANGE, "bytes=300000-599999".parse().unwrap());
        let response = serve_file(State(files.clone()), UrlPath(name), headers).await;
        assert_eq!(response.status(), StatusCode::PARTIAL_CONTENT);
        assert_eq!(response.headers()[header::CONTENT_RANGE], "bytes 300000-599999/600000");
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        assert_eq!(&body[..], &bytes[300_000..]);
        let missing = serve_file(State(files), UrlPath("other.webm".into()), HeaderMap::new()).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    }
}
