//! Install progress on a terminal: one indicatif bar (or spinner) per step.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use revoice_engine::model::install::InstallProgress;

/// Draws each install step as a bar when its size is known, else a spinner.
pub struct TerminalProgress {
    bar: Mutex<Option<ProgressBar>>,
}

impl TerminalProgress {
    pub fn new() -> Self {
        TerminalProgress { bar: Mutex::new(None) }
    }
}

impl InstallProgress for TerminalProgress {
    fn begin(&self, step: &str, total: Option<u64>) {
        let bar = match total {
            Some(total) => ProgressBar::new(total)
                .with_style(ProgressStyle::with_template("{msg:28} [{bar:32}] {bytes}/{total_bytes} {eta}").expect("template").progress_chars("=> ")),
            None => {
                let spinner = ProgressBar::new_spinner();
                spinner.enable_steady_tick(Duration::from_millis(120));
                spinner
            }
        };
        bar.set_message(step.to_string());
        if let Some(old) = self.bar.lock().expect("progress lock").replace(bar) {
            old.finish_and_clear();
        }
    }

    fn advance(&self, bytes: u64) {
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            bar.inc(bytes);
        }
    }

    fn end(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            let message = bar.message();
            bar.finish_and_clear();
            eprintln!("  done: {message}");
        }
    }
}
