//! The short-time Fourier transform pair the iSTFTNet generator uses, with
//! torch's conventions: periodic Hann window, `center = true` with reflect
//! padding, one-sided spectra; the inverse normalises by the summed squared
//! window and trims the centre padding. Plain f32 slices: the frames are
//! tiny (n_fft 20), so direct DFT sums beat any FFT set-up.

use std::f64::consts::PI;

/// Periodic Hann window of length `n`.
pub fn hann(n: usize) -> Vec<f32> {
    (0..n).map(|i| (0.5 - 0.5 * (2.0 * PI * i as f64 / n as f64).cos()) as f32).collect()
}

/// Precomputed DFT twiddles for one frame size.
pub struct Stft {
    n_fft: usize,
    hop: usize,
    window: Vec<f32>,
    cos: Vec<f32>,
    sin: Vec<f32>,
}

impl Stft {
    pub fn new(n_fft: usize, hop: usize) -> Stft {
        let bins = n_fft / 2 + 1;
        let mut cos = vec![0f32; bins * n_fft];
        let mut sin = vec![0f32; bins * n_fft];
        for k in 0..bins {
            for n in 0..n_fft {
                let a = 2.0 * PI * (k * n) as f64 / n_fft as f64;
                cos[k * n_fft + n] = a.cos() as f32;
                sin[k * n_fft + n] = a.sin() as f32;
            }
        }
        Stft { n_fft, hop, window: hann(n_fft), cos, sin }
    }

    /// Samples between frames.
    pub fn hop(&self) -> usize {
        self.hop
    }

    /// Frequency bins per frame.
    pub fn bins(&self) -> usize {
        self.n_fft / 2 + 1
    }

    /// Magnitude and phase, each `[bins][frames]` row-major, of `signal`.
    pub fn forward(&self, signal: &[f32]) -> (Vec<f32>, Vec<f32>, usize) {
        let pad = self.n_fft / 2;
        let padded = reflect_pad(signal, pad);
        let frames = 1 + (padded.len() - self.n_fft) / self.hop;
        let bins = self.bins();
        let mut magnitude = vec![0f32; bins * frames];
        let mut phase = vec![0f32; bins * frames];
        let mut frame = vec![0f32; self.n_fft];
        for f in 0..frames {
            for (n, v) in frame.iter_mut().enumerate() {
                *v = padded[f * self.hop + n] * self.window[n];
            }
            for k in 0..bins {
                let (c, s) = (&self.cos[k * self.n_fft..(k + 1) * self.n_fft], &self.sin[k * self.n_fft..(k + 1) * self.n_fft]);
                let re: f32 = frame.iter().zip(c).map(|(x, c)| x * c).sum();
                let im: f32 = -frame.iter().zip(s).map(|(x, s)| x * s).sum::<f32>();
                magnitude[k * frames + f] = re.hypot(im);
                phase[k * frames + f] = im.atan2(re);
            }
        }
        (magnitude, phase, frames)
    }

    /// Signal from magnitude and phase `[bins][frames]`: `hop · (frames − 1)` samples.
    pub fn inverse(&self, magnitude: &[f32], phase: &[f32], frames: usize) -> Vec<f32> {
        let (n_fft, hop, bins) = (self.n_fft, self.hop, self.bins());
        let total = n_fft + hop * (frames - 1);
        let mut out = vec![0f32; total];
        let mut norm = vec![0f32; total];
        let mut frame = vec![0f32; n_fft];
        for f in 0..frames {
            frame.iter_mut().for_each(|v| *v = 0.0);
            for k in 0..bins {
                let (m, p) = (magnitude[k * frames + f], phase[k * frames + f]);
                let (re, im) = (m * p.cos(), m * p.sin());
                // One-sided inverse: DC and Nyquist once (real parts only), the rest twice.
                let (re, im) = if k == 0 || (n_fft % 2 == 0 && k == bins - 1) { (re, 0.0) } else { (2.0 * re, 2.0 * im) };
                let (c, s) = (&self.cos[k * n_fft..(k + 1) * n_fft], &self.sin[k * n_fft..(k + 1) * n_fft]);
                for n in 0..n_fft {
                    frame[n] += re * c[n] - im * s[n];
                }
            }
            for n in 0..n_fft {
                let w = self.window[n];
                out[f * hop + n] += frame[n] / n_fft as f32 * w;
                norm[f * hop + n] += w * w;
            }
        }
        let pad = n_fft / 2;
        let len = hop * (frames - 1);
        (pad..pad + len).map(|i| if norm[i] > 1e-11 { out[i] / norm[i] } else { out[i] }).collect()
    }
}

/// Reflect-pads (mirror without repeating the edge) `pad` samples each side.
pub fn reflect_pad(x: &[f32], pad: usize) -> Vec<f32> {
    let n = x.len();
    let mut out = Vec::with_capacity(n + 2 * pad);
    out.extend((1..=pad).rev().map(|i| x[i.min(n - 1)]));
    out.extend_from_slice(x);
    out.extend((0..pad).map(|i| x[n.saturating_sub(2 + i)]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflect_padding_mirrors_without_repeating_the_edge() {
        assert_eq!(reflect_pad(&[1., 2., 3., 4.], 2), vec![3., 2., 1., 2., 3., 4., 3., 2.]);
    }

    #[test]
    fn the_inverse_gives_the_signal_back() {
        let stft = Stft::new(20, 5);
        let signal: Vec<f32> = (0..400).map(|i| ((i as f32) * 0.07).sin() + 0.3 * ((i as f32) * 0.31).cos()).collect();
        let (m, p, frames) = stft.forward(&signal);
        assert_eq!(frames, 1 + 400 / 5);
        let back = stft.inverse(&m, &p, frames);
        assert_eq!(back.len(), 400);
        let err = signal.iter().zip(&back).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(err < 1e-4, "max error {err}");
    }

    #[test]
    fn a_pure_tone_lands_in_its_bin_with_its_phase() {
        // Frequency bin 3 of 20, cosine with phase 0 in the middle frame.
        let stft = Stft::new(20, 5);
        let signal: Vec<f32> = (0..200).map(|i| (2.0 * std::f32::consts::PI * 3.0 * i as f32 / 20.0).cos()).collect();
        let (m, p, frames) = stft.forward(&signal);
        let f = frames / 2;
        let best = (0..11).max_by(|&a, &b| m[a * frames + f].total_cmp(&m[b * frames + f])).unwrap();
        assert_eq!(best, 3);
        // Frame f starts at sample 5f − 10, a whole number of periods of 20/3? Check against the direct sum.
        let start = 5 * f as i64 - 10;
        let phase_expected = {
            let w = hann(20);
            let (mut re, mut im) = (0f64, 0f64);
            for (n, &wn) in w.iter().enumerate() {
                let x = (2.0 * std::f64::consts::PI * 3.0 * (start + n as i64) as f64 / 20.0).cos() * wn as f64;
                let a = 2.0 * std::f64::consts::PI * 3.0 * n as f64 / 20.0;
                re += x * a.cos();
                im -= x * a.sin();
            }
            im.atan2(re) as f32
        };
        let diff = (p[3 * frames + f] - phase_expected).rem_euclid(2.0 * std::f32::consts::PI);
        assert!(!(1e-4..=2.0 * std::f32::consts::PI - 1e-4).contains(&diff), "{} vs {phase_expected}", p[3 * frames + f]);
    }
}
