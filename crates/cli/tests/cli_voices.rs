//! `revoice voices` on the real assets (Kokoro and the speaker encoder in
//! the test install): a recording matched to stock voices with the ranking
//! printed and the artifact saved; a voice registered (consent required),
//! its reference text heard by Whisper, listed, spoken by name and removed. The references are rendered by
//! `revoice say` itself. The first match computes the stock voices'
//! embeddings into the install if no test has yet (minutes in debug).

use std::path::Path;
use std::process::Command;

fn revoice(args: &[&str]) -> (bool, String, String) {
    let data = revoice_engine::model::testing::installed_data_dir();
    let out = Command::new(env!("CARGO_BIN_EXE_revoice")).arg("--data-dir").arg(&data).args(args).env_remove("RUST_LOG").output().expect("revoice runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `text` said by a stock voice into `path`, through `revoice say`.
fn say(voice: &str, text: &str, path: &Path) {
    let (ok, _, err) = revoice(&["say", text, "--voice", voice, "-o", path.to_str().unwrap()]);
    assert!(ok, "{err}");
}

#[test]
fn voices_match_on_the_command_line_prints_the_ranking_and_saves_the_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let (wav, artifact) = (dir.path().join("letter.wav"), dir.path().join("voice.json"));
    say("am_michael", "I wrote this letter by hand, because some things should not be typed. Read it slowly.", &wav);
    let (ok, stdout, err) = revoice(&["voices", "match", wav.to_str().unwrap(), "-o", artifact.to_str().unwrap()]);
    assert!(ok, "{err}");
    for needle in ["Reference letter.wav", "of speech", "dBFS", "1. am_michael", "does not clone", "revoice say --voice am_michael:"] {
        assert!(stdout.contains(needle), "{needle:?} missing from:\n{stdout}");
    }
    let saved = revoice_engine::voice::MatchedVoice::load(&artifact).unwrap();
    assert_eq!(saved.matches[0].voice, "am_michael");
    assert_eq!(saved.embedding.len(), 256);
}

#[test]
fn a_registered_voice_is_listed_spoken_by_name_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (wav, said) = (dir.path().join("emma.wav"), dir.path().join("said.wav"));
    say("bf_emma", "The garden was quiet after the rain, and every leaf was shining.", &wav);
    let name = format!("Garden Voice {}", std::process::id());
    let (ok, _, err) = revoice(&["voices", "add", &name, wav.to_str().unwrap()]);
    assert!(!ok && err.contains("--consent"), "consent is required: {err}");
    let (ok, out, err) = revoice(&["voices", "add", &name, wav.to_str().unwrap(), "--consent", "rendered test voice", "--description", "test"]);
    assert!(ok, "{err}");
    assert!(out.contains("registered voice") && out.contains("1. bf_emma"), "{out}");
    // No --text: Whisper hears what the recording says.
    let heard = out.lines().find_map(|l| l.strip_prefix("reference text (heard by Whisper): ")).unwrap_or_else(|| panic!("no heard text in:\n{out}"));
    let errors = revoice_engine::text::word_errors::word_errors("The garden was quiet after the rain, and every leaf was shining.", heard);
    assert_eq!(errors.rate(), 0.0, "{errors:?}: heard {heard:?}");
    let (ok, out, _) = revoice(&["voices", "list"]);
    assert!(ok && out.contains(&name) && out.contains("bf_emma:"), "{out}");
    let (ok, _, err) = revoice(&["say", "Hello from the garden.", "--voice", &name, "-o", said.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(hound::WavReader::open(&said).unwrap().duration() > 12_000);
    let (ok, out, err) = revoice(&["voices", "remove", &name]);
    assert!(ok && out.contains("removed"), "{err}");
    let (ok, _, err) = revoice(&["voices", "remove", &name]);
    assert!(!ok && err.contains("not in the library"), "{err}");
}
