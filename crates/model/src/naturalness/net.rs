//! The DNSMOS P.835 network on candle: 9.01 s of 16 kHz audio cut into 900
//! frames of 320 samples a hop of 160 apart, a learned Fourier transform
//! (two 320 → 161 projections, real and imaginary), log10 power, seven
//! 3×3 convolutions with ReLU (three of them followed by 2×2 max pooling),
//! a global max, and three dense layers to three raw scores: signal,
//! background, overall. Weight names are the ONNX initializers of
//! speechmos's `sig_bak_ovr.onnx`.
//!
//! The convolutions run as matrix products over strips of rows, the
//! activations kept height × width × channels: candle's own 2-D
//! convolution took 1.3 s a window on this 2-core machine, these 0.57 s.
//! [`Arithmetic::Quick`] multiplies in bf16 where the CPU can (AVX-512
//! BF16), for the fit's guard, which ranks voices and reports nothing.

use candle_core::{DType, Device, Result, Tensor};
use rayon::prelude::*;

use crate::bf16_matmul::{self, PackedRight};
use crate::onnx::OnnxModel;

/// Samples one window holds (9.01 s at 16 kHz).
pub const WINDOW: usize = 144_160;
/// Frames the network sees in a window, and their length and hop.
const FRAMES: usize = 900;
const FRAME: usize = 320;
const HOP: usize = 160;

/// The convolutions in order: initializer prefix, and whether a 2×2 max
/// pool follows.
const CONVS: [(&str, bool); 7] =
    [("conv2d", false), ("conv2d_1", false), ("conv2d_2", false), ("conv2d_3", true), ("conv2d_4", true), ("conv2d_5", true), ("conv2d_6", false)];

/// The dense layers in order: initializer prefix, and whether a ReLU follows.
const DENSES: [(&str, bool); 3] = [("dense", true), ("dense_1", true), ("dense_3", false)];

/// A 3×3 convolution (padding 1) as a matrix product: `kernel` is
/// `[9 × inputs, outputs]`, rows ordered by kernel row, column, then input
/// channel, as [`patches`] lays out a pixel's neighbourhood.
struct Conv {
    kernel: Tensor,
    /// The kernel rounded to bf16, where the CPU multiplies in it.
    kernel_bf16: Option<PackedRight>,
    bias: Vec<f32>,
    inputs: usize,
    pooled: bool,
}

/// How a clip is scored: in f32, as onnxruntime scores it, or quicker
/// with the convolutions' products in bf16 where the CPU has AVX-512 BF16
/// (about twice as fast; for ranking voices against each other, not for
/// a figure to report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arithmetic {
    Exact,
    Quick,
}

struct Dense {
    weight: Tensor,
    bias: Tensor,
    relu: bool,
}

/// The network's weights.
pub struct DnsmosNet {
    /// `[320, 161]` each: frames times these give the spectrum's parts.
    fourier_real: Tensor,
    fourier_imag: Tensor,
    convs: Vec<Conv>,
    denses: Vec<Dense>,
}

fn named(model: &OnnxModel, name: &str, dims: &[usize], device: &Device) -> Result<Tensor> {
    let t = model.tensor(name).map_err(candle_core::Error::msg)?;
    if t.dims != dims {
        candle_core::bail!("{name} has shape {:?}, the network needs {dims:?}", t.dims);
    }
    Tensor::from_vec(t.values, dims, device)
}

impl DnsmosNet {
    /// The network from the model's initializers.
    pub fn new(model: &OnnxModel, device: &Device) -> Result<DnsmosNet> {
        let fourier = |part: &str| named(model, &format!("time2freq/stft-{part}/kernel:0"), &[161, FRAME, 1], device)?.squeeze(2)?.t()?.contiguous();
        let mut convs = Vec::with_capacity(CONVS.len());
        let mut channels = 1;
        for (prefix, pooled) in CONVS {
            let bias = model.tensor(&format!("{prefix}/bias:0")).map_err(candle_core::Error::msg)?;
            let out = bias.values.len();
            // [out, in, ky, kx] → [ky, kx, in, out].
            let kernel = named(model, &format!("{prefix}/kernel:0"), &[out, channels, 3, 3], device)?
                .permute((2, 3, 1, 0))?
                .reshape((9 * channels, out))?
                .contiguous()?;
            let kernel_bf16 = match bf16_matmul::supported() {
                true => {
                    let values = kernel.flatten_all()?.to_vec1::<f32>()?;
                    Some(PackedRight::pack(9 * channels, out, |r, c| values[r * out + c]))
                }
                false => None,
            };
            convs.push(Conv { kernel, kernel_bf16, bias: bias.values, inputs: channels, pooled });
            channels = out;
        }
        let mut denses = Vec::with_capacity(DENSES.len());
        for (prefix, relu) in DENSES {
            let base = format!("mos_estimator_logpow/{prefix}");
            let bias = model.tensor(&format!("{base}/BiasAdd/ReadVariableOp/resource:0")).map_err(candle_core::Error::msg)?;
            let out = bias.values.len();
            let weight = named(model, &format!("{base}/MatMul/ReadVariableOp/resource:0"), &[channels, out], device)?;
            denses.push(Dense { weight, bias: Tensor::from_vec(bias.values, (1, out), device)?, relu });
            channels = out;
        }
        if channels != 3 {
            candle_core::bail!("the last dense layer gives {channels} scores, not 3");
        }
        Ok(DnsmosNet { fourier_real: fourier("real")?, fourier_imag: fourier("imag")?, convs, denses })
    }

    /// Raw `[signal, background, overall]` for each clip of 16 kHz audio: a
    /// window of [`WINDOW`] samples as speechmos scores it, or a shorter
    /// clip as it is (at least [`SHORTEST`] samples; the network ends in a
    /// global max, so it takes any length), a longer one's first window.
    pub fn forward(&self, windows: &[&[f32]], arithmetic: Arithmetic) -> Result<Vec<[f32; 3]>> {
        let device = self.fourier_real.device();
        let counts: Vec<usize> = windows.iter().map(|w| frames_in(w.len())).collect::<Result<_>>()?;
        let total: usize = counts.iter().sum();
        let mut frames = Vec::with_capacity(total * FRAME);
        for (window, count) in windows.iter().zip(&counts) {
            for f in 0..*count {
                frames.extend_from_slice(&window[f * HOP..f * HOP + FRAME]);
            }
        }
        let frames = Tensor::from_vec(frames, (total, FRAME), device)?;
        let real = frames.matmul(&self.fourier_real)?;
        let imag = frames.matmul(&self.fourier_imag)?;
        let power = (real.sqr()? + imag.sqr()?)?.maximum(1e-12)?;
        let log_power = (power.log()? / std::f64::consts::LN_10)?;
        let log_power = log_power.to_vec2::<f32>()?;
        let mut features = Vec::with_capacity(windows.len());
        let mut rows = log_power.iter();
        for count in counts {
            // One clip's image, frames × bins × 1 channel.
            let values: Vec<f32> = rows.by_ref().take(count).flatten().copied().collect();
            let mut image = Image { height: count, width: 161, channels: 1, values };
            for conv in &self.convs {
                image = conv.forward(&image, arithmetic)?;
                if conv.pooled {
                    image = image.max_pooled();
                }
            }
            features.extend(image.channel_maxima());
        }
        let mut x = Tensor::from_vec(features, (windows.len(), self.convs.last().map_or(1, |c| c.bias.len())), device)?;
        for dense in &self.denses {
            x = x.matmul(&dense.weight)?.broadcast_add(&dense.bias)?;
            if dense.relu {
                x = x.relu()?;
            }
        }
        let scores = x.to_dtype(DType::F32)?.to_vec2::<f32>()?;
        Ok(scores.into_iter().map(|s| [s[0], s[1], s[2]]).collect())
    }
}

/// The fewest samples a clip may hold: enough frames for the three 2×2
/// poolings to leave a row.
pub const SHORTEST: usize = FRAME + 7 * HOP;

/// How many frames the network sees in `samples` samples: 900 in a window.
fn frames_in(samples: usize) -> Result<usize> {
    if samples < SHORTEST {
        candle_core::bail!("a clip of {samples} samples is shorter than the network's {SHORTEST}");
    }
    Ok(((samples.min(WINDOW) - FRAME) / HOP + 1).min(FRAMES))
}

/// Activations of one window: height × width × channels, row-major.
struct Image {
    height: usize,
    width: usize,
    channels: usize,
    values: Vec<f32>,
}

/// Rows of output a convolution computes at once: the strip's patches
/// stay within a few tens of MB.
const STRIP_ROWS: usize = 24;

impl Image {
    /// 2×2 max pooling, stride 2, an odd last row or column dropped.
    fn max_pooled(&self) -> Image {
        let (height, width, c) = (self.height / 2, self.width / 2, self.channels);
        let mut values = vec![0.0; height * width * c];
        for y in 0..height {
            for x in 0..width {
                let out = &mut values[(y * width + x) * c..][..c];
                out.copy_from_slice(&self.values[((2 * y) * self.width + 2 * x) * c..][..c]);
                for (dy, dx) in [(0, 1), (1, 0), (1, 1)] {
                    let at = &self.values[((2 * y + dy) * self.width + 2 * x + dx) * c..][..c];
                    out.iter_mut().zip(at).for_each(|(o, v)| *o = o.max(*v));
                }
            }
        }
        Image { height, width, channels: c, values }
    }

    /// Each channel's largest value over the whole image.
    fn channel_maxima(&self) -> Vec<f32> {
        let mut maxima = vec![f32::NEG_INFINITY; self.channels];
        for pixel in self.values.chunks_exact(self.channels) {
            maxima.iter_mut().zip(pixel).for_each(|(m, v)| *m = m.max(*v));
        }
        maxima
    }
}

/// Rows `rows` of `image`'s 3×3 neighbourhoods (zero outside the image),
/// a row of `9 × channels` values per pixel.
fn patches(image: &Image, rows: std::ops::Range<usize>) -> Vec<f32> {
    let (w, c) = (image.width, image.channels);
    let mut out = vec![0.0; rows.len() * w * 9 * c];
    out.par_chunks_mut(w * 9 * c).zip(rows).for_each(|(row_out, y)| {
        for x in 0..w {
            let pixel = &mut row_out[x * 9 * c..][..9 * c];
            for ky in 0..3 {
                let Some(sy) = (y + ky).checked_sub(1).filter(|sy| *sy < image.height) else { continue };
                for kx in 0..3 {
                    let Some(sx) = (x + kx).checked_sub(1).filter(|sx| *sx < w) else { continue };
                    pixel[(ky * 3 + kx) * c..][..c].copy_from_slice(&image.values[(sy * w + sx) * c..][..c]);
                }
            }
        }
    });
    out
}

impl Conv {
    /// The convolution, its bias and ReLU.
    fn forward(&self, image: &Image, arithmetic: Arithmetic) -> Result<Image> {
        if image.channels != self.inputs {
            candle_core::bail!("a convolution of {} channels given {}", self.inputs, image.channels);
        }
        let outputs = self.bias.len();
        let mut values = Vec::with_capacity(image.height * image.width * outputs);
        for start in (0..image.height).step_by(STRIP_ROWS) {
            let rows = start..(start + STRIP_ROWS).min(image.height);
            let pixels = rows.len() * image.width;
            let strip = patches(image, rows);
            match (&self.kernel_bf16, arithmetic) {
                (Some(kernel), Arithmetic::Quick) => {
                    let out = bf16_matmul::linear(&strip, pixels, kernel, Some(&self.bias));
                    values.extend(out.into_iter().map(|v| v.max(0.0)));
                }
                _ => {
                    let strip = Tensor::from_vec(strip, (pixels, 9 * self.inputs), self.kernel.device())?;
                    let out = strip.matmul(&self.kernel)?.flatten_all()?.to_vec1::<f32>()?;
                    values.extend(out.chunks_exact(outputs).flat_map(|pixel| pixel.iter().zip(&self.bias).map(|(v, b)| (v + b).max(0.0))));
                }
            }
        }
        Ok(Image { height: image.height, width: image.width, channels: outputs, values })
    }
}
