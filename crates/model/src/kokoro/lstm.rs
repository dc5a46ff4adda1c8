//! A one-layer bidirectional LSTM with per-row lengths, as torch runs a
//! packed sequence: each row's forward pass covers its own length, its
//! backward pass starts at its own last step, and steps past the length
//! output zeros. Gate order is torch's (input, forget, cell, output).
//!
//! The input projections for all steps are one matrix product; the
//! recurrence runs on plain slices, where a step is one small
//! matrix-vector product and needs no tensor bookkeeping.

use candle_core::{DType, Device, Result, Tensor};
use candle_nn::VarBuilder;

/// One direction's weights.
#[derive(Debug, Clone)]
struct Direction {
    /// `[4H, I]`
    w_ih: Tensor,
    /// `b_ih + b_hh`, `[4H]`
    bias: Tensor,
    /// `W_hh` transposed, `[H][4H]` row-major, for contiguous updates.
    w_hh_t: Vec<f32>,
}

impl Direction {
    fn load(vb: &VarBuilder, suffix: &str) -> Result<Self> {
        let w_ih = vb.get_unchecked_dtype(&format!("weight_ih_l0{suffix}"), DType::F32)?;
        let w_hh = vb.get_unchecked_dtype(&format!("weight_hh_l0{suffix}"), DType::F32)?;
        let b_ih = vb.get_unchecked_dtype(&format!("bias_ih_l0{suffix}"), DType::F32)?;
        let b_hh = vb.get_unchecked_dtype(&format!("bias_hh_l0{suffix}"), DType::F32)?;
        let w_hh_t = w_hh.t()?.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
        Ok(Direction { w_ih, bias: (b_ih + b_hh)?, w_hh_t })
    }
}

/// A bidirectional LSTM layer.
#[derive(Debug, Clone)]
pub struct BiLstm {
    forward: Direction,
    backward: Direction,
    hidden: usize,
    span: tracing::Span,
}

fn sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + (-v).exp())
}

impl BiLstm {
    /// Loads `weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0` and their `_reverse` twins.
    pub fn new(vb: VarBuilder) -> Result<Self> {
        let forward = Direction::load(&vb, "")?;
        let backward = Direction::load(&vb, "_reverse")?;
        let hidden = forward.w_ih.dim(0)? / 4;
        Ok(BiLstm { forward, backward, hidden, span: tracing::span!(tracing::Level::TRACE, "bilstm") })
    }

    /// `x` `[B, T, I]` → `[B, T, 2H]` (forward half, then backward half).
    /// `lengths[b]` steps of row `b` are real; the rest output zeros.
    pub fn forward(&self, x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let _enter = self.span.enter();
        let (batch, steps, _) = x.dims3()?;
        let h = self.hidden;
        let mut out = vec![0f32; batch * steps * 2 * h];
        for (dir_index, dir) in [&self.forward, &self.backward].into_iter().enumerate() {
            // [B, T, 4H] input projections for every step at once.
            let projected = x.broadcast_matmul(&dir.w_ih.t()?)?.broadcast_add(&dir.bias)?;
            let projected = projected.flatten_all()?.to_vec1::<f32>()?;
            for (row, &len) in lengths.iter().enumerate().take(batch) {
                let len = len.min(steps);
                let mut hidden = vec![0f32; h];
                let mut cell = vec![0f32; h];
                let mut gates = vec![0f32; 4 * h];
                for n in 0..len {
                    let t = if dir_index == 0 { n } else { len - 1 - n };
                    let base = (row * steps + t) * 4 * h;
                    gates.copy_from_slice(&projected[base..base + 4 * h]);
                    for (k, &hk) in hidden.iter().enumerate() {
                        if hk != 0.0 {
                            let w = &dir.w_hh_t[k * 4 * h..(k + 1) * 4 * h];
                            for (g, wv) in gates.iter_mut().zip(w) {
                                *g += hk * wv;
                            }
                        }
                    }
                    let out_base = (row * steps + t) * 2 * h + dir_index * h;
                    for j in 0..h {
                        let i = sigmoid(gates[j]);
                        let f = sigmoid(gates[h + j]);
                        let g = gates[2 * h + j].tanh();
                        let o = sigmoid(gates[3 * h + j]);
                        cell[j] = f * cell[j] + i * g;
                        hidden[j] = o * cell[j].tanh();
                        out[out_base + j] = hidden[j];
                    }
                }
            }
        }
        Tensor::from_vec(out, (batch, steps, 2 * h), &Device::Cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A tiny LSTM with hand-picked weights (I = 1, H = 1).
    fn tiny() -> BiLstm {
        let dev = Device::Cpu;
        let mut map = HashMap::new();
        for (suffix, scale) in [("", 1.0f32), ("_reverse", -1.0)] {
            map.insert(format!("weight_ih_l0{suffix}"), Tensor::new(&[[0.5f32 * scale], [0.3], [0.8], [-0.2]], &dev).unwrap());
            map.insert(format!("weight_hh_l0{suffix}"), Tensor::new(&[[0.1f32], [0.2], [-0.3], [0.4]], &dev).unwrap());
            map.insert(format!("bias_ih_l0{suffix}"), Tensor::new(&[0.1f32, 0.0, 0.0, 0.1], &dev).unwrap());
            map.insert(format!("bias_hh_l0{suffix}"), Tensor::new(&[0.0f32, 0.2, 0.1, 0.0], &dev).unwrap());
        }
        BiLstm::new(VarBuilder::from_tensors(map, DType::F32, &dev)).unwrap()
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

    #[test]
    fn both_directions_follow_the_lstm_equations_within_each_rows_length() {
        let lstm = tiny();
        let dev = Device::Cpu;
        // Two rows: the second is 2 steps long and padded with a value that must not leak in.
        let x = Tensor::new(&[[[1.0f32], [-0.5], [0.25]], [[0.7], [0.2], [99.0]]], &dev).unwrap();
        let y: Vec<Vec<Vec<f32>>> = lstm.forward(&x, &[3, 2]).unwrap().to_vec3().unwrap();
        let b = [0.1, 0.2, 0.1, 0.1];
        let wh = [0.1, 0.2, -0.3, 0.4];
        for (row, xs) in [vec![1.0f32, -0.5, 0.25], vec![0.7, 0.2]].iter().enumerate() {
            let fwd = reference(xs, [0.5, 0.3, 0.8, -0.2], wh, b);
            let rev_in: Vec<f32> = xs.iter().rev().copied().collect();
            let mut bwd = reference(&rev_in, [-0.5, 0.3, 0.8, -0.2], wh, b);
            bwd.reverse();
            for t in 0..xs.len() {
                assert!((y[row][t][0] - fwd[t]).abs() < 1e-6, "row {row} t {t} forward");
                assert!((y[row][t][1] - bwd[t]).abs() < 1e-6, "row {row} t {t} backward");
            }
        }
        assert_eq!(y[1][2], vec![0.0, 0.0], "steps past a row's length are zero");
    }
}
