//! The generator's two heavy layers as candle operations with their own
//! backward, for [`super::differentiable`]: a stride-1 convolution (one
//! GEMM per kernel tap, both ways), and adaptive instance norm fused with
//! Snake. Built from candle's own operations, every tap's product and every
//! step of the norm would stay in memory until the backward pass (tens of
//! gigabytes for a few seconds of audio); these keep only their input, and
//! the backward recomputes what it needs. The weights are constants: only
//! the input's gradient (and the norm's style affine's) is computed.

use std::sync::Arc;

use candle_core::{CpuStorage, CustomOp1, CustomOp2, Layout, Result, Shape, Tensor};
use rayon::prelude::*;

use super::layers::{add_product, conv_by_taps};
use crate::cpu_tensor::with_f32_slice;

/// A stride-1 convolution of a `[1, C_in, T]` input: weights `[out, in, k]`,
/// padding on both sides, dilation, bias.
#[derive(Clone)]
pub struct TapConv {
    weight: Arc<Vec<f32>>,
    shape: (usize, usize, usize),
    bias: Option<Arc<Vec<f32>>>,
    padding: usize,
    dilation: usize,
}

impl TapConv {
    /// From a weight tensor `[out, in, k]` and an optional bias `[out]`.
    pub fn new(weight: &Tensor, bias: Option<&Tensor>, padding: usize, dilation: usize) -> Result<TapConv> {
        let shape = weight.dims3()?;
        let k = shape.2;
        if dilation * (k - 1) < padding {
            candle_core::bail!("a convolution padded by {padding} beyond its reach {}", dilation * (k - 1));
        }
        let bias = match bias {
            Some(b) => Some(Arc::new(b.flatten_all()?.to_vec1::<f32>()?)),
            None => None,
        };
        Ok(TapConv { weight: Arc::new(weight.flatten_all()?.to_vec1::<f32>()?), shape, bias, padding, dilation })
    }

    /// `x` `[1, C_in, T]` convolved.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.apply_op1(self.clone())
    }
}

impl CustomOp1 for TapConv {
    fn name(&self) -> &'static str {
        "tap-conv"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let (_, c_in, t) = layout.shape().dims3()?;
        let Some((start, end)) = layout.contiguous_offsets() else { candle_core::bail!("tap-conv: the input is not contiguous") };
        let x = &storage.as_slice::<f32>()?[start..end];
        let (out, t_out) = conv_by_taps(x, c_in, t, &self.weight, self.shape, self.padding, self.dilation, self.bias.as_deref().map(|b| b.as_slice()));
        Ok((CpuStorage::F32(out), Shape::from((1, self.shape.0, t_out))))
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let (_, c_in, k) = self.shape;
        let t_out = grad.dim(2)?;
        let reach = self.dilation * (k - 1);
        let (g, t_in) = with_f32_slice(grad, |g| backward_by_taps(g, t_out, &self.weight, self.shape, reach - self.padding, self.dilation))?;
        if t_in != arg.dim(2)? {
            candle_core::bail!("tap-conv backward: {t_in} steps for an input of {}", arg.dim(2)?);
        }
        Ok(Some(Tensor::from_vec(g, (1, c_in, t_in), arg.device())?))
    }
}

/// The input's gradient of a stride-1 convolution with `weight`
/// `[out, in, k]`, from the output's gradient `grad` `[out, t_out]`: the
/// convolution with each tap's weights transposed and the taps in reverse
/// order, `grad` padded by `padding` (the reach less the forward's
/// padding), one GEMM per tap reading the forward's weights through
/// transposed strides. Returns `[in, t_in]` and `t_in`.
fn backward_by_taps(grad: &[f32], t_out: usize, weight: &[f32], (c_out, c_in, k): (usize, usize, usize), padding: usize, dilation: usize) -> (Vec<f32>, usize) {
    let t_pad = t_out + 2 * padding;
    let t_in = t_pad - dilation * (k - 1);
    let mut padded = vec![0f32; c_out * t_pad];
    for o in 0..c_out {
        padded[o * t_pad + padding..o * t_pad + padding + t_out].copy_from_slice(&grad[o * t_out..(o + 1) * t_out]);
    }
    let mut out = vec![0f32; c_in * t_in];
    for j in 0..k {
        let tap = k - 1 - j;
        // SAFETY: the lhs reads W[o, i, tap] at o·c_in·k + i·k + tap for
        // i < c_in, o < c_out (inside the weight); the rhs reads padded rows
        // of t_pad from j·dilation, and j·dilation + t_in ≤ t_pad; out rows
        // of t_in.
        unsafe {
            add_product((c_in, t_in, c_out), (out.as_mut_ptr(), t_in), (weight.as_ptr().add(tap), k, c_in * k), (padded.as_ptr().add(j * dilation), t_pad))
        };
    }
    (out, t_in)
}

/// The variance's ε in the instance norm.
const EPSILON: f64 = 1e-5;

/// Adaptive instance norm over time and Snake, per channel `c` of a
/// `[1, C, T]` input: `u = (1 + γ_c)·(x − μ_c)/σ_c + β_c`, then
/// `u + sin²(α_c·u)/α_c`, with `[γ, β]` the second input `[1, 2C]`.
#[derive(Clone)]
pub struct AdaInSnake {
    alpha: Arc<Vec<f32>>,
}

impl AdaInSnake {
    pub fn new(alpha: Vec<f32>) -> AdaInSnake {
        AdaInSnake { alpha: Arc::new(alpha) }
    }

    /// `x` `[1, C, T]` normalised by the style's `h` `[1, 2C]` (γ then β) and snaked.
    pub fn forward(&self, x: &Tensor, h: &Tensor) -> Result<Tensor> {
        x.apply_op2(h, self.clone())
    }
}

/// Mean and 1/σ of a row (biased variance).
fn moments(row: &[f32]) -> (f32, f32) {
    let (mean, variance) = super::norm_statistics::mean_and_variance(row);
    (mean as f32, (1.0 / (variance + EPSILON).sqrt()) as f32)
}

impl CustomOp2 for AdaInSnake {
    fn name(&self) -> &'static str {
        "adain-snake"
    }

    fn cpu_fwd(&self, xs: &CpuStorage, xl: &Layout, hs: &CpuStorage, hl: &Layout) -> Result<(CpuStorage, Shape)> {
        let (_, c, t) = xl.shape().dims3()?;
        let (Some((x0, x1)), Some((h0, h1))) = (xl.contiguous_offsets(), hl.contiguous_offsets()) else {
            candle_core::bail!("adain-snake: the inputs are not contiguous")
        };
        let (x, h) = (&xs.as_slice::<f32>()?[x0..x1], &hs.as_slice::<f32>()?[h0..h1]);
        if h.len() != 2 * c || self.alpha.len() != c {
            candle_core::bail!("adain-snake: {c} channels, {} style values, {} alphas", h.len(), self.alpha.len());
        }
        let mut out = vec![0f32; c * t];
        out.par_chunks_mut(t.max(1)).zip(x.par_chunks(t.max(1))).enumerate().for_each(|(ch, (out, row))| {
            let (mean, inv_sigma) = moments(row);
            let (scale, beta, alpha) = ((1.0 + h[ch]) * inv_sigma, h[c + ch], self.alpha[ch]);
            for (o, &v) in out.iter_mut().zip(row) {
                let u = (v - mean) * scale + beta;
                let s = (alpha * u).sin();
                *o = u + s * s / alpha;
            }
        });
        Ok((CpuStorage::F32(out), Shape::from((1, c, t))))
    }

    fn bwd(&self, x: &Tensor, h: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (_, c, t) = x.dims3()?;
        let h_values = h.flatten_all()?.to_vec1::<f32>()?;
        let (gx, gh) = with_f32_slice(x, |x| {
            with_f32_slice(grad, |g| {
                let mut gx = vec![0f32; c * t];
                let gh: Vec<(f32, f32)> = gx
                    .par_chunks_mut(t.max(1))
                    .zip(x.par_chunks(t.max(1)))
                    .zip(g.par_chunks(t.max(1)))
                    .enumerate()
                    .map(|(ch, ((gx, row), g))| {
                        let (mean, inv_sigma) = moments(row);
                        let (gain, beta, alpha) = (1.0 + h_values[ch], h_values[c + ch], self.alpha[ch]);
                        // Through Snake (d/du = 1 + sin 2αu) to u, then to γ, β and x̂.
                        let (mut g_gamma, mut g_beta, mut sum_gxh, mut sum_gxh_xh) = (0f64, 0f64, 0f64, 0f64);
                        for ((gx, &v), &gy) in gx.iter_mut().zip(row).zip(g) {
                            let x_hat = (v - mean) * inv_sigma;
                            let u = gain * x_hat + beta;
                            let g_u = gy * (1.0 + (2.0 * alpha * u).sin());
                            g_gamma += (g_u * x_hat) as f64;
                            g_beta += g_u as f64;
                            let g_xh = g_u * gain;
                            *gx = g_xh;
                            sum_gxh += g_xh as f64;
                            sum_gxh_xh += (g_xh * x_hat) as f64;
                        }
                        // The norm: (ĝ − mean ĝ − x̂·mean(ĝ·x̂)) / σ.
                        let n = t.max(1) as f64;
                        let (mean_g, mean_gx) = ((sum_gxh / n) as f32, (sum_gxh_xh / n) as f32);
                        for (gx, &v) in gx.iter_mut().zip(row) {
                            let x_hat = (v - mean) * inv_sigma;
                            *gx = (*gx - mean_g - x_hat * mean_gx) * inv_sigma;
                        }
                        (g_gamma as f32, g_beta as f32)
                    })
                    .collect();
                let mut gh_flat = vec![0f32; 2 * c];
                for (ch, (gg, gb)) in gh.into_iter().enumerate() {
                    gh_flat[ch] = gg;
                    gh_flat[c + ch] = gb;
                }
                (gx, gh_flat)
            })
        })??;
        Ok((Some(Tensor::from_vec(gx, (1, c, t), x.device())?), Some(Tensor::from_vec(gh, h.shape(), h.device())?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    /// The same layers from candle's own operations, which candle differentiates.
    fn plain_conv(x: &Tensor, w: &Tensor, b: &Tensor, padding: usize, dilation: usize) -> Tensor {
        x.conv1d(w, padding, 1, dilation, 1).unwrap().broadcast_add(&b.reshape((1, (), 1)).unwrap()).unwrap()
    }

    fn plain_adain_snake(x: &Tensor, h: &Tensor, alpha: &Tensor) -> Tensor {
        let c = x.dim(1).unwrap();
        let mean = x.mean_keepdim(2).unwrap();
        let centred = x.broadcast_sub(&mean).unwrap();
        let var = centred.sqr().unwrap().mean_keepdim(2).unwrap();
        let normed = centred.broadcast_div(&(var + EPSILON).unwrap().sqrt().unwrap()).unwrap();
        let gamma = (h.narrow(1, 0, c).unwrap().reshape((1, c, 1)).unwrap() + 1.0).unwrap();
        let u = normed.broadcast_mul(&gamma).unwrap().broadcast_add(&h.narrow(1, c, c).unwrap().reshape((1, c, 1)).unwrap()).unwrap();
        (u.broadcast_mul(alpha).unwrap().sin().unwrap().sqr().unwrap().broadcast_div(alpha).unwrap() + u).unwrap()
    }

    fn largest_difference(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar::<f32>().unwrap()
    }

    #[test]
    fn the_tap_convolution_and_its_gradient_match_candles() {
        let dev = Device::Cpu;
        for (k, padding, dilation) in [(3, 1, 1), (7, 9, 3), (11, 25, 5), (5, 0, 1)] {
            let x = Var::randn(0f32, 1.0, (1, 6, 40), &dev).unwrap();
            let w = Tensor::randn(0f32, 0.3, (4, 6, k), &dev).unwrap();
            let b = Tensor::randn(0f32, 0.3, 4, &dev).unwrap();
            let probe = Tensor::randn(0f32, 1.0, (1, 4, 40 + 2 * padding - dilation * (k - 1)), &dev).unwrap();
            let ours = TapConv::new(&w, Some(&b), padding, dilation).unwrap().forward(x.as_tensor()).unwrap();
            let theirs = plain_conv(x.as_tensor(), &w, &b, padding, dilation);
            assert!(largest_difference(&ours, &theirs) < 1e-4, "k {k}");
            let g_ours = (ours * &probe).unwrap().sum_all().unwrap().backward().unwrap().remove(x.as_tensor()).unwrap();
            let g_theirs = (theirs * &probe).unwrap().sum_all().unwrap().backward().unwrap().remove(x.as_tensor()).unwrap();
            assert!(largest_difference(&g_ours, &g_theirs) < 1e-4, "k {k}: gradient");
        }
    }

    #[test]
    fn the_fused_norm_and_snake_and_their_gradients_match_candles() {
        let dev = Device::Cpu;
        let (c, t) = (5, 64);
        let x = Var::randn(0f32, 2.0, (1, c, t), &dev).unwrap();
        let h = Var::randn(0f32, 0.5, (1, 2 * c), &dev).unwrap();
        let alpha: Vec<f32> = (0..c).map(|i| 0.5 + 0.3 * i as f32).collect();
        let alpha_t = Tensor::from_slice(&alpha, (1, c, 1), &dev).unwrap();
        let probe = Tensor::randn(0f32, 1.0, (1, c, t), &dev).unwrap();
        let ours = AdaInSnake::new(alpha).forward(x.as_tensor(), h.as_tensor()).unwrap();
        let theirs = plain_adain_snake(x.as_tensor(), h.as_tensor(), &alpha_t);
        assert!(largest_difference(&ours, &theirs) < 1e-4);
        let mut g_ours = (ours * &probe).unwrap().sum_all().unwrap().backward().unwrap();
        let mut g_theirs = (theirs * &probe).unwrap().sum_all().unwrap().backward().unwrap();
        for var in [x.as_tensor(), h.as_tensor()] {
            let (a, b) = (g_ours.remove(var).unwrap(), g_theirs.remove(var).unwrap());
            assert!(largest_difference(&a, &b) < 1e-3, "{:?}", var.dims());
        }
    }
}
