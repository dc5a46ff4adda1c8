//! Which vector instructions the model's own kernels may use, and a cap on
//! them for measuring: `REVOICE_CPU_FEATURES=avx2` keeps every kernel of
//! ours on AVX2 + FMA even where the CPU has AVX-512, so a bench shows
//! what a desktop without AVX-512 gets. The cap cannot reach candle's own
//! f32 matrix products: its `gemm` crate picks AVX-512 by itself at run
//! time (on AMD Zen 4 that is no faster than AVX2, whose two 256-bit FMA
//! pipes it shares).

use std::sync::OnceLock;

/// The environment variable that caps the instructions used.
pub const CAP_VARIABLE: &str = "REVOICE_CPU_FEATURES";

/// True unless the cap keeps kernels off AVX-512 (read once per process).
pub fn avx512_allowed() -> bool {
    static ALLOWED: OnceLock<bool> = OnceLock::new();
    *ALLOWED.get_or_init(|| !std::env::var(CAP_VARIABLE).is_ok_and(|v| v.trim().eq_ignore_ascii_case("avx2")))
}

/// True when this CPU has `feature` (an x86 feature name as `is_x86_feature_detected!` spells it).
fn has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match feature {
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            "fma" => std::arch::is_x86_feature_detected!("fma"),
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
            "avx512vnni" => std::arch::is_x86_feature_detected!("avx512vnni"),
            "avx512bf16" => std::arch::is_x86_feature_detected!("avx512bf16"),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = feature;
        false
    }
}

/// One line for a bench or the doctor: the CPU's vector features, which
/// of them the kernels use, and whether the cap is on.
pub fn describe() -> String {
    let present: Vec<&str> = ["avx2", "fma", "avx512f", "avx512bw", "avx512vnni", "avx512bf16"].into_iter().filter(|f| has(f)).collect();
    let cpu = if present.is_empty() { "none of AVX2 or AVX-512".to_string() } else { present.join(" ") };
    if avx512_allowed() {
        format!("CPU features: {cpu}; our kernels use the best of them")
    } else {
        format!("CPU features: {cpu}; our kernels capped at AVX2 + FMA by {CAP_VARIABLE}=avx2 (candle's gemm still picks its own)")
    }
}
