//! Editing a project from the command line needs no model: a voice that
//! speaks another language is refused with the engine's own words (the
//! same message the app shows), and one that speaks it is taken; original
//! dialogue is checked when it is attached.

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

#[test]
fn original_dialogue_is_checked_when_attached_and_needed_before_a_cast_is_cut_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let script = dir.path().join("scene.srt");
    std::fs::write(&script, "1\n00:00:00,500 --> 00:00:02,000\n[Ana] The boats are in.\n").unwrap();
    assert!(revoice(&data, &["project", "new", "Harbour"]).0);
    assert!(revoice(&data, &["project", "import", "1", script.to_str().unwrap()]).0);
    // Nothing attached yet: cutting a cast from it says so.
    let (ok, _, err) = revoice(&data, &["project", "cast-from-original", "1", "--consent", "Ana, 2026-12-01"]);
    assert!(!ok && err.contains("no original dialogue"), "{err}");
    // A file that is not audio is refused by name; a real recording is taken.
    let fake = dir.path().join("scene.mp4");
    std::fs::write(&fake, b"not a video at all").unwrap();
    let (ok, _, err) = revoice(&data, &["project", "original", "1", fake.to_str().unwrap()]);
    assert!(!ok && err.contains("scene.mp4"), "{err}");
    let wav = dir.path().join("dialogue.wav");
    let tone: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    revoice_engine::audio::wav::write_pcm16(&wav, &tone, 24_000).unwrap();
    let (ok, out, err) = revoice(&data, &["project", "original", "1", wav.to_str().unwrap()]);
    assert!(ok && out.contains("original dialogue") && out.contains("2.0 s"), "{out}{err}");
}
