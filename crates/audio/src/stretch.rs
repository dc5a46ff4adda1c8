//! Time-stretching that keeps pitch (WSOLA: waveform-similarity
//! overlap-add). Output frames are Hann-windowed pieces of the input taken
//! at `rate` times the output's pace; each piece is shifted within a small
//! tolerance to where it best continues the previous one, so periodic
//! speech lines up instead of beating. Used to fit dubbed lines to their
//! slots at rates near 1 (0.85–1.25).

/// Frame length in seconds (speech: a couple of pitch periods or more).
const FRAME_SECONDS: f64 = 0.03;
/// How far a frame may move to line up, seconds.
const TOLERANCE_SECONDS: f64 = 0.008;

/// `samples` played `rate` times faster (2.0 = half as long), pitch kept.
/// The output lasts `samples.len() / rate` samples, rounded.
pub fn stretch(samples: &[f32], sample_rate: u32, rate: f64) -> Vec<f32> {
    assert!(rate.is_finite() && rate > 0.0, "rate must be positive, got {rate}");
    let out_len = (samples.len() as f64 / rate).round() as usize;
    if (rate - 1.0).abs() < 1e-6 || samples.len() < 4 {
        let mut out = samples.to_vec();
        out.resize(out_len, 0.0);
        return out;
    }
    let frame = ((FRAME_SECONDS * sample_rate as f64) as usize).max(16) & !1;
    let hop = frame / 2;
    let tolerance = (TOLERANCE_SECONDS * sample_rate as f64) as isize;
    let window: Vec<f32> = (0..frame).map(|i| (0.5 - 0.5 * (std::f64::consts::TAU * i as f64 / frame as f64).cos()) as f32).collect();
    let at = |i: isize| if i >= 0 && (i as usize) < samples.len() { samples[i as usize] } else { 0.0 };

    let mut out = vec![0f32; out_len + frame];
    let mut weight = vec![0f32; out_len + frame];
    // Where the previous frame was taken from; its natural continuation
    // is `hop` samples further on.
    let mut previous: isize = 0;
    let frames = out_len.div_ceil(hop) + 1;
    for k in 0..frames {
        let nominal = (k as f64 * hop as f64 * rate).round() as isize;
        let source = if k == 0 {
            0
        } else {
            let target = previous + hop as isize;
            best_offset(&at, target, nominal, tolerance, frame)
        };
        let base = k * hop;
        for i in 0..frame {
            if base + i < out.len() {
                out[base + i] += at(source + i as isize) * window[i];
                weight[base + i] += window[i];
            }
        }
        previous = source;
    }
    out.truncate(out_len);
    for (o, w) in out.iter_mut().zip(&weight) {
        if *w > 1e-3 {
            *o /= w;
        }
    }
    out
}

/// The start near `nominal` (± `tolerance`) whose frame best matches the
/// one starting at `target` (the previous frame's continuation), by
/// cross-correlation over every other sample.
fn best_offset(at: &impl Fn(isize) -> f32, target: isize, nominal: isize, tolerance: isize, frame: usize) -> isize {
    let mut best = nominal;
    let mut best_score = f32::NEG_INFINITY;
    for delta in -tolerance..=tolerance {
        let candidate = nominal + delta;
        let mut score = 0f32;
        for i in (0..frame as isize).step_by(2) {
            score += at(target + i) * at(candidate + i);
        }
        if score > best_score {
            best_score = score;
            best = candidate;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(freq: f64, seconds: f64, rate: u32) -> Vec<f32> {
        (0..(seconds * rate as f64) as usize).map(|i| (std::f64::consts::TAU * freq * i as f64 / rate as f64).sin() as f32 * 0.5).collect()
    }

    /// Frequency from upward zero crossings in the middle half.
    fn frequency(x: &[f32], rate: u32) -> f64 {
        let mid = &x[x.len() / 4..3 * x.len() / 4];
        let crossings: Vec<usize> = (1..mid.len()).filter(|&i| mid[i - 1] < 0.0 && mid[i] >= 0.0).collect();
        let span = (crossings[crossings.len() - 1] - crossings[0]) as f64;
        (crossings.len() - 1) as f64 * rate as f64 / span
    }

    #[test]
    fn stretching_changes_the_length_and_keeps_the_pitch() {
        let rate = 24_000;
        let x = sine(220.0, 1.0, rate);
        for r in [0.85, 1.1, 1.25] {
            let y = stretch(&x, rate, r);
            assert_eq!(y.len(), (x.len() as f64 / r).round() as usize);
            let f = frequency(&y, rate);
            assert!((f - 220.0).abs() < 220.0 * 0.01, "rate {r}: {f:.1} Hz");
            // No dropouts or blow-ups in the steady part.
            let mid = &y[y.len() / 4..3 * y.len() / 4];
            let peak = mid.iter().fold(0f32, |m, v| m.max(v.abs()));
            assert!((0.4..0.6).contains(&peak), "rate {r}: peak {peak}");
        }
    }

    #[test]
    fn rate_one_returns_the_input() {
        let x = sine(100.0, 0.1, 24_000);
        assert_eq!(stretch(&x, 24_000, 1.0), x);
    }
}
