//! Resumable HTTP downloads with a size and sha256 check, for installing
//! model files from a model hub. A download writes `<dest>.part`, resumes it
//! with a `Range` request after an interruption, and becomes `<dest>` only
//! once its hash matches.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::InstallProgress;
use revoice_core::error::{Error, Result};

/// A file to fetch and what it must hash to.
#[derive(Debug, Clone)]
pub struct Download<'a> {
    pub url: &'a str,
    pub dest: &'a Path,
    pub sha256: &'a str,
    /// Expected size, when known (for progress and a size check).
    pub bytes: Option<u64>,
}

fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    dest.with_file_name(name)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(20)))
        .timeout_recv_body(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into()
}

fn http_error(url: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidInput { input: url.to_string(), reason: reason.to_string() }
}

/// Fetches `d.url` into `d.dest`, resuming a partial download, retrying a
/// dropped connection a few times, and checking the sha256 at the end.
/// A file already at `d.dest` with the right hash is kept as it is.
pub fn download(d: &Download, progress: &dyn InstallProgress) -> Result<()> {
    if d.dest.exists() && super::sha256_file(d.dest)? == d.sha256 {
        return Ok(());
    }
    if let Some(dir) = d.dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    }
    let part = part_path(d.dest);
    const ATTEMPTS: usize = 4;
    let mut last_error = None;
    for attempt in 1..=ATTEMPTS {
        match fetch_into(d, &part, progress) {
            Ok(()) => {
                last_error = None;
                break;
            }
            Err(e) => {
                tracing::warn!(url = d.url, attempt, error = %e, "download interrupted");
                last_error = Some(e);
            }
        }
    }
    if let Some(e) = last_error {
        return Err(e.context(format!("downloading {} ({ATTEMPTS} attempts)", d.url)));
    }
    let actual = super::sha256_file(&part)?;
    if actual != d.sha256 {
        let _ = std::fs::remove_file(&part);
        return Err(http_error(d.url, format!("downloaded file has sha256 {actual}, expected {}; the partial file was removed", d.sha256)));
    }
    std::fs::rename(&part, d.dest).map_err(|e| Error::io("move into place", d.dest, e))
}

/// One request: resume from the current `.part` length if the server
/// honours `Range`, else start over.
fn fetch_into(d: &Download, part: &Path, progress: &dyn InstallProgress) -> Result<()> {
    let have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    if d.bytes.is_some_and(|total| have == total) {
        return Ok(());
    }
    let mut request = agent().get(d.url);
    if have > 0 {
        request = request.header("Range", format!("bytes={have}-"));
    }
    let mut response = request.call().map_err(|e| http_error(d.url, e))?;
    let status = response.status().as_u16();
    let (mut file, start) = match status {
        206 => (OpenOptions::new().append(true).open(part).map_err(|e| Error::io("open", part, e))?, have),
        200 => (File::create(part).map_err(|e| Error::io("create", part, e))?, 0),
        416 if have > 0 => {
            // Our partial file is at least as long as the resource; let the hash decide.
            return Ok(());
        }
        _ => return Err(http_error(d.url, format!("server answered HTTP {status}"))),
    };
    progress.begin(&format!("downloading {}", file_label(d.dest)), d.bytes);
    progress.advance(start);
    let mut body = response.body_mut().as_reader();
    let mut buf = vec![0u8; 256 * 1024];
    let mut written = start;
    loop {
        let n = body.read(&mut buf).map_err(|e| http_error(d.url, e))?;
        if n == 0 {
            break;
        }
        file.write_all(&buf[..n]).map_err(|e| Error::io("write", part, e))?;
        written += n as u64;
        progress.advance(n as u64);
    }
    file.sync_all().map_err(|e| Error::io("write", part, e))?;
    progress.end();
    if let Some(total) = d.bytes {
        if written != total {
            return Err(http_error(d.url, format!("got {written} of {total} bytes")));
        }
    }
    Ok(())
}

/// Fetches a small document (a config file) into memory, refusing more
/// than `max_bytes`.
pub fn fetch_small(url: &str, max_bytes: u64) -> Result<Vec<u8>> {
    let mut response = agent().get(url).call().map_err(|e| http_error(url, e))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(http_error(url, format!("server answered HTTP {status}")));
    }
    response.body_mut().with_config().limit(max_bytes).read_to_vec().map_err(|e| http_error(url, e))
}

fn file_label(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::sha;
    use crate::install::test_server::TestServer;
    use crate::install::NoProgress;
    use std::net::TcpListener;
    use std::sync::atomic::Ordering;

    fn serve(body: Vec<u8>, drops: usize, drop_after: usize) -> TestServer {
        let server = TestServer::start(vec![("/kokoro.onnx".into(), body)], drops, drop_after);
        TestServer { url: format!("{}/kokoro.onnx", server.base), ..server }
    }

    fn body() -> Vec<u8> {
        (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn a_dropped_download_resumes_with_a_range_request_and_verifies() {
        let body = body();
        let server = serve(body.clone(), 2, 100_000);
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("kokoro.onnx");
        let hash = sha(&body);
        download(&Download { url: &server.url, dest: &dest, sha256: &hash, bytes: Some(body.len() as u64) }, &NoProgress).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), body);
        assert_eq!(server.requests.load(Ordering::SeqCst), 3);
        assert_eq!(server.ranged.load(Ordering::SeqCst), 2, "both retries resumed");
        assert!(!part_path(&dest).exists());
    }

    #[test]
    fn a_partial_file_left_by_a_killed_install_is_resumed_not_restarted() {
        let body = body();
        let server = serve(body.clone(), 0, 0);
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("kokoro.onnx");
        std::fs::write(part_path(&dest), &body[..123_456]).unwrap();
        let hash = sha(&body);
        download(&Download { url: &server.url, dest: &dest, sha256: &hash, bytes: None }, &NoProgress).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), body);
        assert_eq!(server.ranged.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_wrong_hash_is_an_error_naming_the_url_and_leaves_nothing_behind() {
        let body = body();
        let server = serve(body, 0, 0);
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("kokoro.onnx");
        let err = download(&Download { url: &server.url, dest: &dest, sha256: &"0".repeat(64), bytes: None }, &NoProgress).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&server.url) && text.contains("sha256"), "{text}");
        assert!(!dest.exists());
        assert!(!part_path(&dest).exists());
    }

    #[test]
    fn a_file_already_there_with_the_right_hash_is_not_fetched_again() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("kokoro.onnx");
        std::fs::write(&dest, b"done").unwrap();
        // No server at all: the port is closed.
        download(&Download { url: "http://127.0.0.1:9/never", dest: &dest, sha256: &sha(b"done"), bytes: None }, &NoProgress).unwrap();
    }

    #[test]
    fn a_missing_file_on_the_server_names_the_status() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/gone.onnx", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut s = stream;
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf);
                let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let err = download(&Download { url: &url, dest: &dir.path().join("x"), sha256: &"0".repeat(64), bytes: None }, &NoProgress).unwrap_err();
        assert!(err.to_string().contains("404"), "{err}");
    }
}
