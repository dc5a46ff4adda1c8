//! Small layers the Kokoro blocks share: convolutions with their padding,
//! the two norms that take a style vector (AdaIN1d, AdaLayerNorm), and the
//! activations. Tensors are `[batch, channels, time]` unless said otherwise.

use candle_core::{DType, Module, Result, Tensor, D};
use candle_nn::{Linear, VarBuilder};

/// A 1-D convolution with its geometry (weight norm already folded).
#[derive(Debug, Clone)]
pub struct Conv1d {
    weight: Tensor,
    bias: Option<Tensor>,
    padding: usize,
    stride: usize,
    dilation: usize,
    groups: usize,
}

impl Conv1d {
    /// Loads `weight` `[out, in/groups, k]` and, if `bias`, `bias` `[out]`.
    pub fn new(vb: VarBuilder, bias: bool, padding: usize, stride: usize, dilation: usize, groups: usize) -> Result<Self> {
        let weight = vb.get_unchecked_dtype("weight", DType::F32)?;
        let bias = if bias { Some(vb.get_unchecked_dtype("bias", DType::F32)?) } else { None };
        Ok(Conv1d { weight, bias, padding, stride, dilation, groups })
    }

    /// A stride-1 convolution that keeps the length: padding `dilation·(k−1)/2`.
    pub fn same(vb: VarBuilder, bias: bool, dilation: usize) -> Result<Self> {
        let conv = Self::new(vb, bias, 0, 1, dilation, 1)?;
        let k = conv.weight.dim(2)?;
        Ok(Conv1d { padding: dilation * (k - 1) / 2, ..conv })
    }
}

impl Module for Conv1d {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = x.conv1d(&self.weight, self.padding, self.stride, self.dilation, self.groups)?;
        match &self.bias {
            Some(b) => y.broadcast_add(&b.reshape((1, (), 1))?),
            None => Ok(y),
        }
    }
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
        let y = if self.groups == 1 {
            x.conv_transpose1d(&self.weight, self.padding, self.output_padding, self.stride, 1, 1)?
        } else {
            depthwise_conv_transpose1d(x, &self.weight, self.padding, self.output_padding, self.stride)?
        };
        y.broadcast_add(&self.bias.reshape((1, (), 1))?)
    }
}

/// Depthwise transposed convolution (groups = channels), as zero-stuffing
/// followed by a depthwise convolution with the flipped kernel.
fn depthwise_conv_transpose1d(x: &Tensor, weight: &Tensor, padding: usize, output_padding: usize, stride: usize) -> Result<Tensor> {
    let (b, c, t) = x.dims3()?;
    let k = weight.dim(2)?;
    // Insert stride−1 zeros between samples.
    let stuffed = if stride > 1 {
        let zeros = Tensor::zeros((b, c, t, stride - 1), x.dtype(), x.device())?;
        Tensor::cat(&[x.unsqueeze(3)?, zeros], 3)?
            .reshape((b, c, t * stride))?
            .narrow(2, 0, (t - 1) * stride + 1)?
    } else {
        x.clone()
    };
    let left = k - 1 - padding;
    let right = k - 1 - padding + output_padding;
    let padded = stuffed.pad_with_zeros(2, left, right)?;
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

/// Layer norm over channels with learned `gamma`/`beta`, for `[B, C, T]`.
#[derive(Debug, Clone)]
pub struct ChannelLayerNorm {
    gamma: Tensor,
    beta: Tensor,
    eps: f64,
}

impl ChannelLayerNorm {
    pub fn new(vb: VarBuilder, eps: f64) -> Result<Self> {
        Ok(ChannelLayerNorm {
            gamma: vb.get_unchecked_dtype("gamma", DType::F32)?,
            beta: vb.get_unchecked_dtype("beta", DType::F32)?,
            eps,
        })
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

/// Snake activation `x + sin²(αx)/α` with per-channel `α` `[1, C, 1]`.
pub fn snake(x: &Tensor, alpha: &Tensor) -> Result<Tensor> {
    let ax = x.broadcast_mul(alpha)?;
    x + ax.sin()?.sqr()?.broadcast_div(alpha)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

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
