//! The `revoice` CLI as a user runs it: a real process, a real data folder.

use std::path::Path;
use std::process::{Command, Output};

fn revoice(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_revoice"))
        .args(["--data-dir", data_dir.to_str().unwrap()])
        .args(args)
        .env_remove("REVOICE_DATA_DIR")
        .env_remove("RUST_LOG")
        .output()
        .expect("revoice runs")
}

#[test]
fn doctor_reports_the_data_folder_database_models_and_audio_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("studio data");
    let out = revoice(&data, &["doctor", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["data_dir"], data.to_str().unwrap());
    assert_eq!(report["engine_version"], env!("CARGO_PKG_VERSION"));
    assert!(report["sqlite_version"].as_str().unwrap().starts_with("3."));
    let models = report["models"].as_array().unwrap();
    assert_eq!(models.len(), 5, "Kokoro, the speaker encoder, the naturalness judge, Whisper and the Japanese dictionary");
    assert!(models.iter().all(|m| m["state"] == "missing"));
    assert!(report["audio"]["host"].is_string());
    // The data folder got its layout: config, database, a log file.
    assert!(data.join("config.toml").is_file());
    assert!(data.join("studio.sqlite3").is_file());
    let logs: Vec<_> = std::fs::read_dir(data.join("logs")).unwrap().collect();
    assert_eq!(logs.len(), 1);
}

#[test]
fn doctor_in_text_names_every_check_and_strict_fails_on_problems() {
    let dir = tempfile::tempdir().unwrap();
    let out = revoice(dir.path(), &["doctor"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in ["Data folder", "Database", "Kokoro-82M v1.0", "Japanese dictionary", "Audio output", "SQLite 3."] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // Without model assets there is a problem, and --strict says so in the exit code.
    let strict = revoice(dir.path(), &["doctor", "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn a_broken_config_file_stops_with_an_error_naming_it_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[log]\nfilter = 42\n").unwrap();
    let out = revoice(dir.path(), &["doctor"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("config.toml"), "{err}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "[log]\nfilter = 42\n");
}

#[test]
fn help_lists_the_commands() {
    let out = Command::new(env!("CARGO_BIN_EXE_revoice")).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("doctor"));
    assert!(text.contains("--data-dir"));
}
