//! How the process's allocator treats freed memory. A model pass allocates
//! and frees the same large tensors over and over; glibc's defaults hand
//! them back to the kernel at each free (mmap above a threshold, trimmed
//! heaps), and every new tensor then pays page faults on zeroed pages (a
//! sixth of `bench synth`'s profile). So while work runs, freed memory is
//! kept for reuse, and when the engine goes idle it is handed back, so an
//! idle engine holds only what it uses. `revoice bench synth` prints both
//! figures.

/// Allocations up to this size come from the heap, where freed ones are reused.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HEAP_UP_TO: libc::c_int = 32 * 1024 * 1024;

/// Keeps freed memory for reuse (call once, first thing in `main`, before
/// any thread starts). Only glibc needs this; elsewhere it does nothing.
pub fn keep_freed_memory_for_reuse() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's settings; any value is accepted or refused.
    unsafe {
        // One arena for every thread: `malloc_trim` hands back the free top
        // of the main arena only, so memory freed in a thread's own arena
        // would stay resident. (Measured: no slower on `bench synth`.)
        libc::mallopt(libc::M_ARENA_MAX, 1);
        // 32 MiB is the most glibc takes for the mmap threshold. Setting it
        // also stops glibc from moving the threshold on its own.
        libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_UP_TO);
        libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
    }
}

/// Hands freed memory back to the kernel (when the engine goes idle).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages; live allocations are untouched.
    unsafe {
        libc::malloc_trim(0);
    }
}
