//! Which threads do the model's arithmetic. Its own kernels (the int8
//! convolution, the LSTM, the packed linear layers) run on rayon's pool.
//! In the desktop app those threads, and the engine's threads that call
//! the model, run below the window's priority (`yield_to_the_window`), so
//! a render or a prediction never starves the editor's frames.
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

use std::sync::atomic::{AtomicBool, Ordering};

/// The nice value the model's threads take in the desktop app: under
/// contention the window gets about nine tenths of the CPU; with the
/// window idle the model still has every core.
pub const COMPUTE_NICE: i32 = 10;

static BELOW_THE_WINDOW: AtomicBool = AtomicBool::new(false);

/// Asks for the model's threads to run below the window's priority (the
/// desktop app, first thing in `main`, before any thread starts): rayon's
/// pool is built with its workers lowered, and the engine's own compute
/// threads lower themselves as they start (`enter_compute_thread`).
pub fn yield_to_the_window() {
    BELOW_THE_WINDOW.store(true, Ordering::Relaxed);
    let _ = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("revoice-compute-{i}")).start_handler(|_| lower_this_thread()).build_global();
}

/// Called first by each engine thread that runs the model (the scheduler's
/// owner, renders, predictions, listening back): lowers it below the
/// window when the app asked for that, and does nothing otherwise.
pub fn enter_compute_thread() {
    if BELOW_THE_WINDOW.load(Ordering::Relaxed) {
        lower_this_thread();
    }
}

/// Linux keeps a nice value per thread: this changes the calling thread's only.
fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority take plain integers and touch no memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, tid, COMPUTE_NICE) != 0 {
            tracing::debug!("could not lower a compute thread's priority: {}", std::io::Error::last_os_error());
        }
    }
}
