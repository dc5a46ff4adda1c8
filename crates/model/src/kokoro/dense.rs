//! ALBERT's fully connected layers over the last axis (`[..., in] →
//! [..., out]`) in f32: on a CPU with AVX-512 through the packed kernel
//! (`packed_linear.rs`), else through candle.
//!
//! Not int8, not bf16: ALBERT's activations do not survive u8 per tensor
//! (measured on the parity cases: 9–12 % relative error at ALBERT's output
//! and durations a frame off on three of six lines); bf16 held (1.3–1.6 %,
//! durations equal) but `vdpbf16ps` retires at a quarter of the rate of
//! f32 FMAs on this machine class, so f32 at a better GEMM was faster.

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::VarBuilder;

use super::packed_linear::PackedLinear;
use crate::cpu_tensor::with_f32_slice;

/// A linear layer with bias.
#[derive(Debug, Clone)]
pub enum Dense {
    /// Through candle, weight `[out, in]`.
    Candle(candle_nn::Linear),
    /// Through the packed AVX-512 kernel.
    Packed(PackedLinear),
}

impl Dense {
    /// Loads `weight` `[out, in]` and `bias` `[out]` under `vb`.
    pub fn new(vb: VarBuilder) -> Result<Self> {
        Self::from_parts(vb.get_unchecked_dtype("weight", DType::F32)?, vb.get_unchecked_dtype("bias", DType::F32)?)
    }

    /// From a weight `[out, in]` and a bias `[out]` already loaded.
    pub fn from_parts(weight: Tensor, bias: Tensor) -> Result<Self> {
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
            Dense::Packed(layer) => {
                let mut dims = x.dims().to_vec();
                let inputs = dims.pop().expect("at least one axis");
                let rows = x.elem_count() / inputs.max(1);
                let y = with_f32_slice(x, |data| layer.forward(data, rows))?;
                dims.push(layer.out());
                Tensor::from_vec(y, dims, x.device())
            }
        }
    }
}
