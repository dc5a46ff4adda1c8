//! Elementary functions written so that loops over slices vectorize (no
//! branches, no calls): `exp`, `erf` and `sin`, each within a few f32
//! roundings of libm's; and the in-place softmax and GELU (erf and tanh
//! forms) built on them, compiled for AVX-512 where the CPU has it.
//! libm's scalar `expf` and `erff` were a fifth of Whisper's encoder time;
//! candle's tanh GELU cost ALBERT more than the matmul before it.

const ROUNDER: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer

/// `e^x` for `x` up to 88, within 2 ulp of `f32::exp`; 0 below −87.3
/// (where `e^x` leaves f32's normal range), so `e^−∞` is 0.
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x_in = x;
    let x = x.min(88.0);
    // x = k·ln2 + r, |r| ≤ ln2/2; e^x = 2^k · e^r.
    let shifted = x * std::f32::consts::LOG2_E + ROUNDER;
    let k = shifted - ROUNDER;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // Taylor series of e^r to r^7 (the next term is under 1e-8 on |r| ≤ 0.35).
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    let exponent = (shifted.to_bits() as i32).wrapping_sub(ROUNDER.to_bits() as i32).wrapping_add(127).clamp(1, 254);
    let y = p * f32::from_bits((exponent as u32) << 23);
    if x_in < -87.3 {
        0.0
    } else {
        y
    }
}

/// `erf(x)` to 6e-7 absolute (Abramowitz and Stegun 7.1.26, with
/// [`fast_exp`]).
#[inline(always)]
pub fn fast_erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t * (0.254_829_6 + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152 + t * 1.061_405_4))));
    let y = 1.0 - poly * fast_exp(-a * a);
    y.copysign(x)
}

/// `sin(x)` to 2e-6 absolute for |x| up to a few thousand: round `x/π`
/// (the rounded value's low mantissa bit is the parity that sets the sign),
/// reduce to [−π/2, π/2] in two steps, then an odd polynomial to x¹³.
#[inline(always)]
pub fn fast_sin(x: f32) -> f32 {
    let shifted = x * std::f32::consts::FRAC_1_PI + ROUNDER;
    let k = shifted - ROUNDER;
    let odd = shifted.to_bits() & 1;
    let r = (x - k * 3.140625) - k * 9.676_536e-4;
    let r2 = r * r;
    let p = r
        * (1.0
            + r2 * (-1.0 / 6.0
                + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362_880.0 + r2 * (-1.0 / 39_916_800.0 + r2 * (1.0 / 6_227_020_800.0)))))));
    f32::from_bits(p.to_bits() ^ (odd << 31))
}

/// True when AVX-512 builds (these, and the model's kernels) can run.
#[inline]
pub(crate) fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::cpu_features::avx512_allowed() && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// True when this CPU has AVX2, FMA and F16C (every x86 desktop since
/// 2013-2015): the kernels' second tier.
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The sum of an AVX vector's eight lanes (inlined into the AVX2 kernels).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn sum_of_lanes(v: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let pair = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let pair = _mm_add_ps(pair, _mm_movehl_ps(pair, pair));
    _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps(pair, pair, 1)))
}

/// Softmax of `row` in place (the row's maximum subtracted first).
pub fn softmax_in_place(row: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has AVX-512 (checked above).
        return unsafe { softmax_avx512(row) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 and FMA (checked above).
        return unsafe { softmax_avx2(row) };
    }
    softmax(row)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn softmax_avx2(row: &mut [f32]) {
    softmax(row)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn softmax_avx512(row: &mut [f32]) {
    softmax(row)
}

#[inline(always)]
fn softmax(row: &mut [f32]) {
    let mut lanes = [f32::NEG_INFINITY; 16];
    let mut chunks = row.chunks_exact(16);
    for chunk in &mut chunks {
        for (m, &v) in lanes.iter_mut().zip(chunk) {
            *m = m.max(v);
        }
    }
    let max = chunks.remainder().iter().chain(&lanes).copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return;
    }
    let mut sums = [0f32; 16];
    let mut chunks = row.chunks_exact_mut(16);
    for chunk in &mut chunks {
        for (s, v) in sums.iter_mut().zip(chunk.iter_mut()) {
            *v = fast_exp(*v - max);
            *s += *v;
        }
    }
    let mut sum: f32 = sums.iter().sum();
    for v in chunks.into_remainder() {
        *v = fast_exp(*v - max);
        sum += *v;
    }
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// GELU (`x·Φ(x)`, the erf form) of every value in place.
pub fn gelu_in_place(values: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has AVX-512 (checked above).
        return unsafe { gelu_avx512(values) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 and FMA (checked above).
        return unsafe { gelu_avx2(values) };
    }
    gelu(values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn gelu_avx2(values: &mut [f32]) {
    gelu(values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gelu_avx512(values: &mut [f32]) {
    gelu(values)
}

#[inline(always)]
fn gelu(values: &mut [f32]) {
    for v in values.iter_mut() {
        *v = 0.5 * *v * (1.0 + fast_erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// GELU in its tanh form (`x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))/2`,
/// BERT's "gelu_new") of every value in place, written as `x·σ(2u)`.
pub fn gelu_tanh_in_place(values: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has AVX-512 (checked above).
        return unsafe { gelu_tanh_avx512(values) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 and FMA (checked above).
        return unsafe { gelu_tanh_avx2(values) };
    }
    gelu_tanh(values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn gelu_tanh_avx2(values: &mut [f32]) {
    gelu_tanh(values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gelu_tanh_avx512(values: &mut [f32]) {
    gelu_tanh(values)
}

#[inline(always)]
fn gelu_tanh(values: &mut [f32]) {
    // 2·√(2/π), so that e^(−2u) is one exponential.
    const TWICE_SCALE: f32 = 1.595_769;
    for v in values.iter_mut() {
        let x = *v;
        let minus_two_u = -TWICE_SCALE * (x + 0.044_715 * x * x * x);
        // Past 88 the exponential leaves f32 and GELU is 0 to f32 anyway.
        *v = x / (1.0 + fast_exp(minus_two_u.min(88.0)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn fast_exp_is_within_two_ulp_of_exp() {
        let mut worst = 0;
        for i in -870_000..=880_000 {
            let x = i as f32 * 1e-4;
            let exact = (x as f64).exp() as f32;
            if exact.is_normal() {
                worst = worst.max(ulps(fast_exp(x), exact));
            }
        }
        assert!(worst <= 2, "worst {worst} ulp");
        assert_eq!(fast_exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(fast_exp(-100.0), 0.0);
        assert_eq!(fast_exp(0.0), 1.0);
    }

    #[test]
    fn fast_erf_is_within_6e7_of_erf() {
        let mut worst = 0f64;
        for i in -80_000..=80_000 {
            let x = i as f32 * 1e-4;
            worst = worst.max((fast_erf(x) as f64 - libm::erf(x as f64)).abs());
        }
        assert!(worst < 6e-7, "worst {worst}");
        assert!(fast_erf(0.0).abs() < 1e-7);
        assert_eq!(fast_erf(10.0), 1.0);
        assert_eq!(fast_erf(-10.0), -1.0);
    }

    #[test]
    fn fast_sin_matches_sin() {
        let mut worst = 0f64;
        for i in -200_000..200_000 {
            let x = i as f32 * 0.013;
            worst = worst.max((fast_sin(x) as f64 - (x as f64).sin()).abs());
        }
        assert!(worst < 2e-6, "worst {worst}");
    }

    #[test]
    fn softmax_and_gelu_match_their_definitions() {
        // 37 values: two 16-lane chunks and a remainder; one masked out.
        let mut row: Vec<f32> = (0..37).map(|i| ((i * 7) % 11) as f32 * 0.9 - 4.0).collect();
        row[5] = f32::NEG_INFINITY;
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f64 = row.iter().map(|&v| ((v - max) as f64).exp()).sum();
        let expected: Vec<f64> = row.iter().map(|&v| ((v - max) as f64).exp() / sum).collect();
        softmax_in_place(&mut row);
        for (got, want) in row.iter().zip(&expected) {
            assert!((*got as f64 - want).abs() <= 1e-6 * want.max(1e-3), "{got} vs {want}");
        }
        assert_eq!(row[5], 0.0);

        let xs: Vec<f32> = (-600..600).map(|i| i as f32 * 0.01).collect();
        let mut g = xs.clone();
        gelu_in_place(&mut g);
        for (&x, &y) in xs.iter().zip(&g) {
            let want = 0.5 * x as f64 * (1.0 + libm::erf(x as f64 / std::f64::consts::SQRT_2));
            assert!((y as f64 - want).abs() < 1e-6, "gelu({x}) = {y}, want {want}");
        }

        let xs: Vec<f32> = (-2000..2000).map(|i| i as f32 * 0.01).chain([-1e4, 1e4]).collect();
        let mut g = xs.clone();
        gelu_tanh_in_place(&mut g);
        for (&x, &y) in xs.iter().zip(&g) {
            let x64 = x as f64;
            let want = 0.5 * x64 * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x64 + 0.044715 * x64.powi(3))).tanh());
            assert!((y as f64 - want).abs() <= 1e-6 * want.abs().max(1.0), "gelu_tanh({x}) = {y}, want {want}");
        }
    }
}
