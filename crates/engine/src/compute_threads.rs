//! Which threads do the model's arithmetic. Its own kernels (the int8
//! convolution, the LSTM, the packed linear layers) run on rayon's pool.
//! candle keeps a second pool for its elementwise tensor ops, whose
//! workers spin for a while after every op; on a machine with few cores
//! that spinning takes a core from rayon's workers in the middle of a
//! convolution. So candle's elementwise ops run on the thread that calls
//! them, and rayon's pool is the only one.

/// Keeps candle's elementwise ops on the calling thread (call once, first
/// thing in `main`, before any thread starts). `CANDLE_NUM_THREADS` set
/// in the environment still wins.
///
/// Measured with `revoice bench synth` (2 cores, median of 3 runs): the
/// five lines in 1.75 s instead of 2.19 s, and a 5.5 s line's first audio
/// after 0.32 s instead of 0.40 s.
pub fn one_compute_pool() {
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
        // candle reads this when its pool first starts (at the first
        // elementwise op); no other thread runs yet to read the environment.
        std::env::set_var("CANDLE_NUM_THREADS", "1");
    }
}
