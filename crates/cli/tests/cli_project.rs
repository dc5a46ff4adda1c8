//! `revoice project` end to end on the real model, including a render
//! killed mid-way (SIGKILL): the project reopens with nothing lost, the job
//! is found interrupted, and the next render resumes with what is left.
//! Each test has its own data folder over the test install's models (its
//! own database: tests running at once never wait on each other's locks).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A data folder of its own, with the installed models linked in.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(revoice_engine::model::testing::installed_data_dir().join("models"), dir.path().join("models")).unwrap();
    dir
}

fn revoice_in(data: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_revoice")).arg("--data-dir").arg(data).args(args).env_remove("RUST_LOG").output().expect("revoice runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_render_killed_mid_way_resumes_and_loses_nothing() {
    let data = scratch();
    let revoice = |args: &[&str]| revoice_in(data.path(), args);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("scene.srt");
    let lines: String = (0..8)
        .map(|i| {
            let who = if i % 2 == 0 { "Ana" } else { "Ben" };
            format!("{}\n00:00:{:02},000 --> 00:00:{:02},500\n[{who}] Line number {} of the scene, said clearly.\n\n", i + 1, 3 * i, 3 * i + 2, i + 1)
        })
        .collect();
    std::fs::write(&script, lines).unwrap();

    let (ok, out, err) = revoice(&["project", "new", "Killed render"]);
    assert!(ok, "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    let (ok, out, err) = revoice(&["project", "import", &id, script.to_str().unwrap()]);
    assert!(ok && out.contains("imported 8 lines") && out.contains("Ana, Ben"), "{out}{err}");
    let (ok, out, err) = revoice(&["project", "voice", &id, "Ben", "am_adam"]);
    assert!(ok, "{out}{err}");

    // Start a render and kill it once the first line is kept as a take.
    let mut child = Command::new(env!("CARGO_BIN_EXE_revoice"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["project", "render", &id])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while revoice(&["project", "status", &id]).1.contains("0 with a take") {
        assert!(started.elapsed() < Duration::from_secs(600), "no line was rendered");
        assert!(child.try_wait().unwrap().is_none(), "the render ended before it could be killed");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no cleanup runs
    child.wait().unwrap();

    let (ok, out, err) = revoice(&["project", "status", &id]);
    assert!(ok && out.contains("8 lines"), "the project reopens intact: {out}{err}");
    let (ok, out, err) = revoice(&["project", "render", &id]);
    assert!(ok, "{err}");
    assert!(err.contains("was interrupted"), "the killed job is found: {err}");
    let current: usize = out.split('(').nth(1).and_then(|s| s.split_whitespace().next()).and_then(|n| n.parse().ok()).expect("a summary line");
    assert!(current >= 1, "lines rendered before the kill are kept: {out}");
    let (_, out, _) = revoice(&["project", "status", &id]);
    assert!(out.contains("8 lines, 8 with a take"), "{out}");
    let (ok, out, _) = revoice(&["project", "render", &id]);
    assert!(ok && out.contains("rendered 0 of 8 lines (8 already current)"), "{out}");

    // Mixed over the demo bed and exported: mix and stems the same length, subtitles beside.
    let bed = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/demo/harbour-bed.wav");
    assert!(revoice(&["project", "bed", &id, bed]).0);
    let out_dir = dir.path().join("out");
    // FLAC: this programme's voice stem once held a 100 MB frame from
    // flacenc that readers lost sync on (see audio/encode.rs).
    let (ok, out, err) = revoice(&["project", "export", &id, "--out", out_dir.to_str().unwrap(), "--format", "flac"]);
    assert!(ok, "{err}");
    assert!(out.contains("-23.0 LUFS"), "{out}");
    let decoded: Vec<revoice_engine::audio::decode::DecodedAudio> = ["flac", "voice.flac", "bed.flac"]
        .iter()
        .map(|ext| revoice_engine::audio::decode::decode_file(&out_dir.join(format!("Killed_render.en-US.{ext}"))).unwrap())
        .collect();
    let lengths: Vec<usize> = decoded.iter().map(|d| d.samples.len()).collect();
    assert!(decoded.iter().all(|d| d.sample_rate == 48_000), "delivered at 48 kHz");
    assert!(lengths[0] > 48_000 * 20 && lengths.iter().all(|&n| n == lengths[0]), "{lengths:?}");
    let reported: f64 = out.split(": ").nth(1).and_then(|s| s.split(' ').next()).and_then(|s| s.parse().ok()).expect("a duration");
    assert!((reported - lengths[0] as f64 / 48_000.0).abs() < 0.01, "the report says {reported} s");
    let srt = std::fs::read_to_string(out_dir.join("Killed_render.en-US.srt")).unwrap();
    assert_eq!(revoice_engine::subtitles::parse_srt(&srt, "out.srt").unwrap().len(), 8);
}

#[test]
fn a_track_per_language_renders_with_each_speakers_voice_for_it_and_exports_apart() {
    let data = scratch();
    let revoice = |args: &[&str]| revoice_in(data.path(), args);
    let dir = tempfile::tempdir().unwrap();
    let english = dir.path().join("en.srt");
    let spanish = dir.path().join("es.srt");
    std::fs::write(&english, "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Light the lamp.\n").unwrap();
    std::fs::write(
        &spanish,
        "1\n00:00:00,500 --> 00:00:02,500\n[Ana] Los barcos han vuelto.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Enciende la lámpara.\n",
    )
    .unwrap();
    let (ok, out, err) = revoice(&["project", "new", "Two languages"]);
    assert!(ok, "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    let (ok, out, err) = revoice(&["project", "import", &id, english.to_str().unwrap()]);
    assert!(ok && out.contains("(en-US)"), "{out}{err}");
    let (ok, out, err) = revoice(&["project", "import", &id, spanish.to_str().unwrap(), "--language", "es"]);
    assert!(ok && out.contains("imported 2 lines") && out.contains("(es)") && out.contains("Ana, Ben"), "the same speakers on a new track: {out}{err}");

    // A voice that speaks another language is refused for a track, with voices that fit.
    let (ok, _, err) = revoice(&["project", "voice", &id, "Ben", "af_bella", "--language", "es"]);
    assert!(!ok && err.contains("af_bella speaks en-US, not es") && err.contains("ef_dora"), "{err}");
    // A voice for every language is refused while a track it would read has no voice of its own.
    let (ok, _, err) = revoice(&["project", "voice", &id, "Ana", "af_bella"]);
    assert!(!ok && err.contains("af_bella speaks en-US, not es"), "{err}");
    let (ok, out, err) = revoice(&["project", "voice", &id, "Ana", "ef_dora", "--language", "es"]);
    assert!(ok && out.contains("Ana now speaks es with ef_dora"), "{out}{err}");
    assert!(revoice(&["project", "voice", &id, "Ben", "em_alex", "--language", "es"]).0);
    assert!(revoice(&["project", "voice", &id, "Ana", "af_bella"]).0);
    let (ok, out, err) = revoice(&["project", "voice", &id, "Ben", "am_adam"]);
    assert!(ok, "{out}{err}");

    let (ok, out, err) = revoice(&["project", "render", &id]);
    assert!(ok && out.contains("rendered 4 of 4 lines"), "{out}{err}");
    let (_, status, _) = revoice(&["project", "status", &id]);
    assert!(status.contains("track en-US: 2 lines, 2 with a take") && status.contains("track es: 2 lines, 2 with a take"), "{status}");
    assert!(status.contains("voice af_bella (es: ef_dora)"), "{status}");

    // Changing only the Spanish voice re-renders only the Spanish line.
    let (ok, _, err) = revoice(&["project", "voice", &id, "Ana", "if_sara", "--language", "es"]);
    assert!(!ok && err.contains("if_sara speaks it, not es"), "{err}");
    assert!(revoice(&["project", "voice", &id, "Ana", "ef_dora:0.5,em_alex:0.5", "--language", "es"]).0);
    let (ok, out, err) = revoice(&["project", "render", &id]);
    assert!(ok && out.contains("rendered 1 of 4 lines"), "{out}{err}");

    let out_dir = dir.path().join("out");
    let (ok, out, err) = revoice(&["project", "export", &id, "--out", out_dir.to_str().unwrap()]);
    assert!(ok, "{err}");
    for language in ["en-US", "es"] {
        let mix = revoice_engine::audio::decode::decode_file(&out_dir.join(format!("Two_languages.{language}.wav"))).unwrap();
        assert!(mix.seconds() > 4.9, "{language}: {:.2} s; {out}", mix.seconds());
        assert!(out_dir.join(format!("Two_languages.{language}.srt")).exists());
    }

    // The disk fills up during a second export into the same folder (the
    // kernel refuses file growth past 64 KiB): the error names the file, and
    // the first export's files are all still there, unchanged.
    let snapshot = || -> Vec<(std::ffi::OsString, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(&out_dir).unwrap().flatten().map(|e| (e.file_name(), std::fs::read(e.path()).unwrap_or_default())).collect();
        files.sort();
        files
    };
    let before = snapshot();
    let limited = format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' --data-dir '{}' project export {id} --out '{}' --loudness -16",
        env!("CARGO_BIN_EXE_revoice"),
        data.path().display(),
        out_dir.display()
    );
    let full = Command::new("bash").args(["-c", &limited]).env_remove("RUST_LOG").output().unwrap();
    let err = String::from_utf8_lossy(&full.stderr);
    assert!(!full.status.success(), "{err}");
    assert!(err.contains("cannot write") && err.contains("Two_languages.en-US.wav") && err.contains("File too large"), "{err}");
    assert_eq!(snapshot(), before, "the earlier export is untouched and nothing half-written is left");
}

#[test]
fn lines_that_cannot_fit_are_reported_at_import_and_by_project_fit_and_a_strict_export_refuses_them() {
    let data = scratch();
    let revoice = |args: &[&str]| revoice_in(data.path(), args);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tight.srt");
    // The second line has a second for eleven words, and the third follows at once.
    std::fs::write(&script, "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:02,600 --> 00:00:03,600\n[Ben] Good morning. Is the shop open yet, or do we wait outside?\n\n3\n00:00:03,700 --> 00:00:06,000\n[Ana] We wait.\n").unwrap();
    let (ok, out, err) = revoice(&["project", "new", "Tight"]);
    assert!(ok, "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    let (ok, out, err) = revoice(&["project", "import", &id, script.to_str().unwrap()]);
    assert!(ok && out.contains("imported 3 lines"), "{out}{err}");
    assert!(
        out.contains("en-US track: 2 of 3 lines fit") && out.contains("line 2 (2.60–3.60 s, segment") && out.contains("doesn't fit by"),
        "flagged at import: {out}"
    );
    assert!(!out.contains("line 1 (") && !out.contains("line 3 ("), "{out}");

    let (ok, out, err) = revoice(&["project", "fit", &id]);
    assert!(ok, "{err}");
    let long = out.lines().find(|l| l.contains("Good morning")).expect("the line is listed");
    assert!(long.contains("DOESN'T FIT by") && long.contains("  1.00  "), "{out}");
    assert_eq!(out.matches("DOESN'T FIT").count(), 1, "{out}");

    let (ok, out, err) = revoice(&["project", "render", &id]);
    assert!(ok && out.contains("rendered 3 of 3 lines"), "{out}{err}");
    let (_, status, _) = revoice(&["project", "status", &id]);
    assert!(status.contains("doesn't fit by"), "{status}");
    let out_dir = dir.path().join("out");
    let (ok, _, err) = revoice(&["project", "export", &id, "--out", out_dir.to_str().unwrap(), "--strict"]);
    assert!(!ok && err.contains("1 lines are flagged: line 2 (en-US") && err.contains("doesn't fit"), "{err}");
    assert!(!out_dir.join("Tight.en-US.wav").exists(), "nothing written");
    let (ok, _, err) = revoice(&["project", "export", &id, "--out", out_dir.to_str().unwrap()]);
    assert!(ok && err.contains("1 exported lines are flagged") && err.contains("line 2 (en-US"), "{err}");
    assert!(out_dir.join("Tight.en-US.wav").exists());
}

#[test]
fn each_line_is_heard_from_the_start_of_its_slot_not_after_the_models_silence() {
    let data = scratch();
    let revoice = |args: &[&str]| revoice_in(data.path(), args);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("cues.srt");
    // Soft onsets among them: a fricative, an "h", a voiced "th"; two sentences in one line.
    let cues: [(f64, f64, &str); 3] = [(0.5, 2.5, "Fine, we wait."), (3.0, 6.0, "Hello? Is anyone there? Light the lamp."), (7.0, 9.0, "The boats are in.")];
    let srt: String = cues
        .iter()
        .enumerate()
        .map(|(i, (from, to, text))| {
            format!(
                "{}\n00:00:0{},{:03} --> 00:00:0{},{:03}\n{text}\n\n",
                i + 1,
                *from as u32,
                (from.fract() * 1000.0) as u32,
                *to as u32,
                (to.fract() * 1000.0) as u32
            )
        })
        .collect();
    std::fs::write(&script, srt).unwrap();
    let (ok, out, err) = revoice(&["project", "new", "Cues"]);
    assert!(ok, "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    assert!(revoice(&["project", "import", &id, script.to_str().unwrap()]).0);
    let (ok, out, err) = revoice(&["project", "render", &id]);
    assert!(ok && out.contains("rendered 3 of 3 lines"), "{out}{err}");
    let out_dir = dir.path().join("out");
    let (ok, _, err) = revoice(&["project", "export", &id, "--out", out_dir.to_str().unwrap()]);
    assert!(ok, "{err}");
    let mix = revoice_engine::audio::decode::decode_file(&out_dir.join("Cues.en-US.wav")).unwrap();
    let rate = mix.sample_rate as f64;
    let mono: Vec<f32> = mix.samples.chunks(mix.channels).map(|c| c.iter().sum::<f32>() / c.len() as f32).collect();
    for (from, to, text) in cues {
        // From a little before the slot (nothing of this line may sound there) to its end.
        let window = &mono[((from - 0.3) * rate) as usize..(to * rate) as usize];
        let speech = revoice_engine::audio::levels::speech_edges(window, mix.sample_rate).expect("the line is heard");
        let onset = speech.start as f64 / rate - 0.3;
        assert!((-0.011..=1.0 / 24.0).contains(&onset), "{text:?} is first heard {onset:+.3} s from its slot's start");
    }
}
