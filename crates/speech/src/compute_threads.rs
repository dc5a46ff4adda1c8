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

/// A pool of `threads` workers that run only when the CPU is otherwise
/// idle (Linux's `SCHED_IDLE`; elsewhere the lowest nice value), for work
/// that must not slow the render beside it, such as takes heard while
/// later lines render; run the work inside `pool.install`. Measured
/// (`revoice bench loop`, 2 cores): the render +0.7 % with listening
/// beside it; at nice 19 instead, +12 %.
pub fn background_pool(name: &'static str, threads: usize) -> std::io::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(|_| run_this_thread_when_idle())
        .build()
        .map_err(std::io::Error::other)
}

/// Puts the calling thread in the idle class (Linux keeps a scheduling
/// policy per thread).
fn run_this_thread_when_idle() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and sched_setscheduler take plain integers and a
    // parameter that lives across the call.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        let tid = libc::syscall(libc::SYS_gettid) as libc::pid_t;
        if libc::sched_setscheduler(tid, libc::SCHED_IDLE, &param) == 0 {
            return;
        }
        tracing::debug!("could not put a background thread in the idle class: {}", std::io::Error::last_os_error());
    }
    set_this_thread_nice(19);
}

/// Linux keeps a nice value per thread: this changes the calling thread's only.
fn lower_this_thread() {
    set_this_thread_nice(COMPUTE_NICE)
}

fn set_this_thread_nice(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority take plain integers and touch no memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, tid, nice) != 0 {
            tracing::debug!("could not lower a compute thread's priority: {}", std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}
