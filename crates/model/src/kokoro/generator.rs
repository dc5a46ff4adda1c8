//! The iSTFTNet generator: decoder features plus the harmonic source become
//! a magnitude/phase spectrogram at n_fft 20, hop 5, and the inverse STFT
//! makes 24 kHz audio. Two transposed-conv upsampling stages (×10, ×6),
//! each fed the source's spectrum through a noise conv and residual block.

use candle_core::{Module, Result, Tensor};
use candle_nn::VarBuilder;

use super::config::Config;
use super::layers::{building_in, leaky_relu, Conv1d, ConvTranspose1d, Precision};
use super::norm_statistics::NormStatistics;
use super::residual::AdaInResBlock1;
use super::source::{HarmonicSource, SourceNoise};
use super::stft::Stft;
use crate::cpu_tensor::with_f32_slice;

#[derive(Debug, Clone)]
struct UpsampleStage {
    up: ConvTranspose1d,
    noise_conv: Conv1d,
    noise_res: AdaInResBlock1,
    resblocks: Vec<AdaInResBlock1>,
}

pub struct Generator {
    source: HarmonicSource,
    stages: Vec<UpsampleStage>,
    conv_post: Conv1d,
    stft: Stft,
    /// The product of the upsampling rates.
    upsampling: usize,
    span: tracing::Span,
}

/// What the generator made, with the pieces tests compare.
pub struct GeneratorOutput {
    pub audio: Vec<f32>,
    /// `conv_post`'s output `[1, n_fft + 2, frames]`, before `exp`/`sin`.
    pub post: Tensor,
    /// The harmonic source, one value per sample.
    pub source: Vec<f32>,
}

impl Generator {
    /// Loads from the `decoder.generator` prefix.
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        let ist = &cfg.istft;
        let mut stages = Vec::new();
        let n_stages = ist.upsample_rates.len();
        for (i, (&u, &k)) in ist.upsample_rates.iter().zip(&ist.upsample_kernel_sizes).enumerate() {
            let noise_conv = if i + 1 < n_stages {
                let stride: usize = ist.upsample_rates[i + 1..].iter().product();
                Conv1d::new(vb.pp(format!("noise_convs.{i}")), true, stride.div_ceil(2), stride, 1, 1)?
            } else {
                Conv1d::new(vb.pp(format!("noise_convs.{i}")), true, 0, 1, 1, 1)?
            };
            let resblocks = (0..ist.resblock_kernel_sizes.len())
                .map(|j| AdaInResBlock1::new(vb.pp(format!("resblocks.{}", i * ist.resblock_kernel_sizes.len() + j)), &ist.resblock_dilations))
                .collect::<Result<Vec<_>>>()?;
            stages.push(UpsampleStage {
                up: ConvTranspose1d::new(vb.pp(format!("ups.{i}")), (k - u) / 2, 0, u, 1)?,
                noise_conv,
                noise_res: AdaInResBlock1::new(vb.pp(format!("noise_res.{i}")), &ist.resblock_dilations)?,
                resblocks,
            });
        }
        Ok(Generator {
            source: HarmonicSource::new(vb.pp("m_source"), cfg.sample_rate, cfg.samples_per_f0_frame())?,
            stages,
            // f32 always: its output is exponentiated into magnitudes, and in
            // int8 it alone tripled the audio's distance from the reference.
            conv_post: building_in(Precision::F32, || Conv1d::same(vb.pp("conv_post"), true, 1))?,
            stft: Stft::new(ist.n_fft, ist.hop),
            upsampling: ist.upsample_rates.iter().product(),
            span: tracing::span!(tracing::Level::TRACE, "generator"),
        })
    }

    /// Steps of the last stage per input frame: the product of the upsampling rates.
    pub fn upsampling(&self) -> usize {
        self.upsampling
    }

    /// Audio samples per step of the last stage (the inverse STFT's hop).
    pub fn hop(&self) -> usize {
        self.stft.hop()
    }

    /// The source's spectrum `[1, 2·bins, frames]` (magnitudes, then phases)
    /// for an F0 curve, and the source itself.
    pub fn source_spectrum(&self, f0: &[f32], noise: SourceNoise, dev: &candle_core::Device) -> Result<(Tensor, Vec<f32>)> {
        let source = self.source.generate(f0, noise);
        Ok((self.spectrum_of(&source, dev)?, source))
    }

    /// The `[1, 2·bins, frames]` spectrum (magnitudes, then phases) of a source signal.
    pub fn spectrum_of(&self, source: &[f32], dev: &candle_core::Device) -> Result<Tensor> {
        let (mag, phase, frames) = self.stft.forward(source);
        let bins = self.stft.bins();
        Tensor::cat(&[Tensor::from_vec(mag, (1, bins, frames), dev)?, Tensor::from_vec(phase, (1, bins, frames), dev)?], 1)
    }

    /// `x` `[1, C, 2F]`, `style` `[1, style_dim]`, `f0` one value per F0 frame.
    pub fn forward(&self, x: &Tensor, style: &Tensor, f0: &[f32], noise: SourceNoise) -> Result<GeneratorOutput> {
        let _enter = self.span.enter();
        let (har, source) = self.source_spectrum(f0, noise, x.device())?;
        let (post, audio) = self.spectrum_to_audio(x, style, &har)?;
        Ok(GeneratorOutput { audio, post, source })
    }

    /// The filter half: features and the source's spectrum → (`conv_post` output, audio).
    pub fn spectrum_to_audio(&self, x: &Tensor, style: &Tensor, har: &Tensor) -> Result<(Tensor, Vec<f32>)> {
        self.render_spectrum(x, style, har, &mut NormStatistics::Own)
    }

    /// [`Self::spectrum_to_audio`] with the norms' statistics from `norms`.
    pub fn render_spectrum(&self, x: &Tensor, style: &Tensor, har: &Tensor, norms: &mut NormStatistics) -> Result<(Tensor, Vec<f32>)> {
        let mut x = x.clone();
        for i in 0..self.stages.len() {
            x = self.stage(i, &x, style, har, norms)?;
        }
        self.post(&x)
    }

    /// The upsampling stages before the last: features `[1, C, T]` →
    /// `[1, C', T·(upsampling / last rate)]`, each norm over its own input.
    pub fn early_stages(&self, x: &Tensor, style: &Tensor, har: &Tensor) -> Result<Tensor> {
        let mut x = x.clone();
        for i in 0..self.stages.len() - 1 {
            x = self.stage(i, &x, style, har, &mut NormStatistics::Own)?;
        }
        Ok(x)
    }

    /// The last upsampling stage and the output, on the early stages'
    /// output: (`conv_post` output, audio).
    pub fn last_stage(&self, x: &Tensor, style: &Tensor, har: &Tensor, norms: &mut NormStatistics) -> Result<(Tensor, Vec<f32>)> {
        let x = self.stage(self.stages.len() - 1, x, style, har, norms)?;
        self.post(&x)
    }

    /// Upsampling stage `i`: its input, the source's spectrum for the same
    /// stretch of the line, and the norms' statistics.
    fn stage(&self, i: usize, x: &Tensor, style: &Tensor, har: &Tensor, norms: &mut NormStatistics) -> Result<Tensor> {
        let stage = &self.stages[i];
        let x = leaky_relu(x, 0.1)?;
        let noise = stage.noise_conv.forward(har)?;
        let (_, channels, length) = noise.dims3()?;
        let mut x_in = with_f32_slice(&noise, |data| stage.noise_res.forward_rows(data, channels, style, norms))??;
        // The upsampled features join the source's share in its buffer; the
        // last stage's are reflection-padded by one step on the left.
        let up = stage.up.forward(&x)?;
        let pad = usize::from(i == self.stages.len() - 1);
        let up_length = up.dim(2)?;
        if up.dim(1)? != channels || up_length + pad != length {
            candle_core::bail!("generator stage {i}: features {:?} and source {:?} do not line up", up.dims(), noise.dims());
        }
        with_f32_slice(&up, |up| {
            for (row, up_row) in x_in.chunks_exact_mut(length).zip(up.chunks_exact(up_length)) {
                if pad == 1 && up_length > 1 {
                    row[0] += up_row[1];
                }
                for (v, &u) in row[pad..].iter_mut().zip(up_row) {
                    *v += u;
                }
            }
        })?;
        // The mean of the residual blocks, summed into the first one's buffer.
        let blocks = stage.resblocks.len();
        let mut sum = stage.resblocks[0].forward_rows(&x_in, channels, style, norms)?;
        for (j, block) in stage.resblocks.iter().enumerate().skip(1) {
            let out = block.forward_rows(&x_in, channels, style, norms)?;
            if j + 1 < blocks {
                sum.iter_mut().zip(&out).for_each(|(s, v)| *s += v);
            } else {
                let share = (1.0 / blocks as f64) as f32;
                sum.iter_mut().zip(&out).for_each(|(s, v)| *s = (*s + v) * share);
            }
        }
        Tensor::from_vec(sum, (1, channels, length), x.device())
    }

    /// `conv_post`, then the inverse STFT of its magnitudes and phases.
    fn post(&self, x: &Tensor) -> Result<(Tensor, Vec<f32>)> {
        let bins = self.stft.bins();
        let post = self.conv_post.forward(&leaky_relu(x, 0.01)?)?;
        let frames = post.dim(2)?;
        let magnitude = post.narrow(1, 0, bins)?.exp()?.flatten_all()?.to_vec1::<f32>()?;
        let phase = post.narrow(1, bins, bins)?.sin()?.flatten_all()?.to_vec1::<f32>()?;
        let audio = self.stft.inverse(&magnitude, &phase, frames);
        Ok((post, audio))
    }
}
