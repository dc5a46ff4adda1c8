//! Whisper's transformer on candle, built from the CTranslate2 weight names
//! (`encoder.layer_0.self_attention.linear_0.weight` is layer 0's fused
//! query/key/value projection, and so on), so the weight file and the
//! module tree read alike.
//!
//! - [`Encoder`]: two GELU convolutions (the second with stride 2: 3000 mel
//!   frames → 1500 positions), sinusoidal positions, pre-norm self-attention
//!   blocks, a final layer norm.
//! - [`Decoder`]: token and learned position embeddings, pre-norm blocks of
//!   causal self-attention (with a key/value cache), cross-attention over the
//!   encoder output (its keys and values computed once per window) and a
//!   feed-forward layer; logits through the tied embedding matrix. It can
//!   hand back the cross-attention scores of chosen heads, which is what
//!   word timing reads. Token by token, its linear layers and the logits
//!   run through f16 copies of the weights ([`HalfRows`]): a step reads
//!   every weight once, and f16 is half the bytes.

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{conv1d, Conv1d, Conv1dConfig, LayerNorm, Linear, VarBuilder};

use super::attention::{self, Rows};
use super::config::WhisperConfig;
use super::step_logits::StepLogits;
use super::step_memory::StepMemory;
use crate::bf16_matmul::{self, PackedRight};
use crate::cpu_tensor::{map_in_place, with_f32_slice};
use crate::fast_math::{gelu_in_place, softmax_in_place};
use crate::half_rows::HalfRows;

/// Rows at most that go through the f16 copies (a token step, or a few).
const FEW_ROWS: usize = 4;

fn ln(size: usize, vb: VarBuilder) -> Result<LayerNorm> {
    let weight = vb.get(size, "gamma")?;
    let bias = vb.get(size, "beta")?;
    Ok(LayerNorm::new(weight, bias, 1e-5))
}

/// A linear layer, with an f16 copy for a few rows at a time once made.
struct Dense {
    linear: Linear,
    half: Option<HalfRows>,
    /// A bf16 copy for many rows at once (the encoder's, where supported),
    /// with the bias as a slice.
    bf16: Option<(PackedRight, Option<Vec<f32>>)>,
}

impl Dense {
    /// Makes the f16 copy.
    fn make_half_copy(&mut self) -> Result<()> {
        let (rows, cols) = self.linear.weight().dims2()?;
        let weight = self.linear.weight().flatten_all()?.to_vec1::<f32>()?;
        let bias = self.linear.bias().map(|b| b.to_vec1::<f32>()).transpose()?;
        self.half = Some(HalfRows::new(&weight, rows, cols, bias.as_deref()));
        Ok(())
    }

    /// Makes the bf16 copy.
    fn make_bf16_copy(&mut self) -> Result<()> {
        let (rows, cols) = self.linear.weight().dims2()?;
        let packed = with_f32_slice(self.linear.weight(), |w| PackedRight::linear_weight(w, rows, cols))?;
        let bias = self.linear.bias().map(|b| b.to_vec1::<f32>()).transpose()?;
        self.bf16 = Some((packed, bias));
        Ok(())
    }
}

fn linear(inp: usize, out: usize, vb: VarBuilder) -> Result<Dense> {
    Ok(Dense { linear: Linear::new(vb.get((out, inp), "weight")?, Some(vb.get(out, "bias")?)), half: None, bf16: None })
}

/// `x [B, T, D]` through a linear layer: a few rows through the f16 copy when it has
/// the copy, else one 2-D matmul.
fn apply(layer: &Dense, x: &Tensor) -> Result<Tensor> {
    let (b, t, d) = x.dims3()?;
    if let Some(half) = layer.half.as_ref().filter(|_| b * t <= FEW_ROWS) {
        let rows = x.flatten_all()?.to_vec1::<f32>()?;
        return Tensor::from_vec(half.forward(&rows, b * t), (b, t, half.rows()), x.device());
    }
    if let Some((packed, bias)) = layer.bf16.as_ref().filter(|_| b * t > FEW_ROWS) {
        let y = with_f32_slice(x, |rows| bf16_matmul::linear(rows, b * t, packed, bias.as_deref()))?;
        return Tensor::from_vec(y, (b, t, packed.n()), x.device());
    }
    let y = layer.linear.forward(&x.reshape((b * t, d))?)?;
    y.reshape((b, t, ()))
}

fn split_heads(x: &Tensor, heads: usize) -> Result<Tensor> {
    let (b, t, d) = x.dims3()?;
    x.reshape((b, t, heads, d / heads))?.transpose(1, 2)?.contiguous()
}

fn merge_heads(x: &Tensor) -> Result<Tensor> {
    let (b, h, t, d) = x.dims4()?;
    x.transpose(1, 2)?.reshape((b, t, h * d))
}

/// GELU (the erf form) of a fresh result, in place.
fn gelu(x: Tensor) -> Result<Tensor> {
    map_in_place(x, "gelu", gelu_in_place)
}

/// Scaled dot-product attention on candle, `[B, H, T, dh]` each; returns
/// the output and the pre-softmax scores. For a causal mask, and for the
/// scores word timing reads; the rest goes through [`attention::attend`].
fn attend(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let scale = (q.dim(D::Minus1)? as f64).powf(-0.5);
    let q = (q * scale)?;
    let mut scores = q.matmul(&k.t()?)?;
    if let Some(mask) = mask {
        scores = scores.broadcast_add(mask)?;
    }
    let weights = candle_nn::ops::softmax_last_dim(&scores)?;
    Ok((weights.matmul(v)?, scores))
}

/// `softmax(Q Kᵀ/√dh) V` for one sequence (`B` = 1) with [`attention::attend`]:
/// queries in the first `width` columns of `q` `[1, n, ·]`, keys and values
/// at the given column offsets of `kv` `[1, m, ·]`, `heads × dh` wide;
/// returns `[1, n, heads × dh]`.
fn attend_rows(q: &Tensor, kv: &Tensor, k_offset: usize, v_offset: usize, heads: usize, width: usize, bf16: bool) -> Result<Tensor> {
    let (_, n, q_stride) = q.dims3()?;
    let (_, m, kv_stride) = kv.dims3()?;
    let sizes = attention::Sizes { queries: n, keys: m, heads, head_dim: width / heads };
    let out = with_f32_slice(q, |qd| {
        with_f32_slice(kv, |kvd| {
            let rows = |data, stride, offset| Rows { data, stride, offset };
            attention::attend(rows(qd, q_stride, 0), rows(kvd, kv_stride, k_offset), rows(kvd, kv_stride, v_offset), sizes, bf16)
        })
    })??;
    Tensor::from_vec(out, (1, n, width), q.device())
}

struct FeedForward {
    norm: LayerNorm,
    up: Dense,
    down: Dense,
}

impl FeedForward {
    fn new(d: usize, vb: VarBuilder) -> Result<Self> {
        let up_out = 4 * d;
        Ok(FeedForward { norm: ln(d, vb.pp("layer_norm"))?, up: linear(d, up_out, vb.pp("linear_0"))?, down: linear(up_out, d, vb.pp("linear_1"))? })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let h = gelu(apply(&self.up, &self.norm.forward(x)?)?)?;
        x + apply(&self.down, &h)?
    }
}

struct SelfAttention {
    norm: LayerNorm,
    qkv: Dense,
    out: Dense,
    heads: usize,
    /// Attention in bf16 (the encoder's, where supported).
    bf16: bool,
}

impl SelfAttention {
    fn new(d: usize, heads: usize, vb: VarBuilder) -> Result<Self> {
        Ok(SelfAttention {
            norm: ln(d, vb.pp("layer_norm"))?,
            qkv: linear(d, 3 * d, vb.pp("linear_0"))?,
            out: linear(d, d, vb.pp("linear_1"))?,
            heads,
            bf16: false,
        })
    }

    /// `x` plus attention over itself (and `cache`'s earlier keys/values,
    /// which it extends), causal when `mask` is given.
    fn forward(&self, x: &Tensor, mask: Option<&Tensor>, cache: Option<&mut KeyValues>) -> Result<Tensor> {
        let h = self.norm.forward(x)?;
        let qkv = apply(&self.qkv, &h)?;
        let d = qkv.dim(D::Minus1)? / 3;
        let Some(cache) = cache else {
            if mask.is_none() && qkv.dim(0)? == 1 {
                let o = attend_rows(&qkv, &qkv, d, 2 * d, self.heads, d, self.bf16)?;
                return x + apply(&self.out, &o)?;
            }
            let q = split_heads(&qkv.narrow(D::Minus1, 0, d)?, self.heads)?;
            let k = split_heads(&qkv.narrow(D::Minus1, d, d)?, self.heads)?;
            let v = split_heads(&qkv.narrow(D::Minus1, 2 * d, d)?, self.heads)?;
            let (o, _) = attend(&q, &k, &v, mask)?;
            return x + apply(&self.out, &merge_heads(&o)?)?;
        };
        let (b, n, _) = qkv.dims3()?;
        if b != 1 {
            candle_core::bail!("a decoder with a key/value cache takes one sequence, not {b}");
        }
        let rows = with_f32_slice(&qkv, |rows| {
            for row in rows.chunks_exact(3 * d) {
                cache.keys.extend_from_slice(&row[d..2 * d]);
                cache.values.extend_from_slice(&row[2 * d..]);
            }
            (n == 1).then(|| cache.attend_one(&rows[..d], self.heads))
        })?;
        if let Some(o) = rows {
            return x + apply(&self.out, &Tensor::from_vec(o, (1, 1, d), x.device())?)?;
        }
        let positions = cache.keys.len() / d;
        let q = split_heads(&qkv.narrow(D::Minus1, 0, d)?, self.heads)?;
        let k = split_heads(&Tensor::from_slice(&cache.keys, (1, positions, d), x.device())?, self.heads)?;
        let v = split_heads(&Tensor::from_slice(&cache.values, (1, positions, d), x.device())?, self.heads)?;
        let (o, _) = attend(&q, &k, &v, mask)?;
        x + apply(&self.out, &merge_heads(&o)?)?
    }
}

/// A decoder layer's keys and values of the tokens fed so far, a row of
/// `heads × head_dim` per token.
#[derive(Debug, Clone, Default)]
pub struct KeyValues {
    keys: Vec<f32>,
    values: Vec<f32>,
}

impl KeyValues {
    /// `softmax(q Kᵀ/√dh) V` per head for one query `q` over every cached
    /// token (a few hundred at most: plain loops, no tensor ops).
    fn attend_one(&self, q: &[f32], heads: usize) -> Vec<f32> {
        let width = q.len();
        let dh = width / heads;
        let positions = self.keys.len() / width;
        let scale = (dh as f32).powf(-0.5);
        let mut out = vec![0f32; width];
        let mut scores = vec![0f32; positions];
        for h in 0..heads {
            let columns = h * dh..(h + 1) * dh;
            let query = &q[columns.clone()];
            for (p, score) in scores.iter_mut().enumerate() {
                let key = &self.keys[p * width + h * dh..p * width + (h + 1) * dh];
                *score = query.iter().zip(key).map(|(a, b)| a * b).sum::<f32>() * scale;
            }
            softmax_in_place(&mut scores);
            let out = &mut out[columns];
            for (p, &w) in scores.iter().enumerate() {
                let value = &self.values[p * width + h * dh..p * width + (h + 1) * dh];
                for (o, v) in out.iter_mut().zip(value) {
                    *o += w * v;
                }
            }
        }
        out
    }
}

struct CrossAttention {
    norm: LayerNorm,
    q: Dense,
    /// Once per window, over every audio position: f32 only.
    kv: Dense,
    out: Dense,
    heads: usize,
}

impl CrossAttention {
    fn new(d: usize, heads: usize, vb: VarBuilder) -> Result<Self> {
        Ok(CrossAttention {
            norm: ln(d, vb.pp("layer_norm"))?,
            q: linear(d, d, vb.pp("linear_0"))?,
            kv: linear(d, 2 * d, vb.pp("linear_1"))?,
            out: linear(d, d, vb.pp("linear_2"))?,
            heads,
        })
    }

    /// Keys and values of the encoder output side by side, `[B, 1500, 2 × 512]`.
    fn memory(&self, audio: &Tensor) -> Result<Tensor> {
        apply(&self.kv, audio)
    }

    /// `x` plus attention over the audio; the scores too when asked for.
    /// One token's step goes through `step`, the f16 copy, when given.
    fn forward(&self, x: &Tensor, memory: &Tensor, step: Option<&StepMemory>, want_scores: bool) -> Result<(Tensor, Option<Tensor>)> {
        let q = apply(&self.q, &self.norm.forward(x)?)?;
        let d = q.dim(D::Minus1)?;
        if let Some(step) = step {
            let o = with_f32_slice(&q, |q| step.attend(q))?;
            let o = Tensor::from_vec(o, (1, 1, d), q.device())?;
            return Ok(((x + apply(&self.out, &o)?)?, None));
        }
        if !want_scores && memory.dim(0)? == 1 {
            let o = attend_rows(&q, memory, 0, d, self.heads, d, false)?;
            return Ok(((x + apply(&self.out, &o)?)?, None));
        }
        let k = split_heads(&memory.narrow(D::Minus1, 0, d)?, self.heads)?;
        let v = split_heads(&memory.narrow(D::Minus1, d, d)?, self.heads)?;
        let (o, scores) = attend(&split_heads(&q, self.heads)?, &k, &v, None)?;
        Ok(((x + apply(&self.out, &merge_heads(&o)?)?)?, Some(scores)))
    }
}

struct EncoderBlock {
    attention: SelfAttention,
    ffn: FeedForward,
}

/// The audio encoder.
pub struct Encoder {
    conv1: Conv1d,
    conv2: Conv1d,
    positions: Tensor,
    blocks: Vec<EncoderBlock>,
    norm: LayerNorm,
    span: tracing::Span,
}

impl Encoder {
    pub fn new(cfg: &WhisperConfig, vb: VarBuilder) -> Result<Self> {
        let d = cfg.d_model;
        let c1 = Conv1dConfig { padding: 1, ..Default::default() };
        let c2 = Conv1dConfig { padding: 1, stride: 2, ..Default::default() };
        let blocks = (0..cfg.encoder_layers)
            .map(|i| {
                let vb = vb.pp(format!("layer_{i}"));
                Ok(EncoderBlock { attention: SelfAttention::new(d, cfg.encoder_heads, vb.pp("self_attention"))?, ffn: FeedForward::new(d, vb.pp("ffn"))? })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Encoder {
            conv1: conv1d(cfg.n_mels, d, 3, c1, vb.pp("conv1"))?,
            conv2: conv1d(d, d, 3, c2, vb.pp("conv2"))?,
            positions: vb.get((cfg.n_audio_ctx, d), "position_encodings.encodings")?,
            blocks,
            norm: ln(d, vb.pp("layer_norm"))?,
            span: tracing::span!(tracing::Level::TRACE, "whisper-encoder"),
        })
    }
}

impl Encoder {
    /// Runs the blocks' linear layers and self-attention in bf16 (see
    /// [`crate::bf16_matmul`]); call only where it is supported.
    pub fn use_bf16(&mut self) -> Result<()> {
        for block in &mut self.blocks {
            for dense in [&mut block.attention.qkv, &mut block.attention.out, &mut block.ffn.up, &mut block.ffn.down] {
                dense.make_bf16_copy()?;
            }
            block.attention.bf16 = true;
        }
        Ok(())
    }
}

impl Module for Encoder {
    /// Mel frames `[B, 80, 3000]` → audio states `[B, 1500, 512]`.
    fn forward(&self, mel: &Tensor) -> Result<Tensor> {
        let _enter = self.span.enter();
        let x = gelu(self.conv1.forward(mel)?)?;
        let x = gelu(self.conv2.forward(&x)?)?.transpose(1, 2)?;
        let t = x.dim(1)?;
        let mut x = x.broadcast_add(&self.positions.narrow(0, 0, t)?)?;
        for block in &self.blocks {
            x = block.attention.forward(&x, None, None)?;
            x = block.ffn.forward(&x)?;
        }
        self.norm.forward(&x)
    }
}

struct DecoderBlock {
    attention: SelfAttention,
    cross: CrossAttention,
    ffn: FeedForward,
}

/// The text decoder.
pub struct Decoder {
    embeddings: Tensor,
    /// The tied embeddings as the logits layer, in f16 (once made).
    logits_half: Option<HalfRows>,
    /// And in int8, to find the rows a step needs in f16 (once made).
    logits_int8: Option<StepLogits>,
    positions: Tensor,
    blocks: Vec<DecoderBlock>,
    norm: LayerNorm,
    span: tracing::Span,
}

/// One window's decoding state: the encoder's keys/values per layer and the
/// self-attention cache of the tokens fed so far.
pub struct DecoderState {
    memory: Vec<Tensor>,
    /// The same keys and values in f16 for token steps (with the f16
    /// weights, where supported), made on the first step.
    step_memory: Vec<StepMemory>,
    cache: Vec<KeyValues>,
    /// Tokens fed so far (the next position).
    pub position: usize,
}

impl Decoder {
    pub fn new(cfg: &WhisperConfig, vb: VarBuilder) -> Result<Self> {
        let d = cfg.d_model;
        let blocks = (0..cfg.decoder_layers)
            .map(|i| {
                let vb = vb.pp(format!("layer_{i}"));
                Ok(DecoderBlock {
                    attention: SelfAttention::new(d, cfg.decoder_heads, vb.pp("self_attention"))?,
                    cross: CrossAttention::new(d, cfg.decoder_heads, vb.pp("attention"))?,
                    ffn: FeedForward::new(d, vb.pp("ffn"))?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Decoder {
            embeddings: vb.get((cfg.vocab, d), "embeddings.weight")?,
            logits_half: None,
            logits_int8: None,
            positions: vb.get((cfg.n_text_ctx, d), "position_encodings.encodings")?,
            blocks,
            norm: ln(d, vb.pp("layer_norm"))?,
            span: tracing::span!(tracing::Level::TRACE, "whisper-decoder"),
        })
    }

    /// Makes f16 copies of the layers a token step reads (and the logits
    /// layer); the f32 weights stay for many rows at once.
    pub fn make_half_copies(&mut self) -> Result<()> {
        for block in &mut self.blocks {
            for dense in [&mut block.attention.qkv, &mut block.attention.out, &mut block.cross.q, &mut block.cross.out, &mut block.ffn.up, &mut block.ffn.down]
            {
                dense.make_half_copy()?;
            }
        }
        let (vocab, d) = self.embeddings.dims2()?;
        let embeddings = self.embeddings.flatten_all()?.to_vec1::<f32>()?;
        self.logits_half = Some(HalfRows::new(&embeddings, vocab, d, None));
        if StepLogits::supported() {
            self.logits_int8 = Some(StepLogits::new(&embeddings, vocab, d));
        }
        Ok(())
    }

    /// Computes the cross-attention keys and values of each window (1500
    /// positions, once per window) in bf16 (see [`crate::bf16_matmul`]);
    /// call only where it is supported.
    pub fn use_bf16(&mut self) -> Result<()> {
        for block in &mut self.blocks {
            block.cross.kv.make_bf16_copy()?;
        }
        Ok(())
    }

    /// A fresh state over the encoder output `audio [1, 1500, 512]`.
    pub fn start(&self, audio: &Tensor) -> Result<DecoderState> {
        let memory = self.blocks.iter().map(|b| b.cross.memory(audio)).collect::<Result<Vec<_>>>()?;
        Ok(DecoderState { memory, step_memory: Vec::new(), cache: vec![KeyValues::default(); self.blocks.len()], position: 0 })
    }

    /// The f16 copy of each layer's cross-attention memory for one-token
    /// steps (with the f16 weights, where supported; else none).
    fn step_memory(&self, memory: &[Tensor]) -> Result<Vec<StepMemory>> {
        if self.logits_half.is_none() || !StepMemory::supported() {
            return Ok(Vec::new());
        }
        memory
            .iter()
            .zip(&self.blocks)
            .map(|(m, b)| {
                let (_, positions, width) = m.dims3()?;
                with_f32_slice(m, |m| StepMemory::new(m, positions, b.cross.heads, width / 2 / b.cross.heads))
            })
            .collect()
    }

    /// Feeds `tokens` after those already in `state`; returns the final
    /// hidden states `[1, n, 512]` and, for each `(layer, head)` in
    /// `heads`, its pre-softmax cross-attention scores `[n, 1500]`.
    pub fn feed(&self, state: &mut DecoderState, tokens: &[u32], heads: &[(usize, usize)]) -> Result<(Tensor, Vec<Tensor>)> {
        let _enter = self.span.enter();
        let device = self.embeddings.device();
        let n = tokens.len();
        if n == 1 && state.step_memory.is_empty() {
            // Made on the first one-token step: a pass that only aligns never takes one.
            state.step_memory = self.step_memory(&state.memory)?;
        }
        let ids = Tensor::new(tokens, device)?;
        let x = self.embeddings.index_select(&ids, 0)?;
        let x = (x + self.positions.narrow(0, state.position, n)?)?.unsqueeze(0)?;
        let mask = causal_mask(n, state.position, device)?;
        let mut x = x;
        let mut picked = Vec::new();
        for (i, block) in self.blocks.iter().enumerate() {
            x = block.attention.forward(&x, mask.as_ref(), Some(&mut state.cache[i]))?;
            let wanted = heads.iter().any(|&(layer, _)| layer == i);
            let step = state.step_memory.get(i).filter(|_| n == 1 && !wanted);
            let (y, scores) = block.cross.forward(&x, &state.memory[i], step, wanted)?;
            x = block.ffn.forward(&y)?;
            if let Some(scores) = scores.filter(|_| wanted) {
                for &(layer, head) in heads {
                    if layer == i {
                        picked.push(scores.get(0)?.get(head)?);
                    }
                }
            }
        }
        state.position += n;
        Ok((self.norm.forward(&x)?, picked))
    }

    /// Logits `[n, vocab]` of hidden states `[1, n, 512]` (tied embeddings).
    pub fn logits(&self, hidden: &Tensor) -> Result<Tensor> {
        let hidden = hidden.squeeze(0)?;
        let n = hidden.dim(0)?;
        if let Some(half) = self.logits_half.as_ref().filter(|_| n <= FEW_ROWS) {
            return Tensor::from_vec(half.forward(&hidden.flatten_all()?.to_vec1::<f32>()?, n), (n, half.rows()), hidden.device());
        }
        hidden.matmul(&self.embeddings.t()?)
    }
}

impl Decoder {
    /// One step's logits `[vocab]` of a hidden state `[1, 1, 512]`: what
    /// [`Self::logits`] gives, except that text rows (below `text_rows`)
    /// that cannot be the step's choice may come from the int8 copy (see
    /// [`StepLogits`]); `never_chosen`: text tokens the rules suppress.
    pub fn step_logits(&self, hidden: &Tensor, text_rows: usize, never_chosen: &[u32]) -> Result<Vec<f32>> {
        if let (Some(half), Some(int8)) = (&self.logits_half, &self.logits_int8) {
            return with_f32_slice(hidden, |x| int8.logits(half, x, text_rows, never_chosen));
        }
        self.logits(hidden)?.get(0)?.to_vec1::<f32>()
    }
}

/// `-inf` above the diagonal for `n` new tokens after `past` cached ones.
fn causal_mask(n: usize, past: usize, device: &Device) -> Result<Option<Tensor>> {
    if n == 1 {
        return Ok(None);
    }
    let mask: Vec<f32> = (0..n).flat_map(|i| (0..past + n).map(move |j| if j > past + i { f32::NEG_INFINITY } else { 0.0 })).collect();
    Ok(Some(Tensor::from_vec(mask, (n, past + n), device)?.to_dtype(DType::F32)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_causal_mask_hides_later_tokens_only() {
        let m = causal_mask(2, 1, &Device::Cpu).unwrap().unwrap().to_vec2::<f32>().unwrap();
        assert_eq!(m[0], vec![0.0, 0.0, f32::NEG_INFINITY]);
        assert_eq!(m[1], vec![0.0, 0.0, 0.0]);
        assert!(causal_mask(1, 5, &Device::Cpu).unwrap().is_none());
    }
}
