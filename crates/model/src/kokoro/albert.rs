//! The phoneme-level ALBERT that reads a line's context: embeddings, one
//! transformer layer whose weights are shared by all twelve passes, and
//! the last hidden state out. Shapes are `[B, T, hidden]`.

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};

use super::config::AlbertConfig;
use super::dense::Dense;
use super::layers::linear;
use crate::cpu_tensor::map_in_place;
use crate::fast_math::gelu_tanh_in_place;

fn layer_norm(vb: VarBuilder, eps: f64) -> Result<LayerNorm> {
    Ok(LayerNorm::new(vb.get_unchecked_dtype("weight", DType::F32)?, vb.get_unchecked_dtype("bias", DType::F32)?, eps))
}

fn embedding(vb: VarBuilder) -> Result<Embedding> {
    let w = vb.get_unchecked_dtype("weight", DType::F32)?;
    let dim = w.dim(1)?;
    Ok(Embedding::new(w, dim))
}

/// The shared transformer layer.
#[derive(Debug, Clone)]
struct AlbertLayer {
    /// Query, key and value as one projection: their weights stacked `[3·hidden, hidden]`.
    qkv: Dense,
    dense: Dense,
    attention_norm: LayerNorm,
    ffn: Dense,
    ffn_output: Dense,
    output_norm: LayerNorm,
    heads: usize,
}

impl AlbertLayer {
    fn new(cfg: &AlbertConfig, vb: VarBuilder) -> Result<Self> {
        let attention = vb.pp("attention");
        let projections = [linear(attention.pp("query"))?, linear(attention.pp("key"))?, linear(attention.pp("value"))?];
        let weights: Vec<&Tensor> = projections.iter().map(|p| p.weight()).collect();
        let biases = projections.iter().map(|p| p.bias().cloned().ok_or_else(|| candle_core::Error::Msg("an ALBERT projection without a bias".into())));
        let biases = biases.collect::<Result<Vec<_>>>()?;
        Ok(AlbertLayer {
            qkv: Dense::from_parts(Tensor::cat(&weights, 0)?, Tensor::cat(&biases, 0)?)?,
            dense: Dense::new(attention.pp("dense"))?,
            attention_norm: layer_norm(attention.pp("LayerNorm"), cfg.layer_norm_eps)?,
            ffn: Dense::new(vb.pp("ffn"))?,
            ffn_output: Dense::new(vb.pp("ffn_output"))?,
            output_norm: layer_norm(vb.pp("full_layer_layer_norm"), cfg.layer_norm_eps)?,
            heads: cfg.num_attention_heads,
        })
    }

    /// `mask` is `[B, 1, 1, T]`: 0 for real tokens, a large negative for padding.
    fn forward(&self, x: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, t, hidden) = x.dims3()?;
        let head_dim = hidden / self.heads;
        // [B, T, 3·hidden] → [3, B, heads, T, head_dim] in one copy; q, k and v are its three slices.
        let qkv = self.qkv.forward(x)?.reshape((b, t, 3, self.heads, head_dim))?.permute((2, 0, 3, 1, 4))?.contiguous()?;
        let (q, k, v) = (qkv.get(0)?, qkv.get(1)?, qkv.get(2)?);
        let scores = (q.matmul(&k.t()?)? / (head_dim as f64).sqrt())?.broadcast_add(mask)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = weights.matmul(&v)?.transpose(1, 2)?.reshape((b, t, hidden))?;
        let attended = self.attention_norm.forward(&(x + self.dense.forward(&context)?)?)?;
        let ffn = self.ffn_output.forward(&map_in_place(self.ffn.forward(&attended)?, "gelu", gelu_tanh_in_place)?)?;
        self.output_norm.forward(&(ffn + attended)?)
    }
}

/// ALBERT as Kokoro uses it.
#[derive(Debug, Clone)]
pub struct Albert {
    word_embeddings: Embedding,
    position_embeddings: Embedding,
    token_type_embeddings: Embedding,
    embedding_norm: LayerNorm,
    mapping_in: Linear,
    layer: AlbertLayer,
    passes: usize,
    span: tracing::Span,
}

impl Albert {
    /// Loads from the `bert` prefix.
    pub fn new(cfg: &AlbertConfig, vb: VarBuilder) -> Result<Self> {
        let emb = vb.pp("embeddings");
        let enc = vb.pp("encoder");
        Ok(Albert {
            word_embeddings: embedding(emb.pp("word_embeddings"))?,
            position_embeddings: embedding(emb.pp("position_embeddings"))?,
            token_type_embeddings: embedding(emb.pp("token_type_embeddings"))?,
            embedding_norm: layer_norm(emb.pp("LayerNorm"), cfg.layer_norm_eps)?,
            mapping_in: linear(enc.pp("embedding_hidden_mapping_in"))?,
            layer: AlbertLayer::new(cfg, enc.pp("albert_layer_groups.0.albert_layers.0"))?,
            passes: cfg.num_hidden_layers,
            span: tracing::span!(tracing::Level::TRACE, "albert"),
        })
    }

    /// `tokens` `[B, T]` (u32), `lengths[b]` real tokens per row → `[B, T, hidden]`.
    pub fn forward(&self, tokens: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let _enter = self.span.enter();
        let (b, t) = tokens.dims2()?;
        let dev = tokens.device();
        let positions = Tensor::arange(0u32, t as u32, dev)?.unsqueeze(0)?.broadcast_as((b, t))?;
        let types = Tensor::zeros((b, t), DType::U32, dev)?;
        let x = (self.word_embeddings.forward(tokens)? + self.position_embeddings.forward(&positions)?)?.add(&self.token_type_embeddings.forward(&types)?)?;
        let mut x = self.mapping_in.forward(&self.embedding_norm.forward(&x)?)?;
        let mask: Vec<f32> = (0..b).flat_map(|row| (0..t).map(move |i| if i < lengths[row] { 0.0 } else { -1e9 })).collect();
        let mask = Tensor::from_vec(mask, (b, 1, 1, t), dev)?;
        for _ in 0..self.passes {
            x = self.layer.forward(&x, &mask)?;
        }
        Ok(x)
    }
}
