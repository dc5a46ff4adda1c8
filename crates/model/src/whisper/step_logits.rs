//! A token step's logits without reading the whole f16 vocabulary: every
//! row is first scored from an int8 copy (half the bytes), with a bound on
//! how far that score can be from the f16 one (half a quantization step
//! per weight, times the input's L1 norm); then the f16 rows are read only
//! where the choice can fall: every special and timestamp token, and the
//! text tokens whose bound reaches the best text token's lower bound. So
//! the step chooses exactly what the f16 logits choose, and the timestamp
//! rule compares exact values; only the softmax's normaliser (the
//! transcript's average log-probability) sums some int8 scores.

use rayon::prelude::*;

use crate::half_rows::HalfRows;

/// Columns per 16-lane step.
const STEP: usize = 16;

/// The int8 copy of the logits layer (the tied embeddings).
pub struct StepLogits {
    rows: usize,
    cols: usize,
    /// `cols` rounded up to [`STEP`]; the padding is zero.
    stride: usize,
    weights: Vec<i8>,
    /// Each row's quantization step.
    steps: Vec<f32>,
}

impl StepLogits {
    /// True when this CPU runs it.
    pub fn supported() -> bool {
        HalfRows::supported()
    }

    /// Quantizes `weight` `[rows, cols]`, symmetric per row.
    pub fn new(weight: &[f32], rows: usize, cols: usize) -> Self {
        assert_eq!(weight.len(), rows * cols, "weight size");
        let stride = cols.div_ceil(STEP) * STEP;
        let mut weights = vec![0i8; rows * stride];
        let mut steps = vec![0f32; rows];
        weights.par_chunks_mut(stride).zip(steps.par_iter_mut()).zip(weight.par_chunks(cols)).for_each(|((out, step), row)| {
            // The f16 values are what the exact rows use, so bound against those.
            let row: Vec<f32> = row.iter().map(|&w| half::f16::from_f32(w).to_f32()).collect();
            let peak = row.iter().fold(0f32, |m, w| m.max(w.abs()));
            *step = if peak > 0.0 { peak / 127.0 } else { 1.0 };
            for (q, w) in out.iter_mut().zip(&row) {
                *q = (w / *step).round().clamp(-127.0, 127.0) as i8;
            }
        });
        StepLogits { rows, cols, stride, weights, steps }
    }

    /// The logits of one hidden state `x` `[cols]` through `exact` (the
    /// same weights in f16). Rows from `text_rows` on (specials and
    /// timestamps) are always exact; a text row is exact unless its int8
    /// bound shows it below the best lower bound among the text rows not in
    /// `never_chosen` (tokens the rules suppress).
    pub fn logits(&self, exact: &HalfRows, x: &[f32], text_rows: usize, never_chosen: &[u32]) -> Vec<f32> {
        assert_eq!(x.len(), self.cols, "input size");
        assert_eq!(exact.rows(), self.rows, "the f16 layer has {} rows, the int8 copy {}", exact.rows(), self.rows);
        let mut input = vec![0f32; self.stride];
        input[..self.cols].copy_from_slice(x);
        let norm: f32 = x.iter().map(|v| v.abs()).sum();
        let mut logits = vec![0f32; self.rows];
        let per_task = self.rows.div_ceil(rayon::current_num_threads().max(1) * 4).next_multiple_of(4);
        logits.par_chunks_mut(per_task).enumerate().for_each(|(task, out)| {
            // SAFETY: `supported()` (AVX-512) was checked at load; rows
            // `first..first + out.len()` of the weights are read, each
            // `stride` long, and `input` holds `stride` values.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                if crate::fast_math::has_avx512() {
                    kernel::rows(&input, &self.weights, self.stride, task * per_task, out)
                } else {
                    kernel_avx2::rows(&input, &self.weights, self.stride, task * per_task, out)
                }
            };
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (task, out);
                unreachable!("checked by supported()")
            }
        });
        for (l, step) in logits.iter_mut().zip(&self.steps) {
            *l *= step;
        }
        // Half a step per weight, plus a hundredth for the sums' rounding.
        let bound = |r: usize| 0.51 * self.steps[r] * norm;
        let text_rows = text_rows.min(self.rows);
        let floor = (0..text_rows).filter(|r| !never_chosen.contains(&(*r as u32))).map(|r| logits[r] - bound(r)).fold(f32::NEG_INFINITY, f32::max);
        let which: Vec<usize> = (0..text_rows).filter(|&r| logits[r] + bound(r) >= floor).chain(text_rows..self.rows).collect();
        for (r, value) in which.iter().zip(exact.some_rows(x, &which)) {
            logits[*r] = value;
        }
        logits
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel_avx2 {
    use std::arch::x86_64::*;

    #[inline(always)]
    unsafe fn bytes(at: *const i8) -> __m256 {
        _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(at as *const __m128i)))
    }

    use crate::fast_math::sum_of_lanes as sum;

    /// As the AVX-512 kernel, eight columns at a time.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn rows(input: &[f32], weights: &[i8], stride: usize, first: usize, out: &mut [f32]) {
        let steps = stride / 8;
        let x = input.as_ptr();
        for (i, o) in out.iter_mut().enumerate() {
            let w = weights.as_ptr().add((first + i) * stride);
            let mut a = _mm256_setzero_ps();
            for s in 0..steps {
                a = _mm256_fmadd_ps(bytes(w.add(s * 8)), _mm256_loadu_ps(x.add(s * 8)), a);
            }
            *o = sum(a);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    use super::STEP;

    #[inline(always)]
    unsafe fn bytes(at: *const i8) -> __m512 {
        _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(at as *const __m128i)))
    }

    /// Dot products (unscaled) of `input` with int8 rows `first..first + out.len()`.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn rows(input: &[f32], weights: &[i8], stride: usize, first: usize, out: &mut [f32]) {
        let steps = stride / STEP;
        let x = input.as_ptr();
        let mut i = 0;
        while i + 4 <= out.len() {
            let w = weights.as_ptr().add((first + i) * stride);
            let mut acc = [_mm512_setzero_ps(); 4];
            for s in 0..steps {
                let xv = _mm512_loadu_ps(x.add(s * STEP));
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = _mm512_fmadd_ps(bytes(w.add(k * stride + s * STEP)), xv, *a);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                out[i + k] = _mm512_reduce_add_ps(*a);
            }
            i += 4;
        }
        while i < out.len() {
            let w = weights.as_ptr().add((first + i) * stride);
            let mut a = _mm512_setzero_ps();
            for s in 0..steps {
                a = _mm512_fmadd_ps(bytes(w.add(s * STEP)), _mm512_loadu_ps(x.add(s * STEP)), a);
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
    fn the_best_text_row_and_every_special_row_are_the_f16_values() {
        if !StepLogits::supported() {
            eprintln!("skipped: no AVX-512 on this CPU");
            return;
        }
        let (rows, cols, text) = (3001, 77, 2900);
        let weight: Vec<f32> = (0..rows * cols).map(|i| ((i * 7919) % 1013) as f32 / 1013.0 - 0.5).collect();
        let x: Vec<f32> = (0..cols).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
        let exact_layer = HalfRows::new(&weight, rows, cols, None);
        let exact = exact_layer.forward(&x, 1);
        let suppressed = [exact.iter().take(text).enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0 as u32];
        let got = StepLogits::new(&weight, rows, cols).logits(&exact_layer, &x, text, &suppressed);
        // Every row is within its bound of the f16 value; specials are equal.
        let best = |v: &[f32]| (0..text).filter(|&r| r as u32 != suppressed[0]).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        assert_eq!(best(&got), best(&exact), "the same text token is chosen");
        assert_eq!(got[best(&got)], exact[best(&exact)]);
        assert_eq!(got[text..], exact[text..]);
        let norm: f32 = x.iter().map(|v| v.abs()).sum();
        for r in 0..rows {
            assert!((got[r] - exact[r]).abs() <= norm * 0.51 / 127.0 * 0.5 + 1e-3, "row {r}: {} vs {}", got[r], exact[r]);
        }
    }
}
