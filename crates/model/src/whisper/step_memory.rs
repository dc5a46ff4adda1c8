//! The encoder output's keys and values as a token step reads them: in f16
//! (half the bytes of f32; a step reads every one of them, six layers of
//! 1500 positions), keys transposed per head so that one query's scores
//! are sixteen positions per multiply-add, values as they are. Sums in
//! f32, so the only error is the rounding to f16 (as [`crate::half_rows`]
//! rounds the decoder's weights). On AVX-512 (F, BW, VL), or AVX2 with F16C.

use rayon::prelude::*;

use crate::fast_math::softmax_in_place;

/// True when the AVX-512 kernels run here.
fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::fast_math::has_avx512() && std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One layer's cross-attention keys and values for single-query steps.
pub struct StepMemory {
    heads: usize,
    head_dim: usize,
    positions: usize,
    /// `[head][dim][position]`, f16 bits.
    keys: Vec<u16>,
    /// `[position][head · dim]`, f16 bits.
    values: Vec<u16>,
}

fn f16(v: f32) -> u16 {
    half::f16::from_f32(v).to_bits()
}

impl StepMemory {
    /// True when this CPU runs it.
    pub fn supported() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            avx512() || crate::fast_math::has_avx2()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// From keys and values side by side, `[positions][2 · heads · head_dim]` (row-major f32).
    pub fn new(memory: &[f32], positions: usize, heads: usize, head_dim: usize) -> Self {
        let width = heads * head_dim;
        assert_eq!(memory.len(), positions * 2 * width, "memory size");
        let mut keys = vec![0u16; width * positions];
        keys.par_chunks_mut(positions).enumerate().for_each(|(row, out)| {
            // Row `row` of the transposed keys is column `row` of the keys.
            for (p, slot) in out.iter_mut().enumerate() {
                *slot = f16(memory[p * 2 * width + row]);
            }
        });
        let mut values = vec![0u16; positions * width];
        values.par_chunks_mut(width).enumerate().for_each(|(p, out)| {
            for (slot, &v) in out.iter_mut().zip(&memory[p * 2 * width + width..(p + 1) * 2 * width]) {
                *slot = f16(v);
            }
        });
        StepMemory { heads, head_dim, positions, keys, values }
    }

    /// `softmax(q Kᵀ / √head_dim) V` per head for one query `q` `[heads · head_dim]`.
    pub fn attend(&self, q: &[f32]) -> Vec<f32> {
        let (heads, dh, n) = (self.heads, self.head_dim, self.positions);
        assert_eq!(q.len(), heads * dh, "query size");
        let scale = (dh as f32).powf(-0.5);
        let mut out = vec![0f32; heads * dh];
        out.par_chunks_mut(dh).enumerate().for_each(|(h, out)| {
            let mut scores = vec![0f32; n];
            let keys = &self.keys[h * dh * n..(h + 1) * dh * n];
            let query: Vec<f32> = q[h * dh..(h + 1) * dh].iter().map(|v| v * scale).collect();
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `supported` (AVX-512) was checked by whoever built this
            // memory; the kernels read `dh` rows of `n` keys and `n` rows of
            // the values at this head's columns, all inside their vectors.
            unsafe {
                if avx512() {
                    kernel::scores(&query, keys, n, &mut scores);
                    softmax_in_place(&mut scores);
                    kernel::weighted_values(&scores, &self.values, heads * dh, h * dh, out);
                } else {
                    kernel_avx2::scores(&query, keys, n, &mut scores);
                    softmax_in_place(&mut scores);
                    kernel_avx2::weighted_values(&scores, &self.values, heads * dh, h * dh, out);
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (keys, query);
                unreachable!("checked by supported()")
            }
        });
        out
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel_avx2 {
    use std::arch::x86_64::*;

    /// `acc[i] += w · f16(row[i])` for every `i`: eight at a time, then one by one.
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn add_scaled(acc: &mut [f32], w: f32, row: *const u16) {
        let n = acc.len();
        let wv = _mm256_set1_ps(w);
        let mut i = 0;
        while i + 8 <= n {
            let v = _mm256_cvtph_ps(_mm_loadu_si128(row.add(i) as *const __m128i));
            let at = acc.as_mut_ptr().add(i);
            _mm256_storeu_ps(at, _mm256_fmadd_ps(wv, v, _mm256_loadu_ps(at)));
            i += 8;
        }
        for (k, a) in acc.iter_mut().enumerate().skip(i) {
            *a += w * half::f16::from_bits(*row.add(k)).to_f32();
        }
    }

    /// As the AVX-512 `scores`.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub unsafe fn scores(query: &[f32], keys: &[u16], n: usize, scores: &mut [f32]) {
        scores.fill(0.0);
        for (d, &q) in query.iter().enumerate() {
            add_scaled(&mut scores[..n], q, keys.as_ptr().add(d * n));
        }
    }

    /// As the AVX-512 `weighted_values`.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub unsafe fn weighted_values(weights: &[f32], values: &[u16], width: usize, column: usize, out: &mut [f32]) {
        out.fill(0.0);
        for (p, &w) in weights.iter().enumerate() {
            add_scaled(out, w, values.as_ptr().add(p * width + column));
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    /// Sixteen f16 values as f32.
    #[inline(always)]
    unsafe fn halves(at: *const u16) -> __m512 {
        _mm512_cvtph_ps(_mm256_loadu_si256(at as *const __m256i))
    }

    /// A mask of the first `lanes` (≤ 16) lanes.
    fn lanes(lanes: usize) -> __mmask16 {
        if lanes >= 16 {
            0xffff
        } else {
            (1u16 << lanes) - 1
        }
    }

    /// `scores[p] = Σ_d query[d] · keys[d][p]`: row by row of the keys, so
    /// each is read front to back, the scores staying in cache.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn scores(query: &[f32], keys: &[u16], n: usize, scores: &mut [f32]) {
        scores.fill(0.0);
        for (d, &q) in query.iter().enumerate() {
            let q = _mm512_set1_ps(q);
            let row = keys.as_ptr().add(d * n);
            for p in (0..n).step_by(16) {
                let mask = lanes(n - p);
                let k = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, row.add(p) as *const i16));
                let at = scores.as_mut_ptr().add(p);
                _mm512_mask_storeu_ps(at, mask, _mm512_fmadd_ps(q, k, _mm512_maskz_loadu_ps(mask, at)));
            }
        }
    }

    /// `out[c] = Σ_p weights[p] · values[p][column + c]` for the head's
    /// columns, position by position (a head of 64, Whisper's, with its
    /// sums in registers, two positions at a time).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn weighted_values(weights: &[f32], values: &[u16], width: usize, column: usize, out: &mut [f32]) {
        let dh = out.len();
        if dh == 64 {
            let base = values.as_ptr().add(column);
            let row = |p: usize, c: usize| halves(base.add(p * width + c));
            let (mut even, mut odd) = ([_mm512_setzero_ps(); 4], [_mm512_setzero_ps(); 4]);
            let pairs = weights.len() / 2;
            for i in 0..pairs {
                let (a, b) = (_mm512_set1_ps(weights[2 * i]), _mm512_set1_ps(weights[2 * i + 1]));
                for v in 0..4 {
                    even[v] = _mm512_fmadd_ps(a, row(2 * i, 16 * v), even[v]);
                    odd[v] = _mm512_fmadd_ps(b, row(2 * i + 1, 16 * v), odd[v]);
                }
            }
            if weights.len() % 2 == 1 {
                let p = weights.len() - 1;
                let a = _mm512_set1_ps(weights[p]);
                for (v, sum) in even.iter_mut().enumerate() {
                    *sum = _mm512_fmadd_ps(a, row(p, 16 * v), *sum);
                }
            }
            for v in 0..4 {
                _mm512_storeu_ps(out.as_mut_ptr().add(16 * v), _mm512_add_ps(even[v], odd[v]));
            }
            return;
        }
        out.fill(0.0);
        for (p, &w) in weights.iter().enumerate() {
            let w = _mm512_set1_ps(w);
            let row = values.as_ptr().add(p * width + column);
            for c in (0..dh).step_by(16) {
                let mask = lanes(dh - c);
                let v = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, row.add(c) as *const i16));
                let at = out.as_mut_ptr().add(c);
                _mm512_mask_storeu_ps(at, mask, _mm512_fmadd_ps(w, v, _mm512_maskz_loadu_ps(mask, at)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_query_attends_as_the_definition_says() {
        if !StepMemory::supported() {
            eprintln!("skipped: neither AVX-512 nor AVX2 with F16C on this CPU");
            return;
        }
        // 37 positions (two vectors and a part, an odd count), heads of 20
        // (a part vector) and of 64 (Whisper's, summed in registers).
        for (heads, dh) in [(3, 20), (2, 64)] {
            check(37, heads, dh);
        }
    }

    fn check(n: usize, heads: usize, dh: usize) {
        let width = heads * dh;
        let memory: Vec<f32> = (0..n * 2 * width).map(|i| ((i * 7919) % 1013) as f32 / 1013.0 - 0.5).collect();
        let q: Vec<f32> = (0..width).map(|i| (i as f32 * 0.37).sin()).collect();
        let got = StepMemory::new(&memory, n, heads, dh).attend(&q);
        let scale = (dh as f64).powf(-0.5);
        for h in 0..heads {
            let s: Vec<f64> = (0..n).map(|p| (0..dh).map(|d| q[h * dh + d] as f64 * memory[p * 2 * width + h * dh + d] as f64).sum::<f64>() * scale).collect();
            let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|v| (v - max).exp()).collect();
            let total: f64 = e.iter().sum();
            for d in 0..dh {
                let want: f64 = (0..n).map(|p| e[p] / total * memory[p * 2 * width + width + h * dh + d] as f64).sum();
                assert!((got[h * dh + d] as f64 - want).abs() < 2e-3, "head {h} dim {d}: {} vs {want}", got[h * dh + d]);
            }
        }
    }
}
