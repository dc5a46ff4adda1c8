//! Loudness for delivery: EBU R128 / ITU-R BS.1770 measurement (the
//! `ebur128` crate: K-weighting, 400 ms blocks, absolute and relative
//! gates; true peak by 4× oversampling), normalisation of a programme to a
//! target integrated loudness, and a true-peak limiter that holds the
//! result under a ceiling.
//!
//! Samples are interleaved f32 frames with a channel count; a mono
//! programme is measured as one front channel (weight 1, like ffmpeg's
//! `ebur128` filter), not as dual mono. A programme too short or too quiet
//! for the gates has no integrated loudness (`None`): it is limited but not
//! normalised.
//!
//! The limiter looks ahead: each frame's peak is the largest of its samples
//! and of the 4×-oversampled values around it (a windowed-sinc
//! interpolator), the gain each frame needs is held over the lookahead
//! window, released with a one-pole curve and then averaged over the
//! lookahead (the attack), so the gain falls smoothly *before* a peak and
//! rises slowly after it. Averaging only mixes gains that each already
//! suffice for the frame, so no frame ends above the ceiling; the result is
//! checked with the R128 true-peak meter and limited again from the input
//! with a lower internal ceiling in the rare case interpolation differences
//! leave it a hair over. A signal that never reaches the ceiling comes out
//! bit for bit unchanged. The mixer (`dub::mix`) and the exporter
//! (`dub::export`) hand programmes here; nothing here touches files.

use ebur128::{EbuR128, Mode};
use serde::{Deserialize, Serialize};

use revoice_core::error::{Error, Result};

/// What the R128 meter says about a programme.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Loudness {
    /// Integrated loudness, LUFS; `None` when the gates leave no block
    /// (silence, or under 400 ms of audio).
    pub integrated_lufs: Option<f64>,
    /// Largest true (inter-sample) peak over all channels, dBTP;
    /// `f64::NEG_INFINITY` for digital silence.
    pub true_peak_dbtp: f64,
}

/// A lookahead true-peak limiter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limiter {
    /// The highest true peak let through, dBTP (e.g. -1 for broadcast and
    /// lossy delivery).
    pub ceiling_dbtp: f64,
    /// How long before a peak the gain starts to fall (the attack), seconds.
    pub lookahead_s: f64,
    /// Time constant of the gain's way back up after a peak, seconds.
    pub release_s: f64,
}

impl Default for Limiter {
    fn default() -> Self {
        Limiter { ceiling_dbtp: -1.0, lookahead_s: 0.005, release_s: 0.15 }
    }
}

/// What [`Limiter::apply`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limiting {
    /// The deepest gain reduction applied, dB (0 when nothing was touched).
    pub max_reduction_db: f64,
    /// Frames whose gain was below unity.
    pub frames_reduced: usize,
}

/// What [`master`] did to a programme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mastering {
    /// Loudness as handed in.
    pub before: Loudness,
    /// Loudness of the result.
    pub after: Loudness,
    /// Gain applied before limiting, dB (0 when the programme had no
    /// integrated loudness).
    pub gain_db: f64,
    /// The limiter's work on the normalised programme.
    pub limiting: Limiting,
}

fn meter_error(what: &str, e: ebur128::Error) -> Error {
    Error::InvalidInput { input: "loudness measurement".into(), reason: format!("{what}: {e}") }
}

fn check_layout(samples: &[f32], channels: u16, sample_rate: u32) -> Result<()> {
    let fail = |reason: String| Err(Error::InvalidInput { input: "loudness measurement".into(), reason });
    if channels == 0 {
        return fail("a programme with 0 channels".into());
    }
    if sample_rate < 16 {
        return fail(format!("a sample rate of {sample_rate} Hz"));
    }
    if !samples.len().is_multiple_of(channels as usize) {
        return fail(format!("{} samples do not make whole frames of {channels} channels", samples.len()));
    }
    Ok(())
}

fn meter(samples: &[f32], channels: u16, sample_rate: u32, mode: Mode) -> Result<EbuR128> {
    check_layout(samples, channels, sample_rate)?;
    let mut meter = EbuR128::new(channels as u32, sample_rate, mode).map_err(|e| meter_error("cannot start the meter", e))?;
    // Chunks keep the meter's internal buffers small on long programmes.
    for chunk in samples.chunks(channels as usize * 65_536) {
        meter.add_frames_f32(chunk).map_err(|e| meter_error("cannot measure the samples", e))?;
    }
    Ok(meter)
}

fn integrated_of(meter: &EbuR128) -> Result<Option<f64>> {
    let lufs = meter.loudness_global().map_err(|e| meter_error("cannot read the integrated loudness", e))?;
    Ok(lufs.is_finite().then_some(lufs))
}

fn true_peak_of(meter: &EbuR128, channels: u16) -> Result<f64> {
    let mut peak = 0f64;
    for c in 0..channels as u32 {
        peak = peak.max(meter.true_peak(c).map_err(|e| meter_error("cannot read the true peak", e))?);
    }
    Ok(to_db(peak))
}

fn to_db(linear: f64) -> f64 {
    if linear > 0.0 {
        20.0 * linear.log10()
    } else {
        f64::NEG_INFINITY
    }
}

fn from_db(db: f64) -> f64 {
    10f64.powf(db / 20.0)
}

/// A delivered programme's loudness, as a loudness report states it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoudnessReport {
    /// Integrated loudness, LUFS (`None` when the gates leave nothing).
    pub integrated_lufs: Option<f64>,
    /// Loudness range (EBU Tech 3342), LU (`None` for too short a programme).
    pub loudness_range_lu: Option<f64>,
    /// Largest true peak, dBTP.
    pub true_peak_dbtp: f64,
    /// Loudest short-term (3 s) loudness, LUFS (`None` under 3 s).
    pub short_term_max_lufs: Option<f64>,
}

/// Integrated loudness, loudness range, true peak and short-term maximum
/// of interleaved `samples` (the short-term loudness read every 100 ms).
pub fn report(samples: &[f32], channels: u16, sample_rate: u32) -> Result<LoudnessReport> {
    check_layout(samples, channels, sample_rate)?;
    let mut meter =
        EbuR128::new(channels as u32, sample_rate, Mode::I | Mode::LRA | Mode::S | Mode::TRUE_PEAK).map_err(|e| meter_error("cannot start the meter", e))?;
    let step = channels as usize * (sample_rate as usize / 10).max(1);
    let mut short_term_max: Option<f64> = None;
    for (i, chunk) in samples.chunks(step).enumerate() {
        meter.add_frames_f32(chunk).map_err(|e| meter_error("cannot measure the samples", e))?;
        // The short-term window is whole from 3 s on.
        if (i + 1) * step >= 3 * sample_rate as usize * channels as usize {
            let now = meter.loudness_shortterm().map_err(|e| meter_error("cannot read the short-term loudness", e))?;
            if now.is_finite() {
                short_term_max = Some(short_term_max.map_or(now, |m| m.max(now)));
            }
        }
    }
    let range = meter.loudness_range().map_err(|e| meter_error("cannot read the loudness range", e))?;
    Ok(LoudnessReport {
        integrated_lufs: integrated_of(&meter)?,
        loudness_range_lu: (range.is_finite() && samples.len() / channels as usize >= 3 * sample_rate as usize).then_some(range),
        true_peak_dbtp: true_peak_of(&meter, channels)?,
        short_term_max_lufs: short_term_max,
    })
}

/// Integrated loudness and true peak of interleaved `samples`.
pub fn measure(samples: &[f32], channels: u16, sample_rate: u32) -> Result<Loudness> {
    let meter = meter(samples, channels, sample_rate, Mode::I | Mode::TRUE_PEAK)?;
    Ok(Loudness { integrated_lufs: integrated_of(&meter)?, true_peak_dbtp: true_peak_of(&meter, channels)? })
}

/// Integrated loudness (LUFS) of interleaved `samples`; `None` when the
/// gates leave nothing to measure.
pub fn integrated_lufs(samples: &[f32], channels: u16, sample_rate: u32) -> Result<Option<f64>> {
    integrated_of(&meter(samples, channels, sample_rate, Mode::I)?)
}

/// Largest true peak (dBTP) of interleaved `samples` over all channels.
pub fn true_peak_dbtp(samples: &[f32], channels: u16, sample_rate: u32) -> Result<f64> {
    true_peak_of(&meter(samples, channels, sample_rate, Mode::TRUE_PEAK)?, channels)
}

/// Scales `samples` so that their integrated loudness is `target_lufs`.
/// Returns the gain applied in dB, or `None` (samples untouched) when the
/// programme has no integrated loudness. Peaks are not limited here: see
/// [`master`].
pub fn normalize(samples: &mut [f32], channels: u16, sample_rate: u32, target_lufs: f64) -> Result<Option<f64>> {
    let Some(measured) = integrated_lufs(samples, channels, sample_rate)? else {
        return Ok(None);
    };
    let gain_db = target_lufs - measured;
    let gain = from_db(gain_db) as f32;
    samples.iter_mut().for_each(|s| *s *= gain);
    Ok(Some(gain_db))
}

/// Normalises `samples` to `target_lufs`, then holds their true peak under
/// the limiter's ceiling. When limiting pulls the loudness more than 0.2 dB
/// under the target, the shortfall is added to the gain and the programme
/// limited again (twice at most), so the target holds for programmes with
/// a few loud peaks.
pub fn master(samples: &mut [f32], channels: u16, sample_rate: u32, target_lufs: f64, limiter: &Limiter) -> Result<Mastering> {
    let before = measure(samples, channels, sample_rate)?;
    let Some(measured) = before.integrated_lufs else {
        let limiting = limiter.apply(samples, channels, sample_rate)?;
        let after = measure(samples, channels, sample_rate)?;
        return Ok(Mastering { before, after, gain_db: 0.0, limiting });
    };
    let input = samples.to_vec();
    let mut gain_db = target_lufs - measured;
    let mut round = 0;
    loop {
        let gain = from_db(gain_db) as f32;
        samples.iter_mut().zip(&input).for_each(|(s, &x)| *s = x * gain);
        let limiting = limiter.apply(samples, channels, sample_rate)?;
        let after = measure(samples, channels, sample_rate)?;
        let shortfall = after.integrated_lufs.map_or(0.0, |l| target_lufs - l);
        round += 1;
        if limiting.frames_reduced == 0 || shortfall <= 0.2 || round == 3 {
            return Ok(Mastering { before, after, gain_db, limiting });
        }
        gain_db += shortfall;
    }
}

impl Limiter {
    /// Limits interleaved `samples` in place so that their true peak stays
    /// at or under the ceiling. Channels share one gain (the stereo image
    /// does not move). A programme already under the ceiling is left
    /// exactly as it was.
    pub fn apply(&self, samples: &mut [f32], channels: u16, sample_rate: u32) -> Result<Limiting> {
        check_layout(samples, channels, sample_rate)?;
        if !(self.ceiling_dbtp.is_finite() && self.ceiling_dbtp <= 6.0) {
            return Err(Error::InvalidInput { input: "limiter ceiling".into(), reason: format!("{} dBTP is not a usable ceiling", self.ceiling_dbtp) });
        }
        let ch = channels as usize;
        let peaks = frame_peaks(samples, ch);
        let input = samples.to_vec();
        let mut ceiling_db = self.ceiling_dbtp;
        let mut result = Limiting { max_reduction_db: 0.0, frames_reduced: 0 };
        for _ in 0..4 {
            let gains = self.gains(&peaks, from_db(ceiling_db), sample_rate);
            let Some(gains) = gains else {
                return Ok(result);
            };
            for ((frame, source), &g) in samples.chunks_exact_mut(ch).zip(input.chunks_exact(ch)).zip(&gains) {
                frame.iter_mut().zip(source).for_each(|(s, &x)| *s = x * g);
            }
            let least = gains.iter().fold(1f32, |m, &g| m.min(g));
            result = Limiting { max_reduction_db: -to_db(least as f64), frames_reduced: gains.iter().filter(|&&g| g < 1.0).count() };
            let measured = true_peak_dbtp(samples, channels, sample_rate)?;
            let excess = measured - self.ceiling_dbtp;
            if excess <= 0.0 {
                break;
            }
            // The meter's interpolator saw a little more than ours: aim lower.
            ceiling_db -= excess + 0.01;
        }
        Ok(result)
    }

    /// Per-frame gains that hold `peaks` under `ceiling` (linear), or
    /// `None` when no frame needs any.
    fn gains(&self, peaks: &[f32], ceiling: f64, sample_rate: u32) -> Option<Vec<f32>> {
        let ceiling = ceiling as f32;
        if peaks.iter().all(|&p| p <= ceiling) {
            return None;
        }
        let n = peaks.len();
        let lookahead = ((self.lookahead_s.max(0.0) * sample_rate as f64).round() as usize).max(1);
        let needed = |i: usize| if i < n && peaks[i] > ceiling { ceiling / peaks[i] } else { 1.0 };
        let release = if self.release_s > 0.0 { (-1.0 / (self.release_s * sample_rate as f64)).exp() as f32 } else { 0.0 };

        // held[k]: the least gain needed over frames k-lookahead..=k (a
        // sliding minimum), then released: falls at once, rises slowly.
        let total = n + lookahead;
        let mut held = Vec::with_capacity(total);
        let mut window: std::collections::VecDeque<(usize, f32)> = std::collections::VecDeque::new();
        let mut level = 1f32;
        for k in 0..total {
            let g = needed(k);
            while window.back().is_some_and(|&(_, v)| v >= g) {
                window.pop_back();
            }
            window.push_back((k, g));
            while window.front().is_some_and(|&(j, _)| j + lookahead < k) {
                window.pop_front();
            }
            let least = window.front().map_or(1.0, |&(_, v)| v);
            level = if least < level { least } else { least + (level - least) * release };
            held.push(level);
        }
        // gain[i]: the mean of held[i..=i+lookahead]; every term covers frame
        // i, so the mean is no more than the gain frame i needs.
        let span = lookahead + 1;
        let mut sum: f64 = held[..span].iter().map(|&v| v as f64).sum();
        let mut gains = Vec::with_capacity(n);
        for i in 0..n {
            let mean = (sum / span as f64) as f32;
            gains.push(mean.min(needed(i)).min(1.0));
            if i + span < total {
                sum += held[i + span] as f64 - held[i] as f64;
            }
        }
        Some(gains)
    }
}

/// Half the interpolator's taps: 16 input samples each side.
const HALF_TAPS: usize = 16;
const OVERSAMPLING: usize = 4;

/// Kaiser-windowed sinc coefficients for the fractional positions k/4,
/// k = 1..3: `coefficients[k-1][t]` weighs input sample `i + t - HALF_TAPS + 1`
/// when interpolating at `i + k/4`.
fn interpolator() -> [[f32; 2 * HALF_TAPS]; OVERSAMPLING - 1] {
    fn bessel_i0(x: f64) -> f64 {
        let (mut sum, mut term) = (1.0, 1.0);
        for k in 1..40 {
            term *= (x / (2.0 * k as f64)).powi(2);
            sum += term;
        }
        sum
    }
    let beta = 8.0;
    let half = HALF_TAPS as f64;
    let mut c = [[0f32; 2 * HALF_TAPS]; OVERSAMPLING - 1];
    for (k, row) in c.iter_mut().enumerate() {
        let frac = (k + 1) as f64 / OVERSAMPLING as f64;
        for (t, w) in row.iter_mut().enumerate() {
            // Distance from the interpolated point to this input sample.
            let d = frac - (t as f64 - half + 1.0);
            let sinc = if d.abs() < 1e-12 { 1.0 } else { (std::f64::consts::PI * d).sin() / (std::f64::consts::PI * d) };
            let r = d / half;
            let window = if r.abs() < 1.0 { bessel_i0(beta * (1.0 - r * r).sqrt()) / bessel_i0(beta) } else { 0.0 };
            *w = (sinc * window) as f32;
        }
    }
    c
}

/// Each frame's peak over its channels: the sample itself and the
/// oversampled values on both sides of it (to the previous and the next
/// sample), so a peak between two samples counts for both.
fn frame_peaks(samples: &[f32], channels: usize) -> Vec<f32> {
    let n = samples.len() / channels;
    let coefficients = interpolator();
    let mut peaks = vec![0f32; n];
    let mut channel = Vec::with_capacity(n + 2 * HALF_TAPS);
    for c in 0..channels {
        channel.clear();
        channel.extend(std::iter::repeat_n(0f32, HALF_TAPS - 1));
        channel.extend(samples.iter().skip(c).step_by(channels));
        channel.extend(std::iter::repeat_n(0f32, HALF_TAPS + 1));
        let mut previous_between = 0f32;
        for (i, peak) in peaks.iter_mut().enumerate() {
            // channel[i + t] is input sample i + t - HALF_TAPS + 1.
            let taps = &channel[i..i + 2 * HALF_TAPS];
            let mut between = 0f32;
            for row in &coefficients {
                let v: f32 = taps.iter().zip(row).map(|(x, h)| x * h).sum();
                between = between.max(v.abs());
            }
            let own = channel[i + HALF_TAPS - 1].abs();
            *peak = peak.max(own).max(between).max(previous_between);
            previous_between = between;
        }
    }
    peaks
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    /// A 1 kHz sine of `amplitude` (BS.1770: a full-scale 1 kHz sine in one
    /// channel reads -3.01 LUFS).
    fn tone(amplitude: f32, seconds: f64) -> Vec<f32> {
        (0..(seconds * RATE as f64) as usize).map(|n| amplitude * (std::f32::consts::TAU * 1000.0 * n as f32 / RATE as f32).sin()).collect()
    }

    #[test]
    fn a_report_states_range_peak_and_the_loudest_three_seconds() {
        // 10 s at -20 dBFS then 10 s at -40 dBFS: two levels 20 LU apart.
        let mut programme = tone(0.1, 10.0);
        programme.extend(tone(0.01, 10.0));
        let r = report(&programme, 1, RATE).unwrap();
        let loud = -3.01 - 20.0;
        assert!((r.short_term_max_lufs.unwrap() - loud).abs() < 0.2, "{r:?}");
        assert!((r.true_peak_dbtp - -20.0).abs() < 0.2, "{r:?}");
        assert!(r.loudness_range_lu.unwrap() > 15.0, "{r:?}");
        // Under 3 s: no short-term maximum and no range.
        let short = report(&tone(0.1, 2.0), 1, RATE).unwrap();
        assert_eq!((short.short_term_max_lufs, short.loudness_range_lu), (None, None));
    }

    fn amplitude_for(lufs: f64) -> f32 {
        from_db(lufs + 3.01) as f32
    }

    #[test]
    fn a_tone_measures_at_its_calibrated_loudness() {
        let x = tone(amplitude_for(-30.0), 3.0);
        let lufs = integrated_lufs(&x, 1, RATE).unwrap().unwrap();
        assert!((lufs + 30.0).abs() < 0.1, "{lufs}");
    }

    #[test]
    fn a_minus_30_lufs_tone_normalised_to_minus_23_measures_minus_23() {
        let mut x = tone(amplitude_for(-30.0), 5.0);
        let gain = normalize(&mut x, 1, RATE, -23.0).unwrap().unwrap();
        assert!((gain - 7.0).abs() < 0.2, "gain {gain}");
        let lufs = integrated_lufs(&x, 1, RATE).unwrap().unwrap();
        assert!((lufs + 23.0).abs() < 0.5, "{lufs}");
    }

    #[test]
    fn silence_has_no_integrated_loudness_and_is_not_normalised() {
        let mut x = vec![0f32; RATE as usize * 2];
        assert_eq!(normalize(&mut x, 1, RATE, -23.0).unwrap(), None);
        assert!(x.iter().all(|&s| s == 0.0));
        assert_eq!(measure(&x, 1, RATE).unwrap().true_peak_dbtp, f64::NEG_INFINITY);
    }

    #[test]
    fn the_limiter_keeps_a_hot_signals_true_peak_under_the_ceiling() {
        // A loud tone with inter-sample peaks (fs/4 + a bit, phase-shifted)
        // and a burst 12 dB over the ceiling in the middle.
        let mut x: Vec<f32> = (0..RATE as usize * 2).map(|n| 0.7 * (std::f32::consts::TAU * 11_025.0 * n as f32 / RATE as f32 + 0.7).sin()).collect();
        for (n, s) in x.iter_mut().enumerate().skip(RATE as usize / 2).take(RATE as usize / 4) {
            *s = 2.5 * (std::f32::consts::TAU * 440.0 * n as f32 / RATE as f32).sin();
        }
        let limiter = Limiter::default();
        let done = limiter.apply(&mut x, 1, RATE).unwrap();
        let peak = true_peak_dbtp(&x, 1, RATE).unwrap();
        assert!(peak <= limiter.ceiling_dbtp + 0.1, "true peak {peak:.2} dBTP");
        assert!(done.max_reduction_db > 8.0 && done.frames_reduced > 0, "{done:?}");
    }

    #[test]
    fn the_limiter_leaves_a_quiet_signal_untouched() {
        let x = tone(0.3, 1.0);
        let mut y = x.clone();
        let done = Limiter::default().apply(&mut y, 1, RATE).unwrap();
        assert_eq!(y, x);
        assert_eq!(done.frames_reduced, 0);
    }

    #[test]
    fn the_limiters_gain_falls_before_a_peak_and_recovers_smoothly_after_it() {
        // Quiet tone with one loud click: the gain must already be down at
        // the click (lookahead) and come back over the release, without steps.
        let mut x = tone(0.1, 1.0);
        let click = RATE as usize / 2;
        x[click] = 1.0;
        let original = x.clone();
        let limiter = Limiter { ceiling_dbtp: -6.0, lookahead_s: 0.005, release_s: 0.05 };
        limiter.apply(&mut x, 1, RATE).unwrap();
        let gain = |i: usize| x[i] / original[i];
        assert!(x[click] <= from_db(-6.0) as f32 + 1e-4, "{}", x[click]);
        // Well before the lookahead: untouched; within it: already falling.
        let lookahead = (0.005 * RATE as f64) as usize;
        let early = click - 2 * lookahead;
        assert_eq!(x[early], original[early]);
        let mid = click - lookahead / 2 + 12; // a crest of the tone
        assert!(original[mid].abs() > 0.01 && gain(mid) < 0.99, "{}", gain(mid));
        // After: back within 1 % of unity after five release constants, and
        // the gain never jumps by more than 5 % from one sample to the next.
        let later = click + (0.25 * RATE as f64) as usize;
        assert!((gain(later) - 1.0).abs() < 0.01 || original[later].abs() < 1e-3);
        let steps = (click - lookahead..later).filter(|&i| original[i].abs() > 0.02 && original[i + 1].abs() > 0.02);
        for i in steps {
            assert!((gain(i + 1) - gain(i)).abs() < 0.05, "step at {i}: {} → {}", gain(i), gain(i + 1));
        }
    }

    #[test]
    fn mastering_reaches_the_target_and_the_ceiling_together() {
        // Quiet speech-like bursts with a few loud peaks, mastered to -16 LUFS.
        let mut x: Vec<f32> = (0..RATE as usize * 6)
            .map(|n| {
                let t = n as f32 / RATE as f32;
                let envelope = if (t * 2.0).fract() < 0.6 { 1.0 } else { 0.05 };
                let spike = if n % (RATE as usize) < 200 { 8.0 } else { 1.0 };
                0.05 * envelope * spike * (std::f32::consts::TAU * 220.0 * t).sin()
            })
            .collect();
        let done = master(&mut x, 1, RATE, -16.0, &Limiter::default()).unwrap();
        let after = measure(&x, 1, RATE).unwrap();
        assert!((after.integrated_lufs.unwrap() + 16.0).abs() < 0.5, "{after:?}");
        assert!(after.true_peak_dbtp <= -1.0 + 0.1, "{after:?}");
        assert_eq!(done.after, after);
    }

    #[test]
    fn stereo_frames_share_one_gain() {
        let left = tone(1.5, 1.0);
        let right = tone(0.2, 1.0);
        let mut x: Vec<f32> = left.iter().zip(&right).flat_map(|(&l, &r)| [l, r]).collect();
        Limiter::default().apply(&mut x, 2, RATE).unwrap();
        for (frame, (&l, &r)) in x.chunks_exact(2).zip(left.iter().zip(&right)).skip(1000).step_by(97) {
            if r.abs() > 0.05 {
                assert!((frame[0] / l - frame[1] / r).abs() < 1e-3);
            }
        }
        assert!(true_peak_dbtp(&x, 2, RATE).unwrap() <= -0.9);
    }
}
