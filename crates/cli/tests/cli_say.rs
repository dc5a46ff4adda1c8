//! `revoice say` as a user runs it, on the installed Kokoro: real audio
//! out, and clear errors for input it cannot speak.

use std::path::Path;
use std::process::{Command, Output};

fn say(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_revoice"))
        .args(["--data-dir", data_dir.to_str().unwrap(), "say"])
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("revoice runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_line_becomes_a_24_khz_wav_with_speech_in_it_and_a_seed_repeats_exactly() {
    let data = revoice_engine::model::testing::installed_data_dir();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.wav"), dir.path().join("b.wav"));
    for path in [&a, &b] {
        let out = say(&data, &["Hello there, friend.", "--voice", "bf_emma", "--seed", "7", "-o", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let mut reader = hound::WavReader::open(&a).unwrap();
    assert_eq!(reader.spec().sample_rate, 24_000);
    assert_eq!(reader.spec().channels, 1);
    let samples: Vec<i16> = reader.samples::<i16>().map(|s| s.unwrap()).collect();
    let seconds = samples.len() as f64 / 24_000.0;
    assert!((0.8..4.0).contains(&seconds), "{seconds} s");
    let rms = (samples.iter().map(|&s| (s as f64 / 32768.0).powi(2)).sum::<f64>() / samples.len() as f64).sqrt();
    assert!(rms > 0.01, "rms {rms}: that is silence, not speech");
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "same seed, same bytes");
}

#[test]
fn text_with_nothing_to_speak_is_refused_with_a_reason() {
    let data = revoice_engine::model::testing::installed_data_dir();
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("x.wav");
    for (text, reason) in [("", "empty"), ("   \n\t", "empty"), ("😀🎉", "no words that can be spoken"), ("\u{1b}[31m\u{7}", "no words that can be spoken")]
    {
        let out = say(&data, &[text, "-o", wav.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        assert!(stderr(&out).contains(reason), "{text:?}: {}", stderr(&out));
    }
    assert!(!wav.exists(), "nothing is written for refused input");
}

#[test]
fn unknown_voices_bad_speeds_and_unreadable_scripts_are_named_and_japanese_is_spoken() {
    let data = revoice_engine::model::testing::installed_data_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let wav = out_dir.path().join("x.wav");
    let out = say(&data, &["Hi", "--voice", "zz_nobody", "-o", wav.to_str().unwrap()]);
    assert!(stderr(&out).contains("zz_nobody") && stderr(&out).contains("af_heart"), "{}", stderr(&out));
    let out = say(&data, &["Hi", "--speed", "9", "-o", wav.to_str().unwrap()]);
    assert!(stderr(&out).contains("speed 9"), "{}", stderr(&out));
    // Text in a script the voice cannot read is refused, naming the script.
    let out = say(&data, &["你好，世界。", "--voice", "af_heart", "-o", wav.to_str().unwrap()]);
    assert!(stderr(&out).contains("Han (Chinese characters)") && stderr(&out).contains("cannot read"), "{}", stderr(&out));
    assert!(!wav.exists());
    // Japanese is read by the studio's own G2P.
    let out = say(&data, &["こんにちは、元気ですか。", "--voice", "jf_alpha", "-o", wav.to_str().unwrap()]);
    assert!(out.status.success() && wav.exists(), "{}", stderr(&out));
}

#[test]
fn damaged_weights_are_reported_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let source = revoice_engine::model::assets::KOKORO.dir(&revoice_engine::model::testing::installed_data_dir());
    let target = revoice_engine::model::assets::KOKORO.dir(dir.path());
    std::fs::create_dir_all(&target).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), target.join(entry.file_name())).unwrap();
    }
    let weights = target.join("kokoro.safetensors");
    std::fs::OpenOptions::new().write(true).open(&weights).unwrap().set_len(4096).unwrap();
    let out = say(dir.path(), &["Hi", "-o", dir.path().join("x.wav").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("revoice models install"), "{}", stderr(&out));
}
