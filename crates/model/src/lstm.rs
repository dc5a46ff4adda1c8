//! The one LSTM both networks run: Kokoro's bidirectional layers and the
//! speaker encoder's stacked unidirectional ones. A layer runs as torch
//! runs a packed sequence: each row covers its own length (a backward
//! direction starts at the row's own last step) and steps past the length
//! output zeros. Gate order is torch's (input, forget, cell, output).
//!
//! The input projections for all steps are one matrix product; the
//! recurrence runs on plain slices: at each step the rows still running
//! take one `[rows, H] × [H, 4H]` product with the recurrent weights (a
//! matrix-vector product for one row), with no tensor bookkeeping.

use candle_core::{DType, Device, Result, Tensor};
use candle_nn::VarBuilder;

/// One direction of one layer: torch's `weight_ih_l{n}{suffix}` and friends.
#[derive(Debug, Clone)]
pub struct LstmDirection {
    /// `[4H, I]`
    w_ih: Tensor,
    /// `b_ih + b_hh`, `[4H]`
    bias: Tensor,
    /// `W_hh` transposed, `[H][4H]` row-major.
    w_hh_t: Vec<f32>,
    hidden: usize,
}

fn sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + (-v).exp())
}

impl LstmDirection {
    /// Loads layer `layer`'s weights; `reverse` for the `_reverse` twins.
    pub fn load(vb: &VarBuilder, layer: usize, reverse: bool) -> Result<LstmDirection> {
        let suffix = if reverse { "_reverse" } else { "" };
        let get = |name: &str| vb.get_unchecked_dtype(&format!("{name}_l{layer}{suffix}"), DType::F32);
        let (w_ih, w_hh, b_ih, b_hh) = (get("weight_ih")?, get("weight_hh")?, get("bias_ih")?, get("bias_hh")?);
        let hidden = w_hh.dim(1)?;
        let w_hh_t = w_hh.t()?.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
        Ok(LstmDirection { w_ih, bias: (b_ih + b_hh)?, w_hh_t, hidden })
    }

    /// The hidden size `H`.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Runs `x` `[B, T, I]` forwards (or backwards) through each row's
    /// `lengths[b]` steps, writing step `t`'s hidden state of row `b` at
    /// `out[(b * T + t) * stride + offset ..][..H]`.
    fn run(&self, x: &Tensor, lengths: &[usize], backward: bool, out: &mut [f32], stride: usize, offset: usize) -> Result<()> {
        let (batch, steps, _) = x.dims3()?;
        let h = self.hidden;
        let projected = x.broadcast_matmul(&self.w_ih.t()?)?.broadcast_add(&self.bias)?.contiguous()?;
        let projected = projected.flatten_all()?.to_vec1::<f32>()?;
        let lengths: Vec<usize> = (0..batch).map(|b| lengths.get(b).copied().unwrap_or(steps).min(steps)).collect();
        let longest = lengths.iter().copied().max().unwrap_or(0);
        let mut hidden = vec![0f32; batch * h];
        let mut cell = vec![0f32; batch * h];
        let mut gates = vec![0f32; batch * 4 * h];
        for n in 0..longest {
            let running: Vec<usize> = (0..batch).filter(|&b| n < lengths[b]).collect();
            let step = |b: usize| if backward { lengths[b] - 1 - n } else { n };
            for &b in &running {
                let base = (b * steps + step(b)) * 4 * h;
                gates[b * 4 * h..(b + 1) * 4 * h].copy_from_slice(&projected[base..base + 4 * h]);
            }
            // gates[b] += hidden[b] · W_hhᵀ, one weight row at a time for every running row.
            for k in 0..h {
                let w = &self.w_hh_t[k * 4 * h..(k + 1) * 4 * h];
                for &b in &running {
                    let hk = hidden[b * h + k];
                    if hk != 0.0 {
                        for (g, wv) in gates[b * 4 * h..(b + 1) * 4 * h].iter_mut().zip(w) {
                            *g += hk * wv;
                        }
                    }
                }
            }
            for &b in &running {
                let g = &gates[b * 4 * h..(b + 1) * 4 * h];
                let at = (b * steps + step(b)) * stride + offset;
                for j in 0..h {
                    let c = sigmoid(g[h + j]) * cell[b * h + j] + sigmoid(g[j]) * g[2 * h + j].tanh();
                    cell[b * h + j] = c;
                    let v = sigmoid(g[3 * h + j]) * c.tanh();
                    hidden[b * h + j] = v;
                    out[at + j] = v;
                }
            }
        }
        Ok(())
    }
}

/// A unidirectional layer.
#[derive(Debug, Clone)]
pub struct Lstm {
    direction: LstmDirection,
    span: tracing::Span,
}

impl Lstm {
    /// Loads layer `layer` (`weight_ih_l{layer}`, ...).
    pub fn new(vb: &VarBuilder, layer: usize) -> Result<Lstm> {
        Ok(Lstm { direction: LstmDirection::load(vb, layer, false)?, span: tracing::span!(tracing::Level::TRACE, "lstm", layer) })
    }

    /// `x` `[B, T, I]` → every step's hidden state `[B, T, H]`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let _enter = self.span.enter();
        let (batch, steps, _) = x.dims3()?;
        let h = self.direction.hidden;
        let mut out = vec![0f32; batch * steps * h];
        self.direction.run(x, &vec![steps; batch], false, &mut out, h, 0)?;
        Tensor::from_vec(out, (batch, steps, h), &Device::Cpu)
    }
}

/// A bidirectional layer (`weight_ih_l0` and `weight_ih_l0_reverse`, ...).
#[derive(Debug, Clone)]
pub struct BiLstm {
    forward: LstmDirection,
    backward: LstmDirection,
    span: tracing::Span,
}

impl BiLstm {
    /// Loads layer 0 and its `_reverse` twin.
    pub fn new(vb: VarBuilder) -> Result<BiLstm> {
        Ok(BiLstm { forward: LstmDirection::load(&vb, 0, false)?, backward: LstmDirection::load(&vb, 0, true)?, span: tracing::span!(tracing::Level::TRACE, "bilstm") })
    }

    /// `x` `[B, T, I]` → `[B, T, 2H]` (forward half, then backward half).
    /// `lengths[b]` steps of row `b` are real; the rest output zeros.
    pub fn forward(&self, x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let _enter = self.span.enter();
        let (batch, steps, _) = x.dims3()?;
        let h = self.forward.hidden;
        let mut out = vec![0f32; batch * steps * 2 * h];
        self.forward.run(x, lengths, false, &mut out, 2 * h, 0)?;
        self.backward.run(x, lengths, true, &mut out, 2 * h, h)?;
        Tensor::from_vec(out, (batch, steps, 2 * h), &Device::Cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A tiny LSTM with hand-picked weights (I = 1, H = 1), two layers.
    fn weights() -> HashMap<String, Tensor> {
        let dev = Device::Cpu;
        let mut map = HashMap::new();
        for layer in 0..2 {
            for (suffix, scale) in [("", 1.0f32), ("_reverse", -1.0)] {
                map.insert(format!("weight_ih_l{layer}{suffix}"), Tensor::new(&[[0.5f32 * scale], [0.3], [0.8], [-0.2]], &dev).unwrap());
                map.insert(format!("weight_hh_l{layer}{suffix}"), Tensor::new(&[[0.1f32], [0.2], [-0.3], [0.4]], &dev).unwrap());
                map.insert(format!("bias_ih_l{layer}{suffix}"), Tensor::new(&[0.1f32, 0.0, 0.0, 0.1], &dev).unwrap());
                map.insert(format!("bias_hh_l{layer}{suffix}"), Tensor::new(&[0.0f32, 0.2, 0.1, 0.0], &dev).unwrap());
            }
        }
        map
    }

    /// The LSTM equations, written out for H = 1.
    fn reference(xs: &[f32], wi: [f32; 4], wh: [f32; 4], b: [f32; 4]) -> Vec<f32> {
        let (mut h, mut c) = (0f32, 0f32);
        xs.iter()
            .map(|&x| {
                let pre: Vec<f32> = (0..4).map(|g| wi[g] * x + wh[g] * h + b[g]).collect();
                let (i, f, gg, o) = (sigmoid(pre[0]), sigmoid(pre[1]), pre[2].tanh(), sigmoid(pre[3]));
                c = f * c + i * gg;
                h = o * c.tanh();
                h
            })
            .collect()
    }

    const B: [f32; 4] = [0.1, 0.2, 0.1, 0.1];
    const WH: [f32; 4] = [0.1, 0.2, -0.3, 0.4];

    #[test]
    fn both_directions_follow_the_lstm_equations_within_each_rows_length() {
        let dev = Device::Cpu;
        let lstm = BiLstm::new(VarBuilder::from_tensors(weights(), DType::F32, &dev)).unwrap();
        // Two rows: the second is 2 steps long and padded with a value that must not leak in.
        let x = Tensor::new(&[[[1.0f32], [-0.5], [0.25]], [[0.7], [0.2], [99.0]]], &dev).unwrap();
        let y: Vec<Vec<Vec<f32>>> = lstm.forward(&x, &[3, 2]).unwrap().to_vec3().unwrap();
        for (row, xs) in [vec![1.0f32, -0.5, 0.25], vec![0.7, 0.2]].iter().enumerate() {
            let fwd = reference(xs, [0.5, 0.3, 0.8, -0.2], WH, B);
            let rev_in: Vec<f32> = xs.iter().rev().copied().collect();
            let mut bwd = reference(&rev_in, [-0.5, 0.3, 0.8, -0.2], WH, B);
            bwd.reverse();
            for t in 0..xs.len() {
                assert!((y[row][t][0] - fwd[t]).abs() < 1e-6, "row {row} t {t} forward");
                assert!((y[row][t][1] - bwd[t]).abs() < 1e-6, "row {row} t {t} backward");
            }
        }
        assert_eq!(y[1][2], vec![0.0, 0.0], "steps past a row's length are zero");
    }

    #[test]
    fn a_unidirectional_layer_runs_every_row_through_every_step() {
        let dev = Device::Cpu;
        let layer = Lstm::new(&VarBuilder::from_tensors(weights(), DType::F32, &dev), 1).unwrap();
        let x = Tensor::new(&[[[1.0f32], [-0.5], [0.25]], [[0.7], [0.2], [-1.0]]], &dev).unwrap();
        let y: Vec<Vec<Vec<f32>>> = layer.forward(&x).unwrap().to_vec3().unwrap();
        for (row, xs) in [vec![1.0f32, -0.5, 0.25], vec![0.7, 0.2, -1.0]].iter().enumerate() {
            let expected = reference(xs, [0.5, 0.3, 0.8, -0.2], WH, B);
            for t in 0..3 {
                assert!((y[row][t][0] - expected[t]).abs() < 1e-6, "row {row} t {t}");
            }
        }
    }
}
