//! Matrix products in bfloat16 on AVX-512 BF16 (`vdpbf16ps`: each f32
//! lane adds two bf16 products), about twice the f32 rate on CPUs that
//! have it (AMD Zen 4 and later, Intel Cooper Lake and Sapphire Rapids).
//! Both operands are rounded to bf16 (8 significant bits, round to nearest
//! even); every sum is f32. Whisper's encoder runs its linear layers and
//! attention through it: `whisper_parity` holds with it (transcripts equal
//! to faster-whisper's in f32, times within a token).
//!
//! Layouts: the left operand `A [m, k]` is rounded row by row into bf16
//! pairs, one u32 per two columns (`k` padded to even with a zero), so a
//! pair is one broadcast. The right operand `B [k, n]` is packed once
//! ([`PackedRight`]) as `[n / 64][k / 2][64]` pairs: a block's step of one
//! pair is four 512-bit loads. A register tile is 6 rows × 64 columns
//! (24 accumulators).

use rayon::prelude::*;

/// Columns per packed block (four 16-lane vectors).
const BLOCK: usize = 64;
/// Rows per register tile.
const TILE_ROWS: usize = 6;
/// Rows of `A` a parallel task takes at most: its bf16 copy (at most
/// 256 rows × 2048 columns × 2 bytes, 1 MiB) is reused for every block.
const TASK_ROWS: usize = 240;

/// True when this CPU runs the kernel (AVX-512F and AVX-512 BF16) and
/// the CPU-feature cap allows it (see [`crate::cpu_features`]).
pub fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::cpu_features::avx512_allowed() && std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `v` rounded to bf16 (to nearest, ties to even), as bits.
#[inline(always)]
fn bf16_bits(v: f32) -> u32 {
    let bits = v.to_bits();
    if v.is_nan() {
        return (bits >> 16) | 0x40;
    }
    (bits + 0x7fff + ((bits >> 16) & 1)) >> 16
}

/// Two values as one bf16 pair, the first in the low half.
#[inline(always)]
fn pair(a: f32, b: f32) -> u32 {
    bf16_bits(a) | bf16_bits(b) << 16
}

/// The right operand `B [k, n]` of a product, packed in bf16 pairs.
#[derive(Debug, Clone)]
pub struct PackedRight {
    k: usize,
    n: usize,
    pairs: usize,
    /// `[n / BLOCK][pairs][BLOCK]`, columns past `n` zero.
    data: Vec<u32>,
}

impl PackedRight {
    /// Packs `B [k, n]` read through `value(row, column)`.
    pub fn pack(k: usize, n: usize, value: impl Fn(usize, usize) -> f32 + Sync) -> Self {
        let pairs = k.div_ceil(2);
        let blocks = n.div_ceil(BLOCK);
        let mut data = vec![0u32; blocks * pairs * BLOCK];
        let at = |r: usize, c: usize| if r < k && c < n { value(r, c) } else { 0.0 };
        data.par_chunks_mut(pairs * BLOCK).enumerate().for_each(|(block, out)| {
            for p in 0..pairs {
                for j in 0..BLOCK {
                    let c = block * BLOCK + j;
                    out[p * BLOCK + j] = pair(at(2 * p, c), at(2 * p + 1, c));
                }
            }
        });
        PackedRight { k, n, pairs, data }
    }

    /// A linear layer's weight `W [n, k]` (row-major), as the right
    /// operand of `x Wᵀ`.
    pub fn linear_weight(weight: &[f32], n: usize, k: usize) -> Self {
        assert_eq!(weight.len(), n * k, "weight size");
        Self::pack(k, n, |r, c| weight[c * k + r])
    }

    /// Rows of the left operand (`k`).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns of the product (`n`).
    pub fn n(&self) -> usize {
        self.n
    }

    fn block(&self, b: usize) -> &[u32] {
        &self.data[b * self.pairs * BLOCK..(b + 1) * self.pairs * BLOCK]
    }
}

/// Rows of `A [m, k]` rounded to bf16 pairs, `[m][k / 2]`.
pub struct LeftRows {
    m: usize,
    pairs: usize,
    data: Vec<u32>,
}

impl LeftRows {
    /// Rounds `m` rows of `k` values, row `r` starting at `offset + r · stride` of `data`.
    pub fn round(data: &[f32], m: usize, k: usize, stride: usize, offset: usize) -> Self {
        assert!(m == 0 || offset + (m - 1) * stride + k <= data.len(), "{m} rows of {k} do not fit");
        let pairs = k.div_ceil(2);
        let mut out = vec![0u32; m * pairs];
        for (r, row) in out.chunks_exact_mut(pairs.max(1)).enumerate().take(m) {
            let src = &data[offset + r * stride..offset + r * stride + k];
            round_row(src, row);
        }
        LeftRows { m, pairs, data: out }
    }

    /// An empty set of `m` rows of `k` columns, for [`Self::row_mut`].
    pub fn zeroed(m: usize, k: usize) -> Self {
        let pairs = k.div_ceil(2);
        LeftRows { m, pairs, data: vec![0u32; m * pairs] }
    }

    /// Rounds `values` into row `r`.
    pub fn set_row(&mut self, r: usize, values: &[f32]) {
        let pairs = self.pairs;
        round_row(values, &mut self.data[r * pairs..(r + 1) * pairs]);
    }
}

fn round_row(src: &[f32], row: &mut [u32]) {
    let whole = src.len() / 2;
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if supported() {
        // SAFETY: the CPU has AVX-512 BF16 (checked); `whole` pairs of
        // `src` are read, `whole` slots of `row` written.
        done = unsafe { kernel::round_pairs(&src[..2 * whole], &mut row[..whole]) };
    }
    for p in done..whole {
        row[p] = pair(src[2 * p], src[2 * p + 1]);
    }
    if src.len() % 2 == 1 {
        row[whole] = pair(src[src.len() - 1], 0.0);
    }
}

/// Where a product goes: `out[r · stride + offset + c] = scale · (A B)[r, c] + bias[c]`.
pub struct Destination<'a> {
    pub out: &'a mut [f32],
    pub stride: usize,
    pub offset: usize,
    pub scale: f32,
    pub bias: Option<&'a [f32]>,
}

/// `A B` into `dest`, on this thread. Call only where [`supported`] is true.
pub fn multiply(a: &LeftRows, b: &PackedRight, dest: Destination) {
    assert_eq!(a.pairs, b.pairs, "inner sizes differ");
    assert!(a.m == 0 || dest.offset + (a.m - 1) * dest.stride + b.n <= dest.out.len(), "the product does not fit its destination");
    if let Some(bias) = dest.bias {
        assert_eq!(bias.len(), b.n, "bias size");
    }
    #[cfg(target_arch = "x86_64")]
    {
        assert!(supported(), "bf16 products need AVX-512 BF16");
        for block in 0..b.n.div_ceil(BLOCK) {
            let columns = BLOCK.min(b.n - block * BLOCK);
            let bias = dest.bias.map(|bias| &bias[block * BLOCK..block * BLOCK + columns]);
            let mut row = 0;
            while row < a.m {
                let rows = TILE_ROWS.min(a.m - row);
                let at = dest.offset + row * dest.stride + block * BLOCK;
                // SAFETY: the CPU has AVX-512F and BF16 (asserted above);
                // the tile reads `rows` rows of `a` and one block of `b`,
                // all inside their vectors, and writes `rows` rows of
                // `columns` values from `at`, which the assert above bounds.
                unsafe {
                    kernel::tile(
                        a.data.as_ptr().add(row * a.pairs),
                        a.pairs,
                        b.block(block).as_ptr(),
                        rows,
                        columns,
                        dest.out.as_mut_ptr().add(at),
                        dest.stride,
                        dest.scale,
                        bias,
                    );
                }
                row += rows;
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = dest;
        unreachable!("checked by supported()")
    }
}

/// `x [m, k] Wᵀ + bias` for a linear layer packed by [`PackedRight::linear_weight`]:
/// `[m, n]`, row-major, the rows split between rayon's threads.
pub fn linear(x: &[f32], m: usize, weight: &PackedRight, bias: Option<&[f32]>) -> Vec<f32> {
    let (k, n) = (weight.k, weight.n);
    assert_eq!(x.len(), m * k, "input size");
    let mut out = vec![0f32; m * n];
    let threads = rayon::current_num_threads().max(1);
    let tasks = m.div_ceil(TASK_ROWS).div_ceil(threads) * threads;
    let rows = m.div_ceil(tasks.max(1)).div_ceil(TILE_ROWS).max(1) * TILE_ROWS;
    out.par_chunks_mut(rows * n).zip(x.par_chunks(rows * k)).for_each(|(out, x)| {
        let m = x.len() / k.max(1);
        let left = LeftRows::round(x, m, k, k, 0);
        multiply(&left, weight, Destination { out, stride: n, offset: 0, scale: 1.0, bias });
    });
    out
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    use super::{BLOCK, TILE_ROWS};

    /// Rounds pairs of `src` into `out` sixteen values at a time; returns
    /// how many pairs it did (the rest are left to the caller).
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn round_pairs(src: &[f32], out: &mut [u32]) -> usize {
        let chunks = src.len() / 16;
        for i in 0..chunks {
            let rounded = _mm512_cvtneps_pbh(_mm512_loadu_ps(src.as_ptr().add(16 * i)));
            _mm256_storeu_si256(out.as_mut_ptr().add(8 * i) as *mut __m256i, std::mem::transmute::<__m256bh, __m256i>(rounded));
        }
        chunks * 8
    }

    /// One tile: `rows` (≤ 6) rows of `a` (pairs apart) times one packed
    /// block, `columns` (≤ 64) of its columns written.
    #[target_feature(enable = "avx512f,avx512bf16")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn tile(
        a: *const u32,
        pairs: usize,
        b: *const u32,
        rows: usize,
        columns: usize,
        out: *mut f32,
        stride: usize,
        scale: f32,
        bias: Option<&[f32]>,
    ) {
        let mut acc = [[_mm512_setzero_ps(); 4]; TILE_ROWS];
        match rows {
            6 => sums::<6>(a, pairs, b, &mut acc),
            5 => sums::<5>(a, pairs, b, &mut acc),
            4 => sums::<4>(a, pairs, b, &mut acc),
            3 => sums::<3>(a, pairs, b, &mut acc),
            2 => sums::<2>(a, pairs, b, &mut acc),
            _ => sums::<1>(a, pairs, b, &mut acc),
        }
        let scale = _mm512_set1_ps(scale);
        for (r, row) in acc.iter().enumerate().take(rows) {
            for (v, &sum) in row.iter().enumerate() {
                let first = v * 16;
                if first >= columns {
                    break;
                }
                let lanes = (columns - first).min(16);
                let mask: __mmask16 = if lanes == 16 { 0xffff } else { (1u16 << lanes) - 1 };
                let mut value = _mm512_mul_ps(sum, scale);
                if let Some(bias) = bias {
                    value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, bias.as_ptr().add(first)));
                }
                _mm512_mask_storeu_ps(out.add(r * stride + first), mask, value);
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bf16")]
    #[inline]
    unsafe fn sums<const R: usize>(a: *const u32, pairs: usize, b: *const u32, acc: &mut [[__m512; 4]; TILE_ROWS]) {
        let mut local = [[_mm512_setzero_ps(); 4]; R];
        for p in 0..pairs {
            let bp = b.add(p * BLOCK);
            let w = [
                _mm512_loadu_si512(bp as *const __m512i),
                _mm512_loadu_si512(bp.add(16) as *const __m512i),
                _mm512_loadu_si512(bp.add(32) as *const __m512i),
                _mm512_loadu_si512(bp.add(48) as *const __m512i),
            ];
            for (r, row) in local.iter_mut().enumerate() {
                let x: __m512bh = std::mem::transmute(_mm512_set1_epi32(*a.add(r * pairs + p) as i32));
                for (v, sum) in row.iter_mut().enumerate() {
                    *sum = _mm512_dpbf16_ps(*sum, x, std::mem::transmute::<__m512i, __m512bh>(w[v]));
                }
            }
        }
        acc[..R].copy_from_slice(&local);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bf(v: f32) -> f64 {
        half::bf16::from_f32(v).to_f32() as f64
    }

    #[test]
    fn rounding_to_bf16_agrees_with_the_half_crate_and_the_vector_unit() {
        // Normal values only: the vector unit reads subnormal inputs as zero.
        let values: Vec<f32> = (0..4099u32)
            .map(|i| f32::from_bits(i.wrapping_mul(2_654_435_761)))
            .filter(|v| v.is_normal())
            .chain([1.0 + 1.0 / 256.0, 1.0 + 3.0 / 256.0, -0.0, 65504.0])
            .collect();
        for &v in &values {
            assert_eq!(bf16_bits(v), u32::from(half::bf16::from_f32(v).to_bits()), "{v:e}");
        }
        let even = values.len() / 2 * 2;
        let mut row = vec![0u32; even / 2];
        round_row(&values[..even], &mut row);
        for (p, &got) in row.iter().enumerate() {
            assert_eq!(got, pair(values[2 * p], values[2 * p + 1]), "pair {p}");
        }
    }

    #[test]
    fn a_linear_layer_equals_the_sum_over_bf16_rounded_values() {
        if !supported() {
            eprintln!("skipped: no AVX-512 BF16 on this CPU");
            return;
        }
        // Odd sizes: a partial tile (13 rows), a partial block (70 columns), odd k.
        let (m, k, n) = (13, 37, 70);
        let x: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 1013) as f32 / 1013.0 - 0.5).collect();
        let w: Vec<f32> = (0..n * k).map(|i| ((i * 104_729) % 997) as f32 / 997.0 - 0.5).collect();
        let bias: Vec<f32> = (0..n).map(|c| c as f32 * 0.01).collect();
        let got = linear(&x, m, &PackedRight::linear_weight(&w, n, k), Some(&bias));
        for r in 0..m {
            for c in 0..n {
                let want: f64 = (0..k).map(|i| bf(x[r * k + i]) * bf(w[c * k + i])).sum::<f64>() + bias[c] as f64;
                assert!((got[r * n + c] as f64 - want).abs() < 1e-4, "[{r}, {c}]: {} vs {want}", got[r * n + c]);
            }
        }
    }

    #[test]
    fn a_product_lands_at_its_destinations_columns_scaled() {
        if !supported() {
            eprintln!("skipped: no AVX-512 BF16 on this CPU");
            return;
        }
        let (m, k, n) = (7, 8, 5);
        let a: Vec<f32> = (0..m * 10).map(|i| i as f32 * 0.25).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
        // A's rows at column 2 of rows 10 wide; the product at column 3 of rows 9 wide.
        let left = LeftRows::round(&a, m, k, 10, 2);
        let right = PackedRight::pack(k, n, |r, c| b[r * n + c]);
        let mut out = vec![-1f32; m * 9];
        multiply(&left, &right, Destination { out: &mut out, stride: 9, offset: 3, scale: 0.5, bias: None });
        for r in 0..m {
            for c in 0..9 {
                let got = out[r * 9 + c] as f64;
                if (3..3 + n).contains(&c) {
                    let want: f64 = 0.5 * (0..k).map(|i| bf(a[r * 10 + 2 + i]) * b[i * n + c - 3] as f64).sum::<f64>();
                    assert!((got - want).abs() < 1e-3, "[{r}, {c}]: {got} vs {want}");
                } else {
                    assert_eq!(got, -1.0, "[{r}, {c}] outside the product is untouched");
                }
            }
        }
    }
}
