//! Sample-rate conversion of a whole buffer (rubato): the speaker encoder
//! wants 16 kHz, recordings come at 44.1 or 48 kHz, Kokoro renders at 24 kHz.
//! A windowed-sinc resampler (256 taps, Blackman-Harris², cubic
//! interpolation between 256 oversampled filter phases). Rubato trims its
//! start-up delay in whole output frames, so the output lines up with the
//! input to within one output sample (a fraction of a millisecond): nothing
//! here depends on sub-sample alignment.

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Async, FixedAsync, Resampler, SincInterpolationParameters, SincInterpolationType, WindowFunction};

use revoice_core::error::{Error, Result};

/// Filter phases the sinc is tabulated at, per input sample.
const PHASES: usize = 256;

/// Between the tabulated phases, cubic interpolation; but where every
/// output sample falls on a tabulated phase (the output rate over the
/// rates' common divisor divides [`PHASES`]: 24 or 48 kHz to 16 kHz, the
/// speaker encoder's and the judges' everyday case), the phase itself, the
/// same filter at a quarter of the work.
fn interpolation(from: u32, to: u32) -> SincInterpolationType {
    let (mut a, mut b) = (from, to);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    match PHASES as u32 % (to / a) {
        0 => SincInterpolationType::Nearest,
        _ => SincInterpolationType::Cubic,
    }
}

/// Resamples mono `samples` from `from` Hz to `to` Hz. The output has
/// `ceil(len · to / from)` samples; equal rates return a copy.
pub fn resample(samples: &[f32], from: u32, to: u32) -> Result<Vec<f32>> {
    let fail = |reason: String| Error::InvalidInput { input: format!("resampling {from} Hz to {to} Hz"), reason };
    if from == 0 || to == 0 {
        return Err(fail("a sample rate of 0 Hz".into()));
    }
    if from == to || samples.is_empty() {
        return Ok(samples.to_vec());
    }
    let params = SincInterpolationParameters::new(256, WindowFunction::BlackmanHarris2).oversampling_factor(PHASES).interpolation(interpolation(from, to));
    let mut resampler = Async::<f32>::new_sinc(to as f64 / from as f64, 1.0, &params, 1024, 1, FixedAsync::Input)
        .map_err(|e| fail(format!("cannot build the resampler: {e}")))?;
    let input = InterleavedSlice::new(samples, 1, samples.len()).map_err(|e| fail(e.to_string()))?;
    let out = resampler.process_all(&input, samples.len(), None).map_err(|e| fail(e.to_string()))?;
    Ok(out.take_data())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(freq: f32, rate: u32, seconds: f32) -> Vec<f32> {
        (0..(rate as f32 * seconds) as usize).map(|n| (2.0 * std::f32::consts::PI * freq * n as f32 / rate as f32).sin()).collect()
    }

    #[test]
    fn a_tone_keeps_its_pitch_phase_and_level_across_rates() {
        let input = tone(440.0, 48000, 1.0);
        let out = resample(&input, 48000, 16000).unwrap();
        assert_eq!(out.len(), 16000);
        // Away from the edges the output is the same tone at the same level, in
        // phase to within one output sample.
        let best = (-100..=100)
            .map(|k| {
                let lag = k as f32 / 100.0;
                (500..15500).map(|n| (out[n] - (2.0 * std::f32::consts::PI * 440.0 * (n as f32 + lag) / 16000.0).sin()).abs()).fold(0f32, f32::max)
            })
            .fold(f32::MAX, f32::min);
        assert!(best < 2e-3, "largest difference {best}");
    }

    #[test]
    fn content_above_the_new_nyquist_is_filtered_out() {
        let input = tone(10_000.0, 48000, 0.5);
        let out = resample(&input, 48000, 16000).unwrap();
        let rms = (out[400..7600].iter().map(|v| v * v).sum::<f32>() / 7200.0).sqrt();
        assert!(rms < 1e-3, "a 10 kHz tone leaks through at rms {rms}");
    }

    #[test]
    fn where_outputs_fall_on_tabulated_phases_the_phase_itself_is_the_cubic_result() {
        assert!(matches!(interpolation(24_000, 16_000), SincInterpolationType::Nearest));
        assert!(matches!(interpolation(48_000, 16_000), SincInterpolationType::Nearest));
        assert!(matches!(interpolation(44_100, 16_000), SincInterpolationType::Cubic));
        assert!(matches!(interpolation(16_000, 24_000), SincInterpolationType::Cubic));
        // Speech-like input: a chirp under noise.
        let input: Vec<f32> = (0..24_000u32)
            .map(|n| (0.002 * n as f32 * n as f32 / 24_000.0).sin() * 0.5 + ((n.wrapping_mul(2_654_435_761) >> 16) as f32 / 65536.0 - 0.5) * 0.1)
            .collect();
        let quick = resample(&input, 24_000, 16_000).unwrap();
        let params =
            SincInterpolationParameters::new(256, WindowFunction::BlackmanHarris2).oversampling_factor(PHASES).interpolation(SincInterpolationType::Cubic);
        let mut cubic = Async::<f32>::new_sinc(16_000.0 / 24_000.0, 1.0, &params, 1024, 1, FixedAsync::Input).unwrap();
        let slice = InterleavedSlice::new(&input, 1, input.len()).unwrap();
        let cubic = cubic.process_all(&slice, input.len(), None).unwrap().take_data();
        assert_eq!(quick.len(), cubic.len());
        let worst = quick.iter().zip(&cubic).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(worst < 1e-5, "largest difference {worst}");
    }

    #[test]
    fn upsampling_gives_the_proportional_length() {
        let out = resample(&tone(300.0, 16000, 0.5), 16000, 24000).unwrap();
        assert_eq!(out.len(), 12000);
        assert_eq!(resample(&[0.5; 10], 16000, 16000).unwrap(), vec![0.5; 10]);
        assert!(resample(&[0.5; 10], 0, 16000).is_err());
    }
}
