//! Runs the `revoice` binary for the CLI's tests, on a data folder of the
//! test's own and without the caller's data folder or log filter, and
//! reads a track's lines back as `project lines` prints them.

use std::path::Path;
use std::process::Command;

/// Runs `revoice --data-dir data ARGS`: its exit code, stdout and stderr.
pub fn revoice(data: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_revoice"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env_remove("REVOICE_DATA_DIR")
        .env_remove("RUST_LOG")
        .output()
        .expect("revoice runs");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The lines of `language`'s track as `project lines` prints them: id and text.
#[allow(dead_code)] // not every test reads lines
pub fn track_lines(data: &Path, project: &str, language: &str) -> Vec<(i64, String)> {
    let (code, out, err) = revoice(data, &["project", "lines", project]);
    assert_eq!(code, Some(0), "{err}");
    let mut lines = Vec::new();
    let mut inside = false;
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("track ") {
            inside = rest.starts_with(&format!("{language} "));
            continue;
        }
        if inside {
            let id = line.split_whitespace().next().unwrap().parse().unwrap();
            lines.push((id, line.split_once("] ").map_or(line, |(_, text)| text).to_string()));
        }
    }
    lines
}
