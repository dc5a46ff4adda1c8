//! Tone matching: a recording's long-term spectrum (its average tonal
//! balance while someone speaks, in third-octave bands), the gain curve
//! that gives one voice the tonal balance of another, and that curve
//! applied as a zero-phase filter. A fitted voice carries such a curve, so
//! it sounds like the recording's microphone and room as well as its voice.
//!
//! The curve is smoothed over a band on each side, so one band's peak or
//! dip (a harmonic's, a formant's) is softened, and it matches only the
//! bands the recording carries: a 16 kHz file says nothing above 7.2 kHz,
//! and the voice keeps its top there rather than being cut to the file's
//! empty band.

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
/// The curve is smoothed over this many bands on each side. Over an octave
/// (3), it cost the fitted voices 0.01 to 0.07 of their similarity and up
/// to a tenth of their spectral match, for little more naturalness than
/// one band gains (`revoice bench voicefit --kept`, session 50).
const SMOOTHING_BANDS: usize = 1;
/// Fewer bands carried than this (up to 1 kHz) is too little to match.
const FEWEST_BANDS: usize = 11;
/// The filter's frame: 2048 samples (85 ms at 24 kHz), hop a quarter of it.
const FRAME: usize = 2048;
const HOP: usize = FRAME / 4;

/// A recording's mean power per band while it sounds, in dB, for the
/// bands it carries: [`BAND_CENTRES`] from the lowest, up to the last band
/// wholly below 0.9 of its Nyquist frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct LongTermSpectrum {
    pub band_db: Vec<f32>,
}

/// How many of [`BAND_CENTRES`] a recording at `sample_rate` carries.
pub fn bands_carried(sample_rate: u32) -> usize {
    let top = 0.9 * sample_rate as f32 / 2.0;
    BAND_CENTRES.iter().take_while(|&&c| c * 2f32.powf(1.0 / 6.0) <= top).count()
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
/// is too low to carry the bands up to 1 kHz.
pub fn long_term_spectrum(samples: &[f32], sample_rate: u32) -> Option<LongTermSpectrum> {
    let n = 1024;
    let carried = bands_carried(sample_rate);
    if samples.len() < n || carried < FEWEST_BANDS {
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
    let band_db = BAND_CENTRES[..carried]
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
/// balance to another's, broadly; the overall level is left alone (the
/// median gain of the bands both carry is 0 dB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToneCurve {
    pub gains_db: Vec<f32>,
}

impl ToneCurve {
    /// The curve that gives `voice` `target`'s tonal balance, smoothed over
    /// [`SMOOTHING_BANDS`] on each side, over the bands both carry (the
    /// bands above keep the highest one's gain), each band's gain within
    /// ±`max_db`: the curve a fitted voice speaks through.
    pub fn matching(target: &LongTermSpectrum, voice: &LongTermSpectrum, max_db: f32) -> ToneCurve {
        Self::matched(target, voice, max_db, SMOOTHING_BANDS)
    }

    /// [`Self::matching`] band by band, unsmoothed: what a fit hears its
    /// candidates through while it searches. It takes up the fine colour
    /// of the recording's spectrum as well as its channel, so the search
    /// does not push the style to copy them: searching through the
    /// smoothed curve left the fitted styles less natural (DNSMOS signal
    /// 0.07 to 0.45 lower) and less similar (session 50).
    pub fn matching_in_detail(target: &LongTermSpectrum, voice: &LongTermSpectrum, max_db: f32) -> ToneCurve {
        Self::matched(target, voice, max_db, 0)
    }

    fn matched(target: &LongTermSpectrum, voice: &LongTermSpectrum, max_db: f32, half: usize) -> ToneCurve {
        let carried = target.band_db.len().min(voice.band_db.len());
        let raw: Vec<f32> = (0..carried).map(|i| target.band_db[i] - voice.band_db[i]).collect();
        let smoothed: Vec<f32> = (0..raw.len())
            .map(|i| {
                let (lo, hi) = (i.saturating_sub(half), (i + half).min(raw.len() - 1));
                // A triangle: the band itself counts most, the ends least.
                let weight = |j: usize| (half + 1 - i.abs_diff(j)) as f32;
                (lo..=hi).map(|j| weight(j) * raw[j]).sum::<f32>() / (lo..=hi).map(weight).sum::<f32>()
            })
            .collect();
        let mut sorted = smoothed.clone();
        sorted.sort_by(f32::total_cmp);
        let median = (sorted[(sorted.len() - 1) / 2] + sorted[sorted.len() / 2]) / 2.0;
        let gains = (0..BAND_CENTRES.len()).map(|i| (smoothed[i.min(carried - 1)] - median).clamp(-max_db, max_db)).collect();
        ToneCurve { gains_db: gains }
    }

    /// The same curve with every gain scaled by `share` (0: flat, 1: as it is).
    pub fn scaled(&self, share: f32) -> ToneCurve {
        ToneCurve { gains_db: self.gains_db.iter().map(|g| g * share).collect() }
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

    /// Deterministic white noise.
    fn noise(rate: u32, seconds: f32) -> Vec<f32> {
        let mut state = 0x2545_f491u32;
        (0..(rate as f32 * seconds) as usize)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state as f32 / u32::MAX as f32 - 0.5) * 0.5
            })
            .collect()
    }

    fn curve(gain: impl Fn(usize) -> f32) -> ToneCurve {
        ToneCurve { gains_db: (0..BAND_CENTRES.len()).map(gain).collect() }
    }

    #[test]
    fn matching_brings_a_broad_balance_across() {
        let rate = 16_000;
        let flat = noise(rate, 3.0);
        // A microphone's broad tilt: 1 dB a band brighter from the bottom up.
        let bright = curve(|i| i as f32 - 9.0).apply(&flat, rate);
        let (target, voice) = (long_term_spectrum(&bright, rate).unwrap(), long_term_spectrum(&flat, rate).unwrap());
        let matched = ToneCurve::matching(&target, &voice, 30.0);
        let band = |c: f32| BAND_CENTRES.iter().position(|&b| b == c).unwrap();
        // 400 Hz to 2.5 kHz is eight bands: 8 dB.
        let lift = matched.gains_db[band(2500.0)] - matched.gains_db[band(400.0)];
        assert!((lift - 8.0).abs() < 1.0, "lift {lift}");
        let heard = long_term_spectrum(&matched.apply(&flat, rate), rate).unwrap();
        let balance = |s: &LongTermSpectrum| s.band_db[band(2500.0)] - s.band_db[band(400.0)];
        assert!((balance(&heard) - balance(&target)).abs() < 1.0);
        // Limits: a cap of 3 dB stops there; silence and short clips have no spectrum.
        assert!(ToneCurve::matching(&target, &voice, 3.0).largest_db() <= 3.0);
        assert!(long_term_spectrum(&vec![0.0; 20_000], rate).is_none());
        assert!(long_term_spectrum(&bright[..500], rate).is_none());
    }

    #[test]
    fn a_one_band_peak_is_softened() {
        let rate = 24_000;
        let flat = noise(rate, 3.0);
        for (hz, most) in [(250.0, 0.7), (1000.0, 0.7)] {
            let at = BAND_CENTRES.iter().position(|&b| b == hz).unwrap();
            let peaked = curve(|i| if i == at { 12.0 } else { 0.0 }).apply(&flat, rate);
            let (target, voice) = (long_term_spectrum(&peaked, rate).unwrap(), long_term_spectrum(&flat, rate).unwrap());
            let raw_peak = target.band_db[at] - voice.band_db[at];
            assert!(raw_peak > 8.0, "the peak is measured: {raw_peak}");
            let matched = ToneCurve::matching(&target, &voice, 30.0);
            assert!(matched.largest_db() < most * raw_peak, "{hz} Hz: {:?}", matched.gains_db);
            let in_detail = ToneCurve::matching_in_detail(&target, &voice, 30.0);
            assert!((in_detail.largest_db() - raw_peak).abs() < 0.5, "band by band, the peak stays: {:?}", in_detail.gains_db);
        }
    }

    #[test]
    fn only_the_bands_a_recording_carries_are_matched() {
        assert_eq!(bands_carried(24_000), BAND_CENTRES.len());
        assert_eq!(bands_carried(16_000), BAND_CENTRES.len() - 1, "8 kHz is past 0.9 of a 16 kHz file's Nyquist");
        assert_eq!(bands_carried(8_000), 16, "a phone's band ends at 3.15 kHz");
        assert!(long_term_spectrum(&noise(2_000, 3.0), 2_000).is_none(), "too few bands to match");
        // A 16 kHz recording, flat where it carries sound; a voice 10 dB
        // brighter in its top band than elsewhere keeps that top.
        let recording = long_term_spectrum(&noise(16_000, 3.0), 16_000).unwrap();
        let top = BAND_CENTRES.len() - 1;
        let voice = LongTermSpectrum { band_db: (0..BAND_CENTRES.len()).map(|i| if i == top { 10.0 } else { recording.band_db[i] }).collect() };
        let matched = ToneCurve::matching(&recording, &voice, 12.0);
        assert!(matched.largest_db() < 1.0, "no band is cut to what the file lacks: {:?}", matched.gains_db);
    }
}
