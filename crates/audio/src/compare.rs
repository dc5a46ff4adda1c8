//! How close two renders sound: log-mel distance and waveform cosine. Used
//! by the model's parity tests and by `revoice bench` to compare engines.
//!
//! Log-mel: 80 HTK-mel triangles (0 Hz to Nyquist, unit peak) over the
//! magnitude STFT (n_fft 1024, hop 256, periodic Hann, reflect padding of
//! 512), `ln(max(mel, 1e-5))`; the distance is the mean absolute
//! difference over frames and bands, on the common length.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

/// The analysis window, in samples.
pub const N_FFT: usize = 1024;
/// Samples from one frame to the next.
pub const HOP: usize = 256;
/// Mel bands from 0 Hz to Nyquist.
pub const BANDS: usize = 80;
const FLOOR: f64 = 1e-5;

/// Mean |Δ log-mel| between `a` and `b` at `sample_rate`.
pub fn log_mel_l1(a: &[f32], b: &[f32], sample_rate: u32) -> f64 {
    log_mel_l1_where(a, b, sample_rate, |_| true)
}

/// Mean |Δ log-mel| over the frames whose centre sample passes `keep`
/// (0 when none does).
pub fn log_mel_l1_where(a: &[f32], b: &[f32], sample_rate: u32, keep: impl Fn(usize) -> bool) -> f64 {
    let n = a.len().min(b.len());
    let fb = mel_filterbank(sample_rate);
    let fft = FftPlanner::<f64>::new().plan_fft_forward(N_FFT);
    let (ma, mb) = (log_mel(&a[..n], &fb, &fft), log_mel(&b[..n], &fb, &fft));
    let (mut total, mut count) = (0f64, 0usize);
    for (frame, (fa, fb)) in ma.chunks(BANDS).zip(mb.chunks(BANDS)).enumerate() {
        if keep(frame * HOP) {
            total += fa.iter().zip(fb).map(|(x, y)| (x - y).abs()).sum::<f64>();
            count += BANDS;
        }
    }
    if count == 0 {
        0.0
    } else {
        total / count as f64
    }
}

/// The log-mel frames of `x` (each [`BANDS`] values, natural log of the
/// mel magnitude, floored), and the number of bands; no frames for a clip
/// shorter than half an analysis window.
pub(crate) fn log_mel_frames(x: &[f32], sample_rate: u32) -> (Vec<f64>, usize) {
    if x.len() <= N_FFT / 2 {
        return (Vec::new(), BANDS);
    }
    let fft = FftPlanner::<f64>::new().plan_fft_forward(N_FFT);
    (log_mel(x, &mel_filterbank(sample_rate), &fft), BANDS)
}

/// The floor of a log-mel value (silence).
pub const LOG_FLOOR: f64 = -11.512925464970229; // ln(1e-5)

/// Cosine of the angle between two waveforms over their common length.
pub fn waveform_cosine(a: &[f32], b: &[f32]) -> f64 {
    let n = a.len().min(b.len());
    let (mut ab, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for i in 0..n {
        let (x, y) = (a[i] as f64, b[i] as f64);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    ab / (aa.sqrt() * bb.sqrt()).max(1e-30)
}

/// The edges of the mel bands at `sample_rate`, in Hz: band `b` rises
/// from edge `b` to its peak at `b + 1` and falls to zero at `b + 2`.
fn band_edges(sample_rate: u32) -> Vec<f64> {
    let mel = |f: f64| 2595.0 * (1.0 + f / 700.0).log10();
    let hz = |m: f64| 700.0 * (10f64.powf(m / 2595.0) - 1.0);
    let top = mel(sample_rate as f64 / 2.0);
    (0..BANDS + 2).map(|i| hz(top * i as f64 / (BANDS + 1) as f64)).collect()
}

/// How many of the lowest mel bands at `sample_rate` lie wholly below
/// `top_hz` (a band-limited recording's content stops there).
pub fn bands_below(sample_rate: u32, top_hz: f64) -> usize {
    band_edges(sample_rate)[2..].iter().take_while(|upper| **upper <= top_hz).count()
}

/// The [`BANDS`] HTK-mel triangles (unit peak) over the `N_FFT / 2 + 1`
/// bins of the spectrum at `sample_rate`, lowest band first.
pub fn mel_filterbank(sample_rate: u32) -> Vec<Vec<f64>> {
    let edges = band_edges(sample_rate);
    let bins: Vec<f64> = (0..N_FFT / 2 + 1).map(|k| k as f64 * sample_rate as f64 / N_FFT as f64).collect();
    (0..BANDS)
        .map(|b| {
            let (lo, mid, hi) = (edges[b], edges[b + 1], edges[b + 2]);
            bins.iter().map(|&f| ((f - lo) / (mid - lo)).min((hi - f) / (hi - mid)).max(0.0)).collect()
        })
        .collect()
}

fn log_mel(x: &[f32], fb: &[Vec<f64>], fft: &Arc<dyn Fft<f64>>) -> Vec<f64> {
    let pad = N_FFT / 2;
    let n = x.len();
    let at = |i: isize| -> f64 {
        // Reflect padding.
        let j = if i < 0 {
            -i
        } else if i as usize >= n {
            2 * (n as isize - 1) - i
        } else {
            i
        };
        x[j.clamp(0, n as isize - 1) as usize] as f64
    };
    let window: Vec<f64> = (0..N_FFT).map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / N_FFT as f64).cos()).collect();
    let frames = 1 + (n + 2 * pad - N_FFT) / HOP;
    let mut out = Vec::with_capacity(frames * BANDS);
    let mut buf = vec![Complex::new(0.0, 0.0); N_FFT];
    for f in 0..frames {
        for (i, c) in buf.iter_mut().enumerate() {
            *c = Complex::new(at((f * HOP + i) as isize - pad as isize) * window[i], 0.0);
        }
        fft.process(&mut buf);
        let mag: Vec<f64> = buf[..N_FFT / 2 + 1].iter().map(|c| c.norm()).collect();
        for band in fb {
            let m: f64 = band.iter().zip(&mag).map(|(w, v)| w * v).sum();
            out.push(m.max(FLOOR).ln());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(freq: f32, n: usize) -> Vec<f32> {
        (0..n).map(|i| (2.0 * std::f32::consts::PI * freq * i as f32 / 24_000.0).sin() * 0.3).collect()
    }

    #[test]
    fn identical_signals_are_at_distance_zero_and_different_ones_are_not() {
        let a = tone(220.0, 12_000);
        assert_eq!(log_mel_l1(&a, &a, 24_000), 0.0);
        assert!((waveform_cosine(&a, &a) - 1.0).abs() < 1e-12);
        let b = tone(880.0, 12_000);
        assert!(log_mel_l1(&a, &b, 24_000) > 1.0);
    }

    #[test]
    fn a_phase_shift_barely_moves_the_log_mel_but_breaks_the_cosine() {
        let a = tone(220.0, 12_000);
        let b: Vec<f32> = (0..12_000).map(|i| (2.0 * std::f32::consts::PI * 220.0 * i as f32 / 24_000.0 + 1.5).sin() * 0.3).collect();
        let other = tone(880.0, 12_000);
        assert!(log_mel_l1(&a, &b, 24_000) * 5.0 < log_mel_l1(&a, &other, 24_000));
        assert!(waveform_cosine(&a, &b) < 0.2);
    }
}
