//! Small layers the Kokoro blocks share: convolutions with their padding,
//! the two norms that take a style vector (AdaIN1d, AdaLayerNorm), and the
//! activations. Tensors are `[batch, channels, time]` unless said otherwise.

use std::cell::Cell;

use candle_core::{DType, Module, Result, Tensor, D};
use candle_nn::{Linear, VarBuilder};

use super::norm_statistics::{ChannelMoments, LayerMoments, NormStatistics};
use super::quantized_conv::{Output, QuantizedConv};
use crate::cpu_tensor::with_f32_slice;
use crate::fast_math::fast_sin;

/// The arithmetic the stride-1 convolutions run in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// f32 weights and activations (GEMM per tap).
    F32,
    /// int8 weights and activations with i32 sums (AVX-512 VNNI or AVX2).
    Int8,
}

impl Precision {
    /// The fastest precision this CPU runs.
    pub fn fastest() -> Precision {
        if QuantizedConv::supported() {
            Precision::Int8
        } else {
            Precision::F32
        }
    }
}

thread_local! {
    /// The precision convolutions built on this thread take (see [`building_in`]).
    static BUILD_PRECISION: Cell<Precision> = const { Cell::new(Precision::F32) };
}

/// Runs `build` with the convolutions it constructs in `precision`: under
/// `Int8` (where the CPU has it) each eligible convolution keeps only its
/// int8 form, so the model holds one copy of its weights.
pub fn building_in<T>(precision: Precision, build: impl FnOnce() -> T) -> T {
    let precision = if QuantizedConv::supported() { precision } else { Precision::F32 };
    let before = BUILD_PRECISION.with(|p| p.replace(precision));
    struct Restore(Precision);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUILD_PRECISION.with(|p| p.set(self.0));
        }
    }
    let _restore = Restore(before);
    build()
}

/// The precision the layers built on this thread now take.
pub fn build_precision() -> Precision {
    BUILD_PRECISION.with(Cell::get)
}

/// A 1-D convolution with its geometry (weight norm already folded).
/// Stride-1 convolutions built in [`Precision::Int8`] run in int8;
/// otherwise as one accumulating GEMM per kernel tap (`conv_by_taps`);
/// the rest use candle's `conv1d`.
#[derive(Debug, Clone)]
pub struct Conv1d {
    /// The int8 form, when built in int8 (then `weight` is empty).
    quantized: Option<QuantizedConv>,
    /// `[out, in/groups, k]`, row-major.
    weight: Vec<f32>,
    shape: (usize, usize, usize),
    bias: Option<Vec<f32>>,
    padding: usize,
    stride: usize,
    dilation: usize,
    groups: usize,
}

impl Conv1d {
    /// Loads `weight` `[out, in/groups, k]` and, if `bias`, `bias` `[out]`.
    pub fn new(vb: VarBuilder, bias: bool, padding: usize, stride: usize, dilation: usize, groups: usize) -> Result<Self> {
        let mut conv = Self::load(vb, bias)?;
        (conv.padding, conv.stride, conv.dilation, conv.groups) = (padding, stride, dilation, groups);
        conv.quantize();
        Ok(conv)
    }

    /// A stride-1 convolution that keeps the length: padding `dilation·(k−1)/2`.
    pub fn same(vb: VarBuilder, bias: bool, dilation: usize) -> Result<Self> {
        let mut conv = Self::load(vb, bias)?;
        conv.padding = dilation * (conv.shape.2 - 1) / 2;
        conv.dilation = dilation;
        conv.quantize();
        Ok(conv)
    }

    /// The f32 weights with a plain geometry (no padding, stride 1).
    fn load(vb: VarBuilder, bias: bool) -> Result<Self> {
        let w = vb.get_unchecked_dtype("weight", DType::F32)?;
        let shape = w.dims3()?;
        let weight = w.flatten_all()?.to_vec1::<f32>()?;
        let bias = if bias { Some(vb.get_unchecked_dtype("bias", DType::F32)?.to_vec1::<f32>()?) } else { None };
        Ok(Conv1d { quantized: None, weight, shape, bias, padding: 0, stride: 1, dilation: 1, groups: 1 })
    }

    /// Swaps the f32 weights for the int8 form when building in int8 and
    /// the convolution is one the kernel runs (stride 1, ungrouped).
    fn quantize(&mut self) {
        if self.stride == 1 && self.groups == 1 && build_precision() == Precision::Int8 {
            self.quantized = Some(QuantizedConv::new(&self.weight, self.shape, self.bias.as_deref(), self.padding, self.dilation));
            self.weight = Vec::new();
        }
    }
}

impl Conv1d {
    /// One row's `[C_in, T]` values → its `[C_out, T_out]` values and `T_out`.
    pub fn forward_rows(&self, x: &[f32], t: usize) -> Result<(Vec<f32>, usize)> {
        let c_in = x.len() / t.max(1);
        if let Some(q) = &self.quantized {
            return Ok(q.forward(x, t));
        }
        if self.runs_on_rows() {
            return Ok(conv_by_taps(x, c_in, t, &self.weight, self.shape, self.padding, self.dilation, self.bias.as_deref()));
        }
        let y = self.forward(&Tensor::from_slice(x, (1, c_in, t), &candle_core::Device::Cpu)?)?;
        let t_out = y.dim(2)?;
        Ok((y.flatten_all()?.to_vec1::<f32>()?, t_out))
    }

    /// [`Self::forward_rows`] into `out` `[C_out, T_out]` (a buffer reused
    /// from stage to stage), whatever it held.
    pub fn forward_into(&self, x: &[f32], t: usize, out: &mut [f32]) -> Result<()> {
        self.write(x, t, out, Output::Store)
    }

    /// Adds the convolution of one row's `[C_in, T]` values onto `out`
    /// `[C_out, T_out]`: a residual sum, in one pass where the int8 kernel
    /// runs; each value is `out + forward(x)` either way.
    pub fn add_onto(&self, x: &[f32], t: usize, out: &mut [f32]) -> Result<()> {
        self.write(x, t, out, Output::Add)
    }

    /// Whether one row runs on slices (the int8 kernel, or one f32 GEMM per
    /// tap) rather than through candle's convolution.
    fn runs_on_rows(&self) -> bool {
        self.quantized.is_some() || (self.stride == 1 && self.groups == 1)
    }

    fn write(&self, x: &[f32], t: usize, out: &mut [f32], output: Output) -> Result<()> {
        if let Some(q) = &self.quantized {
            q.write(x, t, out, output);
            return Ok(());
        }
        let (y, _) = self.forward_rows(x, t)?;
        if y.len() != out.len() {
            candle_core::bail!("conv1d: an output of {} values for a buffer of {}", y.len(), out.len());
        }
        for (o, &v) in out.iter_mut().zip(&y) {
            *o = output.apply(*o, v);
        }
        Ok(())
    }
}

impl Module for Conv1d {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (b, _, t) = x.dims3()?;
        let (c_out, _, _) = self.shape;
        if b == 1 && self.runs_on_rows() {
            let (out, t_out) = with_f32_slice(x, |data| self.forward_rows(data, t))??;
            return Tensor::from_vec(out, (1, c_out, t_out), x.device());
        }
        let weight = Tensor::from_slice(&self.weight, self.shape, x.device())?;
        let y = x.conv1d(&weight, self.padding, self.stride, self.dilation, self.groups)?;
        match &self.bias {
            Some(bias) => y.broadcast_add(&Tensor::from_slice(bias, (1, c_out, 1), x.device())?),
            None => Ok(y),
        }
    }
}

/// Stride-1 convolution of one row as `k` accumulating GEMMs, one per tap:
/// `out[o, t] = bias[o] + Σ_j W[o, :, j] · x_padded[:, t + j·dilation]`.
/// Reads the weight and the padded input in place (strided), so nothing
/// is unfolded; returns the output and its length.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv_by_taps(
    x: &[f32],
    c_in: usize,
    t: usize,
    weight: &[f32],
    (c_out, w_in, k): (usize, usize, usize),
    padding: usize,
    dilation: usize,
    bias: Option<&[f32]>,
) -> (Vec<f32>, usize) {
    assert_eq!(c_in, w_in, "input channels");
    let t_pad = t + 2 * padding;
    let t_out = t_pad - dilation * (k - 1);
    let mut padded = vec![0f32; c_in * t_pad];
    for i in 0..c_in {
        padded[i * t_pad + padding..i * t_pad + padding + t].copy_from_slice(&x[i * t..(i + 1) * t]);
    }
    let mut out = vec![0f32; c_out * t_out];
    if let Some(b) = bias {
        for (o, row) in out.chunks_mut(t_out.max(1)).enumerate().take(c_out) {
            row.fill(b[o]);
        }
    }
    for j in 0..k {
        // SAFETY: every pointer covers the m×k, k×n and m×n ranges the strides
        // describe: weight rows of c_in·k with tap j at offset j; padded rows of
        // t_pad with the tap's shift j·dilation + t_out ≤ t_pad; out rows of t_out.
        unsafe {
            add_product((c_out, t_out, c_in), (out.as_mut_ptr(), t_out), (weight.as_ptr().add(j), c_in * k, k), (padded.as_ptr().add(j * dilation), t_pad))
        };
    }
    (out, t_out)
}

/// `out += lhs · rhs` for an `m × n` output from an `m × k` and a `k × n`
/// operand, over the cores: `out` and `rhs` by rows (row stride given,
/// steps of 1 along a row), `lhs` by its row and column strides (a tap of a
/// convolution's weights, read in place or transposed).
///
/// # Safety
/// Each pointer must cover the range its sizes and strides describe.
pub(crate) unsafe fn add_product(
    (m, n, k): (usize, usize, usize),
    (out, out_row): (*mut f32, usize),
    (lhs, lhs_row, lhs_col): (*const f32, usize, usize),
    (rhs, rhs_row): (*const f32, usize),
) {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let parallelism = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    // SAFETY: the caller's.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out,
            1,
            out_row as isize,
            true,
            lhs,
            lhs_col as isize,
            lhs_row as isize,
            rhs,
            1,
            rhs_row as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        )
    };
}

/// A 1-D transposed convolution (weight `[in, out/groups, k]`, with bias).
#[derive(Debug, Clone)]
pub struct ConvTranspose1d {
    weight: Tensor,
    bias: Tensor,
    padding: usize,
    output_padding: usize,
    stride: usize,
    groups: usize,
}

impl ConvTranspose1d {
    pub fn new(vb: VarBuilder, padding: usize, output_padding: usize, stride: usize, groups: usize) -> Result<Self> {
        Ok(ConvTranspose1d {
            weight: vb.get_unchecked_dtype("weight", DType::F32)?,
            bias: vb.get_unchecked_dtype("bias", DType::F32)?,
            padding,
            output_padding,
            stride,
            groups,
        })
    }
}

impl Module for ConvTranspose1d {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = if self.groups == 1 && self.output_padding == 0 {
            // Candle's fast transposed convolution (col2im) takes no padding:
            // padding only crops the unpadded output's ends.
            let full = x.conv_transpose1d(&self.weight, 0, 0, self.stride, 1, 1)?;
            let length = full.dim(2)?;
            full.narrow(2, self.padding, length - 2 * self.padding)?
        } else if self.groups == 1 {
            x.conv_transpose1d(&self.weight, self.padding, self.output_padding, self.stride, 1, 1)?
        } else {
            depthwise_conv_transpose1d(x, &self.weight, self.padding, self.output_padding, self.stride)?
        };
        y.broadcast_add(&self.bias.reshape((1, (), 1))?)
    }
}

/// Depthwise transposed convolution (groups = channels), as zero-stuffing
/// followed by a depthwise convolution with the flipped kernel. Plain
/// tensor operations, so gradients pass through it.
pub(crate) fn depthwise_conv_transpose1d(x: &Tensor, weight: &Tensor, padding: usize, output_padding: usize, stride: usize) -> Result<Tensor> {
    let (b, c, _) = x.dims3()?;
    let k = weight.dim(2)?;
    let left = k - 1 - padding;
    let right = k - 1 - padding + output_padding;
    let padded = zeros_between(x, stride)?.pad_with_zeros(2, left, right)?;
    let out_len = padded.dim(2)? + 1 - k;
    // Depthwise correlation with the flipped kernel as k shifted, scaled slices
    // (candle's grouped conv runs one convolution per channel).
    let mut y = Tensor::zeros((b, c, out_len), x.dtype(), x.device())?;
    for j in 0..k {
        let tap = weight.narrow(2, k - 1 - j, 1)?.reshape((1, c, 1))?;
        y = (y + padded.narrow(2, j, out_len)?.broadcast_mul(&tap)?)?;
    }
    Ok(y)
}

/// `x` `[B, C, T]` with `stride − 1` zeros after every step but the last:
/// a transposed convolution's input as a plain convolution reads it.
pub(crate) fn zeros_between(x: &Tensor, stride: usize) -> Result<Tensor> {
    if stride == 1 {
        return Ok(x.clone());
    }
    let (b, c, t) = x.dims3()?;
    let zeros = Tensor::zeros((b, c, t, stride - 1), x.dtype(), x.device())?;
    Tensor::cat(&[&x.unsqueeze(3)?, &zeros], 3)?.reshape((b, c, t * stride))?.narrow(2, 0, (t - 1) * stride + 1)
}

/// Layer norm over channels with learned `gamma`/`beta`, for `[B, C, T]`.
#[derive(Debug, Clone)]
pub struct ChannelLayerNorm {
    gamma: Tensor,
    beta: Tensor,
    eps: f64,
}

impl ChannelLayerNorm {
    pub fn new(vb: VarBuilder, eps: f64) -> Result<Self> {
        Ok(ChannelLayerNorm { gamma: vb.get_unchecked_dtype("gamma", DType::F32)?, beta: vb.get_unchecked_dtype("beta", DType::F32)?, eps })
    }
}

impl Module for ChannelLayerNorm {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = x.transpose(1, 2)?;
        let x = candle_nn::ops::layer_norm(&x.contiguous()?, &self.gamma, &self.beta, self.eps as f32)?;
        x.transpose(1, 2)
    }
}

/// Normalises over the last dimension without learned parameters.
pub fn plain_layer_norm(x: &Tensor, eps: f64) -> Result<Tensor> {
    let mean = x.mean_keepdim(D::Minus1)?;
    let centred = x.broadcast_sub(&mean)?;
    let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
    centred.broadcast_div(&(var + eps)?.sqrt()?)
}

/// `(1 + γ(s)) · norm(x) + β(s)` from a style vector: the shared tail of
/// AdaIN1d and AdaLayerNorm.
fn style_affine(fc: &Linear, normed: &Tensor, style: &Tensor, channel_dim: usize) -> Result<Tensor> {
    let h = fc.forward(style)?; // [B, 2C]
    let c = h.dim(1)? / 2;
    let (gamma, beta) = (h.narrow(1, 0, c)?, h.narrow(1, c, c)?);
    let shape = if channel_dim == 1 { (h.dim(0)?, c, 1) } else { (h.dim(0)?, 1, c) };
    let gamma = (gamma.reshape(shape)? + 1.0)?;
    normed.broadcast_mul(&gamma)?.broadcast_add(&beta.reshape(shape)?)
}

/// Adaptive instance norm: instance norm over time, then a style affine.
#[derive(Debug, Clone)]
pub struct AdaIn1d {
    fc: Linear,
}

impl AdaIn1d {
    pub fn new(vb: VarBuilder) -> Result<Self> {
        Ok(AdaIn1d { fc: linear(vb.pp("fc"))? })
    }

    /// `x` `[B, C, T]`, `style` `[B, style_dim]`.
    pub fn forward(&self, x: &Tensor, style: &Tensor) -> Result<Tensor> {
        let normed = plain_layer_norm(x, 1e-5)?; // instance norm = normalise each channel over time
        style_affine(&self.fc, &normed, style, 1)
    }
}

/// Adaptive layer norm: layer norm over channels, then a style affine.
#[derive(Debug, Clone)]
pub struct AdaLayerNorm {
    fc: Linear,
}

impl AdaLayerNorm {
    pub fn new(vb: VarBuilder) -> Result<Self> {
        Ok(AdaLayerNorm { fc: linear(vb.pp("fc"))? })
    }

    /// `x` `[B, T, C]`, `style` `[B, style_dim]`.
    pub fn forward(&self, x: &Tensor, style: &Tensor) -> Result<Tensor> {
        let normed = plain_layer_norm(x, 1e-5)?;
        style_affine(&self.fc, &normed, style, 2)
    }
}

impl AdaIn1d {
    /// Adaptive instance norm followed by Snake with per-channel `alpha`
    /// on `x` `[1, C, T]` (see [`Self::snake_into`]).
    pub fn forward_snake(&self, x: &Tensor, style: &Tensor, alpha: &[f32], norms: &mut NormStatistics) -> Result<Tensor> {
        let (_, c, t) = x.dims3()?;
        let mut out = vec![0f32; c * t];
        with_f32_slice(x, |data| self.snake_into(data, &mut out, c, style, alpha, norms))??;
        Tensor::from_vec(out, (1, c, t), x.device())
    }

    /// Adaptive instance norm followed by Snake with per-channel `alpha`,
    /// fused into two passes over one row's `[C, T]` values, channels in
    /// parallel (the generator's hot path): the statistics, then the new
    /// values, written into `out` (a buffer reused from stage to stage).
    /// The norm's statistics come from `norms`.
    pub fn snake_into(&self, x: &[f32], out: &mut [f32], channels: usize, style: &Tensor, alpha: &[f32], norms: &mut NormStatistics) -> Result<()> {
        if out.len() != x.len() {
            candle_core::bail!("snake: {} values into {}", x.len(), out.len());
        }
        let t = x.len() / channels.max(1);
        let h = self.fc.forward(style)?.flatten_all()?.to_vec1::<f32>()?; // [2C]: γ then β
        let layer = norms.next_layer(t)?;
        use rayon::prelude::*;
        let moments: Vec<(f64, f64)> = out
            .par_chunks_mut(t.max(1))
            .zip(x.par_chunks(t.max(1)))
            .enumerate()
            .take(channels)
            .map(|(ch, (row_out, row))| {
                let (gamma, beta) = (h[ch], h[channels + ch]);
                #[cfg(target_arch = "x86_64")]
                if crate::fast_math::has_avx512() {
                    // SAFETY: the CPU has AVX-512F, checked just above.
                    return unsafe { adain_snake_row_avx512(row, row_out, &layer, ch, gamma, beta, alpha[ch]) };
                }
                adain_snake_row(row, row_out, &layer, ch, gamma, beta, alpha[ch])
            })
            .collect();
        drop(layer);
        norms.record(|| ChannelMoments { mean: moments.iter().map(|m| m.0).collect(), variance: moments.iter().map(|m| m.1).collect() });
        Ok(())
    }
}

/// [`adain_snake_row`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn adain_snake_row_avx512(row: &[f32], out: &mut [f32], layer: &LayerMoments, channel: usize, gamma: f32, beta: f32, alpha: f32) -> (f64, f64) {
    adain_snake_row(row, out, layer, channel, gamma, beta, alpha)
}

/// One channel of AdaIN (`(1 + γ)·(x − mean)/std + β`, the mean and
/// variance as `layer` says) then Snake with `alpha`, from `row` into
/// `out`; returns the mean and variance used.
#[inline(always)]
fn adain_snake_row(row: &[f32], out: &mut [f32], layer: &LayerMoments, channel: usize, gamma: f32, beta: f32, alpha: f32) -> (f64, f64) {
    let (mean, var) = layer.of(channel, row);
    let scale = ((1.0 + gamma as f64) / (var + 1e-5).sqrt()) as f32;
    let shift = beta - mean as f32 * scale;
    let inv_alpha = 1.0 / alpha;
    for (o, &v) in out.iter_mut().zip(row) {
        let y = v * scale + shift;
        let s = fast_sin(alpha * y);
        *o = y + s * s * inv_alpha;
    }
    (mean, var)
}

/// A linear layer with bias, weight `[out, in]`.
pub fn linear(vb: VarBuilder) -> Result<Linear> {
    let weight = vb.get_unchecked_dtype("weight", DType::F32)?;
    let bias = vb.get_unchecked_dtype("bias", DType::F32)?;
    Ok(Linear::new(weight, Some(bias)))
}

/// LeakyReLU with the given negative slope.
pub fn leaky_relu(x: &Tensor, slope: f64) -> Result<Tensor> {
    // max(x, slope·x) for 0 < slope < 1.
    x.maximum(&(x * slope)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Snake `x + sin²(αx)/α` with tensor ops: the definition the fused path is checked against.
    fn snake(x: &Tensor, alpha: &Tensor) -> Result<Tensor> {
        let ax = x.broadcast_mul(alpha)?;
        x + ax.sin()?.sqr()?.broadcast_div(alpha)?
    }
    use candle_core::Device;

    #[test]
    fn padded_transposed_conv_matches_the_direct_definition() {
        // The generator's upsamplers: groups 1, stride s, padding p (cropped
        // from the unpadded output). y[o, i·s − p + j] += x[c, i]·w[c, o, j] + b[o].
        let dev = Device::Cpu;
        for (ci, co, t, k, s, p) in [(3usize, 2usize, 5usize, 20usize, 10usize, 5usize), (2, 3, 7, 6, 3, 2), (2, 2, 4, 4, 2, 0)] {
            let xs: Vec<f32> = (0..ci * t).map(|v| ((v * 7 % 11) as f32 - 5.0) / 4.0).collect();
            let ws: Vec<f32> = (0..ci * co * k).map(|v| ((v * 5 % 13) as f32 - 6.0) / 8.0).collect();
            let bs: Vec<f32> = (0..co).map(|v| v as f32 * 0.5 - 0.25).collect();
            let layer = ConvTranspose1d {
                weight: Tensor::from_vec(ws.clone(), (ci, co, k), &dev).unwrap(),
                bias: Tensor::from_vec(bs.clone(), co, &dev).unwrap(),
                padding: p,
                output_padding: 0,
                stride: s,
                groups: 1,
            };
            let x = Tensor::from_vec(xs.clone(), (1, ci, t), &dev).unwrap();
            let got: Vec<f32> = layer.forward(&x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
            let len = (t - 1) * s - 2 * p + k;
            let mut want: Vec<f32> = (0..co * len).map(|i| bs[i / len]).collect();
            for c in 0..ci {
                for o in 0..co {
                    for i in 0..t {
                        for j in 0..k {
                            let pos = (i * s + j) as isize - p as isize;
                            if pos >= 0 && (pos as usize) < len {
                                want[o * len + pos as usize] += xs[c * t + i] * ws[(c * co + o) * k + j];
                            }
                        }
                    }
                }
            }
            assert_eq!(got.len(), want.len(), "length for k {k}, stride {s}, padding {p}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-4, "k {k}, stride {s}, padding {p}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn depthwise_transposed_conv_matches_the_direct_definition() {
        // y[c, i·s − p + j] += x[c, i]·w[c, j], length (t−1)s − 2p + k + op.
        let dev = Device::Cpu;
        let (c, t, k, s, p, op) = (2usize, 4usize, 3usize, 2usize, 1usize, 1usize);
        let xs: Vec<f32> = (0..c * t).map(|v| v as f32 + 1.0).collect();
        let ws: Vec<f32> = vec![0.5, -1.0, 2.0, 1.0, 0.25, -0.5];
        let x = Tensor::from_vec(xs.clone(), (1, c, t), &dev).unwrap();
        let w = Tensor::from_vec(ws.clone(), (c, 1, k), &dev).unwrap();
        let got: Vec<f32> = depthwise_conv_transpose1d(&x, &w, p, op, s).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        let len = (t - 1) * s - 2 * p + k + op;
        let mut want = vec![0f32; c * len];
        for ch in 0..c {
            for i in 0..t {
                for j in 0..k {
                    let pos = (i * s + j) as isize - p as isize;
                    if pos >= 0 && (pos as usize) < len {
                        want[ch * len + pos as usize] += xs[ch * t + i] * ws[ch * k + j];
                    }
                }
            }
        }
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-5, "{got:?} vs {want:?}");
        }
    }

    #[test]
    fn a_convolution_by_taps_equals_candles_conv1d() {
        let dev = Device::Cpu;
        for (c_in, c_out, t, k, pad, dil) in [(3usize, 4usize, 17usize, 3usize, 1usize, 1usize), (5, 2, 30, 7, 9, 3), (2, 3, 8, 1, 0, 1)] {
            let x = Tensor::randn(0f32, 1.0, (1, c_in, t), &dev).unwrap();
            let w = Tensor::randn(0f32, 1.0, (c_out, c_in, k), &dev).unwrap();
            let want = x.conv1d(&w, pad, 1, dil, 1).unwrap();
            let bias: Vec<f32> = (0..c_out).map(|o| o as f32 * 0.5).collect();
            let want = want.broadcast_add(&Tensor::from_slice(&bias, (1, c_out, 1), &dev).unwrap()).unwrap();
            let (got, t_out) = conv_by_taps(
                &x.flatten_all().unwrap().to_vec1().unwrap(),
                c_in,
                t,
                &w.flatten_all().unwrap().to_vec1().unwrap(),
                (c_out, c_in, k),
                pad,
                dil,
                Some(&bias),
            );
            assert_eq!(t_out, want.dim(2).unwrap());
            let want: Vec<f32> = want.flatten_all().unwrap().to_vec1().unwrap();
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-4, "{g} vs {w}");
            }
        }
    }

    #[test]
    fn fused_adain_snake_equals_the_separate_ops() {
        use std::collections::HashMap;
        let dev = Device::Cpu;
        let mut map = HashMap::new();
        map.insert("fc.weight".to_string(), Tensor::randn(0f32, 0.3, (6, 4), &dev).unwrap());
        map.insert("fc.bias".to_string(), Tensor::randn(0f32, 0.3, 6, &dev).unwrap());
        let adain = AdaIn1d::new(VarBuilder::from_tensors(map, DType::F32, &dev)).unwrap();
        let x = (Tensor::randn(0f32, 2.0, (1, 3, 50), &dev).unwrap() + 0.7).unwrap();
        let style = Tensor::randn(0f32, 1.0, (1, 4), &dev).unwrap();
        let alpha = [0.5f32, 1.0, 3.0];
        let want = snake(&adain.forward(&x, &style).unwrap(), &Tensor::from_slice(&alpha, (1, 3, 1), &dev).unwrap()).unwrap();
        let got = adain.forward_snake(&x, &style, &alpha, &mut NormStatistics::Own).unwrap();
        let diff = (want - got).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(diff < 1e-4, "{diff}");
    }

    #[test]
    fn snake_and_leaky_relu_follow_their_formulas() {
        let dev = Device::Cpu;
        let x = Tensor::new(&[[[-2.0f32, 0.5]]], &dev).unwrap();
        let y: Vec<f32> = leaky_relu(&x, 0.2).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(y, vec![-0.4, 0.5]);
        let alpha = Tensor::new(&[[[2.0f32]]], &dev).unwrap();
        let y: Vec<f32> = snake(&x, &alpha).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        let want = |v: f32| v + (2.0 * v).sin().powi(2) / 2.0;
        assert!((y[0] - want(-2.0)).abs() < 1e-6 && (y[1] - want(0.5)).abs() < 1e-6);
    }
}
