//! The harmonic source of the neural source-filter vocoder: a sum of sines
//! at F0 and its overtones, voiced where F0 is above 10 Hz, merged by a
//! learned linear layer and `tanh`. The phase is accumulated per F0 frame
//! and interpolated to samples, as upstream does. Noise is optional and
//! seeded, so the same seed always gives the same audio; with no noise the
//! source matches the ONNX export, which dropped the random terms.

use candle_core::{DType, Result, Tensor};
use candle_nn::VarBuilder;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

use crate::fast_math::fast_sin;

/// Amplitude of each sine.
const SINE_AMP: f32 = 0.1;
/// Std of the noise added to voiced samples.
const VOICED_NOISE_STD: f32 = 0.003;
/// F0 above this is voiced.
const VOICED_THRESHOLD: f32 = 10.0;

/// `SourceModuleHnNSF`: sines → linear (`[1, harmonics]`) → tanh.
#[derive(Debug, Clone)]
pub struct HarmonicSource {
    weights: Vec<f32>,
    bias: f32,
    sample_rate: f32,
    upsample: usize,
}

/// How the source adds noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SourceNoise {
    /// None: deterministic, like the ONNX export.
    Off,
    /// Upstream's noise (and random start phases), from this seed.
    Seeded(u64),
}

impl HarmonicSource {
    /// Loads `l_linear` from the `m_source` prefix.
    pub fn new(vb: VarBuilder, sample_rate: u32, upsample: usize) -> Result<Self> {
        let l = vb.pp("l_linear");
        let weights = l.get_unchecked_dtype("weight", DType::F32)?.flatten_all()?.to_vec1::<f32>()?;
        let bias = l.get_unchecked_dtype("bias", DType::F32)?.flatten_all()?.to_vec1::<f32>()?[0];
        Ok(HarmonicSource { weights, bias, sample_rate: sample_rate as f32, upsample })
    }

    /// The source signal for an F0 curve (Hz per F0 frame): `f0.len() · upsample` samples.
    pub fn generate(&self, f0: &[f32], noise: SourceNoise) -> Vec<f32> {
        let frames = f0.len();
        let up = self.upsample;
        let harmonics = self.weights.len();
        let mut rng = match noise {
            SourceNoise::Seeded(seed) => Some(rand::rngs::StdRng::seed_from_u64(seed)),
            SourceNoise::Off => None,
        };
        let mut out = vec![0f32; frames * up];
        for h in 0..harmonics {
            // Phase per frame: cumulative sum of (h+1)·f0/sr (mod 1), scaled back to samples.
            let mut acc = 0f64;
            let start = match (&mut rng, h) {
                (Some(r), h) if h > 0 => r.random::<f64>(),
                _ => 0.0,
            };
            let phase: Vec<f64> = f0
                .iter()
                .enumerate()
                .map(|(i, &f)| {
                    let cycles = (h + 1) as f64 * f as f64 / self.sample_rate as f64;
                    let rad = cycles - cycles.floor();
                    acc += rad + if i == 0 { start } else { 0.0 };
                    acc * 2.0 * std::f64::consts::PI * up as f64
                })
                .collect();
            add_sine(&phase, up, self.weights[h], &mut out);
        }
        // Voicing and noise act on the sines before the merge; the merge is
        // linear, so apply them to the merged sum per sample.
        for (n, o) in out.iter_mut().enumerate() {
            let voiced = f0[n / up] > VOICED_THRESHOLD;
            let mut v = if voiced { *o } else { 0.0 };
            if let Some(r) = &mut rng {
                let amp = if voiced { VOICED_NOISE_STD } else { SINE_AMP / 3.0 };
                // Each harmonic gets its own noise; their merged sum is one
                // normal draw with the weights' combined std.
                let combined: f32 = self.weights.iter().map(|w| w * w).sum::<f32>().sqrt();
                let z: f32 = r.sample(StandardNormal);
                v += amp * combined * z;
            }
            *o = (v + self.bias).tanh();
        }
        out
    }
}

/// Adds `weight · SINE_AMP · sin(phase)` onto `out`, the phase given per
/// frame and interpolated to samples (compiled for AVX-512 where present).
fn add_sine(phase: &[f64], up: usize, weight: f32, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::fast_math::has_avx512() {
        // SAFETY: the CPU has AVX-512F (checked above).
        return unsafe { add_sine_avx512(phase, up, weight, out) };
    }
    add_sine_any(phase, up, weight, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn add_sine_avx512(phase: &[f64], up: usize, weight: f32, out: &mut [f32]) {
    add_sine_any(phase, up, weight, out)
}

/// Linear interpolation by an integer factor with torch's `align_corners =
/// false` convention (sample `n` reads source position `(n + ½)/up − ½`),
/// taken one frame's stretch of samples at a time so the loop has no
/// gathers; the phase is reduced to one turn in f64 before the f32 sine,
/// so the sine stays accurate on long lines.
#[inline(always)]
fn add_sine_any(phase: &[f64], up: usize, weight: f32, out: &mut [f32]) {
    const TAU: f64 = std::f64::consts::TAU;
    let last = phase.len() - 1;
    let position = |n: usize| ((n as f64 + 0.5) / up as f64 - 0.5).max(0.0);
    let mut n = 0;
    while n < out.len() {
        let i0 = (position(n).floor() as usize).min(last);
        // The samples up to the next frame's position interpolate between the same two.
        let end = if i0 == last { out.len() } else { ((((i0 + 1) as f64 + 0.5) * up as f64 - 0.5).ceil() as usize).clamp(n + 1, out.len()) };
        let (p0, p1) = (phase[i0], phase[(i0 + 1).min(last)]);
        for (k, o) in out[n..end].iter_mut().enumerate() {
            let lambda = position(n + k) - i0 as f64;
            let v = p0 * (1.0 - lambda) + p1 * lambda;
            let turn = v - (v * (1.0 / TAU)).floor() * TAU;
            *o += weight * (fast_sin(turn as f32) * SINE_AMP);
        }
        n = end;
    }
}

/// `[1, samples]` tensor of the source, for the generator.
pub fn to_tensor(source: Vec<f32>, device: &candle_core::Device) -> Result<Tensor> {
    let n = source.len();
    Tensor::from_vec(source, (1, n), device)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> HarmonicSource {
        HarmonicSource { weights: vec![1.0, 0.0, 0.0], bias: 0.0, sample_rate: 24_000.0, upsample: 300 }
    }

    #[test]
    fn a_steady_voiced_f0_gives_a_sine_at_that_frequency() {
        let out = source().generate(&[200.0; 20], SourceNoise::Off);
        assert_eq!(out.len(), 6000);
        // Count rising zero crossings over the middle 4800 samples (0.2 s): 200 Hz → 40.
        let mid = &out[600..5400];
        let crossings = mid.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
        assert!((39..=41).contains(&crossings), "{crossings}");
        let peak = mid.iter().fold(0f32, |m, v| m.max(v.abs()));
        assert!((peak - (0.1f32).tanh()).abs() < 1e-3, "{peak}");
    }

    #[test]
    fn unvoiced_frames_are_silent_without_noise_and_seeded_noise_repeats() {
        let s = source();
        let f0 = [0.0, 0.0, 150.0, 150.0];
        let quiet = s.generate(&f0, SourceNoise::Off);
        assert!(quiet[..600].iter().all(|&v| v == 0.0));
        let a = s.generate(&f0, SourceNoise::Seeded(7));
        let b = s.generate(&f0, SourceNoise::Seeded(7));
        let c = s.generate(&f0, SourceNoise::Seeded(8));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a[..600].iter().any(|&v| v != 0.0));
    }

    /// The stretch-by-stretch loop against the plain per-sample definition
    /// (libm's sine in f64), for an odd and an even factor and a phase that
    /// runs to thousands of radians.
    #[test]
    fn the_sine_follows_the_interpolated_phase_sample_by_sample() {
        for up in [7usize, 300] {
            let phase: Vec<f64> = (0..40).map(|i| 3.0 * i as f64 * i as f64 + 0.37 * i as f64).collect();
            let mut got = vec![0.5f32; phase.len() * up];
            add_sine(&phase, up, 2.0, &mut got);
            let last = phase.len() - 1;
            for (n, &g) in got.iter().enumerate() {
                let src = ((n as f64 + 0.5) / up as f64 - 0.5).max(0.0);
                let i0 = (src.floor() as usize).min(last);
                let lambda = src - i0 as f64;
                let v = phase[i0] * (1.0 - lambda) + phase[(i0 + 1).min(last)] * lambda;
                let want = 0.5 + 2.0 * SINE_AMP as f64 * v.sin();
                assert!((g as f64 - want).abs() < 2e-6, "up {up} sample {n}: {g} vs {want}");
            }
        }
    }
}
