//! The GE2E network on candle: a 3-layer LSTM (40 → 256, torch gate order
//! i, f, g, o) over 160 mel frames, then `ReLU(linear(h_last))` and L2
//! normalisation. Weight paths are the state-dict names of Resemblyzer's
//! `VoiceEncoder` (`lstm.weight_ih_l0`, ..., `linear.weight`).
//!
//! The input projections of all steps are one matrix product per layer; the
//! recurrence multiplies the whole batch of partials by `W_hh` per step and
//! runs the gates on plain slices, so a step costs one small matmul and no
//! tensor bookkeeping.

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{linear, Linear, VarBuilder};

/// The network's sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub mel_bands: usize,
    pub hidden: usize,
    pub layers: usize,
    pub embedding: usize,
}

impl Config {
    /// Resemblyzer 0.1.4 (`hparams.py`).
    pub fn resemblyzer() -> Config {
        Config { mel_bands: 40, hidden: 256, layers: 3, embedding: 256 }
    }
}

/// One unidirectional LSTM layer.
#[derive(Debug, Clone)]
struct LstmLayer {
    /// `[4H, I]`
    w_ih: Tensor,
    /// `W_hh` transposed, `[H, 4H]`.
    w_hh_t: Tensor,
    /// `b_ih + b_hh`, `[4H]`
    bias: Tensor,
    hidden: usize,
    span: tracing::Span,
}

fn sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + (-v).exp())
}

impl LstmLayer {
    fn new(cfg: &Config, layer: usize, vb: &VarBuilder) -> Result<Self> {
        let (h, input) = (cfg.hidden, if layer == 0 { cfg.mel_bands } else { cfg.hidden });
        let w_ih = vb.get((4 * h, input), &format!("weight_ih_l{layer}"))?;
        let w_hh = vb.get((4 * h, h), &format!("weight_hh_l{layer}"))?;
        let b_ih = vb.get(4 * h, &format!("bias_ih_l{layer}"))?;
        let b_hh = vb.get(4 * h, &format!("bias_hh_l{layer}"))?;
        Ok(LstmLayer { w_ih, w_hh_t: w_hh.t()?.contiguous()?, bias: (b_ih + b_hh)?, hidden: h, span: tracing::span!(tracing::Level::TRACE, "lstm-layer", layer) })
    }

    /// `x` `[B, T, I]` → every step's hidden state `[B, T, H]`.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let _enter = self.span.enter();
        let (batch, steps, _) = x.dims3()?;
        let h = self.hidden;
        let projected = x.broadcast_matmul(&self.w_ih.t()?)?.broadcast_add(&self.bias)?.contiguous()?;
        let projected = projected.flatten_all()?.to_vec1::<f32>()?;
        let mut hidden = Tensor::zeros((batch, h), DType::F32, x.device())?;
        let mut cell = vec![0f32; batch * h];
        let mut out = vec![0f32; batch * steps * h];
        for t in 0..steps {
            let recurrent = hidden.matmul(&self.w_hh_t)?.flatten_all()?.to_vec1::<f32>()?;
            let mut next = vec![0f32; batch * h];
            for b in 0..batch {
                let gates_in = &projected[(b * steps + t) * 4 * h..(b * steps + t + 1) * 4 * h];
                let gates_rec = &recurrent[b * 4 * h..(b + 1) * 4 * h];
                for j in 0..h {
                    let i = sigmoid(gates_in[j] + gates_rec[j]);
                    let f = sigmoid(gates_in[h + j] + gates_rec[h + j]);
                    let g = (gates_in[2 * h + j] + gates_rec[2 * h + j]).tanh();
                    let o = sigmoid(gates_in[3 * h + j] + gates_rec[3 * h + j]);
                    let c = f * cell[b * h + j] + i * g;
                    cell[b * h + j] = c;
                    let v = o * c.tanh();
                    next[b * h + j] = v;
                    out[(b * steps + t) * h + j] = v;
                }
            }
            hidden = Tensor::from_vec(next, (batch, h), x.device())?;
        }
        Tensor::from_vec(out, (batch, steps, h), x.device())
    }
}

/// The speaker encoder network.
#[derive(Debug, Clone)]
pub struct SpeakerNet {
    lstm: Vec<LstmLayer>,
    linear: Linear,
    cfg: Config,
    span: tracing::Span,
}

impl SpeakerNet {
    /// Builds the network from weights under `lstm.*` and `linear.*`.
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        let lstm_vb = vb.pp("lstm");
        let lstm = (0..cfg.layers).map(|l| LstmLayer::new(cfg, l, &lstm_vb)).collect::<Result<Vec<_>>>()?;
        let linear = linear(cfg.hidden, cfg.embedding, vb.pp("linear"))?;
        Ok(SpeakerNet { lstm, linear, cfg: cfg.clone(), span: tracing::span!(tracing::Level::TRACE, "speaker-net") })
    }

    /// The network's sizes.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        self.linear.weight().device()
    }
}

impl Module for SpeakerNet {
    /// Mel frames `[B, T, 40]` → L2-normalised embeddings `[B, 256]`.
    fn forward(&self, mels: &Tensor) -> Result<Tensor> {
        let _enter = self.span.enter();
        let mut x = mels.clone();
        for layer in &self.lstm {
            x = layer.forward(&x)?;
        }
        let steps = x.dim(1)?;
        let last = x.narrow(1, steps - 1, 1)?.squeeze(1)?;
        let raw = self.linear.forward(&last)?.relu()?;
        // A partial whose every unit is cut by the ReLU stays zero instead of NaN.
        let norm = raw.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.maximum(1e-12)?;
        raw.broadcast_div(&norm)
    }
}
