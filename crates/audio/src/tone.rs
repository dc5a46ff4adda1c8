//! Tone matching: a recording's long-term spectrum (its average tonal
//! balance while someone speaks, in third-octave bands), the gain curve
//! that gives one voice the tonal balance of another, and that curve
//! applied as a zero-phase filter. A fitted voice carries such a curve, so
//! it sounds like the recording's microphone and room as well as its voice.

use std::sync::Arc;

use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};
use serde::{Deserialize, Serialize};

/// Third-octave band centres, in Hz, from 100 Hz to 8 kHz (what a speaker
/// encoder at 16 kHz hears).
pub const BAND_CENTRES: [f32; 20] =
    [100.0, 125.0, 160.0, 200.0, 250.0, 315.0, 400.0, 500.0, 630.0, 800.0, 1000.0, 1250.0, 1600.0, 2000.0, 2500.0, 3150.0, 4000.0, 5000.0, 6300.0, 8000.0];

/// Frames quieter than the loudest by more than this are not speech.
const GATE_DB: f32 = 40.0;
/// The filter's frame: 2048 samples (85 ms at 24 kHz), hop a quarter of it.
const FRAME: usize = 2048;
const HOP: usize = FRAME / 4;

/// A recording's mean power per band while it sounds, in dB.
#[derive(Debug, Clone, PartialEq)]
pub struct LongTermSpectrum {
    pub band_db: Vec<f32>,
}

fn hann(n: usize) -> Vec<f32> {
    (0..n).map(|i| 0.5 - 0.5 * (2.0 * std::f32::consts::PI * i as f32 / n as f32).cos()).collect()
}

/// The FFT bins `[lo, hi)` of a band around `centre` for frames of `n` at `rate`.
fn band_bins(centre: f32, n: usize, rate: u32) -> (usize, usize) {
    let bin = rate as f32 / n as f32;
    let lo = (centre * 2f32.powf(-1.0 / 6.0) / bin).ceil() as usize;
    let hi = (centre * 2f32.powf(1.0 / 6.0) / bin).ceil() as usize;
    (lo.max(1), hi.max(lo + 1).min(n / 2 + 1))
}

/// The long-term spectrum of `samples` (mono), over the frames within
/// 40 dB of the loudest; `None` when there is too little sound or the rate
/// is too low to hear the top band.
pub fn long_term_spectrum(samples: &[f32], sample_rate: u32) -> Option<LongTermSpectrum> {
    let n = 1024;
    if samples.len() < n || (sample_rate as f32) < 2.0 * BAND_CENTRES[BAND_CENTRES.len() - 1] {
        return None;
    }
    let window = hann(n);
    let fft = FftPlanner::<f32>::new().plan_fft_forward(n);
    let mut frames: Vec<(f32, Vec<f32>)> = Vec::new();
    let mut buffer = vec![Complex32::default(); n];
    for start in (0..=samples.len() - n).step_by(n / 2) {
        for (b, (x, w)) in buffer.iter_mut().zip(samples[start..start + n].iter().zip(&window)) {
            *b = Complex32::new(x * w, 0.0);
        }
        fft.process(&mut buffer);
        let power: Vec<f32> = buffer[..n / 2 + 1].iter().map(|c| c.norm_sqr()).collect();
        frames.push((power.iter().sum(), power));
    }
    let loudest = frames.iter().map(|f| f.0).fold(0.0, f32::max);
    if loudest <= 0.0 {
        return None;
    }
    let gate = loudest * 10f32.powf(-GATE_DB / 10.0);
    let mut mean = vec![0f64; n / 2 + 1];
    let mut count = 0usize;
    for (_, power) in frames.iter().filter(|f| f.0 >= gate) {
        for (m, p) in mean.iter_mut().zip(power) {
            *m += *p as f64;
        }
        count += 1;
    }
    let band_db = BAND_CENTRES
        .iter()
        .map(|&c| {
            let (lo, hi) = band_bins(c, n, sample_rate);
            let p = mean[lo..hi].iter().sum::<f64>() / ((hi - lo) * count) as f64;
            (10.0 * (p.max(1e-20)).log10()) as f32
        })
        .collect();
    Some(LongTermSpectrum { band_db })
}

/// Gains per band ([`BAND_CENTRES`]), in dB, that bring one voice's tonal
/// balance to another's; the overall level is left alone (the gains'
/// median is 0 dB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToneCurve {
    pub gains_db: Vec<f32>,
}

impl ToneCurve {
    /// The curve that makes `voice` sound like `target`'s tonal balance,
    /// each band's gain within ±`max_db`.
    pub fn matching(target: &LongTermSpectrum, voice: &LongTermSpectrum, max_db: f32) -> ToneCurve {
        let mut gains: Vec<f32> = target.band_db.iter().zip(&voice.band_db).map(|(t, v)| t - v).collect();
        let mut sorted = gains.clone();
        sorted.sort_by(f32::total_cmp);
        let median = (sorted[(sorted.len() - 1) / 2] + sorted[sorted.len() / 2]) / 2.0;
        for g in &mut gains {
            *g = (*g - median).clamp(-max_db, max_db);
        }
        ToneCurve { gains_db: gains }
    }

    /// The largest boost or cut, in dB.
    pub fn largest_db(&self) -> f32 {
        self.gains_db.iter().fold(0.0, |m, g| m.max(g.abs()))
    }

    /// The gain (linear) at `hz`: between band centres by log frequency,
    /// the end bands' gains beyond them.
    fn gain_at(&self, hz: f32) -> f32 {
        let last = BAND_CENTRES.len() - 1;
        let db = if hz <= BAND_CENTRES[0] {
            self.gains_db[0]
        } else if hz >= BAND_CENTRES[last] {
            self.gains_db[last]
        } else {
            let i = BAND_CENTRES.iter().position(|&c| c > hz).unwrap_or(last) - 1;
            let t = (hz / BAND_CENTRES[i]).ln() / (BAND_CENTRES[i + 1] / BAND_CENTRES[i]).ln();
            self.gains_db[i] + t * (self.gains_db[i + 1] - self.gains_db[i])
        };
        10f32.powf(db / 20.0)
    }

    /// `samples` through the curve (zero phase, same length): overlapping
    /// Hann frames, each spectrum scaled bin by bin, added back.
    pub fn apply(&self, samples: &[f32], sample_rate: u32) -> Vec<f32> {
        assert_eq!(self.gains_db.len(), BAND_CENTRES.len(), "a gain per band");
        if samples.is_empty() {
            return Vec::new();
        }
        let gains: Vec<f32> = (0..FRAME / 2 + 1).map(|k| self.gain_at(k as f32 * sample_rate as f32 / FRAME as f32)).collect();
        let mut planner = FftPlanner::<f32>::new();
        let (forward, inverse): (Arc<dyn Fft<f32>>, Arc<dyn Fft<f32>>) = (planner.plan_fft_forward(FRAME), planner.plan_fft_inverse(FRAME));
        let window = hann(FRAME);
        // Hann frames at a quarter hop sum to 2; pad so every sample is in four frames.
        let padded_len = samples.len() + 2 * FRAME;
        let mut out = vec![0f32; padded_len];
        let mut buffer = vec![Complex32::default(); FRAME];
        let at = |i: usize| if i >= FRAME && i - FRAME < samples.len() { samples[i - FRAME] } else { 0.0 };
        let scale = 1.0 / (FRAME as f32 * 2.0);
        for start in (0..padded_len - FRAME).step_by(HOP) {
            for (k, b) in buffer.iter_mut().enumerate() {
                *b = Complex32::new(at(start + k) * window[k], 0.0);
            }
            forward.process(&mut buffer);
            for (k, value) in buffer.iter_mut().enumerate() {
                *value *= gains[if k <= FRAME / 2 { k } else { FRAME - k }];
            }
            inverse.process(&mut buffer);
            for (o, b) in out[start..start + FRAME].iter_mut().zip(&buffer) {
                *o += b.re * scale;
            }
        }
        out[FRAME..FRAME + samples.len()].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f32, rate: u32, seconds: f32) -> Vec<f32> {
        (0..(rate as f32 * seconds) as usize).map(|i| (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin()).collect()
    }

    fn rms(x: &[f32]) -> f32 {
        (x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32).sqrt()
    }

    #[test]
    fn a_flat_curve_changes_nothing_and_a_band_gain_scales_its_tones() {
        let rate = 24_000;
        let x: Vec<f32> = tone(250.0, rate, 1.0).iter().zip(tone(2000.0, rate, 1.0)).map(|(a, b)| 0.5 * a + 0.3 * b).collect();
        let flat = ToneCurve { gains_db: vec![0.0; BAND_CENTRES.len()] };
        let same = flat.apply(&x, rate);
        assert_eq!(same.len(), x.len());
        assert!(x.iter().zip(&same).all(|(a, b)| (a - b).abs() < 1e-4));

        // +6 dB at 2 kHz and below-flat elsewhere: the 2 kHz tone doubles, 250 Hz stays.
        let mut gains = vec![0.0; BAND_CENTRES.len()];
        gains[BAND_CENTRES.iter().position(|&c| c == 2000.0).unwrap()] = 6.0206;
        let curve = ToneCurve { gains_db: gains };
        let low = curve.apply(&tone(250.0, rate, 1.0), rate);
        let high = curve.apply(&tone(2000.0, rate, 1.0), rate);
        let middle = |v: &[f32]| rms(&v[4000..20_000]);
        assert!((middle(&low) / middle(&tone(250.0, rate, 1.0)) - 1.0).abs() < 0.01);
        assert!((middle(&high) / middle(&tone(2000.0, rate, 1.0)) - 2.0).abs() < 0.02);
    }

    #[test]
    fn matching_brings_one_balance_to_the_other() {
        let rate = 16_000;
        let bright: Vec<f32> = tone(250.0, rate, 2.0).iter().zip(tone(3150.0, rate, 2.0)).map(|(a, b)| 0.3 * a + 0.3 * b).collect();
        let dull: Vec<f32> = tone(250.0, rate, 2.0).iter().zip(tone(3150.0, rate, 2.0)).map(|(a, b)| 0.3 * a + 0.03 * b).collect();
        let (target, voice) = (long_term_spectrum(&bright, rate).unwrap(), long_term_spectrum(&dull, rate).unwrap());
        let curve = ToneCurve::matching(&target, &voice, 30.0);
        let band = |c: f32| BAND_CENTRES.iter().position(|&b| b == c).unwrap();
        // The 3150 Hz band is 20 dB down in the dull voice; 250 Hz is equal.
        let lift = curve.gains_db[band(3150.0)] - curve.gains_db[band(250.0)];
        assert!((lift - 20.0).abs() < 0.5, "lift {lift}");
        let matched = long_term_spectrum(&curve.apply(&dull, rate), rate).unwrap();
        let balance = |s: &LongTermSpectrum| s.band_db[band(3150.0)] - s.band_db[band(250.0)];
        assert!((balance(&matched) - balance(&target)).abs() < 0.5);
        // Limits: a cap of 6 dB stops there; silence and short clips have no spectrum.
        assert!(ToneCurve::matching(&target, &voice, 6.0).largest_db() <= 6.0);
        assert!(long_term_spectrum(&vec![0.0; 20_000], rate).is_none());
        assert!(long_term_spectrum(&bright[..500], rate).is_none());
        assert!(long_term_spectrum(&bright, 8_000).is_none());
    }
}
