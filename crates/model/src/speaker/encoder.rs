//! The GE2E network on candle: a 3-layer LSTM (40 → 256, torch gate order
//! i, f, g, o) over 160 mel frames, then `ReLU(linear(h_last))` and L2
//! normalisation. Weight paths are the state-dict names of Resemblyzer's
//! `VoiceEncoder` (`lstm.weight_ih_l0`, ..., `linear.weight`).
//!
//! The layers are the model crate's shared [`Lstm`], the one Kokoro's
//! bidirectional layers run too.

use candle_core::{Device, Module, Result, Tensor, D};
use candle_nn::{linear, Linear, VarBuilder};

use crate::lstm::Lstm;

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

/// The speaker encoder network.
#[derive(Debug, Clone)]
pub struct SpeakerNet {
    lstm: Vec<Lstm>,
    linear: Linear,
    cfg: Config,
    span: tracing::Span,
}

impl SpeakerNet {
    /// Builds the network from weights under `lstm.*` and `linear.*`.
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        let lstm_vb = vb.pp("lstm");
        let lstm = (0..cfg.layers).map(|l| Lstm::new(&lstm_vb, l)).collect::<Result<Vec<_>>>()?;
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
