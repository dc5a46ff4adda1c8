//! How far one voice's spectrum is from another's saying the same words:
//! mel-cepstral distortion (MCD) after dynamic time warping. Two takes of
//! one sentence never line up in time, so each is cut into mel-cepstral
//! frames, the frames are aligned by the cheapest monotonic path (DTW), and
//! the distortion is the mean over the path of
//! `10 / ln 10 · sqrt(2 · Σ_d (c_d − c'_d)²)` dB, over coefficients 1 to
//! [`COEFFICIENTS`] (c0, the frame's loudness, is left out, so a louder or
//! quieter take is not a different voice). Frames quieter than the loudest
//! by more than [`SILENCE_DB`] are dropped first, so pauses do not count.
//!
//! The cepstra come from the natural-log mel magnitude spectrum that
//! `compare.rs` computes (80 HTK-mel bands, n_fft 1024, hop 256), through
//! an orthonormal DCT-II. Figures are comparable with each other, not with
//! MCD figures made with another analysis (SPTK's mcep, WORLD).
//!
//! A recording made at a lower rate than the voice it is compared with (a
//! 16 kHz file against Kokoro's 24 kHz) has nothing above its own Nyquist
//! frequency, and over the whole band that emptiness would outweigh the
//! voice: [`mel_cepstral_distortion_below`] compares only the bands below a
//! frequency both carry.

use crate::compare::{bands_below, log_mel_frames, LOG_FLOOR};

/// Mel-cepstral coefficients compared (1..=COEFFICIENTS).
pub const COEFFICIENTS: usize = 24;
/// Frames this far below the loudest frame are silence.
pub const SILENCE_DB: f64 = 40.0;

/// The mel-cepstral distortion in dB between `a` and `b` (both at
/// `sample_rate`) after aligning them in time; `None` when either holds no
/// frame of sound.
pub fn mel_cepstral_distortion(a: &[f32], b: &[f32], sample_rate: u32) -> Option<f64> {
    mel_cepstral_distortion_below(a, b, sample_rate, sample_rate as f64 / 2.0)
}

/// The highest frequency a recording made at `recorded_rate` carries when
/// compared at `compared_rate`, in Hz: 0.9 of the lower Nyquist frequency
/// (resampling and codecs roll off just below it).
pub fn band_top_hz(recorded_rate: u32, compared_rate: u32) -> f64 {
    0.9 * recorded_rate.min(compared_rate) as f64 / 2.0
}

/// The mel-cepstral distortion as [`mel_cepstral_distortion`], over the
/// mel bands that lie wholly below `top_hz` (the cepstrum is taken over
/// those bands alone); `None` also when fewer bands than coefficients do.
pub fn mel_cepstral_distortion_below(a: &[f32], b: &[f32], sample_rate: u32, top_hz: f64) -> Option<f64> {
    let bands = bands_below(sample_rate, top_hz);
    if bands <= COEFFICIENTS {
        return None;
    }
    let (ca, cb) = (voiced_cepstra(a, sample_rate, bands), voiced_cepstra(b, sample_rate, bands));
    if ca.is_empty() || cb.is_empty() {
        return None;
    }
    let (total, steps) = dtw(&ca, &cb);
    let scale = 10.0 / std::f64::consts::LN_10 * 2f64.sqrt();
    Some(scale * total / steps as f64)
}

/// The mel cepstra (c1..=COEFFICIENTS) over the lowest `bands` mel bands
/// of the frames of `x` that are not silence.
fn voiced_cepstra(x: &[f32], sample_rate: u32, bands: usize) -> Vec<[f64; COEFFICIENTS]> {
    let (frames, all) = log_mel_frames(x, sample_rate);
    if frames.is_empty() {
        return Vec::new();
    }
    let dct = dct_matrix(bands);
    let cepstra: Vec<(f64, [f64; COEFFICIENTS])> = frames
        .chunks(all)
        .map(|frame| {
            let frame = &frame[..bands];
            let c = |k: usize| dct[k].iter().zip(frame).map(|(w, v)| w * v).sum::<f64>();
            let mut out = [0f64; COEFFICIENTS];
            for (d, slot) in out.iter_mut().enumerate() {
                *slot = c(d + 1);
            }
            // c0 over the orthonormal DCT is the mean log level times sqrt(bands).
            (c(0) / (bands as f64).sqrt(), out)
        })
        .collect();
    let loudest = cepstra.iter().map(|(level, _)| *level).fold(f64::NEG_INFINITY, f64::max);
    // Above the analysis floor (digital silence) and within SILENCE_DB of the loudest frame.
    let floor = (loudest - SILENCE_DB * std::f64::consts::LN_10 / 20.0).max(LOG_FLOOR + 1.0);
    cepstra.into_iter().filter(|(level, _)| *level >= floor).map(|(_, c)| c).collect()
}

/// Rows of the orthonormal DCT-II for `n` inputs, coefficients 0..=COEFFICIENTS.
pub fn dct_matrix(n: usize) -> Vec<Vec<f64>> {
    (0..=COEFFICIENTS)
        .map(|k| {
            let norm = if k == 0 { (1.0 / n as f64).sqrt() } else { (2.0 / n as f64).sqrt() };
            (0..n).map(|i| norm * (std::f64::consts::PI * k as f64 * (i as f64 + 0.5) / n as f64).cos()).collect()
        })
        .collect()
}

/// The cheapest monotonic alignment of `a` and `b` (steps: both frames,
/// or one of them, forward): the summed Euclidean distance along it and
/// its length.
fn dtw(a: &[[f64; COEFFICIENTS]], b: &[[f64; COEFFICIENTS]]) -> (f64, usize) {
    let distance = |i: usize, j: usize| a[i].iter().zip(&b[j]).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt();
    let (n, m) = (a.len(), b.len());
    // Each cell: the cheapest cost to reach it and the steps taken.
    let mut cost = vec![(f64::INFINITY, 0usize); n * m];
    for i in 0..n {
        for j in 0..m {
            let here = distance(i, j);
            let best = if i == 0 && j == 0 {
                (0.0, 0)
            } else {
                let mut best = (f64::INFINITY, 0);
                for (pi, pj) in [(i.wrapping_sub(1), j.wrapping_sub(1)), (i.wrapping_sub(1), j), (i, j.wrapping_sub(1))] {
                    if pi < n && pj < m && cost[pi * m + pj].0 < best.0 {
                        best = cost[pi * m + pj];
                    }
                }
                best
            };
            cost[i * m + j] = (best.0 + here, best.1 + 1);
        }
    }
    cost[n * m - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 24_000;

    /// A buzzy voiced sound: harmonics of `f0` under a formant-like
    /// envelope peaking at `formant` Hz, gliding in pitch.
    fn vowel(f0: f32, formant: f32, seconds: f32) -> Vec<f32> {
        let n = (seconds * RATE as f32) as usize;
        (0..n)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let pitch = f0 * (1.0 + 0.1 * (t * 3.0).sin());
                (1..30)
                    .map(|h| {
                        let f = pitch * h as f32;
                        let gain = (-((f - formant) / 600.0).powi(2)).exp() + 0.05;
                        gain * (2.0 * std::f32::consts::PI * f * t).sin()
                    })
                    .sum::<f32>()
                    * 0.05
            })
            .collect()
    }

    #[test]
    fn the_same_take_is_at_zero_and_a_louder_copy_too() {
        let a = vowel(140.0, 700.0, 1.0);
        assert!(mel_cepstral_distortion(&a, &a, RATE).unwrap() < 1e-9);
        let louder: Vec<f32> = a.iter().map(|s| s * 3.0).collect();
        assert!(mel_cepstral_distortion(&a, &louder, RATE).unwrap() < 0.05, "loudness is not the voice");
    }

    #[test]
    fn a_slower_take_of_the_same_sound_is_near_and_another_sound_is_far() {
        let a = vowel(140.0, 700.0, 1.0);
        // The same sound, longer, with a pause before it: aligned in time and the pause dropped.
        let mut slow = vec![0f32; RATE as usize / 4];
        slow.extend(vowel(140.0, 700.0, 1.4));
        let near = mel_cepstral_distortion(&a, &slow, RATE).unwrap();
        let other = vowel(140.0, 2200.0, 1.0);
        let far = mel_cepstral_distortion(&a, &other, RATE).unwrap();
        assert!(near < far / 3.0, "near {near:.2} dB, far {far:.2} dB");
    }

    /// `x` low-passed at `hz`: a one-pole filter run four times each way.
    fn low_passed(x: &[f32], hz: f32) -> Vec<f32> {
        let a = (-2.0 * std::f32::consts::PI * hz / RATE as f32).exp();
        let mut y = x.to_vec();
        for _ in 0..4 {
            for pass in 0..2 {
                let mut state = 0.0;
                let mut step = |s: &mut f32| {
                    state = (1.0 - a) * *s + a * state;
                    *s = state;
                };
                if pass == 0 {
                    y.iter_mut().for_each(&mut step);
                } else {
                    y.iter_mut().rev().for_each(&mut step);
                }
            }
        }
        y
    }

    #[test]
    fn a_band_limited_take_is_compared_below_its_band_edge() {
        // A bright vowel with energy to the top of the band, and the same vowel as a
        // 16 kHz recording would carry it (nothing above ~6 kHz after the filter's slope).
        let bright: Vec<f32> = vowel(140.0, 700.0, 1.0).iter().zip(vowel(300.0, 9000.0, 1.0)).map(|(a, b)| a + b).collect();
        let limited = low_passed(&bright, 4000.0);
        let whole = mel_cepstral_distortion(&bright, &limited, RATE).unwrap();
        let below = mel_cepstral_distortion_below(&bright, &limited, RATE, 3000.0).unwrap();
        let other = mel_cepstral_distortion_below(&bright, &low_passed(&vowel(140.0, 2200.0, 1.0), 4000.0), RATE, 3000.0).unwrap();
        assert!(below < whole / 3.0, "the empty top band dominates the whole: {whole:.2} dB, below 3 kHz {below:.2} dB");
        assert!(below < other / 3.0, "below the edge the same vowel is near ({below:.2} dB) and another far ({other:.2} dB)");
        assert_eq!(mel_cepstral_distortion_below(&bright, &bright, RATE, 200.0), None, "too few bands to compare");
    }

    #[test]
    fn silence_has_no_distortion_to_report() {
        assert_eq!(mel_cepstral_distortion(&[0.0; 24_000], &vowel(140.0, 700.0, 0.5), RATE), None);
        assert_eq!(mel_cepstral_distortion(&[], &[], RATE), None);
    }
}
