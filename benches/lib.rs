//! What the benches share: deterministic inputs, and the line every bench
//! ends with (peak and current resident memory).

/// `n` samples of a speech-like signal at 24 kHz: a harmonic tone with a
/// syllable-rate envelope, the same every run.
pub fn speech_like(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let t = i as f32 / 24_000.0;
            let tone: f32 = (1..6).map(|k| (std::f32::consts::TAU * 140.0 * k as f32 * t).sin() / k as f32).sum();
            0.3 * tone * (0.55 - 0.45 * (std::f32::consts::TAU * 3.0 * t).cos())
        })
        .collect()
}

/// `n` deterministic values in [-1, 1).
pub fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// Prints the process's peak and current resident memory.
pub fn print_memory(bench: &str) {
    let (peak, now) = revoice_engine::doctor::memory_mib();
    println!("{bench}: peak resident memory {peak:.0} MiB (now {now:.0} MiB)");
}
