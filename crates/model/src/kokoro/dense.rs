//! ALBERT's fully connected layers over the last axis (`[..., in] →
//! [..., out]`). In the model's fast precision, on a CPU with AVX-512 BF16,
//! products in bf16 with f32 sums (`bf16_matmul.rs`); otherwise f32: with
//! AVX-512 or AVX2 + FMA through the packed kernel (`packed_linear.rs`),
//! else through candle.
//!
//! Not int8: ALBERT's activations do not survive u8 per tensor (measured on
//! the parity cases: 9–12 % relative error at ALBERT's output and durations
//! a frame off on three of six lines). bf16 holds (durations equal, see
//! `tests/kokoro_parity.rs`) and on Zen 4 runs ALBERT's shapes in half the
//! time of the packed f32 kernel (100 rows × 768 → 2304: 0.94 ms against 1.82).

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::VarBuilder;

use super::layers::{build_precision, Precision};
use super::packed_linear::PackedLinear;
use crate::bf16_matmul::{self, PackedRight};
use crate::cpu_tensor::with_f32_slice;

/// True when ALBERT's linears built in `precision` multiply in bf16: the
/// int8 model on a CPU with AVX-512 BF16.
pub fn bf16_in(precision: Precision) -> bool {
    precision == Precision::Int8 && bf16_matmul::supported()
}

/// A linear layer with bias.
#[derive(Debug, Clone)]
pub enum Dense {
    /// Through candle, weight `[out, in]`.
    Candle(candle_nn::Linear),
    /// Through the packed AVX-512 or AVX2 kernel.
    Packed(PackedLinear),
    /// Products in bf16, sums in f32.
    Bf16 { weight: PackedRight, bias: Vec<f32> },
}

impl Dense {
    /// Loads `weight` `[out, in]` and `bias` `[out]` under `vb`.
    pub fn new(vb: VarBuilder) -> Result<Self> {
        Self::from_parts(vb.get_unchecked_dtype("weight", DType::F32)?, vb.get_unchecked_dtype("bias", DType::F32)?)
    }

    /// From a weight `[out, in]` and a bias `[out]` already loaded; bf16
    /// when built in [`Precision::Int8`] on a CPU that has it.
    pub fn from_parts(weight: Tensor, bias: Tensor) -> Result<Self> {
        if bf16_in(build_precision()) && weight.device().is_cpu() {
            let (out, inputs) = weight.dims2()?;
            let values = weight.flatten_all()?.to_vec1::<f32>()?;
            return Ok(Dense::Bf16 { weight: PackedRight::linear_weight(&values, out, inputs), bias: bias.to_vec1::<f32>()? });
        }
        if PackedLinear::supported() && weight.device().is_cpu() {
            let values = weight.flatten_all()?.to_vec1::<f32>()?;
            return Ok(Dense::Packed(PackedLinear::new(&values, weight.dims2()?, &bias.to_vec1::<f32>()?)));
        }
        Ok(Dense::Candle(candle_nn::Linear::new(weight, Some(bias))))
    }
}

impl Module for Dense {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Dense::Candle(linear) => linear.forward(x),
            Dense::Packed(layer) => over_rows(x, layer.out(), |data, rows| layer.forward(data, rows)),
            Dense::Bf16 { weight, bias } => over_rows(x, weight.n(), |data, rows| bf16_matmul::linear(data, rows, weight, Some(bias))),
        }
    }
}

/// `x` `[..., in]` through `layer` (rows of `in` values in, rows of `out`
/// out): `[..., out]`.
fn over_rows(x: &Tensor, out: usize, layer: impl FnOnce(&[f32], usize) -> Vec<f32>) -> Result<Tensor> {
    let mut dims = x.dims().to_vec();
    let inputs = dims.pop().expect("at least one axis");
    let rows = x.elem_count() / inputs.max(1);
    let y = with_f32_slice(x, |data| layer(data, rows))?;
    dims.push(out);
    Tensor::from_vec(y, dims, x.device())
}
