//! Whisper on candle against faster-whisper 1.2.1 on the same weights,
//! greedy (`beam_size=1, temperature=0`), on the clips that
//! `scripts/dev/whisper_reference.py` transcribed into
//! `tests/fixtures/whisper/reference.json`: eight recorded spoken phrases and
//! a noise burst from alsa-utils, three of our Kokoro renders (one Spanish,
//! its language detected) and a 37 s clip that crosses a 30 s window.
//!
//! Tolerance, and why:
//! - Language and every segment's text must be equal, character for
//!   character, and so must every word.
//! - Segment times within 0.02 s (one timestamp token) and word times within
//!   0.1 s. Both sides run the same f32 weights but sum in different orders
//!   (gemm here, oneDNN there), and the alsa clips are resampled from 48 kHz
//!   by different resamplers (rubato here, ffmpeg there), so a timestamp or
//!   an attention path could move by a frame where two score nearly alike.
//!   Measured: every text equal and every time equal (0.000 s) on all 13
//!   clips; the bounds leave room for one frame.
//! - Word timing is checked on five clips (each mode is a full transcription).

use std::path::{Path, PathBuf};

use revoice_model::testing::installed_whisper_data_dir;
use revoice_model::whisper::{Transcript, TranscriptOptions, WhisperModel};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/whisper");
const ALSA: &str = "/usr/share/sounds/alsa";

fn load_16k(path: &Path) -> Vec<f32> {
    let decoded = revoice_audio::decode::decode_file(path).unwrap_or_else(|e| panic!("{e}: scripts/test installs alsa-utils, which ships the recorded clips"));
    revoice_audio::resample::resample(&decoded.samples, decoded.sample_rate, 16_000).unwrap()
}

fn clip_samples(clip: &Value) -> Vec<f32> {
    let mut out = Vec::new();
    for part in clip["parts"].as_array().unwrap() {
        if let Some(name) = part["alsa"].as_str() {
            out.extend(load_16k(&PathBuf::from(ALSA).join(name)));
        } else if let Some(name) = part["fixture"].as_str() {
            out.extend(load_16k(&PathBuf::from(FIXTURES).join(name)));
        } else {
            let seconds = part["silence"].as_f64().unwrap();
            out.extend(std::iter::repeat_n(0.0, (seconds * 16_000.0).round() as usize));
        }
    }
    out
}

/// Differences between our transcript and the reference, as sentences.
fn compare(name: &str, ours: &Transcript, reference: &Value, words: bool, worst: &mut (f64, f64)) -> Vec<String> {
    let mut problems = Vec::new();
    if ours.language != reference["language"].as_str().unwrap() {
        problems.push(format!("{name}: language {} vs {}", ours.language, reference["language"]));
    }
    let theirs = reference["segments"].as_array().unwrap();
    if ours.segments.len() != theirs.len() {
        problems.push(format!(
            "{name}: {} segments vs {}: {:?} vs {:?}",
            ours.segments.len(),
            theirs.len(),
            ours.segments.iter().map(|s| &s.text).collect::<Vec<_>>(),
            theirs.iter().map(|s| s["text"].as_str().unwrap()).collect::<Vec<_>>()
        ));
        return problems;
    }
    for (i, (a, b)) in ours.segments.iter().zip(theirs).enumerate() {
        if a.text != b["text"].as_str().unwrap() {
            problems.push(format!("{name} segment {i}: {:?} vs {:?}", a.text, b["text"]));
        }
        let dt = (a.start - b["start"].as_f64().unwrap()).abs().max((a.end - b["end"].as_f64().unwrap()).abs());
        worst.0 = worst.0.max(dt);
        if dt > 0.02 + 1e-6 {
            problems.push(format!("{name} segment {i}: {:.2}–{:.2} vs {}–{}", a.start, a.end, b["start"], b["end"]));
        }
        if !words {
            continue;
        }
        let their_words = b["words"].as_array().unwrap();
        let our_words: Vec<&str> = a.words.iter().map(|w| w.word.as_str()).collect();
        let ref_words: Vec<&str> = their_words.iter().map(|w| w["word"].as_str().unwrap()).collect();
        if our_words != ref_words {
            problems.push(format!("{name} segment {i}: words {our_words:?} vs {ref_words:?}"));
            continue;
        }
        for (w, r) in a.words.iter().zip(their_words) {
            let dt = (w.start - r["start"].as_f64().unwrap()).abs().max((w.end - r["end"].as_f64().unwrap()).abs());
            worst.1 = worst.1.max(dt);
            if dt > 0.1 + 1e-6 {
                problems.push(format!("{name}: word {:?} at {:.2}–{:.2} vs {}–{}", w.word, w.start, w.end, r["start"], r["end"]));
            }
        }
    }
    problems
}

/// Clips also checked with word timestamps.
const TIMED: [&str; 5] = ["Front_Center", "Rear_Right", "heart", "george", "long"];

#[test]
fn transcripts_match_faster_whisper_on_recorded_speech_and_our_renders() {
    let model = WhisperModel::load(&installed_whisper_data_dir()).unwrap();
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(Path::new(FIXTURES).join("reference.json")).unwrap()).unwrap();
    let clips = reference["clips"].as_array().unwrap();
    assert!(clips.len() >= 10, "the parity set holds at least 10 clips");
    let mut problems = Vec::new();
    let mut worst = (0.0, 0.0);
    for clip in clips {
        let name = clip["name"].as_str().unwrap();
        let samples = clip_samples(clip);
        let language = clip["language"].as_str().map(str::to_string);
        let mut progress = Vec::new();
        let options = TranscriptOptions { language: language.clone(), word_timestamps: false, initial_prompt: None };
        let ours = model
            .transcribe(&samples, &options, &mut |done| {
                progress.push(done);
                true
            })
            .unwrap();
        problems.extend(compare(&format!("{name} (plain)"), &ours, &clip["plain"], false, &mut worst));
        assert!(!progress.is_empty() && progress.windows(2).all(|w| w[0] < w[1]), "{name}: progress after every window: {progress:?}");
        if name == "long" {
            assert!(samples.len() > 30 * 16_000 && progress.len() >= 2, "the long clip crosses a window: {progress:?}");
            assert!(ours.segments.windows(2).all(|w| w[0].end <= w[1].start + 1e-9), "segments in time order");
        }
        if TIMED.contains(&name) {
            let options = TranscriptOptions { word_timestamps: true, ..options };
            let ours = model.transcribe(&samples, &options, &mut |_| true).unwrap();
            problems.extend(compare(&format!("{name} (timed)"), &ours, &clip["timed"], true, &mut worst));
        }
    }
    eprintln!("worst time difference: segments {:.3} s, words {:.3} s", worst.0, worst.1);
    assert!(problems.is_empty(), "{} differences from faster-whisper:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn a_transcription_stops_when_its_listener_says_so() {
    let model = WhisperModel::load(&installed_whisper_data_dir()).unwrap();
    let samples = load_16k(&PathBuf::from(FIXTURES).join("heart.flac"));
    let err = model.transcribe(&samples, &TranscriptOptions { language: Some("en".into()), ..Default::default() }, &mut |_| false).unwrap_err();
    assert!(err.to_string().contains("cancelled"), "{err}");
    let err = model.transcribe(&samples, &TranscriptOptions { language: Some("xx".into()), ..Default::default() }, &mut |_| true).unwrap_err();
    assert!(err.to_string().contains("language xx"), "{err}");
}
