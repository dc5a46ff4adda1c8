//! Stride-1 1-D convolution in int8, the generator's hot path, on AVX-512
//! VNNI or on AVX2. Weights are quantized once at load, symmetric per
//! output channel (s8); the input is quantized per call, asymmetric per
//! tensor (u8 with a zero point, as onnxruntime's dynamic quantization
//! does). Each i32 lane sums four u8·s8 products: one `vpdpbusd` on VNNI;
//! on AVX2 `vpmaddubsw` (pairs into i16) then `vpmaddwd` by ones. The i16
//! pair saturates past 32767, so on AVX2 weights take 7 bits (±63), as
//! onnxruntime's `reduce_range` does there. The zero point's share,
//! `z · Σ w`, is a per-channel constant taken off before scaling back.
//!
//! Layouts: the input is packed as `[channel/4][time][4]` so that sixteen
//! consecutive time steps of four channels are one 64-byte load, and a tap
//! with dilation is only an offset in time; the weight is packed per block
//! of output channels (`ROWS` on VNNI, `ROWS_AVX2` on AVX2) as
//! `[tap][channel/4][row][4]`.

use crate::fast_math::has_avx512;

/// Output channels per register tile (AVX-512). With `VECTORS` these were
/// measured on the bench's convolutions: 6 × 4 ran 1.3 to 1.4 times as
/// fast as 4 × 6, 12 × 2 or 8 × 3 on both a short and a long input.
const ROWS: usize = 6;
/// 16-step time vectors per register tile (AVX-512).
const VECTORS: usize = 4;
/// Time steps per register tile (AVX-512).
const TILE: usize = 16 * VECTORS;
/// Output channels per register tile (AVX2: 16 registers in all).
const ROWS_AVX2: usize = 4;
/// 8-step time vectors per register tile (AVX2).
const VECTORS_AVX2: usize = 2;
/// Time steps per register tile (AVX2).
const TILE_AVX2: usize = 8 * VECTORS_AVX2;

/// The instructions the kernel runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int8Kernel {
    /// AVX-512 VNNI: `vpdpbusd`, 8-bit weights.
    Vnni,
    /// AVX2: `vpmaddubsw` + `vpmaddwd`, 7-bit weights.
    Avx2,
}

impl Int8Kernel {
    /// The best kernel this CPU runs, if any.
    pub fn detect() -> Option<Int8Kernel> {
        #[cfg(target_arch = "x86_64")]
        {
            if has_avx512() && std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vnni") {
                return Some(Int8Kernel::Vnni);
            }
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                return Some(Int8Kernel::Avx2);
            }
        }
        None
    }

    /// The largest quantized weight magnitude.
    fn weight_peak(self) -> f32 {
        match self {
            Int8Kernel::Vnni => 127.0,
            Int8Kernel::Avx2 => 63.0,
        }
    }

    /// Output channels per register tile (and weight block).
    fn rows(self) -> usize {
        match self {
            Int8Kernel::Vnni => ROWS,
            Int8Kernel::Avx2 => ROWS_AVX2,
        }
    }

    /// Time steps per register tile.
    fn tile(self) -> usize {
        match self {
            Int8Kernel::Vnni => TILE,
            Int8Kernel::Avx2 => TILE_AVX2,
        }
    }

    /// How the kernel is named in reports.
    pub fn describe(self) -> &'static str {
        match self {
            Int8Kernel::Vnni => "AVX-512 VNNI",
            Int8Kernel::Avx2 => "AVX2",
        }
    }
}

/// A stride-1, ungrouped convolution ready for the int8 kernel.
#[derive(Debug, Clone)]
pub struct QuantizedConv {
    kernel: Int8Kernel,
    c_out: usize,
    c_in: usize,
    taps: usize,
    /// Input channels in groups of four (the last one zero-padded).
    groups: usize,
    padding: usize,
    dilation: usize,
    /// `[c_out/rows][tap][group][rows][4]` (`rows` the kernel's), rows
    /// past `c_out` zero.
    packed: Vec<i8>,
    /// Σ of each output channel's quantized weights.
    weight_sums: Vec<i32>,
    /// Each output channel's weight step.
    weight_steps: Vec<f32>,
    bias: Vec<f32>,
}

impl QuantizedConv {
    /// True when this CPU has the instructions a kernel needs.
    pub fn supported() -> bool {
        Int8Kernel::detect().is_some()
    }

    /// Quantizes `weight` `[c_out, c_in, taps]` (row-major f32) for this
    /// CPU's kernel. Call only where [`supported`](Self::supported) is true.
    pub fn new(weight: &[f32], shape: (usize, usize, usize), bias: Option<&[f32]>, padding: usize, dilation: usize) -> Self {
        let kernel = Int8Kernel::detect().expect("int8 convolution needs AVX-512 VNNI or AVX2");
        Self::for_kernel(kernel, weight, shape, bias, padding, dilation)
    }

    /// Quantizes `weight` for `kernel` (which this CPU must run).
    pub fn for_kernel(
        kernel: Int8Kernel,
        weight: &[f32],
        (c_out, c_in, taps): (usize, usize, usize),
        bias: Option<&[f32]>,
        padding: usize,
        dilation: usize,
    ) -> Self {
        assert_eq!(weight.len(), c_out * c_in * taps, "weight size");
        let weight_peak = kernel.weight_peak();
        let groups = c_in.div_ceil(4);
        let rows = kernel.rows();
        let blocks = c_out.div_ceil(rows);
        let mut packed = vec![0i8; blocks * taps * groups * rows * 4];
        let mut weight_sums = vec![0i32; blocks * rows];
        let mut weight_steps = vec![1f32; blocks * rows];
        for o in 0..c_out {
            let row = &weight[o * c_in * taps..(o + 1) * c_in * taps];
            let peak = row.iter().fold(0f32, |m, &w| m.max(w.abs()));
            let step = if peak > 0.0 { peak / weight_peak } else { 1.0 };
            weight_steps[o] = step;
            let (block, r) = (o / rows, o % rows);
            for c in 0..c_in {
                for tap in 0..taps {
                    let q = (row[c * taps + tap] / step).round().clamp(-weight_peak, weight_peak) as i8;
                    weight_sums[o] += q as i32;
                    let at = (((block * taps + tap) * groups + c / 4) * rows + r) * 4 + c % 4;
                    packed[at] = q;
                }
            }
        }
        let mut bias_full = vec![0f32; blocks * rows];
        if let Some(b) = bias {
            bias_full[..c_out].copy_from_slice(b);
        }
        QuantizedConv { kernel, c_out, c_in, taps, groups, padding, dilation, packed, weight_sums, weight_steps, bias: bias_full }
    }

    /// The kernel it runs on.
    pub fn kernel(&self) -> Int8Kernel {
        self.kernel
    }

    /// Output steps for `t` input steps.
    pub fn output_length(&self, t: usize) -> usize {
        (t + 2 * self.padding).saturating_sub(self.dilation * (self.taps - 1))
    }

    /// Convolves `x` `[c_in, t]`; returns `[c_out, t_out]` and `t_out`.
    pub fn forward(&self, x: &[f32], t: usize) -> (Vec<f32>, usize) {
        let t_out = self.output_length(t);
        let mut out = vec![0f32; self.c_out * t_out];
        self.write(x, t, &mut out, Output::Store);
        (out, t_out)
    }

    /// The convolution of `x` `[c_in, t]` into `out` `[c_out, t_out]`:
    /// stored over whatever it held, or added onto it (a residual sum kept
    /// in one pass over memory; each value the same as `out + forward(x)`).
    pub fn write(&self, x: &[f32], t: usize, out: &mut [f32], output: Output) {
        assert_eq!(x.len(), self.c_in * t, "input size");
        let t_out = self.output_length(t);
        assert_eq!(out.len(), self.c_out * t_out, "output size");
        if t_out == 0 {
            return;
        }
        let reach = self.dilation * (self.taps - 1);
        let tile = self.kernel.tile();
        let input = QuantizedInput::pack(x, self.c_in, t, self.padding, t_out.div_ceil(tile) * tile + reach);
        let block_rows = self.kernel.rows();
        let blocks = self.c_out.div_ceil(block_rows);
        let threads = rayon::current_num_threads().max(1);
        let blocks_per_task = blocks.div_ceil(threads);
        use rayon::prelude::*;
        out.par_chunks_mut(blocks_per_task * block_rows * t_out).enumerate().for_each(|(task, rows)| {
            let first_block = task * blocks_per_task;
            // SAFETY: the kernel was detected on this CPU in `new`; it reads
            // the packed input and weights within the bounds set up in `pack`
            // and `new`, and writes only rows and columns inside `rows`.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                match self.kernel {
                    Int8Kernel::Vnni => kernel::run(self, &input, first_block, rows, t_out, output),
                    Int8Kernel::Avx2 => kernel_avx2::run(self, &input, first_block, rows, t_out, output),
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (first_block, rows, output);
                unreachable!("checked by supported()")
            }
        });
    }
}

/// What a convolution does with each output value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Writes it.
    Store,
    /// Adds it to what is there.
    Add,
}

impl Output {
    /// What `out` holds after `value` is written there.
    #[inline(always)]
    pub fn apply(self, out: f32, value: f32) -> f32 {
        match self {
            Output::Store => value,
            Output::Add => out + value,
        }
    }
}

/// The input as u8 in `[group][time][4]`, padded with the zero point:
/// one u32 holds four channels at one time step, lowest channel first.
struct QuantizedInput {
    data: Vec<u32>,
    /// Time steps per group row.
    length: usize,
    step: f32,
    zero: i32,
}

impl QuantizedInput {
    fn pack(x: &[f32], c_in: usize, t: usize, padding: usize, length: usize) -> Self {
        use rayon::prelude::*;
        let avx512 = has_avx512();
        let (lo, hi) = x
            .par_chunks(1 << 14)
            .map(|part| {
                #[cfg(target_arch = "x86_64")]
                if avx512 {
                    // SAFETY: the CPU has AVX-512F (checked in `has_avx512`).
                    return unsafe { range_avx512(part) };
                }
                range(part)
            })
            .reduce(|| (0.0, 0.0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        let step = if hi > lo { (hi - lo) / 255.0 } else { 1.0 };
        let zero = (-lo / step).round().clamp(0.0, 255.0);
        let scale = Scale { inv: 1.0 / step, offset: zero + 0.5 };
        let filler = zero as u32 * 0x0101_0101;
        let mut data = vec![filler; c_in.div_ceil(4) * length];
        data.par_chunks_mut(length).enumerate().for_each(|(group, out)| {
            let out = &mut out[padding..padding + t];
            let row = |lane: usize| &x[(4 * group + lane) * t..(4 * group + lane + 1) * t];
            if 4 * group + 4 <= c_in {
                let rows = [row(0), row(1), row(2), row(3)];
                #[cfg(target_arch = "x86_64")]
                if avx512 {
                    // SAFETY: the CPU has AVX-512F (checked in `has_avx512`).
                    return unsafe { quantize_four_avx512(rows, out, scale) };
                }
                quantize_four(rows, out, scale);
            } else {
                for lane in 0..c_in - 4 * group {
                    let shift = 8 * lane;
                    for (slot, &v) in out.iter_mut().zip(row(lane)) {
                        *slot = (*slot & !(0xff << shift)) | scale.quantize(v) << shift;
                    }
                }
            }
        });
        QuantizedInput { data, length, step, zero: zero as i32 }
    }
}

/// An input's quantization: `u8 = v·inv + offset`, rounded half up.
#[derive(Clone, Copy)]
struct Scale {
    inv: f32,
    /// The zero point plus ½.
    offset: f32,
}

impl Scale {
    /// One value as u8 (the saturating cast clamps to 0..=255).
    #[inline(always)]
    fn quantize(self, v: f32) -> u32 {
        (v * self.inv + self.offset) as u8 as u32
    }
}

/// Four channel rows into one u32 per step, lowest channel first.
fn quantize_four(rows: [&[f32]; 4], out: &mut [u32], scale: Scale) {
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = scale.quantize(rows[0][i]) | scale.quantize(rows[1][i]) << 8 | scale.quantize(rows[2][i]) << 16 | scale.quantize(rows[3][i]) << 24;
    }
}

/// [`quantize_four`] on AVX-512, sixteen steps at a time: the same
/// rounding (truncation after adding ½) and the same clamp to 0..=255.
/// Left to the compiler, the packing ran in SSE and cost 8 % of a pass.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn quantize_four_avx512(rows: [&[f32]; 4], out: &mut [u32], scale: Scale) {
    use std::arch::x86_64::*;
    let (inv, offset) = (_mm512_set1_ps(scale.inv), _mm512_set1_ps(scale.offset));
    let (floor, ceiling) = (_mm512_setzero_ps(), _mm512_set1_ps(255.0));
    let lane = |row: &[f32], i: usize| {
        // SAFETY: callers pass i + 16 ≤ row.len().
        let v = unsafe { _mm512_loadu_ps(row.as_ptr().add(i)) };
        // Multiply then add, unfused, as the scalar path rounds.
        _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_add_ps(_mm512_mul_ps(v, inv), offset), floor), ceiling))
    };
    let whole = out.len() / 16 * 16;
    for i in (0..whole).step_by(16) {
        let packed = _mm512_or_si512(
            _mm512_or_si512(lane(rows[0], i), _mm512_slli_epi32::<8>(lane(rows[1], i))),
            _mm512_or_si512(_mm512_slli_epi32::<16>(lane(rows[2], i)), _mm512_slli_epi32::<24>(lane(rows[3], i))),
        );
        // SAFETY: i + 16 ≤ out.len().
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(i) as *mut _, packed) };
    }
    let rest = [&rows[0][whole..], &rows[1][whole..], &rows[2][whole..], &rows[3][whole..]];
    quantize_four(rest, &mut out[whole..], scale);
}

/// The smallest and largest value of `part`, and 0 (the padding's value).
#[inline(always)]
fn range(part: &[f32]) -> (f32, f32) {
    let (mut lo, mut hi) = ([0f32; 16], [0f32; 16]);
    let mut chunks = part.chunks_exact(16);
    for chunk in &mut chunks {
        for i in 0..16 {
            lo[i] = if chunk[i] < lo[i] { chunk[i] } else { lo[i] };
            hi[i] = if chunk[i] > hi[i] { chunk[i] } else { hi[i] };
        }
    }
    let fold = |acc: (f32, f32), &v: &f32| (acc.0.min(v), acc.1.max(v));
    let lanes = lo.iter().zip(&hi).fold((0f32, 0f32), |acc, (&l, &h)| (acc.0.min(l), acc.1.max(h)));
    chunks.remainder().iter().fold(lanes, fold)
}

/// [`range`] on AVX-512, with the same answer (a NaN is skipped: `min`
/// and `max` return their second operand, the running value, for it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn range_avx512(part: &[f32]) -> (f32, f32) {
    use std::arch::x86_64::*;
    let (mut lo, mut hi) = (_mm512_setzero_ps(), _mm512_setzero_ps());
    let whole = part.len() / 16 * 16;
    for i in (0..whole).step_by(16) {
        // SAFETY: i + 16 ≤ part.len().
        let v = unsafe { _mm512_loadu_ps(part.as_ptr().add(i)) };
        lo = _mm512_min_ps(v, lo);
        hi = _mm512_max_ps(v, hi);
    }
    let rest = range(&part[whole..]);
    (_mm512_reduce_min_ps(lo).min(rest.0), _mm512_reduce_max_ps(hi).max(rest.1))
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::{Output, QuantizedConv, QuantizedInput, ROWS, TILE, VECTORS};
    use std::arch::x86_64::*;

    /// Computes output rows from block `first_block` into `rows`
    /// (`[rows.len() / t_out, t_out]`), one `ROWS × TILE` tile at a time.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn run(conv: &QuantizedConv, input: &QuantizedInput, first_block: usize, rows: &mut [f32], t_out: usize, output: Output) {
        let n_rows = rows.len() / t_out;
        let blocks = n_rows.div_ceil(ROWS);
        let block_len = conv.taps * conv.groups * ROWS * 4;
        for t0 in (0..t_out).step_by(TILE) {
            for b in 0..blocks {
                let block = first_block + b;
                let acc = unsafe { tile(conv, input, conv.packed.as_ptr().add(block * block_len), t0) };
                let o0 = block * ROWS;
                let scale = input.step;
                for (r, acc_row) in acc.iter().enumerate() {
                    let local = b * ROWS + r;
                    if local >= n_rows {
                        break;
                    }
                    let o = o0 + r;
                    let offset = _mm512_set1_epi32(input.zero * conv.weight_sums[o]);
                    let mul = _mm512_set1_ps(scale * conv.weight_steps[o]);
                    let bias = _mm512_set1_ps(conv.bias[o]);
                    let out_row = &mut rows[local * t_out..(local + 1) * t_out];
                    for (v, &a) in acc_row.iter().enumerate() {
                        let t = t0 + 16 * v;
                        if t >= t_out {
                            break;
                        }
                        let y = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(a, offset)), mul, bias);
                        let left = t_out - t;
                        let mask = if left >= 16 { u16::MAX } else { (1u16 << left) - 1 };
                        let at = unsafe { out_row.as_mut_ptr().add(t) };
                        let y = match output {
                            Output::Store => y,
                            Output::Add => _mm512_add_ps(y, unsafe { _mm512_maskz_loadu_ps(mask, at) }),
                        };
                        unsafe { _mm512_mask_storeu_ps(at, mask, y) };
                    }
                }
            }
        }
    }

    /// The i32 sums of one tile: `ROWS` output channels × `TILE` steps from `t0`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile(conv: &QuantizedConv, input: &QuantizedInput, weights: *const i8, t0: usize) -> [[__m512i; VECTORS]; ROWS] {
        let mut acc = [[_mm512_setzero_si512(); VECTORS]; ROWS];
        let x = input.data.as_ptr() as *const u8;
        let mut w = weights as *const i32;
        for tap in 0..conv.taps {
            let mut src = unsafe { x.add((t0 + tap * conv.dilation) * 4) };
            for _ in 0..conv.groups {
                let mut xv = [_mm512_setzero_si512(); VECTORS];
                for (v, slot) in xv.iter_mut().enumerate() {
                    *slot = unsafe { _mm512_loadu_si512(src.add(64 * v) as *const _) };
                }
                for acc_row in acc.iter_mut() {
                    let wv = _mm512_set1_epi32(unsafe { w.read_unaligned() });
                    for (a, &xv) in acc_row.iter_mut().zip(&xv) {
                        *a = _mm512_dpbusd_epi32(*a, xv, wv);
                    }
                    w = unsafe { w.add(1) };
                }
                src = unsafe { src.add(input.length * 4) };
            }
        }
        acc
    }
}

/// The AVX2 kernel: the VNNI kernel's tiling at 256 bits, each `vpdpbusd`
/// done as `vpmaddubsw` (u8·s8 pairs into i16; weights of 7 bits keep the
/// pair below i16's limit) and `vpmaddwd` by ones (i16 pairs into i32).
#[cfg(target_arch = "x86_64")]
mod kernel_avx2 {
    use super::{Output, QuantizedConv, QuantizedInput, ROWS_AVX2 as ROWS, TILE_AVX2, VECTORS_AVX2};
    use std::arch::x86_64::*;

    /// Computes output rows from block `first_block` into `rows`
    /// (`[rows.len() / t_out, t_out]`), one `ROWS × TILE_AVX2` tile at a time.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn run(conv: &QuantizedConv, input: &QuantizedInput, first_block: usize, rows: &mut [f32], t_out: usize, output: Output) {
        let n_rows = rows.len() / t_out;
        let blocks = n_rows.div_ceil(ROWS);
        let block_len = conv.taps * conv.groups * ROWS * 4;
        let mut spill = [0f32; 8];
        for t0 in (0..t_out).step_by(TILE_AVX2) {
            for b in 0..blocks {
                let block = first_block + b;
                let acc = unsafe { tile(conv, input, conv.packed.as_ptr().add(block * block_len), t0) };
                let o0 = block * ROWS;
                for (r, acc_row) in acc.iter().enumerate() {
                    let local = b * ROWS + r;
                    if local >= n_rows {
                        break;
                    }
                    let o = o0 + r;
                    let offset = _mm256_set1_epi32(input.zero * conv.weight_sums[o]);
                    let mul = _mm256_set1_ps(input.step * conv.weight_steps[o]);
                    let bias = _mm256_set1_ps(conv.bias[o]);
                    let out_row = &mut rows[local * t_out..(local + 1) * t_out];
                    for (v, &a) in acc_row.iter().enumerate() {
                        let t = t0 + 8 * v;
                        if t >= t_out {
                            break;
                        }
                        let y = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(a, offset)), mul, bias);
                        let left = t_out - t;
                        if left >= 8 {
                            let at = unsafe { out_row.as_mut_ptr().add(t) };
                            let y = match output {
                                Output::Store => y,
                                Output::Add => _mm256_add_ps(y, unsafe { _mm256_loadu_ps(at) }),
                            };
                            unsafe { _mm256_storeu_ps(at, y) };
                        } else {
                            unsafe { _mm256_storeu_ps(spill.as_mut_ptr(), y) };
                            for (slot, &v) in out_row[t..].iter_mut().zip(&spill[..left]) {
                                *slot = output.apply(*slot, v);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The i32 sums of one tile: `ROWS` output channels × `TILE_AVX2` steps from `t0`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile(conv: &QuantizedConv, input: &QuantizedInput, weights: *const i8, t0: usize) -> [[__m256i; VECTORS_AVX2]; ROWS] {
        let mut acc = [[_mm256_setzero_si256(); VECTORS_AVX2]; ROWS];
        let ones = _mm256_set1_epi16(1);
        let x = input.data.as_ptr() as *const u8;
        let mut w = weights as *const i32;
        for tap in 0..conv.taps {
            let mut src = unsafe { x.add((t0 + tap * conv.dilation) * 4) };
            for _ in 0..conv.groups {
                let mut xv = [_mm256_setzero_si256(); VECTORS_AVX2];
                for (v, slot) in xv.iter_mut().enumerate() {
                    *slot = unsafe { _mm256_loadu_si256(src.add(32 * v) as *const _) };
                }
                for acc_row in acc.iter_mut() {
                    let wv = _mm256_set1_epi32(unsafe { w.read_unaligned() });
                    for (a, &xv) in acc_row.iter_mut().zip(&xv) {
                        let pairs = _mm256_maddubs_epi16(xv, wv);
                        *a = _mm256_add_epi32(*a, _mm256_madd_epi16(pairs, ones));
                    }
                    w = unsafe { w.add(1) };
                }
                src = unsafe { src.add(input.length * 4) };
            }
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::uniform_noise as noise;

    /// The direct definition in f64 (the convolution's parameters as they are).
    #[allow(clippy::too_many_arguments)]
    fn reference(x: &[f32], c_in: usize, t: usize, w: &[f32], (c_out, _, k): (usize, usize, usize), bias: &[f32], pad: usize, dil: usize) -> Vec<f64> {
        let t_out = t + 2 * pad - dil * (k - 1);
        let mut out = vec![0f64; c_out * t_out];
        for o in 0..c_out {
            for s in 0..t_out {
                let mut sum = bias[o] as f64;
                for i in 0..c_in {
                    for j in 0..k {
                        let at = (s + j * dil) as isize - pad as isize;
                        if at >= 0 && (at as usize) < t {
                            sum += w[(o * c_in + i) * k + j] as f64 * x[i * t + at as usize] as f64;
                        }
                    }
                }
                out[o * t_out + s] = sum;
            }
        }
        out
    }

    /// Every kernel this CPU runs (none where it has neither AVX2 nor VNNI).
    fn kernels() -> Vec<Int8Kernel> {
        match Int8Kernel::detect() {
            Some(Int8Kernel::Vnni) => vec![Int8Kernel::Vnni, Int8Kernel::Avx2],
            Some(Int8Kernel::Avx2) => vec![Int8Kernel::Avx2],
            None => {
                eprintln!("no AVX2 or AVX-512 VNNI on this CPU: the f32 path is used instead");
                vec![]
            }
        }
    }

    #[test]
    fn matches_the_direct_convolution_within_quantization_error() {
        // Odd sizes on purpose: channels not a multiple of 4 or of ROWS,
        // lengths not a multiple of the tile, dilation, and an offset input.
        let cases = [(22, 22, 7, 1, 50), (9, 13, 3, 5, 211), (16, 32, 11, 3, 97), (5, 3, 1, 1, 1)];
        for (kernel, &(c_out, c_in, k, dil, t)) in kernels().into_iter().flat_map(|kernel| cases.iter().map(move |case| (kernel, case))) {
            let pad = dil * (k - 1) / 2;
            let x: Vec<f32> = noise(c_in * t, 1).iter().map(|v| v * 3.0 + 0.5).collect();
            let w = noise(c_out * c_in * k, 2);
            let bias = noise(c_out, 3);
            let conv = QuantizedConv::for_kernel(kernel, &w, (c_out, c_in, k), Some(&bias), pad, dil);
            let (got, t_out) = conv.forward(&x, t);
            let want = reference(&x, c_in, t, &w, (c_out, c_in, k), &bias, pad, dil);
            assert_eq!(t_out, t + 2 * pad - dil * (k - 1));
            assert_eq!(got.len(), want.len());
            // Each product carries ≤ ½ step of error on both factors; for
            // uniform noise the sum's error is a small fraction of its spread.
            let spread = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
            let err = (got.iter().zip(&want).map(|(&g, &w)| (g as f64 - w).powi(2)).sum::<f64>() / want.len() as f64).sqrt();
            assert!(err < 0.02 * spread, "{kernel:?} {c_out}×{c_in}×{k} d{dil} t{t}: rms error {err} vs rms {spread}");
        }
    }

    #[test]
    fn adding_onto_a_residual_equals_the_sum_of_the_two() {
        // Lengths with a whole tile, a partial one and a single step.
        for (kernel, t) in kernels().into_iter().flat_map(|kernel| [64, 211, 1].map(move |t| (kernel, t))) {
            let (c_out, c_in, k, dil) = (9, 13, 3, 5);
            let pad = dil * (k - 1) / 2;
            let x: Vec<f32> = noise(c_in * t, 4).iter().map(|v| v * 2.0 - 0.3).collect();
            let conv = QuantizedConv::for_kernel(kernel, &noise(c_out * c_in * k, 5), (c_out, c_in, k), Some(&noise(c_out, 6)), pad, dil);
            let residual = noise(c_out * t, 7);
            let (alone, _) = conv.forward(&x, t);
            let mut summed = residual.clone();
            conv.write(&x, t, &mut summed, Output::Add);
            let want: Vec<f32> = residual.iter().zip(&alone).map(|(r, a)| r + a).collect();
            assert_eq!(summed, want, "{kernel:?} t {t}");
        }
    }

    #[test]
    fn the_avx512_packing_ranges_and_quantizes_exactly_as_the_scalar_one() {
        if !has_avx512() {
            return;
        }
        // 37 steps: two vectors and a remainder; values past both ends of
        // the range, on rounding ties, and NaN.
        let mut rows: Vec<Vec<f32>> = (0..4).map(|r| noise(37, 10 + r).iter().map(|v| v * 3.0).collect()).collect();
        rows[0][3] = f32::NAN;
        rows[1][5] = 1e9;
        rows[2][7] = -1e9;
        rows[3][9] = 0.5;
        let scale = Scale { inv: 40.0, offset: 128.5 };
        let views = [&rows[0][..], &rows[1][..], &rows[2][..], &rows[3][..]];
        let (mut scalar, mut vector) = (vec![0u32; 37], vec![0u32; 37]);
        quantize_four(views, &mut scalar, scale);
        // SAFETY: the CPU has AVX-512F, checked above.
        unsafe { quantize_four_avx512(views, &mut vector, scale) };
        assert_eq!(scalar, vector);
        let all: Vec<f32> = rows.concat();
        // SAFETY: as above.
        assert_eq!(range(&all), unsafe { range_avx512(&all) });
        assert_eq!(range(&all[..3]), unsafe { range_avx512(&all[..3]) });
    }

    #[test]
    fn sums_on_the_quantization_grid_are_exact() {
        // One input value (the u8 peak, 255) and weights on each row's own
        // grid (multiples of 1/64 up to the kernel's peak over 64): nothing
        // rounds, so the sums are exact; on AVX2 this also shows that no
        // i16 pair of the largest products saturates.
        for kernel in kernels() {
            let (c_out, c_in, k) = (4, 8, 3);
            let peak = kernel.weight_peak();
            let w: Vec<f32> = (0..c_out * c_in * k)
                .map(|i| if i % (c_in * k) == 0 { -peak / 64.0 } else { ((i * 37) % (2 * peak as usize + 1)) as f32 / 64.0 - peak / 64.0 })
                .collect();
            let conv = QuantizedConv::for_kernel(kernel, &w, (c_out, c_in, k), None, 0, 1);
            let x = vec![2.0f32; c_in * 40];
            let (got, t_out) = conv.forward(&x, 40);
            let want = reference(&x, c_in, 40, &w, (c_out, c_in, k), &[0.0; 4], 0, 1);
            assert_eq!(t_out, 38);
            for (g, w) in got.iter().zip(&want) {
                assert!((*g as f64 - w).abs() < 1e-5 * w.abs().max(1.0), "{kernel:?}: {g} vs {w}");
            }
        }
    }
}
