//! Whisper's attention without candle's intermediates: for each head and
//! block of query rows, the scores (one gemm) go through an in-place
//! softmax and straight into their product with the values (a second
//! gemm), written at the head's columns of the output. Queries, keys and
//! values are read where the projections left them (no per-head copies),
//! a block's scores stay in cache, and the blocks run in parallel, each
//! gemm on one thread. The encoder's self-attention and the decoder's
//! cross-attention go through it; the decoder's own self-attention (a
//! causal mask, a few keys) and the word-timing scores stay on candle.

use rayon::prelude::*;

use crate::fast_math::softmax_in_place;

/// Query rows a task takes: its scores (`64 × 1500` floats for Whisper's
/// encoder, 384 KB) stay in the core's cache between the two products.
const QUERY_BLOCK: usize = 64;

/// Rows of a row-major matrix that start at `offset` and are `stride` apart
/// (the query, key or value columns of a fused projection's output).
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    pub data: &'a [f32],
    pub stride: usize,
    pub offset: usize,
}

impl Rows<'_> {
    fn check(&self, rows: usize, width: usize, what: &str) {
        assert!(rows == 0 || (rows - 1) * self.stride + self.offset + width <= self.data.len(), "{what}: {rows} rows of {width} do not fit");
    }
}

/// The output's pointer, shared by tasks that write disjoint parts of it.
#[derive(Clone, Copy)]
struct Output(*mut f32);
// SAFETY: tasks write disjoint rows × head columns (see `attend`).
unsafe impl Send for Output {}
unsafe impl Sync for Output {}

impl Output {
    /// The output at `offset` (a method, so closures capture the whole `Output`).
    fn at(self, offset: usize) -> *mut f32 {
        self.0.wrapping_add(offset)
    }
}

/// How many queries attend to how many keys, in how many heads of what width.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub queries: usize,
    pub keys: usize,
    pub heads: usize,
    pub head_dim: usize,
}

/// `softmax(Q Kᵀ / √head_dim) V` per head, for `queries` rows of `q`
/// against `keys` rows of `k` and `v`, each row holding `heads × head_dim`
/// values at its offset. Returns `[queries, heads × head_dim]`, row-major.
/// `bf16`: both products in bfloat16 ([`crate::bf16_matmul`], where
/// supported), else f32.
pub fn attend(q: Rows, k: Rows, v: Rows, sizes: Sizes, bf16: bool) -> Vec<f32> {
    let Sizes { queries, keys, heads, head_dim } = sizes;
    let width = heads * head_dim;
    q.check(queries, width, "queries");
    k.check(keys, width, "keys");
    v.check(keys, width, "values");
    let mut out = vec![0f32; queries * width];
    if queries == 0 || keys == 0 {
        return out;
    }
    if bf16 && crate::bf16_matmul::supported() {
        attend_bf16(q, k, v, sizes, &mut out);
        return out;
    }
    let scale = (head_dim as f32).powf(-0.5);
    let output = Output(out.as_mut_ptr());
    let blocks = queries.div_ceil(QUERY_BLOCK);
    (0..heads * blocks).into_par_iter().for_each_init(
        || vec![0f32; QUERY_BLOCK * keys],
        |scores, task| {
            let (head, block) = (task / blocks, task % blocks);
            let first = block * QUERY_BLOCK;
            let rows = QUERY_BLOCK.min(queries - first);
            let column = head * head_dim;
            let scores = &mut scores[..rows * keys];
            // SAFETY: the `check`s above bound every row read: query rows
            // first..first + rows, key and value rows 0..keys, columns
            // column..column + head_dim of each. `scores` holds rows × keys.
            // The output rows first..first + rows at these columns belong to
            // this task alone, and `out` outlives the parallel loop.
            unsafe {
                gemm::gemm(
                    rows,
                    keys,
                    head_dim,
                    scores.as_mut_ptr(),
                    1,
                    keys as isize,
                    false,
                    q.data.as_ptr().add(first * q.stride + q.offset + column),
                    1,
                    q.stride as isize,
                    k.data.as_ptr().add(k.offset + column),
                    k.stride as isize,
                    1,
                    0.0,
                    scale,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
            for row in scores.chunks_exact_mut(keys) {
                softmax_in_place(row);
            }
            unsafe {
                gemm::gemm(
                    rows,
                    head_dim,
                    keys,
                    output.at(first * width + column),
                    1,
                    width as isize,
                    false,
                    scores.as_ptr(),
                    1,
                    keys as isize,
                    v.data.as_ptr().add(v.offset + column),
                    1,
                    v.stride as isize,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
        },
    );
    out
}

/// [`attend`] with both products in bf16: each head's keys (transposed)
/// and values packed once, then the same tasks as the f32 path.
fn attend_bf16(q: Rows, k: Rows, v: Rows, sizes: Sizes, out: &mut [f32]) {
    use crate::bf16_matmul::{multiply, Destination, LeftRows, PackedRight};
    let Sizes { queries, keys, heads, head_dim } = sizes;
    let scale = (head_dim as f32).powf(-0.5);
    let width = heads * head_dim;
    let (keys_t, values): (Vec<PackedRight>, Vec<PackedRight>) = (0..heads)
        .into_par_iter()
        .map(|h| {
            let column = h * head_dim;
            (
                PackedRight::pack(head_dim, keys, |r, c| k.data[c * k.stride + k.offset + column + r]),
                PackedRight::pack(keys, head_dim, |r, c| v.data[r * v.stride + v.offset + column + c]),
            )
        })
        .unzip();
    let output = Output(out.as_mut_ptr());
    let blocks = queries.div_ceil(QUERY_BLOCK);
    (0..heads * blocks).into_par_iter().for_each_init(
        || (vec![0f32; QUERY_BLOCK * keys], vec![0f32; QUERY_BLOCK * head_dim]),
        |(scores, result), task| {
            let (head, block) = (task / blocks, task % blocks);
            let first = block * QUERY_BLOCK;
            let rows = QUERY_BLOCK.min(queries - first);
            let column = head * head_dim;
            let scores = &mut scores[..rows * keys];
            let left = LeftRows::round(q.data, rows, head_dim, q.stride, q.offset + first * q.stride + column);
            multiply(&left, &keys_t[head], Destination { out: scores, stride: keys, offset: 0, scale, bias: None });
            let mut weights = LeftRows::zeroed(rows, keys);
            for (r, row) in scores.chunks_exact_mut(keys).enumerate() {
                softmax_in_place(row);
                weights.set_row(r, row);
            }
            let result = &mut result[..rows * head_dim];
            multiply(&weights, &values[head], Destination { out: result, stride: head_dim, offset: 0, scale: 1.0, bias: None });
            for (r, row) in result.chunks_exact(head_dim).enumerate() {
                // SAFETY: row first + r, columns column..column + head_dim
                // of `out` belong to this task alone (as in `attend`).
                unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), output.at((first + r) * width + column), head_dim) };
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, in f64, one query at a time.
    fn reference(q: Rows, k: Rows, v: Rows, sizes: Sizes) -> Vec<f64> {
        let Sizes { queries, keys, heads, head_dim: dh } = sizes;
        let scale = (dh as f64).powf(-0.5);
        let mut out = vec![0f64; queries * heads * dh];
        for h in 0..heads {
            for i in 0..queries {
                let s: Vec<f64> = (0..keys)
                    .map(|j| {
                        (0..dh).map(|c| q.data[i * q.stride + q.offset + h * dh + c] as f64 * k.data[j * k.stride + k.offset + h * dh + c] as f64).sum::<f64>()
                            * scale
                    })
                    .collect();
                let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
                let sum: f64 = e.iter().sum();
                for c in 0..dh {
                    out[i * heads * dh + h * dh + c] = (0..keys).map(|j| e[j] / sum * v.data[j * v.stride + v.offset + h * dh + c] as f64).sum();
                }
            }
        }
        out
    }

    #[test]
    fn attention_from_a_fused_projection_matches_the_definition() {
        // 150 queries (two full blocks and a part), 3 heads of 8, keys and
        // values from one fused [rows, 3 × 24] matrix as the encoder has.
        let (n, heads, dh) = (150, 3, 8);
        let width = heads * dh;
        let qkv: Vec<f32> = (0..n * 3 * width).map(|i| (((i * 7919) % 1013) as f32 / 1013.0 - 0.5) * 2.0).collect();
        let rows = |offset| Rows { data: &qkv, stride: 3 * width, offset };
        let sizes = Sizes { queries: n, keys: n, heads, head_dim: dh };
        let got = attend(rows(0), rows(width), rows(2 * width), sizes, false);
        let want = reference(rows(0), rows(width), rows(2 * width), sizes);
        for (g, w) in got.iter().zip(&want) {
            assert!((*g as f64 - w).abs() < 1e-5, "{g} vs {w}");
        }
        // In bf16 (where the CPU has it): within bf16's rounding.
        if crate::bf16_matmul::supported() {
            let got = attend(rows(0), rows(width), rows(2 * width), sizes, true);
            for (g, w) in got.iter().zip(&want) {
                assert!((*g as f64 - w).abs() < 2e-2, "bf16: {g} vs {w}");
            }
        }
        // One query against separate keys/values, as a decoder step has.
        let kv: Vec<f32> = (0..40 * 2 * width).map(|i| ((i * 31) % 97) as f32 / 97.0 - 0.5).collect();
        let q1: Vec<f32> = (0..width).map(|i| (i as f32 * 0.3).sin()).collect();
        let query = Rows { data: &q1, stride: width, offset: 0 };
        let key = Rows { data: &kv, stride: 2 * width, offset: 0 };
        let value = Rows { data: &kv, stride: 2 * width, offset: width };
        let sizes = Sizes { queries: 1, keys: 40, heads, head_dim: dh };
        let got = attend(query, key, value, sizes, false);
        let want = reference(query, key, value, sizes);
        for (g, w) in got.iter().zip(&want) {
            assert!((*g as f64 - w).abs() < 1e-5, "{g} vs {w}");
        }
    }
}
