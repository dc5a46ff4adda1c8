//! The DNSMOS P.835 network on candle: 9.01 s of 16 kHz audio cut into 900
//! frames of 320 samples a hop of 160 apart, a learned Fourier transform
//! (two 320 → 161 projections, real and imaginary), log10 power, seven
//! 3×3 convolutions with ReLU (three of them followed by 2×2 max pooling),
//! a global max, and three dense layers to three raw scores: signal,
//! background, overall. Weight names are the ONNX initializers of
//! speechmos's `sig_bak_ovr.onnx`.
//!
//! The convolutions run as matrix products read in place from the image
//! with a zero border, activations kept height × width × channels: an
//! output row is three products (one per image row around it) whose left
//! rows overlap a pixel apart, so no patch matrix is copied. On a 2-core
//! machine a 9 s window took 1.3 s through candle's own 2-D convolution,
//! 0.50 s as products over copied patch strips, and 0.26 s this way. All
//! in f32: bf16 products read in place the same way were slower (0.22 s
//! against 0.18 s for a 5.9 s clip), and f32 keeps onnxruntime's scores.

use candle_core::{DType, Device, Result, Tensor};
use rayon::prelude::*;

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

/// A 3×3 convolution (padding 1) as matrix products: `kernel` is
/// `[9 × inputs, outputs]`, row-major, rows ordered by kernel row, column,
/// then input channel, as a pixel's neighbourhood lies in the padded image
/// (three runs of three pixels).
struct Conv {
    kernel: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    pooled: bool,
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
                .flatten_all()?
                .to_vec1::<f32>()?;
            convs.push(Conv { kernel, bias: bias.values, inputs: channels, pooled });
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
    pub fn forward(&self, windows: &[&[f32]]) -> Result<Vec<[f32; 3]>> {
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
                image = conv.forward(&image)?;
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

impl Conv {
    /// The convolution, its bias and ReLU, read in place from the image
    /// with a zero border: an output row is three products, one for each
    /// image row around it, whose left operand's rows (a pixel's three
    /// neighbours in that row) overlap, a pixel apart. One output row a task.
    fn forward(&self, image: &Image) -> Result<Image> {
        if image.channels != self.inputs {
            candle_core::bail!("a convolution of {} channels given {}", self.inputs, image.channels);
        }
        let (w, c, outputs) = (image.width, image.channels, self.bias.len());
        let row_values = (w + 2) * c;
        let mut padded = vec![0f32; (image.height + 2) * row_values];
        for (row, values) in padded[row_values..].chunks_exact_mut(row_values).zip(image.values.chunks_exact(w * c)) {
            row[c..(w + 1) * c].copy_from_slice(values);
        }
        let mut values = vec![0f32; image.height * w * outputs];
        values.par_chunks_mut(w * outputs).enumerate().for_each(|(y, out)| {
            for ky in 0..3 {
                let left = &padded[(y + ky) * row_values..(y + ky + 1) * row_values];
                let right = &self.kernel[ky * 3 * c * outputs..(ky + 1) * 3 * c * outputs];
                // SAFETY: the left operand's `w` rows of `3c` values, `c`
                // apart, end at `(w - 1) c + 3c = (w + 2) c`, inside
                // `left`; the right one is `3c × outputs` of `right`; `out`
                // holds `w × outputs`. Nothing is written but `out`.
                unsafe {
                    gemm::gemm(
                        w,
                        outputs,
                        3 * c,
                        out.as_mut_ptr(),
                        1,
                        outputs as isize,
                        ky > 0,
                        left.as_ptr(),
                        1,
                        c as isize,
                        right.as_ptr(),
                        1,
                        outputs as isize,
                        1.0,
                        1.0,
                        false,
                        false,
                        false,
                        gemm::Parallelism::None,
                    );
                }
            }
            for pixel in out.chunks_exact_mut(outputs) {
                pixel.iter_mut().zip(&self.bias).for_each(|(v, b)| *v = (*v + b).max(0.0));
            }
        });
        Ok(Image { height: image.height, width: w, channels: outputs, values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `image`'s 3×3 neighbourhoods (zero outside the image), a row of
    /// `9 × channels` values per pixel.
    fn patches(image: &Image) -> Vec<f32> {
        let (w, c) = (image.width, image.channels);
        let mut out = vec![0.0; image.height * w * 9 * c];
        out.chunks_mut(w * 9 * c).enumerate().for_each(|(y, row_out)| {
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

    /// A convolution with made-up weights.
    fn conv(inputs: usize, outputs: usize) -> Conv {
        let kernel = (0..9 * inputs * outputs).map(|i| ((i * 7919) % 1009) as f32 / 1009.0 - 0.5).collect();
        let bias = (0..outputs).map(|c| c as f32 * 0.01 - 0.1).collect();
        Conv { kernel, bias, inputs, pooled: false }
    }

    /// `conv` over `image` as a product of its patch rows, in f64.
    fn by_patches(conv: &Conv, image: &Image) -> Vec<f64> {
        let (k, outputs) = (9 * conv.inputs, conv.bias.len());
        let strip = patches(image);
        let mut out = Vec::new();
        for pixel in strip.chunks_exact(k) {
            for c in 0..outputs {
                let sum: f64 = pixel.iter().enumerate().map(|(i, v)| *v as f64 * conv.kernel[i * outputs + c] as f64).sum();
                out.push((sum + conv.bias[c] as f64).max(0.0));
            }
        }
        out
    }

    #[test]
    fn the_in_place_convolution_equals_the_product_of_patches() {
        // One input channel (the first layer's), more outputs than a
        // product's column block, an image of odd size.
        for (inputs, outputs) in [(1, 70), (6, 32), (32, 130)] {
            let (height, width) = (9, 13);
            let values = (0..height * width * inputs).map(|i| ((i * 104_729) % 997) as f32 / 997.0).collect();
            let image = Image { height, width, channels: inputs, values };
            let conv = conv(inputs, outputs);
            let got = conv.forward(&image).unwrap();
            assert_eq!((got.height, got.width, got.channels), (height, width, outputs));
            for (i, (value, want)) in got.values.iter().zip(by_patches(&conv, &image)).enumerate() {
                assert!((*value as f64 - want).abs() < 1e-4 * (1.0 + want.abs()), "{inputs} inputs, value {i}: {value} vs {want}");
            }
        }
    }
}
