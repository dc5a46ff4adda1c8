//! The acoustic text encoder: phoneme embeddings through three
//! convolution + layer-norm + LeakyReLU stages and a bidirectional LSTM,
//! giving one 512-wide feature per token (`[B, 512, T]`).

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::{Embedding, VarBuilder};

use super::config::Config;
use super::layers::{leaky_relu, ChannelLayerNorm, Conv1d};
use super::mask::zero_padding;
use crate::lstm::BiLstm;

#[derive(Debug, Clone)]
pub struct TextEncoder {
    embedding: Embedding,
    convs: Vec<(Conv1d, ChannelLayerNorm)>,
    lstm: BiLstm,
    span: tracing::Span,
}

impl TextEncoder {
    /// Loads from the `text_encoder` prefix.
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        let w = vb.pp("embedding").get_unchecked_dtype("weight", DType::F32)?;
        let convs = (0..cfg.n_layer)
            .map(|i| {
                let stage = vb.pp(format!("cnn.{i}"));
                Ok((Conv1d::same(stage.pp("0"), true, 1)?, ChannelLayerNorm::new(stage.pp("1"), 1e-5)?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(TextEncoder {
            embedding: Embedding::new(w, cfg.hidden_dim),
            convs,
            lstm: BiLstm::new(vb.pp("lstm"))?,
            span: tracing::span!(tracing::Level::TRACE, "text_encoder"),
        })
    }

    /// `tokens` `[B, T]` → `[B, hidden, T]`, zero past each row's length.
    pub fn forward(&self, tokens: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let _enter = self.span.enter();
        let mut x = zero_padding(&self.embedding.forward(tokens)?.transpose(1, 2)?, lengths)?;
        for (conv, norm) in &self.convs {
            x = leaky_relu(&norm.forward(&conv.forward(&x)?)?, 0.2)?;
            x = zero_padding(&x, lengths)?;
        }
        let y = self.lstm.forward(&x.transpose(1, 2)?.contiguous()?, lengths)?;
        y.transpose(1, 2)?.contiguous()
    }
}
