//! Padding masks for rows of different lengths in one batch.

use candle_core::{Result, Tensor};

/// Zeroes steps at or past `lengths[b]` along the last axis of `[B, C, T]`.
pub fn zero_padding(x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
    let (b, _, t) = x.dims3()?;
    if lengths.iter().all(|&l| l >= t) {
        return Ok(x.clone());
    }
    let keep: Vec<f32> = (0..b).flat_map(|row| (0..t).map(move |i| if i < lengths[row] { 1.0 } else { 0.0 })).collect();
    x.broadcast_mul(&Tensor::from_vec(keep, (b, 1, t), x.device())?)
}
