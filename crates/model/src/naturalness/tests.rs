use std::path::PathBuf;

use super::*;
use crate::testing::installed_data_dir;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

fn fixture_clip(name: &str) -> Vec<f32> {
    let decoded = revoice_audio::decode::decode_file(&PathBuf::from(FIXTURES).join("whisper").join(name)).unwrap();
    assert_eq!(decoded.sample_rate, SAMPLE_RATE, "{name}");
    decoded.samples
}

fn installed_judge() -> NaturalnessJudge {
    NaturalnessJudge::load(&installed_data_dir()).expect("run scripts/test, which installs the naturalness judge")
}

#[test]
fn the_port_scores_real_speech_as_onnxruntime_does() {
    let judge = installed_judge();
    let reference: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(PathBuf::from(FIXTURES).join("dnsmos/reference.json")).unwrap()).unwrap();
    for clip in reference["clips"].as_array().unwrap() {
        let samples: Vec<f32> = clip["parts"].as_array().unwrap().iter().flat_map(|p| fixture_clip(p.as_str().unwrap())).collect();
        let got = judge.score_16k(&samples).unwrap();
        let name = clip["name"].as_str().unwrap();
        for (what, value) in [("signal", got.signal), ("background", got.background), ("overall", got.overall)] {
            let want = clip[what].as_f64().unwrap() as f32;
            assert!((value - want).abs() < 2e-3, "{name} {what}: {value} against onnxruntime's {want}");
        }
    }
}

#[test]
fn speech_scores_above_its_own_buzz() {
    let judge = installed_judge();
    let speech = fixture_clip("george.flac");
    // The same clip through a hard clipper at a tenth of its peak: a buzz
    // listeners mark down.
    let peak = speech.iter().fold(0f32, |m, s| m.max(s.abs()));
    let buzzed: Vec<f32> = speech.iter().map(|s| (s * 10.0).clamp(-peak, peak)).collect();
    let clean = judge.score_16k(&speech).unwrap();
    let distorted = judge.score_16k(&buzzed).unwrap();
    assert!(clean.signal > distorted.signal + 0.3, "clean {clean:?}, clipped {distorted:?}");
}

#[test]
fn clips_are_windowed_as_speechmos_windows_them() {
    let second = SAMPLE_RATE as usize;
    // A short clip is doubled until it fills a window: 5 s to 10 s, one
    // window; 1 s to 16 s, seven.
    let short = windows(&vec![0.5; 5 * second]).unwrap();
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].len(), WINDOW);
    assert_eq!(windows(&vec![0.5; second]).unwrap().len(), 7);
    // Peaks over 1 are limited.
    assert_eq!(windows(&[2.0, -1.0]).unwrap()[0][..2], [1.0, -0.5]);
    // 12 s: windows at 0, 1 and 2 s.
    assert_eq!(windows(&vec![0.1; 12 * second]).unwrap().len(), 3);
    // 40 s: 31 windows, of which speechmos's rounding leaves out the 8th to 24th.
    assert_eq!(windows(&vec![0.1; 40 * second]).unwrap().len(), 31 - 17);
    assert!(windows(&[]).is_none());
}

#[test]
fn a_file_that_is_not_the_model_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sig_bak_ovr.onnx");
    std::fs::write(&path, b"not a model at all").unwrap();
    let err = NaturalnessJudge::load_file(&path).err().unwrap().to_string();
    assert!(err.contains("sig_bak_ovr.onnx"), "{err}");
    assert!(NaturalnessJudge::load(dir.path()).err().unwrap().to_string().contains("revoice models install"));
}

#[test]
fn a_clip_scored_as_it_is_agrees_with_its_window_and_still_hears_the_buzz() {
    let judge = installed_judge();
    let speech: Vec<f32> = fixture_clip("george.flac").into_iter().take(9 * SAMPLE_RATE as usize / 2).collect();
    let window = judge.score_one_window(&speech, SAMPLE_RATE).unwrap();
    let clip = judge.score_clip(&speech, SAMPLE_RATE).unwrap();
    assert!((window.signal - clip.signal).abs() < 0.2, "repeated to a window {window:?}, as it is {clip:?}");
    let peak = speech.iter().fold(0f32, |m, s| m.max(s.abs()));
    let buzzed: Vec<f32> = speech.iter().map(|s| (s * 30.0).clamp(-peak, peak)).collect();
    let distorted = judge.score_clip(&buzzed, SAMPLE_RATE).unwrap();
    assert!(clip.signal > distorted.signal + 0.3, "clean {clip:?}, clipped {distorted:?}");
    // A clip shorter than the network's frames is repeated until it has enough.
    assert!(judge.score_clip(&speech[..400], SAMPLE_RATE).is_ok());
    assert!(judge.score_clip(&[], SAMPLE_RATE).is_err());
}
