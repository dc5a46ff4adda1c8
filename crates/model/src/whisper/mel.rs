//! Whisper's front end: 16 kHz samples → 80-band log-mel frames, computed
//! as faster-whisper 1.2.1 computes them (its `FeatureExtractor`): 160 zeros
//! appended, a 400-sample periodic Hann window every 160 samples on frames
//! centred by reflection, `|STFT|²` with the last frame dropped, Slaney mel
//! filters (the speaker encoder's, [`slaney_mel_filters`]), `log10` floored
//! at 1e-10, clamped to 8 below the loudest value of the whole input, then
//! `(x + 4) / 4`. The clamp is over the whole recording, so a long file is
//! turned into frames once and windowed afterwards.

use rustfft::num_complex::Complex32;
use rustfft::FftPlanner;

use crate::speaker::mel::slaney_mel_filters;

/// Sample rate Whisper hears.
pub const SAMPLE_RATE: u32 = 16_000;
/// Samples per frame step (10 ms).
pub const HOP: usize = 160;
const N_FFT: usize = 400;
const BINS: usize = N_FFT / 2 + 1;

/// Log-mel frames of a whole recording, `[n_mels][frames]` row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMel {
    pub n_mels: usize,
    pub frames: usize,
    pub data: Vec<f32>,
}

impl LogMel {
    /// Frames that hold audio (faster-whisper's `content_frames`: the last
    /// frame only covers the appended padding).
    pub fn content_frames(&self) -> usize {
        self.frames.saturating_sub(1)
    }

    /// Frames `start..start + len` padded with zeros (or cut) to `width`,
    /// `[n_mels][width]`: one window of encoder input.
    pub fn window(&self, start: usize, len: usize, width: usize) -> Vec<f32> {
        let mut out = vec![0f32; self.n_mels * width];
        let len = len.min(width).min(self.frames.saturating_sub(start));
        for m in 0..self.n_mels {
            let row = &self.data[m * self.frames + start..m * self.frames + start + len];
            out[m * width..m * width + len].copy_from_slice(row);
        }
        out
    }
}

/// Turns 16 kHz samples into log-mel frames.
pub fn log_mel(samples: &[f32], n_mels: usize) -> LogMel {
    let filters = slaney_mel_filters(SAMPLE_RATE as f64, N_FFT, n_mels);
    let mut padded = samples.to_vec();
    padded.extend(std::iter::repeat_n(0.0, HOP));
    let len = padded.len();
    let half = N_FFT / 2;
    let reflect = |i: isize| -> f32 {
        // numpy's "reflect" (the edge sample not repeated), folded as often as needed.
        if len == 1 {
            return padded[0];
        }
        let period = 2 * (len as isize - 1);
        let mut j = i.rem_euclid(period);
        if j >= len as isize {
            j = period - j;
        }
        padded[j as usize]
    };
    let total = 1 + len / HOP; // frames of the centred STFT: 1 + (len + 2·200 - 400) / 160
    let frames = total - 1;
    let window: Vec<f32> = (0..N_FFT).map(|n| (0.5 - 0.5 * (2.0 * std::f64::consts::PI * n as f64 / N_FFT as f64).cos()) as f32).collect();
    let fft = FftPlanner::new().plan_fft_forward(N_FFT);
    let mut buf = vec![Complex32::new(0.0, 0.0); N_FFT];
    let mut scratch = vec![Complex32::new(0.0, 0.0); fft.get_inplace_scratch_len()];
    let mut power = vec![0f32; BINS];
    let mut data = vec![0f32; n_mels * frames];
    for f in 0..frames {
        let start = (f * HOP) as isize - half as isize;
        for (n, c) in buf.iter_mut().enumerate() {
            let i = start + n as isize;
            let x = if i >= 0 && (i as usize) < len { padded[i as usize] } else { reflect(i) };
            *c = Complex32::new(x * window[n], 0.0);
        }
        fft.process_with_scratch(&mut buf, &mut scratch);
        for (p, c) in power.iter_mut().zip(&buf) {
            *p = c.norm_sqr();
        }
        for m in 0..n_mels {
            let filter = &filters[m * BINS..(m + 1) * BINS];
            let energy: f32 = filter.iter().zip(&power).map(|(w, p)| w * p).sum();
            data[m * frames + f] = energy.max(1e-10).log10();
        }
    }
    let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for v in &mut data {
        *v = (v.max(max - 8.0) + 4.0) / 4.0;
    }
    LogMel { n_mels, frames, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_follow_faster_whispers_count() {
        // 1 s: 16,000 + 160 samples → 1 + 16160 / 160 = 102 STFT frames, the last dropped.
        let mel = log_mel(&vec![0.0; 16_000], 80);
        assert_eq!((mel.frames, mel.content_frames()), (101, 100));
        // Silence is floored: log10(1e-10) = -10, so (-10 + 4) / 4 everywhere.
        assert!(mel.data.iter().all(|v| (*v + 1.5).abs() < 1e-6));
    }

    #[test]
    fn the_loudest_band_holds_the_tone_and_quiet_ones_sit_8_below_it() {
        let wav: Vec<f32> = (0..16_000).map(|n| 0.5 * (2.0 * std::f32::consts::PI * 440.0 * n as f32 / 16_000.0).sin()).collect();
        let mel = log_mel(&wav, 80);
        let column = |f: usize| (0..80).map(|m| mel.data[m * mel.frames + f]).collect::<Vec<_>>();
        let mid = column(50);
        let loudest = mid.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
        // 440 Hz is mel 6.6 on the Slaney scale; bands are ~0.55 mel apart, so band ~11.
        assert!((9..=13).contains(&loudest), "loudest band {loudest}");
        let max = mel.data.iter().copied().fold(f32::MIN, f32::max);
        let min = mel.data.iter().copied().fold(f32::MAX, f32::min);
        assert!((max - min - 2.0).abs() < 1e-5, "range {min}..{max}");
    }

    #[test]
    fn a_window_is_cut_or_padded_with_zeros() {
        let mel = LogMel { n_mels: 2, frames: 3, data: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0] };
        assert_eq!(mel.window(1, 5, 4), vec![2.0, 3.0, 0.0, 0.0, 5.0, 6.0, 0.0, 0.0]);
        assert_eq!(mel.window(0, 3, 2), vec![1.0, 2.0, 4.0, 5.0]);
    }
}
