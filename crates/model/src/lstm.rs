//! The one LSTM both networks run: Kokoro's bidirectional layers and the
//! speaker encoder's stacked unidirectional ones. A layer runs as torch
//! runs a packed sequence: each row covers its own length (a backward
//! direction starts at the row's own last step) and steps past the length
//! output zeros. Gate order is torch's (input, forget, cell, output).
//!
//! The input projections for all steps are one matrix product; the
//! recurrence runs on plain slices. Its weights are kept in blocks of
//! [`GATE_BLOCK`] gates, so each step reads them once, front to back, into
//! sums that stay in registers (AVX-512 where the CPU has it). The two
//! directions of a bidirectional layer run side by side.

use candle_core::{DType, Device, Result, Tensor};
use candle_nn::VarBuilder;

use crate::fast_math::fast_exp;

/// One direction of one layer: torch's `weight_ih_l{n}{suffix}` and friends.
#[derive(Debug, Clone)]
pub struct LstmDirection {
    /// `[4H, I]`
    w_ih: Tensor,
    /// `b_ih + b_hh`, `[4H]`
    bias: Tensor,
    /// `W_hh` in gate blocks: block `c` holds, for each of the `H` hidden
    /// values, the weights of gates `c·GATE_BLOCK ..` (zero past `4H`).
    w_hh_blocks: Vec<f32>,
    hidden: usize,
}

/// Gates summed together in one pass over the weights: 8 AVX-512 registers.
const GATE_BLOCK: usize = 128;

/// `4H` rounded up to whole gate blocks.
fn padded_gates(hidden: usize) -> usize {
    (4 * hidden).next_multiple_of(GATE_BLOCK)
}

/// torch's `W_hh` (`[4H, H]` row-major) in gate blocks: `[4H/GATE_BLOCK][H][GATE_BLOCK]`.
fn gate_blocks(w_hh: &[f32], hidden: usize) -> Vec<f32> {
    let gates = 4 * hidden;
    let mut blocks = vec![0f32; padded_gates(hidden) * hidden];
    for g in 0..gates {
        let (block, lane) = (g / GATE_BLOCK, g % GATE_BLOCK);
        for k in 0..hidden {
            blocks[(block * hidden + k) * GATE_BLOCK + lane] = w_hh[g * hidden + k];
        }
    }
    blocks
}

/// One step of one row: `gates` (this step's input projection, padded to
/// whole blocks) takes `hidden · W_hhᵀ`, then `cell` and `hidden` move on.
fn step_row(blocks: &[f32], gates: &mut [f32], cell: &mut [f32], hidden: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::fast_math::has_avx512() {
        // SAFETY: the CPU has AVX-512 (checked above).
        return unsafe { step_row_avx512(blocks, gates, cell, hidden) };
    }
    add_recurrent(blocks, hidden, gates);
    update_cell(gates, cell, hidden);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn step_row_avx512(blocks: &[f32], gates: &mut [f32], cell: &mut [f32], hidden: &mut [f32]) {
    add_recurrent(blocks, hidden, gates);
    update_cell(gates, cell, hidden);
}

/// Each block's sums start from its gates and take the hidden values in
/// order: the same additions, in the same order, as one dot product per gate.
#[inline(always)]
fn add_recurrent(blocks: &[f32], hidden: &[f32], gates: &mut [f32]) {
    let h = hidden.len();
    for (block, out) in blocks.chunks_exact(h * GATE_BLOCK).zip(gates.chunks_exact_mut(GATE_BLOCK)) {
        let mut sums = [0f32; GATE_BLOCK];
        sums.copy_from_slice(out);
        for (&hk, weights) in hidden.iter().zip(block.chunks_exact(GATE_BLOCK)) {
            for (s, &w) in sums.iter_mut().zip(weights) {
                *s += hk * w;
            }
        }
        out.copy_from_slice(&sums);
    }
}

/// `c = σ(f)·c + σ(i)·tanh(g)`, `h = σ(o)·tanh(c)`, with the branch-free
/// exponential so the loop vectorizes.
#[inline(always)]
fn update_cell(gates: &[f32], cell: &mut [f32], hidden: &mut [f32]) {
    let h = hidden.len();
    let (input, rest) = gates.split_at(h);
    let (forget, rest) = rest.split_at(h);
    let (candidate, output) = rest.split_at(h);
    for j in 0..h {
        let c = fast_sigmoid(forget[j]) * cell[j] + fast_sigmoid(input[j]) * fast_tanh(candidate[j]);
        cell[j] = c;
        hidden[j] = fast_sigmoid(output[j]) * fast_tanh(c);
    }
}

#[inline(always)]
fn fast_sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + fast_exp(-v))
}

/// `tanh(v) = 1 − 2/(1 + e^{2v})`: within 1e-7 of libm's near 0, exactly ±1 far out.
#[inline(always)]
fn fast_tanh(v: f32) -> f32 {
    1.0 - 2.0 / (1.0 + fast_exp(2.0 * v))
}

impl LstmDirection {
    /// Loads layer `layer`'s weights; `reverse` for the `_reverse` twins.
    pub fn load(vb: &VarBuilder, layer: usize, reverse: bool) -> Result<LstmDirection> {
        let suffix = if reverse { "_reverse" } else { "" };
        let get = |name: &str| vb.get_unchecked_dtype(&format!("{name}_l{layer}{suffix}"), DType::F32);
        let (w_ih, w_hh, b_ih, b_hh) = (get("weight_ih")?, get("weight_hh")?, get("bias_ih")?, get("bias_hh")?);
        let hidden = w_hh.dim(1)?;
        let w_hh_blocks = gate_blocks(&w_hh.flatten_all()?.to_vec1::<f32>()?, hidden);
        Ok(LstmDirection { w_ih, bias: (b_ih + b_hh)?, w_hh_blocks, hidden })
    }

    /// The hidden size `H`.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Runs `x` `[B, T, I]` forwards (or backwards) through each row's
    /// `lengths[b]` steps, writing step `t`'s hidden state of row `b` at
    /// `out[(b * T + t) * H ..][..H]`.
    fn run(&self, x: &Tensor, lengths: &[usize], backward: bool, out: &mut [f32]) -> Result<()> {
        let (batch, steps, _) = x.dims3()?;
        let h = self.hidden;
        let projected = x.broadcast_matmul(&self.w_ih.t()?)?.broadcast_add(&self.bias)?.contiguous()?;
        let projected = projected.flatten_all()?.to_vec1::<f32>()?;
        let lengths: Vec<usize> = (0..batch).map(|b| lengths.get(b).copied().unwrap_or(steps).min(steps)).collect();
        let longest = lengths.iter().copied().max().unwrap_or(0);
        let mut hidden = vec![0f32; batch * h];
        let mut cell = vec![0f32; batch * h];
        let width = padded_gates(h);
        let mut gates = vec![0f32; batch * width];
        for n in 0..longest {
            let running: Vec<usize> = (0..batch).filter(|&b| n < lengths[b]).collect();
            let step = |b: usize| if backward { lengths[b] - 1 - n } else { n };
            for &b in &running {
                let base = (b * steps + step(b)) * 4 * h;
                let row_gates = &mut gates[b * width..(b + 1) * width];
                row_gates[..4 * h].copy_from_slice(&projected[base..base + 4 * h]);
                let row_hidden = &mut hidden[b * h..(b + 1) * h];
                step_row(&self.w_hh_blocks, row_gates, &mut cell[b * h..(b + 1) * h], row_hidden);
                let at = (b * steps + step(b)) * h;
                out[at..at + h].copy_from_slice(row_hidden);
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
        self.direction.run(x, &vec![steps; batch], false, &mut out)?;
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
        Ok(BiLstm {
            forward: LstmDirection::load(&vb, 0, false)?,
            backward: LstmDirection::load(&vb, 0, true)?,
            span: tracing::span!(tracing::Level::TRACE, "bilstm"),
        })
    }

    /// `x` `[B, T, I]` → `[B, T, 2H]` (forward half, then backward half).
    /// `lengths[b]` steps of row `b` are real; the rest output zeros.
    pub fn forward(&self, x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let _enter = self.span.enter();
        let (batch, steps, _) = x.dims3()?;
        let h = self.forward.hidden;
        let (mut ahead, mut behind) = (vec![0f32; batch * steps * h], vec![0f32; batch * steps * h]);
        let (ran_ahead, ran_behind) = rayon::join(|| self.forward.run(x, lengths, false, &mut ahead), || self.backward.run(x, lengths, true, &mut behind));
        ran_ahead?;
        ran_behind?;
        let mut out = Vec::with_capacity(batch * steps * 2 * h);
        for (a, b) in ahead.chunks_exact(h).zip(behind.chunks_exact(h)) {
            out.extend_from_slice(a);
            out.extend_from_slice(b);
        }
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

    fn sigmoid(v: f32) -> f32 {
        1.0 / (1.0 + (-v).exp())
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

    /// A wider layer (H = 48: 4H spans two gate blocks, the second partly
    /// padding) against the equations in f64, one matrix-vector product per step.
    #[test]
    fn a_layer_wider_than_one_gate_block_follows_the_equations() {
        let (inputs, h, steps) = (5usize, 48usize, 7usize);
        let mut seed = 7u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let w_ih: Vec<f32> = (0..4 * h * inputs).map(|_| next()).collect();
        let w_hh: Vec<f32> = (0..4 * h * h).map(|_| next()).collect();
        let bias: Vec<f32> = (0..4 * h).map(|_| next()).collect();
        let xs: Vec<f32> = (0..steps * inputs).map(|_| 4.0 * next()).collect();
        let dev = Device::Cpu;
        let mut map = HashMap::new();
        map.insert("weight_ih_l0".to_string(), Tensor::from_vec(w_ih.clone(), (4 * h, inputs), &dev).unwrap());
        map.insert("weight_hh_l0".to_string(), Tensor::from_vec(w_hh.clone(), (4 * h, h), &dev).unwrap());
        map.insert("bias_ih_l0".to_string(), Tensor::from_vec(bias.clone(), 4 * h, &dev).unwrap());
        map.insert("bias_hh_l0".to_string(), Tensor::zeros(4 * h, DType::F32, &dev).unwrap());
        let layer = Lstm::new(&VarBuilder::from_tensors(map, DType::F32, &dev), 0).unwrap();
        let y = layer.forward(&Tensor::from_vec(xs.clone(), (1, steps, inputs), &dev).unwrap()).unwrap();
        let y: Vec<f32> = y.flatten_all().unwrap().to_vec1().unwrap();
        let (mut hidden, mut cell) = (vec![0f64; h], vec![0f64; h]);
        let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
        for t in 0..steps {
            let pre: Vec<f64> = (0..4 * h)
                .map(|g| {
                    let input: f64 = (0..inputs).map(|i| w_ih[g * inputs + i] as f64 * xs[t * inputs + i] as f64).sum();
                    let recurrent: f64 = (0..h).map(|k| w_hh[g * h + k] as f64 * hidden[k]).sum();
                    input + recurrent + bias[g] as f64
                })
                .collect();
            for j in 0..h {
                cell[j] = sig(pre[h + j]) * cell[j] + sig(pre[j]) * pre[2 * h + j].tanh();
                hidden[j] = sig(pre[3 * h + j]) * cell[j].tanh();
                assert!((y[t * h + j] as f64 - hidden[j]).abs() < 1e-5, "step {t} unit {j}: {} vs {}", y[t * h + j], hidden[j]);
            }
        }
    }
}
