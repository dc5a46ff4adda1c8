//! The encoder's front end: 16 kHz samples → 40-band mel power frames, as
//! Resemblyzer computes them with `librosa.feature.melspectrogram` (its
//! `audio.wav_to_mel_spectrogram`): a 400-sample (25 ms) periodic Hann window
//! every 160 samples (10 ms), centred frames (200 zeros of padding each side),
//! `|STFT|²`, and librosa's Slaney-style mel filters (`htk=False`,
//! `norm="slaney"`, 0–8 kHz). No log: the network was trained on power.

use std::sync::Arc;

use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};

/// Sample rate the front end expects.
pub const SAMPLE_RATE: u32 = 16_000;
/// Window length in samples (25 ms).
pub const N_FFT: usize = 400;
/// Hop in samples (10 ms).
pub const HOP: usize = 160;
/// Mel bands.
pub const MEL_BANDS: usize = 40;
const BINS: usize = N_FFT / 2 + 1;

/// Turns samples into mel frames; built once, reused for every clip.
pub struct MelFrontEnd {
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
    /// `[MEL_BANDS][BINS]`, row-major.
    filters: Vec<f32>,
}

impl Default for MelFrontEnd {
    fn default() -> Self {
        Self::new()
    }
}

impl MelFrontEnd {
    pub fn new() -> MelFrontEnd {
        let window = (0..N_FFT).map(|n| (0.5 - 0.5 * (2.0 * std::f64::consts::PI * n as f64 / N_FFT as f64).cos()) as f32).collect();
        MelFrontEnd { fft: FftPlanner::new().plan_fft_forward(N_FFT), window, filters: slaney_mel_filters(SAMPLE_RATE as f64, N_FFT, MEL_BANDS) }
    }

    /// Number of frames for `samples` samples: `1 + samples / HOP`.
    pub fn frame_count(samples: usize) -> usize {
        1 + samples / HOP
    }

    /// Mel power frames of `wav` (16 kHz), `[frames][MEL_BANDS]` row-major.
    pub fn frames(&self, wav: &[f32]) -> Vec<f32> {
        let frames = Self::frame_count(wav.len());
        let pad = N_FFT / 2;
        let mut out = vec![0f32; frames * MEL_BANDS];
        let mut buf = vec![Complex32::new(0.0, 0.0); N_FFT];
        let mut scratch = vec![Complex32::new(0.0, 0.0); self.fft.get_inplace_scratch_len()];
        let mut power = vec![0f32; BINS];
        for f in 0..frames {
            let start = (f * HOP) as isize - pad as isize;
            for (n, c) in buf.iter_mut().enumerate() {
                let i = start + n as isize;
                let x = if i >= 0 && (i as usize) < wav.len() { wav[i as usize] } else { 0.0 };
                *c = Complex32::new(x * self.window[n], 0.0);
            }
            self.fft.process_with_scratch(&mut buf, &mut scratch);
            for (p, c) in power.iter_mut().zip(&buf) {
                *p = c.norm_sqr();
            }
            let row = &mut out[f * MEL_BANDS..(f + 1) * MEL_BANDS];
            for (m, v) in row.iter_mut().enumerate() {
                let filter = &self.filters[m * BINS..(m + 1) * BINS];
                *v = filter.iter().zip(&power).map(|(w, p)| w * p).sum();
            }
        }
        out
    }
}

fn hz_to_mel(f: f64) -> f64 {
    let f_sp = 200.0 / 3.0;
    if f >= 1000.0 {
        15.0 + (f / 1000.0).ln() / (6.4f64.ln() / 27.0)
    } else {
        f / f_sp
    }
}

fn mel_to_hz(m: f64) -> f64 {
    if m >= 15.0 {
        1000.0 * ((6.4f64.ln() / 27.0) * (m - 15.0)).exp()
    } else {
        200.0 / 3.0 * m
    }
}

/// librosa's `filters.mel(sr, n_fft, n_mels, fmin=0, fmax=sr/2, htk=False,
/// norm="slaney")`, computed in f64 and stored as f32 as librosa does.
pub fn slaney_mel_filters(sr: f64, n_fft: usize, n_mels: usize) -> Vec<f32> {
    let bins = n_fft / 2 + 1;
    let fft_freqs: Vec<f64> = (0..bins).map(|k| k as f64 * sr / n_fft as f64).collect();
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(sr / 2.0));
    let mel_f: Vec<f64> = (0..n_mels + 2).map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (n_mels + 1) as f64)).collect();
    let mut out = vec![0f32; n_mels * bins];
    for m in 0..n_mels {
        let (left, center, right) = (mel_f[m], mel_f[m + 1], mel_f[m + 2]);
        let enorm = 2.0 / (right - left);
        for (k, &f) in fft_freqs.iter().enumerate() {
            let lower = (f - left) / (center - left);
            let upper = (right - f) / (right - center);
            out[m * bins + k] = (lower.min(upper).max(0.0) * enorm) as f32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_count_matches_librosa_centred_frames() {
        assert_eq!(MelFrontEnd::frame_count(37_920), 238);
        assert_eq!(MelFrontEnd::frame_count(159), 1);
        let mel = MelFrontEnd::new().frames(&vec![0.0; 1600]);
        assert_eq!(mel.len(), 11 * MEL_BANDS);
        assert!(mel.iter().all(|v| *v == 0.0));
    }

    #[test]
    fn the_slaney_filters_are_area_normalised_triangles_below_nyquist() {
        let f = slaney_mel_filters(16_000.0, 400, 40);
        // Slaney normalisation: each triangle's peak is 2 / (width in Hz), so its area is ~1.
        for m in 0..40 {
            let row = &f[m * BINS..(m + 1) * BINS];
            let area: f64 = row.iter().map(|&w| w as f64 * 40.0).sum();
            assert!((area - 1.0).abs() < 0.25, "band {m} area {area}");
        }
        // The first band peaks at bin 1 (librosa: 0.0132 at 40 Hz; mel points every ~25 Hz low down).
        assert!(f[0] == 0.0 && f[1] > 0.0);
        assert_eq!(f[39 * BINS + 200], 0.0);
    }

    #[test]
    fn a_tone_lands_in_the_band_around_its_frequency() {
        let wav: Vec<f32> = (0..16_000).map(|n| (2.0 * std::f32::consts::PI * 1000.0 * n as f32 / 16_000.0).sin()).collect();
        let mel = MelFrontEnd::new().frames(&wav);
        let frame = &mel[50 * MEL_BANDS..51 * MEL_BANDS];
        let loudest = frame.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
        // 1 kHz is mel 15; band m peaks at mel (m + 1) · 45.25 / 41, so 1 kHz falls between
        // the peaks of bands 12 and 13.
        assert!((12..=13).contains(&loudest), "loudest band {loudest}");
    }
}
