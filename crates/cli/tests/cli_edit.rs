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

#[test]
fn lanes_markers_and_find_and_replace_from_the_command_line_undo_on_the_apps_history() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let script = dir.path().join("scene.srt");
    std::fs::write(&script, "1\n00:00:00,500 --> 00:00:02,000\n[Ana] The boats are in.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Light the lamp.\n").unwrap();
    assert!(revoice(&data, &["project", "new", "Harbour"]).0);
    assert!(revoice(&data, &["project", "import", "1", script.to_str().unwrap()]).0);

    let (ok, out, err) = revoice(&data, &["project", "lane", "1", "Ana", "--solo", "--level", "-6"]);
    assert!(ok, "{err}");
    let ana = out.lines().find(|l| l.trim_start().starts_with("Ana")).unwrap();
    let ben = out.lines().find(|l| l.trim_start().starts_with("Ben")).unwrap();
    assert!(ana.contains("solo") && ana.contains("-6.0 dB") && ana.contains("heard"), "{out}");
    assert!(ben.contains("silent"), "{out}");
    assert!(out.contains("No speaker"), "{out}");
    let (ok, _, err) = revoice(&data, &["project", "lane", "1", "Ana", "--level", "20"]);
    assert!(!ok && err.contains("levelDb") && err.contains("-60"), "{err}");
    let (ok, out, err) = revoice(&data, &["project", "lane", "1", "none", "--mute"]);
    assert!(ok && out.lines().any(|l| l.contains("No speaker") && l.contains("muted")), "{out}{err}");

    // Markers at seconds or at timecode (25 fps by default).
    let (ok, out, err) = revoice(&data, &["project", "markers", "1", "add", "00:00:01:12", "Arrival"]);
    assert!(ok && out.contains("00:00:01:12") && out.contains("Arrival"), "{out}{err}");
    let (ok, out, _) = revoice(&data, &["project", "markers", "1", "add", "0.5", "Start"]);
    assert!(ok);
    let listed: Vec<&str> = out.lines().filter(|l| l.starts_with(" ") && l.contains("00:00:")).collect();
    assert!(listed.len() == 2 && listed[0].contains("Start") && listed[1].contains("Arrival"), "in time order: {out}");
    let (ok, _, err) = revoice(&data, &["project", "markers", "1", "add", "1:2:3:4:5", "Bad"]);
    assert!(!ok && err.contains("1:2:3:4:5"), "{err}");

    let (ok, out, err) = revoice(&data, &["project", "replace", "1", "--find", "THE", "--replace", "a", "--whole-word"]);
    assert!(ok && out.contains("in 2 lines") && out.contains("a boats are in.") && out.contains("Light a lamp."), "{out}{err}");
    let (ok, out, _) = revoice(&data, &["project", "replace", "1", "--find", "THE", "--replace", "a", "--match-case"]);
    assert!(ok && out.contains("in 0 lines"), "{out}");
    let (ok, _, err) = revoice(&data, &["project", "replace", "1", "--find", "", "--replace", "a"]);
    assert!(!ok && err.contains("find"), "{err}");

    // One history: the app's edits (the engine, as the app calls it) and the CLI's undo in order.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let engine = revoice_engine::Engine::open(revoice_engine::EngineConfig::load_from(data.clone()).unwrap()).await.unwrap();
        let line = engine.store().segments(engine.existing_track(1, None).await.unwrap().id).await.unwrap()[1].id;
        engine.edit_line(line, revoice_engine::LineEdit { start: Some(3.5), end: Some(5.5), ..Default::default() }).await.unwrap();
        engine.store().close().await;
    });
    assert!(revoice(&data, &["project", "strategy", "1", "strict_slot"]).0);
    for expected in [
        "timing strict slot",
        "edit line (timing)",
        "Replaced \"THE\" with \"a\" in 2 lines",
        "add marker \"Start\"",
        "add marker \"Arrival\"",
        "mute lane No speaker",
        "solo, level -6.0 dB lane Ana",
    ] {
        let (ok, out, err) = revoice(&data, &["project", "undo", "1"]);
        assert!(ok && out.contains(&format!("undid: {expected}")), "expected {expected:?}: {out}{err}");
    }
    let (_, out, _) = revoice(&data, &["project", "lines", "1"]);
    assert!(out.contains("The boats are in.") && out.contains("00:00:03:00"), "{out}");
    let (_, out, _) = revoice(&data, &["project", "markers", "1"]);
    assert!(out.contains("no markers"), "{out}");
}
