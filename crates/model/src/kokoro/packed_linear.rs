//! A linear layer in f32 on AVX-512 FMA (or AVX2 + FMA) with its weight
//! packed for the register tile: ALBERT's matmuls, where candle's GEMM
//! reached about a third of the CPU's FMA rate on a line's few dozen tokens.
//!
//! Layouts: the input stays row-major `[rows, inputs]` and each value is
//! broadcast to sixteen outputs; the weight is packed per block of `BLOCK`
//! outputs as `[input][output]`, so a block's outputs at one input are
//! `VECTORS` consecutive 64-byte loads. A register tile is `ROWS` rows ×
//! `BLOCK` outputs (24 accumulators), summed over the inputs in order.
//! Threads take blocks of outputs, so each reads only its share of the
//! weight; the output comes out row-major `[rows, out]` as candle's
//! `Linear` gives it. On AVX2 (sixteen 8-wide registers) a tile is 4 rows
//! × half a block (12 accumulators) over the same packing.

/// 16-output vectors per register tile.
const VECTORS: usize = 3;
/// Outputs per weight block and register tile.
const BLOCK: usize = 16 * VECTORS;
/// Input rows per register tile (`ROWS × VECTORS` accumulators).
const ROWS: usize = 8;

/// A linear layer `y = x·Wᵀ + b`.
#[derive(Debug, Clone)]
pub struct PackedLinear {
    out: usize,
    inputs: usize,
    /// `[out/BLOCK][input][BLOCK]`, outputs past `out` zero.
    packed: Vec<f32>,
    /// Padded to whole blocks.
    bias: Vec<f32>,
}

/// The output's address, shared by the tasks that write disjoint columns.
#[derive(Clone, Copy)]
struct Output(*mut f32);
// SAFETY: each task writes only its own blocks' columns (see `forward`).
unsafe impl Send for Output {}
unsafe impl Sync for Output {}

impl Output {
    /// The address (a method, so closures capture the `Send` wrapper whole).
    fn at(self) -> *mut f32 {
        self.0
    }
}

impl PackedLinear {
    /// True when this CPU has AVX-512 (F), or AVX2 and FMA.
    pub fn supported() -> bool {
        crate::fast_math::has_avx512() || crate::fast_math::has_avx2()
    }

    /// Packs `weight` `[out, inputs]` (row-major). Call only where
    /// [`supported`](Self::supported) is true.
    pub fn new(weight: &[f32], (out, inputs): (usize, usize), bias: &[f32]) -> Self {
        assert_eq!(weight.len(), out * inputs, "weight size");
        assert_eq!(bias.len(), out, "bias size");
        let blocks = out.div_ceil(BLOCK);
        let mut packed = vec![0f32; blocks * inputs * BLOCK];
        for o in 0..out {
            let (block, lane) = (o / BLOCK, o % BLOCK);
            for (i, &w) in weight[o * inputs..(o + 1) * inputs].iter().enumerate() {
                packed[(block * inputs + i) * BLOCK + lane] = w;
            }
        }
        let mut padded_bias = vec![0f32; blocks * BLOCK];
        padded_bias[..out].copy_from_slice(bias);
        PackedLinear { out, inputs, packed, bias: padded_bias }
    }

    /// Output features.
    pub fn out(&self) -> usize {
        self.out
    }

    /// `x` `[rows, inputs]` → `[rows, out]`, both row-major.
    pub fn forward(&self, x: &[f32], rows: usize) -> Vec<f32> {
        self.forward_on(x, rows, crate::fast_math::has_avx512())
    }

    /// [`Self::forward`] on the AVX-512 kernel or the AVX2 one.
    fn forward_on(&self, x: &[f32], rows: usize, avx512: bool) -> Vec<f32> {
        assert_eq!(x.len(), rows * self.inputs, "input size");
        let mut y = vec![0f32; rows * self.out];
        if rows == 0 || self.inputs == 0 {
            return y;
        }
        // Whole tiles of rows: the last one padded with zeros.
        let padded_rows = rows.div_ceil(ROWS) * ROWS;
        let mut input = Vec::new();
        let x = if padded_rows == rows {
            x
        } else {
            input.reserve_exact(padded_rows * self.inputs);
            input.extend_from_slice(x);
            input.resize(padded_rows * self.inputs, 0.0);
            &input
        };
        let blocks = self.out.div_ceil(BLOCK);
        let tasks = rayon::current_num_threads().clamp(1, blocks);
        let output = Output(y.as_mut_ptr());
        use rayon::prelude::*;
        (0..tasks).into_par_iter().for_each(|task| {
            let range = blocks * task / tasks..blocks * (task + 1) / tasks;
            // SAFETY: `supported` held when the layer was built (see `new`),
            // and `avx512` only where the CPU has it; the kernel reads `x` (whole tiles of ROWS rows) and the packed
            // weights within their sizes, and writes rows `..rows` of `y` in
            // the columns of its own blocks only, so tasks never overlap.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                if avx512 {
                    kernel::run(self, x, output.at(), rows, range)
                } else {
                    kernel::run_avx2(self, x, output.at(), rows, range)
                }
            };
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (x, output, range);
                unreachable!("checked by supported()")
            }
        });
        y
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::{PackedLinear, BLOCK, ROWS, VECTORS};
    use std::arch::x86_64::*;
    use std::ops::Range;

    /// Computes the columns of `blocks` for `rows` rows of `y` (`[rows, out]`)
    /// from `x` (`[rows rounded up to ROWS, inputs]`).
    #[target_feature(enable = "avx512f")]
    pub unsafe fn run(layer: &PackedLinear, x: &[f32], y: *mut f32, rows: usize, blocks: Range<usize>) {
        let inputs = layer.inputs;
        for block in blocks {
            let weights = unsafe { layer.packed.as_ptr().add(block * inputs * BLOCK) };
            let bias: [__m512; VECTORS] = std::array::from_fn(|v| unsafe { _mm512_loadu_ps(layer.bias.as_ptr().add(block * BLOCK + 16 * v)) });
            let first_out = block * BLOCK;
            for r0 in (0..rows).step_by(ROWS) {
                let mut acc = [bias; ROWS];
                let row = unsafe { x.as_ptr().add(r0 * inputs) };
                for i in 0..inputs {
                    let w: [__m512; VECTORS] = std::array::from_fn(|v| unsafe { _mm512_loadu_ps(weights.add(i * BLOCK + 16 * v)) });
                    for (r, acc_row) in acc.iter_mut().enumerate() {
                        let xv = _mm512_set1_ps(unsafe { row.add(r * inputs + i).read() });
                        for (a, &wv) in acc_row.iter_mut().zip(&w) {
                            *a = _mm512_fmadd_ps(wv, xv, *a);
                        }
                    }
                }
                for (r, acc_row) in acc.iter().enumerate().take(rows - r0) {
                    let out_row = unsafe { y.add((r0 + r) * layer.out) };
                    for (v, &a) in acc_row.iter().enumerate() {
                        let o = first_out + 16 * v;
                        if o + 16 <= layer.out {
                            unsafe { _mm512_storeu_ps(out_row.add(o), a) };
                        } else if o < layer.out {
                            unsafe { _mm512_mask_storeu_ps(out_row.add(o), (1u16 << (layer.out - o)) - 1, a) };
                        }
                    }
                }
            }
        }
    }

    /// Rows per AVX2 register tile.
    const AVX2_ROWS: usize = 4;
    /// 8-wide vectors per AVX2 register tile: half a block.
    const AVX2_VECTORS: usize = BLOCK / 16;

    /// [`run`] on AVX2 + FMA: each block in two halves of 24 outputs, 4 rows
    /// at a time (`ROWS` is a multiple of 4, so `x` holds whole tiles).
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn run_avx2(layer: &PackedLinear, x: &[f32], y: *mut f32, rows: usize, blocks: Range<usize>) {
        const _: () = assert!(ROWS.is_multiple_of(AVX2_ROWS));
        let inputs = layer.inputs;
        for block in blocks {
            for half in 0..2 {
                let first_lane = half * 8 * AVX2_VECTORS;
                let weights = unsafe { layer.packed.as_ptr().add(block * inputs * BLOCK + first_lane) };
                let bias: [__m256; AVX2_VECTORS] =
                    std::array::from_fn(|v| unsafe { _mm256_loadu_ps(layer.bias.as_ptr().add(block * BLOCK + first_lane + 8 * v)) });
                let first_out = block * BLOCK + first_lane;
                for r0 in (0..rows).step_by(AVX2_ROWS) {
                    let mut acc = [bias; AVX2_ROWS];
                    let row = unsafe { x.as_ptr().add(r0 * inputs) };
                    for i in 0..inputs {
                        let w: [__m256; AVX2_VECTORS] = std::array::from_fn(|v| unsafe { _mm256_loadu_ps(weights.add(i * BLOCK + 8 * v)) });
                        for (r, acc_row) in acc.iter_mut().enumerate() {
                            let xv = _mm256_set1_ps(unsafe { row.add(r * inputs + i).read() });
                            for (a, &wv) in acc_row.iter_mut().zip(&w) {
                                *a = _mm256_fmadd_ps(wv, xv, *a);
                            }
                        }
                    }
                    for (r, acc_row) in acc.iter().enumerate().take(rows - r0) {
                        let out_row = unsafe { y.add((r0 + r) * layer.out) };
                        for (v, &a) in acc_row.iter().enumerate() {
                            let o = first_out + 8 * v;
                            if o + 8 <= layer.out {
                                unsafe { _mm256_storeu_ps(out_row.add(o), a) };
                            } else if o < layer.out {
                                let mut lanes = [0f32; 8];
                                unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), a) };
                                let n = layer.out - o;
                                unsafe { std::ptr::copy_nonoverlapping(lanes.as_ptr(), out_row.add(o), n) };
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::uniform_noise as noise;

    /// `x·Wᵀ + b` in f64.
    fn reference(x: &[f32], rows: usize, w: &[f32], (out, inputs): (usize, usize), bias: &[f32]) -> Vec<f64> {
        let mut y = vec![0f64; rows * out];
        for r in 0..rows {
            for o in 0..out {
                let dot: f64 = (0..inputs).map(|i| x[r * inputs + i] as f64 * w[o * inputs + i] as f64).sum();
                y[r * out + o] = dot + bias[o] as f64;
            }
        }
        y
    }

    #[test]
    fn matches_the_exact_product_to_f32_rounding() {
        if !PackedLinear::supported() {
            eprintln!("neither AVX-512 nor AVX2 + FMA on this CPU: ALBERT runs through candle's GEMM there");
            return;
        }
        // Odd sizes on purpose: outputs not a multiple of 16 or of a block,
        // rows not a multiple of a tile, one row, one input, more blocks
        // than threads and fewer.
        // Each kernel this CPU runs (both on an AVX-512 machine).
        let kernels = [(true, crate::fast_math::has_avx512()), (false, crate::fast_math::has_avx2())];
        for (avx512, _) in kernels.into_iter().filter(|(_, runs)| *runs) {
            for &(rows, out, inputs) in &[(13, 70, 33), (1, 16, 2), (50, 300, 768), (7, 5, 1), (9, 47, 20)] {
                let x = noise(rows * inputs, 1);
                let w = noise(out * inputs, 2);
                let bias = noise(out, 3);
                let got = PackedLinear::new(&w, (out, inputs), &bias).forward_on(&x, rows, avx512);
                let want = reference(&x, rows, &w, (out, inputs), &bias);
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    // f32 sums of ≤ 768 products of values in [−1, 1].
                    assert!((*g as f64 - w).abs() < 1e-5 * (inputs as f64).sqrt(), "avx512 {avx512}, {rows}×{inputs}→{out}: {g} vs {w}");
                }
            }
        }
    }
}
