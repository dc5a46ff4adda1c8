//! Kokoro's decoder and generator once more, as plain candle operations
//! that carry gradients, in f32: what a voice fit differentiates through to
//! move a timbre towards a recording. The render path (`decoder.rs`,
//! `generator.rs`) is built for speed, fuses its layers and has no
//! backward; this one is built for the backward (a transposed convolution
//! is zeros between the steps and a plain convolution, which candle can
//! differentiate) and is checked against the render path on the same
//! weights (`tests/kokoro_gradient.rs`).

use std::path::Path;

use candle_core::{DType, Device, Module, Result, Tensor, Var};
use candle_nn::{Linear, VarBuilder};

use super::config::Config;
use super::gradient_ops::{AdaInSnake, TapConv};
use super::layers::{depthwise_conv_transpose1d, zeros_between};
use super::stft::hann;
use crate::spectral_distance::SpectralTarget;
use crate::speech::{SpeechModel, SpeechRow, Voicing};
use revoice_core::error::Error;

/// A convolution's weights and geometry: stride 1 as a [`TapConv`] (its
/// own backward, little memory); a strided one, which only ever sees the
/// line's fixed inputs here, through candle's.
struct Conv {
    /// Stride 1.
    taps: Option<TapConv>,
    /// Strided: the weight, the bias.
    strided: Option<(Tensor, Option<Tensor>)>,
    padding: usize,
    stride: usize,
    dilation: usize,
}

impl Conv {
    fn load(vb: &VarBuilder, bias: bool, padding: usize, stride: usize, dilation: usize) -> Result<Conv> {
        let bias = if bias { Some(vb.get_unchecked_dtype("bias", DType::F32)?) } else { None };
        Conv::from_weight(vb.get_unchecked_dtype("weight", DType::F32)?, bias, padding, stride, dilation)
    }

    fn from_weight(weight: Tensor, bias: Option<Tensor>, padding: usize, stride: usize, dilation: usize) -> Result<Conv> {
        let (taps, strided) = match stride {
            1 => (Some(TapConv::new(&weight, bias.as_ref(), padding, dilation)?), None),
            _ => (None, Some((weight, bias))),
        };
        Ok(Conv { taps, strided, padding, stride, dilation })
    }

    /// Stride 1, the length kept.
    fn same(vb: &VarBuilder, bias: bool, dilation: usize) -> Result<Conv> {
        let k = vb.get_unchecked_dtype("weight", DType::F32)?.dim(2)?;
        Conv::load(vb, bias, dilation * (k - 1) / 2, 1, dilation)
    }

    /// `x` `[1, in, T]` → `[1, out, T']`.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        if let Some(taps) = &self.taps {
            return taps.forward(&x.contiguous()?);
        }
        let (weight, bias) = self.strided.as_ref().expect("a convolution is strided or not");
        let y = x.conv1d(weight, self.padding, self.stride, self.dilation, 1)?;
        match bias {
            Some(b) => y.broadcast_add(&b.reshape((1, (), 1))?),
            None => Ok(y),
        }
    }
}

/// A transposed convolution as zeros between the input's steps and a plain
/// convolution with the kernel flipped in time (weight `[in, out, k]`
/// becomes `[out, in, k]`): the same output, and candle differentiates it.
struct ConvUp {
    /// The flipped kernel, as a plain convolution padded by its reach less
    /// the transposed one's padding.
    conv: TapConv,
    stride: usize,
}

impl ConvUp {
    fn load(vb: &VarBuilder, padding: usize, stride: usize) -> Result<ConvUp> {
        let w = vb.get_unchecked_dtype("weight", DType::F32)?;
        ConvUp::from_weight(&w, vb.get_unchecked_dtype("bias", DType::F32)?, padding, stride)
    }

    fn from_weight(w: &Tensor, bias: Tensor, padding: usize, stride: usize) -> Result<ConvUp> {
        let weight = flipped(&w.transpose(0, 1)?.contiguous()?)?;
        let k = weight.dim(2)?;
        Ok(ConvUp { conv: TapConv::new(&weight, Some(&bias), k - 1 - padding, 1)?, stride })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.conv.forward(&zeros_between(x, self.stride)?.contiguous()?)
    }
}

/// A kernel `[out, in, k]` reversed in time.
fn flipped(w: &Tensor) -> Result<Tensor> {
    let k = w.dim(2)?;
    let reversed: Vec<u32> = (0..k as u32).rev().collect();
    w.index_select(&Tensor::new(reversed, w.device())?, 2)?.contiguous()
}

/// The decoder's ×2 depthwise transposed convolution (kernel 3, padding 1,
/// output padding 1): zeros between the steps, then each flipped tap.
struct DepthwiseUp {
    /// `[C, 1, k]`.
    weight: Tensor,
    bias: Tensor,
}

impl DepthwiseUp {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        depthwise_conv_transpose1d(x, &self.weight, 1, 1, 2)?.broadcast_add(&self.bias.reshape((1, (), 1))?)
    }
}

fn leaky_relu(x: &Tensor, slope: f64) -> Result<Tensor> {
    x.maximum(&(x * slope)?)
}

/// Instance norm over time (biased variance, ε 1e-5), then the style's
/// affine `(1 + γ)·x + β`.
struct AdaIn {
    fc: Linear,
}

impl AdaIn {
    fn load(vb: &VarBuilder) -> Result<AdaIn> {
        let fc = vb.pp("fc");
        Ok(AdaIn { fc: Linear::new(fc.get_unchecked_dtype("weight", DType::F32)?, Some(fc.get_unchecked_dtype("bias", DType::F32)?)) })
    }

    fn forward(&self, x: &Tensor, style: &Tensor) -> Result<Tensor> {
        let mean = x.mean_keepdim(2)?;
        let centred = x.broadcast_sub(&mean)?;
        let variance = centred.sqr()?.mean_keepdim(2)?;
        let normed = centred.broadcast_div(&(variance + 1e-5)?.sqrt()?)?;
        let h = self.fc.forward(style)?;
        let c = h.dim(1)? / 2;
        let gamma = (h.narrow(1, 0, c)?.reshape((1, c, 1))? + 1.0)?;
        normed.broadcast_mul(&gamma)?.broadcast_add(&h.narrow(1, c, c)?.reshape((1, c, 1))?)
    }
}

/// The decoder's residual block (StyleTTS 2's `AdainResBlk1d`).
struct DecoderBlock {
    norm1: AdaIn,
    norm2: AdaIn,
    conv1: Conv,
    conv2: Conv,
    shortcut: Option<Conv>,
    up: Option<DepthwiseUp>,
}

impl DecoderBlock {
    fn load(vb: &VarBuilder, dim_in: usize, dim_out: usize, upsample: bool) -> Result<DecoderBlock> {
        let up = if upsample {
            let pool = vb.pp("pool");
            Some(DepthwiseUp { weight: pool.get_unchecked_dtype("weight", DType::F32)?, bias: pool.get_unchecked_dtype("bias", DType::F32)? })
        } else {
            None
        };
        Ok(DecoderBlock {
            norm1: AdaIn::load(&vb.pp("norm1"))?,
            norm2: AdaIn::load(&vb.pp("norm2"))?,
            conv1: Conv::same(&vb.pp("conv1"), true, 1)?,
            conv2: Conv::same(&vb.pp("conv2"), true, 1)?,
            shortcut: if dim_in != dim_out { Some(Conv::load(&vb.pp("conv1x1"), false, 0, 1, 1)?) } else { None },
            up,
        })
    }

    fn forward(&self, x: &Tensor, style: &Tensor) -> Result<Tensor> {
        let mut shortcut = if self.up.is_some() {
            let (b, c, t) = x.dims3()?;
            x.unsqueeze(3)?.broadcast_as((b, c, t, 2))?.reshape((b, c, 2 * t))?
        } else {
            x.clone()
        };
        if let Some(conv) = &self.shortcut {
            shortcut = conv.forward(&shortcut)?;
        }
        let mut r = leaky_relu(&self.norm1.forward(x, style)?, 0.2)?;
        if let Some(up) = &self.up {
            r = up.forward(&r)?;
        }
        let r = self.conv1.forward(&r)?;
        let r = leaky_relu(&self.norm2.forward(&r, style)?, 0.2)?;
        let r = self.conv2.forward(&r)?;
        (r + shortcut)? * std::f64::consts::FRAC_1_SQRT_2
    }
}

/// One dilation of the generator's residual block: AdaIN, Snake, a dilated
/// convolution, AdaIN, Snake, a convolution, added onto the input.
struct SnakeStage {
    fc1: Linear,
    snake1: AdaInSnake,
    conv1: Conv,
    fc2: Linear,
    snake2: AdaInSnake,
    conv2: Conv,
}

struct GeneratorBlock {
    stages: Vec<SnakeStage>,
}

impl GeneratorBlock {
    fn load(vb: &VarBuilder, dilations: &[usize]) -> Result<GeneratorBlock> {
        let snake = |name: String| -> Result<AdaInSnake> { Ok(AdaInSnake::new(vb.get_unchecked_dtype(&name, DType::F32)?.flatten_all()?.to_vec1()?)) };
        let stages = dilations
            .iter()
            .enumerate()
            .map(|(j, &d)| {
                Ok(SnakeStage {
                    fc1: AdaIn::load(&vb.pp(format!("adain1.{j}")))?.fc,
                    snake1: snake(format!("alpha1.{j}"))?,
                    conv1: Conv::same(&vb.pp(format!("convs1.{j}")), true, d)?,
                    fc2: AdaIn::load(&vb.pp(format!("adain2.{j}")))?.fc,
                    snake2: snake(format!("alpha2.{j}"))?,
                    conv2: Conv::same(&vb.pp(format!("convs2.{j}")), true, 1)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GeneratorBlock { stages })
    }

    fn forward(&self, x: &Tensor, style: &Tensor) -> Result<Tensor> {
        let mut sum = x.clone();
        for s in &self.stages {
            let r = s.snake1.forward(&sum, &s.fc1.forward(style)?)?;
            let r = s.conv1.forward(&r)?;
            let r = s.snake2.forward(&r, &s.fc2.forward(style)?)?;
            sum = (sum + s.conv2.forward(&r)?)?;
        }
        Ok(sum)
    }
}

struct UpStage {
    up: ConvUp,
    noise_conv: Conv,
    noise_res: GeneratorBlock,
    blocks: Vec<GeneratorBlock>,
}

/// The decoder and generator as differentiable operations.
pub struct DifferentiableVoice {
    f0_conv: Conv,
    n_conv: Conv,
    encode: DecoderBlock,
    decode: Vec<DecoderBlock>,
    asr_res: Conv,
    stages: Vec<UpStage>,
    conv_post: Conv,
    n_fft: usize,
    hop: usize,
    /// The one-sided inverse DFT, windowed: `[bins, n_fft]` for the real
    /// parts and for the imaginary ones.
    inverse_re: Tensor,
    inverse_im: Tensor,
    /// The synthesis window (the overlap-add divides by its summed squares).
    window: Vec<f32>,
}

impl DifferentiableVoice {
    /// Loads from the engine's Kokoro weights file.
    pub fn load(weights: &Path, cfg: &Config) -> Result<DifferentiableVoice> {
        let device = Device::Cpu;
        // SAFETY: the file is the installer's output and is not modified while mapped.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &device)? };
        let vb = vb.pp("decoder");
        let h = cfg.hidden_dim;
        let (wide, extras) = (1024, 1024 + 2 + 64);
        let ist = &cfg.istft;
        let mut stages = Vec::new();
        for (i, (&u, &k)) in ist.upsample_rates.iter().zip(&ist.upsample_kernel_sizes).enumerate() {
            let g = vb.pp("generator");
            let noise_conv = if i + 1 < ist.upsample_rates.len() {
                let stride: usize = ist.upsample_rates[i + 1..].iter().product();
                Conv::load(&g.pp(format!("noise_convs.{i}")), true, stride.div_ceil(2), stride, 1)?
            } else {
                Conv::load(&g.pp(format!("noise_convs.{i}")), true, 0, 1, 1)?
            };
            let blocks = (0..ist.resblock_kernel_sizes.len())
                .map(|j| GeneratorBlock::load(&g.pp(format!("resblocks.{}", i * ist.resblock_kernel_sizes.len() + j)), &ist.resblock_dilations))
                .collect::<Result<Vec<_>>>()?;
            stages.push(UpStage {
                up: ConvUp::load(&g.pp(format!("ups.{i}")), (k - u) / 2, u)?,
                noise_conv,
                noise_res: GeneratorBlock::load(&g.pp(format!("noise_res.{i}")), &ist.resblock_dilations)?,
                blocks,
            });
        }
        let (n_fft, hop) = (ist.n_fft, ist.hop);
        let bins = n_fft / 2 + 1;
        let window = hann(n_fft);
        let (mut re, mut im) = (vec![0f32; bins * n_fft], vec![0f32; bins * n_fft]);
        for k in 0..bins {
            // DC and Nyquist once (real parts only), the rest twice.
            let once = k == 0 || (n_fft % 2 == 0 && k == bins - 1);
            let twice = if once { 1.0 } else { 2.0 };
            for n in 0..n_fft {
                let a = 2.0 * std::f64::consts::PI * (k * n) as f64 / n_fft as f64;
                let w = window[n] as f64 / n_fft as f64;
                re[k * n_fft + n] = (twice * a.cos() * w) as f32;
                im[k * n_fft + n] = if once { 0.0 } else { (-twice * a.sin() * w) as f32 };
            }
        }
        Ok(DifferentiableVoice {
            f0_conv: Conv::load(&vb.pp("F0_conv"), true, 1, 2, 1)?,
            n_conv: Conv::load(&vb.pp("N_conv"), true, 1, 2, 1)?,
            encode: DecoderBlock::load(&vb.pp("encode"), h + 2, wide, false)?,
            decode: vec![
                DecoderBlock::load(&vb.pp("decode.0"), extras, wide, false)?,
                DecoderBlock::load(&vb.pp("decode.1"), extras, wide, false)?,
                DecoderBlock::load(&vb.pp("decode.2"), extras, wide, false)?,
                DecoderBlock::load(&vb.pp("decode.3"), extras, h, true)?,
            ],
            asr_res: Conv::load(&vb.pp("asr_res.0"), true, 0, 1, 1)?,
            stages,
            conv_post: Conv::same(&vb.pp("generator").pp("conv_post"), true, 1)?,
            n_fft,
            hop,
            inverse_re: Tensor::from_vec(re, (bins, n_fft), &device)?,
            inverse_im: Tensor::from_vec(im, (bins, n_fft), &device)?,
            window,
        })
    }

    /// The audio `[samples]` of `voicing` spoken with `timbre` `[1, 128]`
    /// (a tensor whose gradient the caller may want).
    pub fn audio(&self, voicing: &Voicing, timbre: &Tensor) -> Result<Tensor> {
        let x = self.features(voicing, timbre)?;
        let post = self.generate(&x, &voicing.har, timbre)?;
        self.inverse_stft(&post)
    }

    /// How far `model` voicing `rows` (one after another) sounds from
    /// `target`, in dB, and the gradient of that distance with respect to
    /// an offset added to every row's timbre (the first half of its
    /// style); `None` when the voice is silent to the analysis.
    pub fn timbre_gradient(
        &self,
        model: &dyn SpeechModel,
        rows: &[SpeechRow],
        target: &SpectralTarget,
    ) -> revoice_core::error::Result<Option<(f32, Vec<f32>)>> {
        let failed = |e: candle_core::Error| Error::InvalidInput { input: "Kokoro model".into(), reason: format!("the timbre's gradient failed: {e}") };
        let Some(half) = rows.first().map(|r| r.style.len() / 2) else { return Ok(None) };
        let offset = Var::zeros((1, half), DType::F32, &Device::Cpu).map_err(failed)?;
        let mut pieces = Vec::with_capacity(rows.len());
        for row in rows {
            let voicing = match model.voicing(row) {
                Some(voicing) => voicing?,
                None => return Ok(None),
            };
            let timbre = Tensor::from_slice(&row.style[..half], (1, half), &Device::Cpu).and_then(|t| t.add(offset.as_tensor())).map_err(failed)?;
            pieces.push(self.audio(&voicing, &timbre).map_err(failed)?);
        }
        let audio = Tensor::cat(&pieces, 0).map_err(failed)?;
        let Some(distance) = target.distance(&audio).map_err(failed)? else { return Ok(None) };
        let gradient = distance.backward().map_err(failed)?.remove(offset.as_tensor());
        let gradient = match gradient {
            Some(g) => g.flatten_all().and_then(|g| g.to_vec1::<f32>()).map_err(failed)?,
            None => vec![0.0; half],
        };
        Ok(Some((distance.to_scalar::<f32>().map_err(failed)?, gradient)))
    }

    /// The decoder: features `[1, hidden, 2 × frames]` for the generator.
    fn features(&self, v: &Voicing, style: &Tensor) -> Result<Tensor> {
        let f0 = self.f0_conv.forward(&v.f0.unsqueeze(1)?)?;
        let n = self.n_conv.forward(&v.n.unsqueeze(1)?)?;
        let asr_res = self.asr_res.forward(&v.asr)?;
        let mut x = self.encode.forward(&Tensor::cat(&[&v.asr, &f0, &n], 1)?, style)?;
        for block in &self.decode {
            x = block.forward(&Tensor::cat(&[&x, &asr_res, &f0, &n], 1)?, style)?;
        }
        Ok(x)
    }

    /// The generator up to `conv_post`: `[1, 2·bins, steps]`.
    fn generate(&self, x: &Tensor, har: &Tensor, style: &Tensor) -> Result<Tensor> {
        let mut x = x.clone();
        let last = self.stages.len() - 1;
        for (i, stage) in self.stages.iter().enumerate() {
            let up = stage.up.forward(&leaky_relu(&x, 0.1)?)?;
            // The last stage's features are reflection-padded by one step on the left.
            let up = if i == last { Tensor::cat(&[&up.narrow(2, 1, 1)?, &up], 2)? } else { up };
            let noise = stage.noise_res.forward(&stage.noise_conv.forward(har)?, style)?;
            let x_in = (noise + up)?;
            let mut sum = stage.blocks[0].forward(&x_in, style)?;
            for block in &stage.blocks[1..] {
                sum = (sum + block.forward(&x_in, style)?)?;
            }
            x = (sum / stage.blocks.len() as f64)?;
        }
        self.conv_post.forward(&leaky_relu(&x, 0.01)?)
    }

    /// Magnitudes `exp(post[..bins])` and phases `sin(post[bins..])` back
    /// to samples: each frame's one-sided inverse DFT, windowed, added in
    /// at its hop, divided by the summed squared window, the centre
    /// padding trimmed (as `stft.rs` does).
    fn inverse_stft(&self, post: &Tensor) -> Result<Tensor> {
        let bins = self.n_fft / 2 + 1;
        let frames = post.dim(2)?;
        let magnitude = post.narrow(1, 0, bins)?.exp()?.squeeze(0)?;
        let phase = post.narrow(1, bins, bins)?.sin()?.squeeze(0)?;
        let re = (&magnitude * phase.cos()?)?.t()?;
        let im = (&magnitude * phase.sin()?)?.t()?;
        // [frames, n_fft]
        let framed = (re.matmul(&self.inverse_re)? + im.matmul(&self.inverse_im)?)?;
        let (n_fft, hop) = (self.n_fft, self.hop);
        let total = n_fft + hop * (frames - 1);
        let mut out: Option<Tensor> = None;
        for j in 0..n_fft / hop {
            let part = framed.narrow(1, j * hop, hop)?.contiguous()?.flatten_all()?.pad_with_zeros(0, j * hop, total - j * hop - frames * hop)?;
            out = Some(match out {
                Some(o) => (o + part)?,
                None => part,
            });
        }
        let out = out.expect("n_fft holds a hop");
        let mut norm = vec![0f32; total];
        for f in 0..frames {
            for (n, w) in self.window.iter().enumerate() {
                norm[f * hop + n] += w * w;
            }
        }
        let pad = n_fft / 2;
        let len = hop * (frames - 1);
        let scale: Vec<f32> = norm[pad..pad + len].iter().map(|&w| if w > 1e-11 { 1.0 / w } else { 1.0 }).collect();
        out.narrow(0, pad, len)?.mul(&Tensor::from_vec(scale, len, out.device())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_between_the_steps_and_a_flipped_kernel_make_the_transposed_convolution() {
        let dev = Device::Cpu;
        let x = Tensor::randn(0f32, 1.0, (1, 6, 9), &dev).unwrap();
        let w = Tensor::randn(0f32, 1.0, (6, 4, 12), &dev).unwrap();
        let b = Tensor::randn(0f32, 1.0, 4, &dev).unwrap();
        for (stride, padding) in [(6, 3), (10, 5), (1, 0)] {
            let up = ConvUp::from_weight(&w, b.clone(), padding, stride).unwrap();
            let ours = up.forward(&x).unwrap();
            let theirs = x.conv_transpose1d(&w, padding, 0, stride, 1, 1).unwrap().broadcast_add(&b.reshape((1, 4, 1)).unwrap()).unwrap();
            assert_eq!(ours.dims(), theirs.dims());
            let diff = (ours - theirs).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar::<f32>().unwrap();
            assert!(diff < 1e-4, "stride {stride}: {diff}");
        }
    }
}
