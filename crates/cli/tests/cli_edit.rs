//! Editing a project from the command line needs no model: a voice that
//! speaks another language is refused with the engine's own words (the
//! same message the app shows), and one that speaks it is taken.

use std::process::Command;

fn revoice(data: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_revoice")).arg("--data-dir").arg(data).args(args).env_remove("RUST_LOG").output().expect("revoice runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_voice_in_another_language_is_refused_in_the_engines_words() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("scene.srt");
    std::fs::write(&script, "1\n00:00:00,500 --> 00:00:02,000\n[Ana] The boats are in.\n").unwrap();
    let data = dir.path().join("data");
    assert!(revoice(&data, &["project", "new", "Harbour"]).0);
    assert!(revoice(&data, &["project", "import", "1", script.to_str().unwrap()]).0);
    let (ok, _, err) = revoice(&data, &["project", "voice", "1", "Ana", "ef_dora"]);
    let rule = revoice_engine::voice::VoiceSpec::parse_stock("ef_dora").unwrap().check_speaks("en-US").unwrap_err().to_string();
    assert!(!ok && err.contains(&rule), "expected {rule:?} in: {err}");
    let (ok, out, err) = revoice(&data, &["project", "voice", "1", "Ana", "bf_emma"]);
    assert!(ok && out.contains("Ana now speaks with bf_emma"), "{out}{err}");
    let (ok, _, err) = revoice(&data, &["project", "voice", "1", "Ana", "zz_nobody"]);
    assert!(!ok && err.contains("zz_nobody"), "{err}");
}
