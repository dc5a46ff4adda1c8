//! The prosody predictor: from ALBERT's context and the voice's prosody
//! style it predicts how many frames each token lasts, then the F0 (pitch)
//! and energy curves at twice the frame rate. One line at a time (batch 1).

use candle_core::{Module, Result, Tensor, D};
use candle_nn::{Linear, VarBuilder};

use super::config::Config;
use super::layers::{linear, AdaLayerNorm, Conv1d};
use super::residual::AdainResBlk1d;
use crate::lstm::BiLstm;

#[derive(Debug, Clone)]
pub struct ProsodyPredictor {
    /// DurationEncoder: (LSTM, AdaLayerNorm) per layer.
    duration_encoder: Vec<(BiLstm, AdaLayerNorm)>,
    lstm: BiLstm,
    duration_proj: Linear,
    shared: BiLstm,
    f0: Vec<AdainResBlk1d>,
    n: Vec<AdainResBlk1d>,
    f0_proj: Conv1d,
    n_proj: Conv1d,
    span: tracing::Span,
}

/// Style vector repeated along time: `[1, T, style_dim]`.
fn style_over_time(style: &Tensor, t: usize) -> Result<Tensor> {
    let d = style.dim(1)?;
    style.unsqueeze(1)?.broadcast_as((1, t, d))?.contiguous()
}

impl ProsodyPredictor {
    /// Loads from the `predictor` prefix.
    pub fn new(cfg: &Config, vb: VarBuilder) -> Result<Self> {
        let enc = vb.pp("text_encoder.lstms");
        let duration_encoder =
            (0..cfg.n_layer).map(|i| Ok((BiLstm::new(enc.pp(2 * i))?, AdaLayerNorm::new(enc.pp(2 * i + 1))?))).collect::<Result<Vec<_>>>()?;
        let h = cfg.hidden_dim;
        let blocks = |name: &str| -> Result<Vec<AdainResBlk1d>> {
            let p = vb.pp(name);
            Ok(vec![AdainResBlk1d::new(p.pp(0), h, h, false)?, AdainResBlk1d::new(p.pp(1), h, h / 2, true)?, AdainResBlk1d::new(p.pp(2), h / 2, h / 2, false)?])
        };
        Ok(ProsodyPredictor {
            duration_encoder,
            lstm: BiLstm::new(vb.pp("lstm"))?,
            duration_proj: linear(vb.pp("duration_proj.linear_layer"))?,
            shared: BiLstm::new(vb.pp("shared"))?,
            f0: blocks("F0")?,
            n: blocks("N")?,
            f0_proj: Conv1d::new(vb.pp("F0_proj"), true, 0, 1, 1, 1)?,
            n_proj: Conv1d::new(vb.pp("N_proj"), true, 0, 1, 1, 1)?,
            span: tracing::span!(tracing::Level::TRACE, "prosody"),
        })
    }

    /// Prosody features per token: `d_en` `[1, hidden, T]` → `[1, T, hidden + style]`.
    pub fn encode(&self, d_en: &Tensor, style: &Tensor) -> Result<Tensor> {
        let _enter = self.span.enter();
        let t = d_en.dim(2)?;
        let s = style_over_time(style, t)?;
        let mut x = Tensor::cat(&[&d_en.transpose(1, 2)?.contiguous()?, &s], 2)?;
        for (lstm, norm) in &self.duration_encoder {
            let y = lstm.forward(&x, &[t])?;
            let y = norm.forward(&y, style)?;
            x = Tensor::cat(&[&y, &s], 2)?;
        }
        Ok(x)
    }

    /// Duration logits `[1, T, max_dur]` for encoded tokens.
    pub fn duration_logits(&self, d: &Tensor) -> Result<Tensor> {
        let _enter = self.span.enter();
        let t = d.dim(1)?;
        self.duration_proj.forward(&self.lstm.forward(d, &[t])?)
    }

    /// F0 and energy curves `[1, 2F]` each, from frame features `en` `[1, hidden + style, F]`.
    pub fn f0_and_energy(&self, en: &Tensor, style: &Tensor) -> Result<(Tensor, Tensor)> {
        let _enter = self.span.enter();
        let frames = en.dim(2)?;
        let x = self.shared.forward(&en.transpose(1, 2)?.contiguous()?, &[frames])?.transpose(1, 2)?.contiguous()?;
        let run = |blocks: &[AdainResBlk1d], proj: &Conv1d| -> Result<Tensor> {
            let mut y = x.clone();
            for b in blocks {
                y = b.forward(&y, style)?;
            }
            proj.forward(&y)?.squeeze(1)
        };
        Ok((run(&self.f0, &self.f0_proj)?, run(&self.n, &self.n_proj)?))
    }
}

/// Kokoro's token ids up to this one are the pad (0), punctuation and the
/// space: the model reads them as silence.
pub const LAST_SILENT_TOKEN: u32 = 16;

/// The tokens of a row that are spoken: from its first sound to its last,
/// leaving out the pad, punctuation and spaces at either end (the silence
/// the model puts around a sentence). Empty when nothing is spoken.
pub fn spoken_tokens(tokens: &[u32]) -> std::ops::Range<usize> {
    let sound = |t: &u32| *t > LAST_SILENT_TOKEN;
    match (tokens.iter().position(sound), tokens.iter().rposition(sound)) {
        (Some(first), Some(last)) => first..last + 1,
        _ => 0..0,
    }
}

/// Predicted energy above which a frame is heard. Where it crosses this
/// lies within a frame or two of where the rendered audio rises 50 dB above
/// its silence (measured on English and Spanish voices of both sexes): the
/// durations alone overstate a line's sound, as its first sound starts
/// before its token and its last token is drawn out past its sound.
pub const HEARD_ENERGY: f32 = -3.0;

/// How many (duration) frames are heard in an energy curve `[1, 2F]`, from
/// its first frame above [`HEARD_ENERGY`] to its last.
pub fn heard_frames(energy: &Tensor) -> Result<f32> {
    let energy = energy.flatten_all()?.to_vec1::<f32>()?;
    let heard = |e: &f32| *e > HEARD_ENERGY;
    Ok(match (energy.iter().position(heard), energy.iter().rposition(heard)) {
        (Some(first), Some(last)) => (last + 1 - first) as f32 / 2.0,
        _ => 0.0,
    })
}

/// Frames per token from duration logits: `Σ sigmoid / speed`, rounded half
/// to even (as torch does), at least one frame.
pub fn durations_from_logits(logits: &Tensor, speed: f32) -> Result<Vec<usize>> {
    let per_token = candle_nn::ops::sigmoid(logits)?.sum(D::Minus1)?.flatten_all()?.to_vec1::<f32>()?;
    Ok(per_token.iter().map(|&v| ((v / speed).round_ties_even().max(1.0)) as usize).collect())
}

/// Repeats each token's column `durations[i]` times: `[1, C, T]` → `[1, C, ΣD]`
/// (the product with the 0/1 alignment matrix, without building it).
pub fn expand_by_durations(x: &Tensor, durations: &[usize]) -> Result<Tensor> {
    let indices: Vec<u32> = durations.iter().enumerate().flat_map(|(i, &d)| std::iter::repeat_n(i as u32, d)).collect();
    let n = indices.len();
    x.index_select(&Tensor::from_vec(indices, n, x.device())?, 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn the_spoken_tokens_leave_out_the_pad_and_punctuation_at_the_ends() {
        // $ n ˈ O . $ (pad, n, stress, O, full stop, pad)
        assert_eq!(spoken_tokens(&[0, 56, 156, 31, 4, 0]), 1..4);
        // A pause inside stays: $ a , b ! $
        assert_eq!(spoken_tokens(&[0, 43, 3, 16, 44, 5, 0]), 1..5);
        assert_eq!(spoken_tokens(&[0, 4, 16, 0]), 0..0);
    }

    #[test]
    fn the_heard_frames_run_from_the_first_loud_energy_to_the_last() {
        let energy = Tensor::new(&[[-9.0f32, -8.0, -1.0, 6.0, -5.0, 4.0, -2.5, -6.0, -9.0, -9.0]], &Device::Cpu).unwrap();
        assert_eq!(heard_frames(&energy).unwrap(), 2.5);
        assert_eq!(heard_frames(&Tensor::new(&[[-9.0f32, -8.0]], &Device::Cpu).unwrap()).unwrap(), 0.0);
    }

    #[test]
    fn durations_round_half_to_even_and_never_drop_below_one_frame() {
        // sigmoid(0) = 0.5: two logits of 0 give 1.0; speed 0.8 gives 1.25 -> 1.
        let logits = Tensor::zeros((1, 3, 2), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert_eq!(durations_from_logits(&logits, 1.0).unwrap(), vec![1, 1, 1]);
        // 5 logits of 0 = 2.5 -> 2 (ties to even); at speed 2 -> 1.25 -> 1.
        let logits = Tensor::zeros((1, 1, 5), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert_eq!(durations_from_logits(&logits, 1.0).unwrap(), vec![2]);
        let logits = (Tensor::ones((1, 1, 2), candle_core::DType::F32, &Device::Cpu).unwrap() * -20.0).unwrap();
        assert_eq!(durations_from_logits(&logits, 1.0).unwrap(), vec![1]);
    }

    #[test]
    fn expanding_repeats_each_token_for_its_frames() {
        let x = Tensor::new(&[[[1f32, 2., 3.]]], &Device::Cpu).unwrap();
        let y: Vec<f32> = expand_by_durations(&x, &[2, 0, 3]).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(y, vec![1., 1., 3., 3., 3.]);
    }
}
