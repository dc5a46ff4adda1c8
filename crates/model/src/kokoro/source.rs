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
        let mut sines = vec![0f32; frames * up];
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
                    let rad = ((h + 1) as f64 * f as f64 / self.sample_rate as f64).rem_euclid(1.0);
                    acc += rad + if i == 0 { start } else { 0.0 };
                    acc * 2.0 * std::f64::consts::PI * up as f64
                })
                .collect();
            interpolate_linear(&phase, up, &mut sines);
            let w = self.weights[h];
            for (o, p) in out.iter_mut().zip(&sines) {
                *o += w * (p.sin() * SINE_AMP);
            }
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

/// Linear interpolation by an integer factor with torch's `align_corners =
/// false` convention: sample `n` reads source position `(n + ½)/up − ½`.
fn interpolate_linear(values: &[f64], up: usize, out: &mut [f32]) {
    let last = values.len() - 1;
    for (n, o) in out.iter_mut().enumerate() {
        let src = ((n as f64 + 0.5) / up as f64 - 0.5).max(0.0);
        let i0 = (src.floor() as usize).min(last);
        let i1 = (i0 + 1).min(last);
        let lambda = src - i0 as f64;
        let v = values[i0] * (1.0 - lambda) + values[i1] * lambda;
        // Reduce before narrowing so the sine stays accurate for long lines.
        *o = v.rem_euclid(2.0 * std::f64::consts::PI) as f32;
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
}
