//! The one place where synchronous work waits for asynchronous work. The
//! engine's long operations (a render, listening back, an export, playback)
//! run on threads of their own and reach the store and the network, which
//! are async, through [`wait`]. Called on one of the runtime's async worker
//! threads, where a plain `block_on` would panic and stall the other tasks,
//! it hands the worker's tasks to another worker first, so an engine
//! operation works from whichever face and thread calls it.

use std::future::Future;

use tokio::runtime::{Handle, RuntimeFlavor};

/// Runs `work` to its end on `runtime` and answers its output, from any
/// thread: a thread of the engine's own, a blocking-pool thread, or an
/// async worker of a multi-threaded runtime.
pub fn wait<F: Future>(runtime: &Handle, work: F) -> F::Output {
    match Handle::try_current() {
        Ok(current) if current.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(|| runtime.block_on(work)),
        _ => runtime.block_on(work),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answer() -> u32 {
        tokio::task::yield_now().await;
        42
    }

    #[test]
    fn sync_work_waits_from_a_thread_of_its_own_a_blocking_thread_and_an_async_worker() {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let handle = runtime.handle().clone();
        let own = std::thread::spawn({
            let handle = handle.clone();
            move || wait(&handle, answer())
        });
        assert_eq!(own.join().unwrap(), 42);
        let blocking = runtime.block_on({
            let handle = handle.clone();
            async move { tokio::task::spawn_blocking(move || wait(&handle, answer())).await.unwrap() }
        });
        assert_eq!(blocking, 42);
        // A plain block_on here would panic: "Cannot start a runtime from within a runtime".
        let on_a_worker = runtime.block_on({
            let handle = handle.clone();
            async move { tokio::spawn(async move { wait(&handle, answer()) }).await.unwrap() }
        });
        assert_eq!(on_a_worker, 42);
    }
}
