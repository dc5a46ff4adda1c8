//! Keeps the editor alive when its web view's renderer dies. The page runs
//! in a WebKit web process of its own; if that process crashes (or WebKit
//! ends it for memory), the window would stay blank while the engine, and
//! every saved edit, live on in this process. The watcher logs why the
//! renderer ended and reloads the page, which starts a new renderer; the
//! editor then reopens from the engine. A renderer that keeps dying is not
//! reloaded in a loop: after [`MAX_RELOADS`] reloads within
//! [`RELOAD_WINDOW`] the window is left as it is, and the log says so.

use std::time::{Duration, Instant};

/// Reloads allowed within [`RELOAD_WINDOW`] before the watcher gives up.
pub const MAX_RELOADS: usize = 3;
/// The span over which reloads are counted.
pub const RELOAD_WINDOW: Duration = Duration::from_secs(60);

/// When the renderer ended recently, to tell a one-off crash from a loop.
#[derive(Debug, Default)]
pub struct ReloadBudget {
    reloads: Vec<Instant>,
}

impl ReloadBudget {
    /// Whether a renderer that ended at `now` may be reloaded; a reload
    /// granted is counted.
    pub fn grant(&mut self, now: Instant) -> bool {
        self.reloads.retain(|at| now.duration_since(*at) < RELOAD_WINDOW);
        if self.reloads.len() >= MAX_RELOADS {
            return false;
        }
        self.reloads.push(now);
        true
    }
}

/// Watches the web view of `window`: logs each end of its renderer and
/// reloads the page while the [`ReloadBudget`] allows.
#[cfg(target_os = "linux")]
pub fn watch<R: tauri::Runtime>(window: &tauri::WebviewWindow<R>) -> tauri::Result<()> {
    use std::cell::RefCell;
    use webkit2gtk::{WebProcessTerminationReason, WebViewExt};

    window.with_webview(|platform| {
        let budget = RefCell::new(ReloadBudget::default());
        platform.inner().connect_web_process_terminated(move |view, reason| {
            let why = match reason {
                WebProcessTerminationReason::Crashed => "it crashed",
                WebProcessTerminationReason::ExceededMemoryLimit => "it exceeded WebKit's memory limit",
                WebProcessTerminationReason::TerminatedByApi => "the app ended it",
                _ => "of an unknown reason",
            };
            if budget.borrow_mut().grant(Instant::now()) {
                tracing::error!(why, "the editor's renderer ended; reloading the editor (saved work is kept by the engine)");
                view.reload();
            } else {
                tracing::error!(why, max = MAX_RELOADS, window_s = RELOAD_WINDOW.as_secs(), "the editor's renderer ended again; not reloading it in a loop");
            }
        });
    })
}

/// Other platforms' web views keep their own renderers alive.
#[cfg(not(target_os = "linux"))]
pub fn watch<R: tauri::Runtime>(_window: &tauri::WebviewWindow<R>) -> tauri::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renderer_that_keeps_dying_is_reloaded_only_so_often() {
        let mut budget = ReloadBudget::default();
        let start = Instant::now();
        for i in 0..MAX_RELOADS {
            assert!(budget.grant(start + Duration::from_secs(i as u64)), "reload {i} is granted");
        }
        assert!(!budget.grant(start + Duration::from_secs(10)), "one more within the window is refused");
        // Once the first reloads fall out of the window, a new crash is reloaded again.
        assert!(budget.grant(start + RELOAD_WINDOW + Duration::from_secs(1)));
    }
}
