//! The decoder: aligned text features, the F0 and energy curves and the
//! voice's timbre style go through AdaIN residual blocks (the last one
//! doubling the frame rate) and on into the generator.

use candle_core::{Module, Result, Tensor};
use candle_nn::VarBuilder;

use super::config::Config;
use super::generator::Generator;
use super::layers::Conv1d;
use super::residual::AdainResBlk1d;

pub struct Decoder {
    f0_conv: Conv1d,
    n_conv: Conv1d,
    encode: AdainResBlk1d,
    decode: Vec<AdainResBlk1d>,
    asr_res: Conv1d,
    pub generator: Generator,
    span: tracing::Span,
}

/// Decoder intermediates that tests compare.
pub struct DecoderTrace {
    pub f0: Tensor,
    pub n: Tensor,
    pub encoded: Tensor,
    pub generator_input: Tensor,
}

impl Decoder {
    /// Loads from the `decoder` prefix.
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        let h = cfg.hidden_dim;
        let wide = 1024;
        let with_extras = wide + 2 + 64;
        Ok(Decoder {
            f0_conv: Conv1d::new(vb.pp("F0_conv"), true, 1, 2, 1, 1)?,
            n_conv: Conv1d::new(vb.pp("N_conv"), true, 1, 2, 1, 1)?,
            encode: AdainResBlk1d::new(vb.pp("encode"), h + 2, wide, false)?,
            decode: vec![
                AdainResBlk1d::new(vb.pp("decode.0"), with_extras, wide, false)?,
                AdainResBlk1d::new(vb.pp("decode.1"), with_extras, wide, false)?,
                AdainResBlk1d::new(vb.pp("decode.2"), with_extras, wide, false)?,
                AdainResBlk1d::new(vb.pp("decode.3"), with_extras, h, true)?,
            ],
            asr_res: Conv1d::new(vb.pp("asr_res.0"), true, 0, 1, 1, 1)?,
            generator: Generator::new(cfg, vb.pp("generator"))?,
            span: tracing::span!(tracing::Level::TRACE, "decoder"),
        })
    }

    /// Features before the generator, `[1, hidden, 2F]`, and the traces.
    pub fn features(&self, asr: &Tensor, f0: &Tensor, n: &Tensor, style: &Tensor) -> Result<DecoderTrace> {
        let _enter = self.span.enter();
        let f0_down = self.f0_conv.forward(&f0.unsqueeze(1)?)?;
        let n_down = self.n_conv.forward(&n.unsqueeze(1)?)?;
        let encoded = self.encode.forward(&Tensor::cat(&[asr, &f0_down, &n_down], 1)?, style)?;
        let asr_res = self.asr_res.forward(asr)?;
        let mut x = encoded.clone();
        let mut with_residuals = true;
        for block in &self.decode {
            if with_residuals {
                x = Tensor::cat(&[&x, &asr_res, &f0_down, &n_down], 1)?;
            }
            x = block.forward(&x, style)?;
            if block.upsamples() {
                with_residuals = false;
            }
        }
        Ok(DecoderTrace { f0: f0_down, n: n_down, encoded, generator_input: x })
    }
}
