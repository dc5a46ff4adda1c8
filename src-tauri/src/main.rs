// Keeps a console window from opening next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    revoice_engine::allocator::keep_freed_memory_for_reuse();
    revoice_engine::compute_threads::one_compute_pool();
    revoice_engine::compute_threads::yield_to_the_window();
    revoice_studio::run();
}
