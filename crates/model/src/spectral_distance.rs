//! The distance `revoice_audio::cepstrum` measures between a voice and a
//! recording saying the same words (mel-cepstral distortion after dynamic
//! time warping), as candle operations that carry gradients from the
//! voice's samples: what a fit descends to move a timbre towards the
//! recording. The analysis is the same (80 HTK-mel bands of the natural-log
//! magnitude, n_fft 1024, hop 256, c1..=24 of an orthonormal DCT over the
//! bands below the recording's band top, frames more than 40 dB below the
//! loudest left out); the frames are padded with zeros rather than
//! reflected, and the warping path is found on each call's values and held
//! fixed for its gradient.

use candle_core::{Device, Tensor};
use revoice_audio::cepstrum::{dct_matrix, COEFFICIENTS, SILENCE_DB};
use revoice_audio::compare::{bands_below, mel_filterbank, HOP, LOG_FLOOR, N_FFT};

use crate::whisper::align::dtw;

/// The mel-cepstral analysis at one sample rate, over the lowest bands.
struct Analysis {
    /// Windowed DFT rows `[2·bins, 1, n_fft]`: cosines, then negated sines.
    dft: Tensor,
    /// `[bands, bins]`.
    filterbank: Tensor,
    /// `[COEFFICIENTS, bands]`: DCT rows 1..=COEFFICIENTS.
    dct: Tensor,
}

impl Analysis {
    fn new(sample_rate: u32, bands: usize) -> candle_core::Result<Analysis> {
        let bins = N_FFT / 2 + 1;
        let mut dft = vec![0f32; 2 * bins * N_FFT];
        for k in 0..bins {
            for i in 0..N_FFT {
                let window = 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / N_FFT as f64).cos();
                let angle = 2.0 * std::f64::consts::PI * (k * i) as f64 / N_FFT as f64;
                dft[k * N_FFT + i] = (angle.cos() * window) as f32;
                dft[(bins + k) * N_FFT + i] = (-angle.sin() * window) as f32;
            }
        }
        let filterbank: Vec<f32> = mel_filterbank(sample_rate).iter().take(bands).flatten().map(|w| *w as f32).collect();
        let dct: Vec<f32> = dct_matrix(bands).iter().skip(1).flatten().map(|w| *w as f32).collect();
        let device = Device::Cpu;
        Ok(Analysis {
            dft: Tensor::from_vec(dft, (2 * bins, 1, N_FFT), &device)?,
            filterbank: Tensor::from_vec(filterbank, (bands, bins), &device)?,
            dct: Tensor::from_vec(dct, (COEFFICIENTS, bands), &device)?,
        })
    }

    /// The cepstra `[frames, COEFFICIENTS]` of the frames of `audio`
    /// `[samples]` that are not silence; `None` when none is sound.
    fn voiced_cepstra(&self, audio: &Tensor) -> candle_core::Result<Option<Tensor>> {
        let bins = N_FFT / 2 + 1;
        let padded = audio.reshape((1, 1, ()))?.pad_with_zeros(2, N_FFT / 2, N_FFT / 2)?;
        let spectrum = padded.conv1d(&self.dft, 0, HOP, 1, 1)?.squeeze(0)?;
        let power = (spectrum.narrow(0, 0, bins)?.sqr()? + spectrum.narrow(0, bins, bins)?.sqr()?)?;
        let magnitude = (power + 1e-12)?.sqrt()?;
        let log_mel = (self.filterbank.matmul(&magnitude)? + LOG_FLOOR.exp())?.log()?;
        // The frame's level (c0 over the orthonormal DCT, as a mean log level) decides what is silence.
        let level = log_mel.mean(0)?.to_vec1::<f32>()?;
        let loudest = level.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let floor = (loudest - SILENCE_DB as f32 * std::f32::consts::LN_10 / 20.0).max(LOG_FLOOR as f32 + 1.0);
        let voiced: Vec<u32> = (0..level.len() as u32).filter(|&f| level[f as usize] >= floor).collect();
        if voiced.is_empty() {
            return Ok(None);
        }
        let cepstra = self.dct.matmul(&log_mel)?.t()?.contiguous()?;
        Ok(Some(cepstra.index_select(&Tensor::new(voiced.as_slice(), audio.device())?, 0)?.contiguous()?))
    }
}

/// A recording of some words, as a voice saying the same words is measured
/// against it.
pub struct SpectralTarget {
    analysis: Analysis,
    /// The recording's voiced cepstra, `[frames, COEFFICIENTS]`, and as rows.
    cepstra: Tensor,
    rows: Vec<Vec<f32>>,
}

impl SpectralTarget {
    /// The target of `recording` at `sample_rate`, compared below `top_hz`;
    /// `None` when it holds no sound or too few bands lie below `top_hz`.
    pub fn new(recording: &[f32], sample_rate: u32, top_hz: f64) -> candle_core::Result<Option<SpectralTarget>> {
        let bands = bands_below(sample_rate, top_hz);
        if bands <= COEFFICIENTS || recording.len() <= N_FFT / 2 {
            return Ok(None);
        }
        let analysis = Analysis::new(sample_rate, bands)?;
        let Some(cepstra) = analysis.voiced_cepstra(&Tensor::new(recording, &Device::Cpu)?)? else { return Ok(None) };
        let rows = cepstra.to_vec2::<f32>()?;
        Ok(Some(SpectralTarget { analysis, cepstra, rows }))
    }

    /// The mel-cepstral distortion in dB of `voice` `[samples]` from the
    /// recording, as a scalar tensor whose gradient reaches `voice`; `None`
    /// when `voice` holds no sound.
    pub fn distance(&self, voice: &Tensor) -> candle_core::Result<Option<Tensor>> {
        let Some(cepstra) = self.analysis.voiced_cepstra(voice)? else { return Ok(None) };
        let values = cepstra.to_vec2::<f32>()?;
        let cost: Vec<Vec<f32>> =
            values.iter().map(|a| self.rows.iter().map(|b| a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt()).collect()).collect();
        let (ours, theirs): (Vec<u32>, Vec<u32>) = dtw(&cost).into_iter().map(|(i, j)| (i as u32, j as u32)).unzip();
        let device = voice.device();
        let a = cepstra.index_select(&Tensor::new(ours.as_slice(), device)?, 0)?;
        let b = self.cepstra.index_select(&Tensor::new(theirs.as_slice(), device)?, 0)?;
        // The ε keeps the square root's gradient finite where frames agree.
        let steps = ((a - b)?.sqr()?.sum(1)? + 1e-6)?.sqrt()?.mean_all()?;
        Ok(Some((steps * (10.0 / std::f64::consts::LN_10 * 2f64.sqrt()))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Var;

    const RATE: u32 = 24_000;

    /// A vowel-like buzz: harmonics of `f0` under a formant at `formant` Hz.
    fn vowel(f0: f32, formant: f32, seconds: f32) -> Vec<f32> {
        let n = (seconds * RATE as f32) as usize;
        (0..n)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                (1..30)
                    .map(|h| {
                        let f = f0 * h as f32;
                        let gain = (-((f - formant) / 400.0).powi(2)).exp();
                        gain * (2.0 * std::f32::consts::PI * f * t).sin()
                    })
                    .sum::<f32>()
                    * 0.05
            })
            .collect()
    }

    #[test]
    fn the_distance_agrees_with_the_measure_and_its_gradient_leads_towards_the_recording() {
        let recording = vowel(120.0, 700.0, 0.8);
        let voice = vowel(120.0, 1100.0, 0.8);
        let target = SpectralTarget::new(&recording, RATE, 11_000.0).unwrap().unwrap();
        let ours = target.distance(&Tensor::new(voice.as_slice(), &Device::Cpu).unwrap()).unwrap().unwrap().to_scalar::<f32>().unwrap();
        let measured = revoice_audio::cepstrum::mel_cepstral_distortion_below(&recording, &voice, RATE, 11_000.0).unwrap();
        assert!((ours as f64 - measured).abs() < 0.1 * measured, "{ours} against {measured}");
        let itself = target.distance(&Tensor::new(recording.as_slice(), &Device::Cpu).unwrap()).unwrap().unwrap().to_scalar::<f32>().unwrap();
        assert!(itself < 0.1, "the recording against itself: {itself}");
        // A small step down the gradient brings the voice nearer.
        let samples = Var::new(voice.as_slice(), &Device::Cpu).unwrap();
        let distance = target.distance(samples.as_tensor()).unwrap().unwrap();
        let gradient = distance.backward().unwrap().remove(samples.as_tensor()).unwrap();
        let norm = gradient.sqr().unwrap().sum_all().unwrap().sqrt().unwrap().to_scalar::<f32>().unwrap();
        let stepped = (samples.as_tensor() - (gradient * (1e-4 / norm as f64)).unwrap()).unwrap();
        let after = target.distance(&stepped).unwrap().unwrap().to_scalar::<f32>().unwrap();
        assert!(after < ours, "{after} after a step, {ours} before");
        assert!(SpectralTarget::new(&vec![0.0; 24_000], RATE, 11_000.0).unwrap().is_none(), "silence is no target");
        assert!(SpectralTarget::new(&recording, RATE, 500.0).unwrap().is_none(), "too few bands below 500 Hz");
    }
}
