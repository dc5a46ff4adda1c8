//! The front end against Resemblyzer's own numbers for a synthetic clip
//! (`tests/fixtures/ge2e/synthetic.safetensors`, made by
//! `scripts/dev/ge2e_reference.py fixture`). The network's half of the
//! fixture needs the installed weights: `tests/voice_reference.rs` checks it.

use super::*;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/ge2e/synthetic.safetensors");

/// The fixture's clip, computed as `synthetic_clip()` in the Python script does.
pub fn synthetic_clip() -> Vec<f32> {
    (0..2 * SAMPLE_RATE as usize)
        .map(|n| {
            let t = n as f64 / SAMPLE_RATE as f64;
            let tau = 2.0 * std::f64::consts::PI;
            let phase = tau * 140.0 * t + (30.0 / 0.7) * (1.0 - (tau * 0.7 * t).cos());
            let voice: f64 = (1..=12).map(|k| (k as f64 * phase + 0.3 * k as f64).sin() / k as f64).sum();
            let envelope = 0.55 - 0.45 * (tau * 3.0 * t).cos();
            (0.02 * envelope * voice) as f32
        })
        .collect()
}

fn fixture(name: &str) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(FIXTURE).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let t = file.tensor(name).unwrap();
    (t.shape().to_vec(), t.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect())
}

#[test]
fn volume_normalisation_applies_resemblyzers_gain() {
    let mut wav = synthetic_clip();
    let gain = preprocess::normalize_volume(&mut wav);
    let (_, expected) = fixture("gain");
    assert!((gain / expected[0] - 1.0).abs() < 1e-5, "gain {gain}, upstream {}", expected[0]);
}

#[test]
fn mel_frames_match_resemblyzer_within_1e_4_of_the_clip_peak_frame() {
    let mut wav = synthetic_clip();
    preprocess::normalize_volume(&mut wav);
    let slices = preprocess::partial_slices(wav.len());
    assert_eq!(slices, vec![(0, 160), (77, 237)]);
    wav.resize(slices[1].1 * mel::HOP, 0.0);
    let ours = MelFrontEnd::new().frames(&wav);
    let (shape, theirs) = fixture("mel");
    assert_eq!(shape, vec![238, 40]);
    assert_eq!(ours.len(), theirs.len());
    // f32 FFTs of different libraries: compare each frame relative to its own loudest band.
    let mut worst = 0f32;
    for (a, b) in ours.chunks(40).zip(theirs.chunks(40)) {
        let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
        for (x, y) in a.iter().zip(b) {
            worst = worst.max((x - y).abs() / scale);
        }
    }
    assert!(worst < 1e-4, "largest difference {worst} of a frame's peak");
}

#[test]
fn the_mean_of_partials_is_normalised_and_cosine_is_scale_free() {
    let v = l2_normalized(vec![3.0, 4.0]);
    assert_eq!(v, vec![0.6, 0.8]);
    assert!((cosine_similarity(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
    assert_eq!(cosine_similarity(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
}
