//! A linear layer for a few rows at a time (Whisper's decoder, one token
//! per step) with its weights in f16. One token's step reads every weight
//! once and does little work with each, so its time is the time to read
//! the weights: f16 reads half of f32's bytes. The input stays f32 and the
//! sums are f32 (`vcvtph2ps`, then fused multiply-adds; AVX-512, or AVX2
//! with F16C eight lanes at a time), so the only error
//! is the weights' rounding to f16 (11 significant bits); int8 with a
//! quantized input moved Whisper's timestamps, f16 does not.

/// Input columns per 512-bit step.
const STEP: usize = 16;
/// Output rows sharing one pass over the input.
const ROWS: usize = 4;
/// Below this many weights a call stays on one thread (a token step's
/// 512 × 512 layers go parallel: measured 9.5 against 11.8 ms a token).
const PARALLEL_FROM: usize = 1 << 17;

/// `y = W x + b` for `W [rows, cols]`, its weights in f16.
#[derive(Debug, Clone)]
pub struct HalfRows {
    rows: usize,
    cols: usize,
    /// `cols` rounded up to [`STEP`]; the padding is zero.
    stride: usize,
    /// f16 bits, `[rows][stride]`.
    weights: Vec<u16>,
    bias: Vec<f32>,
}

impl HalfRows {
    /// True when this CPU has the instructions the kernel needs.
    pub fn supported() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            crate::fast_math::has_avx512() || crate::fast_math::has_avx2()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Rounds `weight` `[rows, cols]` (row-major f32) to f16.
    pub fn new(weight: &[f32], rows: usize, cols: usize, bias: Option<&[f32]>) -> Self {
        assert_eq!(weight.len(), rows * cols, "weight size");
        let stride = cols.div_ceil(STEP) * STEP;
        let mut weights = vec![0u16; rows * stride];
        for (r, row) in weight.chunks_exact(cols).enumerate() {
            for (c, &w) in row.iter().enumerate() {
                weights[r * stride + c] = half::f16::from_f32(w).to_bits();
            }
        }
        let bias = bias.map_or_else(|| vec![0f32; rows], <[f32]>::to_vec);
        HalfRows { rows, cols, stride, weights, bias }
    }

    /// Output rows (the layer's width out).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `x [n, cols]` → `[n, rows]`, each input row on its own.
    /// Call only where [`supported`](Self::supported) is true.
    pub fn forward(&self, x: &[f32], n: usize) -> Vec<f32> {
        assert_eq!(x.len(), n * self.cols, "input size");
        assert!(Self::supported(), "f16 rows need AVX-512 or AVX2 with F16C");
        let mut out = vec![0f32; n * self.rows];
        let mut input = vec![0f32; self.stride];
        for (row, output) in x.chunks_exact(self.cols).zip(out.chunks_exact_mut(self.rows)) {
            input[..self.cols].copy_from_slice(row);
            self.row(&input, output);
        }
        out
    }

    /// Rows `which` of `W x + b` for one input `x` `[cols]`, each the same
    /// value [`Self::forward`] gives for that row.
    pub fn some_rows(&self, x: &[f32], which: &[usize]) -> Vec<f32> {
        assert_eq!(x.len(), self.cols, "input size");
        assert!(Self::supported(), "f16 rows need AVX-512 or AVX2 with F16C");
        let mut input = vec![0f32; self.stride];
        input[..self.cols].copy_from_slice(x);
        which
            .iter()
            .map(|&r| {
                assert!(r < self.rows, "row {r} of {}", self.rows);
                let mut out = [0f32];
                // SAFETY: as in `row`; one weight row, `r`, is read.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    dot_rows(&input, &self.weights, self.stride, r, &mut out)
                };
                out[0] + self.bias[r]
            })
            .collect()
    }

    fn row(&self, input: &[f32], out: &mut [f32]) {
        let dot = |first: usize, out: &mut [f32]| {
            // SAFETY: `supported()` was checked by `forward`; the kernel reads
            // `input` (`stride` floats) and rows `first..first + out.len()`
            // of the weights, each `stride` halves, all in bounds.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                dot_rows(input, &self.weights, self.stride, first, out)
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (first, out);
                unreachable!("checked by supported()")
            }
        };
        if self.rows * self.stride < PARALLEL_FROM {
            dot(0, out);
        } else {
            use rayon::prelude::*;
            let per_task = self.rows.div_ceil(rayon::current_num_threads().max(1) * 4).next_multiple_of(ROWS);
            out.par_chunks_mut(per_task).enumerate().for_each(|(task, part)| dot(task * per_task, part));
        }
        for (y, b) in out.iter_mut().zip(&self.bias) {
            *y += b;
        }
    }
}

/// Dot products of `input` with weight rows `first..first + out.len()`,
/// on AVX-512 or else AVX2 (the caller checked [`HalfRows::supported`]).
#[cfg(target_arch = "x86_64")]
unsafe fn dot_rows(input: &[f32], weights: &[u16], stride: usize, first: usize, out: &mut [f32]) {
    if crate::fast_math::has_avx512() {
        kernel::rows(input, weights, stride, first, out)
    } else {
        kernel_avx2::rows(input, weights, stride, first, out)
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel_avx2 {
    use std::arch::x86_64::*;

    use super::ROWS;

    #[inline(always)]
    unsafe fn halves(at: *const u16) -> __m256 {
        _mm256_cvtph_ps(_mm_loadu_si128(at as *const __m128i))
    }

    use crate::fast_math::sum_of_lanes as sum;

    /// As the AVX-512 kernel, eight lanes at a time (F16C's `vcvtph2ps`).
    #[target_feature(enable = "avx2,fma,f16c")]
    pub unsafe fn rows(input: &[f32], weights: &[u16], stride: usize, first: usize, out: &mut [f32]) {
        let lanes = stride / 8;
        let x = input.as_ptr();
        let mut i = 0;
        while i + ROWS <= out.len() {
            let w = weights.as_ptr().add((first + i) * stride);
            let mut acc = [_mm256_setzero_ps(); ROWS];
            for s in 0..lanes {
                let xv = _mm256_loadu_ps(x.add(s * 8));
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = _mm256_fmadd_ps(halves(w.add(k * stride + s * 8)), xv, *a);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                out[i + k] = sum(*a);
            }
            i += ROWS;
        }
        while i < out.len() {
            let w = weights.as_ptr().add((first + i) * stride);
            let mut a = _mm256_setzero_ps();
            for s in 0..lanes {
                a = _mm256_fmadd_ps(halves(w.add(s * 8)), _mm256_loadu_ps(x.add(s * 8)), a);
            }
            out[i] = sum(a);
            i += 1;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    use super::{ROWS, STEP};

    #[inline(always)]
    unsafe fn halves(at: *const u16) -> __m512 {
        _mm512_cvtph_ps(_mm256_loadu_si256(at as *const __m256i))
    }

    /// Dot products of `input` with weight rows `first..first + out.len()`, into `out`.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn rows(input: &[f32], weights: &[u16], stride: usize, first: usize, out: &mut [f32]) {
        let steps = stride / STEP;
        let x = input.as_ptr();
        let count = out.len();
        let mut i = 0;
        while i + ROWS <= count {
            let w = weights.as_ptr().add((first + i) * stride);
            let (mut a0, mut a1, mut a2, mut a3) = (_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps());
            for s in 0..steps {
                let xv = _mm512_loadu_ps(x.add(s * STEP));
                a0 = _mm512_fmadd_ps(halves(w.add(s * STEP)), xv, a0);
                a1 = _mm512_fmadd_ps(halves(w.add(stride + s * STEP)), xv, a1);
                a2 = _mm512_fmadd_ps(halves(w.add(2 * stride + s * STEP)), xv, a2);
                a3 = _mm512_fmadd_ps(halves(w.add(3 * stride + s * STEP)), xv, a3);
            }
            out[i] = _mm512_reduce_add_ps(a0);
            out[i + 1] = _mm512_reduce_add_ps(a1);
            out[i + 2] = _mm512_reduce_add_ps(a2);
            out[i + 3] = _mm512_reduce_add_ps(a3);
            i += ROWS;
        }
        while i < count {
            let w = weights.as_ptr().add((first + i) * stride);
            let mut a = _mm512_setzero_ps();
            for s in 0..steps {
                a = _mm512_fmadd_ps(halves(w.add(s * STEP)), _mm512_loadu_ps(x.add(s * STEP)), a);
            }
            out[i] = _mm512_reduce_add_ps(a);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_rows_match_the_f32_product_to_f16_rounding() {
        if !HalfRows::supported() {
            eprintln!("skipping: this CPU has no AVX-512");
            return;
        }
        // Odd sizes: rows not a multiple of 4, columns not of 16.
        let (rows, cols, n) = (37, 203, 3);
        let weight: Vec<f32> = (0..rows * cols).map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0).collect();
        let bias: Vec<f32> = (0..rows).map(|r| r as f32 * 0.01).collect();
        let x: Vec<f32> = (0..n * cols).map(|i| ((i * 104_729) % 997) as f32 / 300.0 - 1.2).collect();
        let got = HalfRows::new(&weight, rows, cols, Some(&bias)).forward(&x, n);
        for i in 0..n {
            for r in 0..rows {
                let exact: f32 = (0..cols).map(|c| weight[r * cols + c] * x[i * cols + c]).sum::<f32>() + bias[r];
                let scale: f32 = (0..cols).map(|c| (weight[r * cols + c] * x[i * cols + c]).abs()).sum();
                assert!((got[i * rows + r] - exact).abs() <= 1e-3 * scale, "row {r} of input {i}: {} vs {exact}", got[i * rows + r]);
            }
        }
        // A big layer takes the threaded path and agrees with the one-thread one.
        let (rows, cols) = (4099, 512);
        let weight: Vec<f32> = (0..rows * cols).map(|i| ((i * 31) % 255) as f32 / 127.0 - 1.0).collect();
        let x: Vec<f32> = (0..cols).map(|i| (i as f32 * 0.37).sin()).collect();
        let threaded = HalfRows::new(&weight, rows, cols, None).forward(&x, 1);
        let alone: Vec<f32> = (0..rows).map(|r| HalfRows::new(&weight[r * cols..(r + 1) * cols], 1, cols, None).forward(&x, 1)[0]).collect();
        assert_eq!(threaded, alone);
    }
}
