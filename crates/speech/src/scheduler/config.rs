//! The scheduler's working configuration: the user's `[scheduler]`
//! settings, with batch width 0 resolved to the width `revoice bench
//! engine` measured best on this machine (kept in `<data>/calibration.json`),
//! or to the CPU count until it has been measured.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use revoice_core::config::SchedulerSettings;
use revoice_core::error::{Error, Result};

/// File in the data directory holding measured tuning.
pub const CALIBRATION_FILE: &str = "calibration.json";

/// What `revoice bench engine` measured and the scheduler uses by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The batch width with the highest throughput.
    pub batch_width: usize,
    /// Audio seconds rendered per second at that width.
    pub audio_seconds_per_second: f64,
    /// The model it was measured with.
    pub model_id: String,
    /// When (RFC 3339).
    pub measured_at: String,
}

impl Calibration {
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(CALIBRATION_FILE)
    }

    /// The saved calibration, if there is a readable one.
    pub fn load(data_dir: &Path) -> Option<Calibration> {
        let text = std::fs::read_to_string(Self::path(data_dir)).ok()?;
        match serde_json::from_str(&text) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!(file = %Self::path(data_dir).display(), error = %e, "ignoring an unreadable calibration");
                None
            }
        }
    }

    /// Saves it atomically.
    pub fn save(&self, data_dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("calibration serialises");
        revoice_core::fsutil::write_atomically(&Self::path(data_dir), text.as_bytes())
    }
}

/// Where a batch width came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WidthSource {
    Settings,
    Measured,
    CpuCount,
}

/// The scheduler's resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerConfig {
    pub width: usize,
    pub width_source: WidthSource,
    pub window: Duration,
    pub max_attempts: u32,
    pub continuous: bool,
}

impl SchedulerConfig {
    /// Resolves the settings for this machine.
    pub fn resolve(settings: &SchedulerSettings, data_dir: &Path) -> SchedulerConfig {
        let (width, width_source) = if settings.batch_width > 0 {
            (settings.batch_width, WidthSource::Settings)
        } else if let Some(c) = Calibration::load(data_dir).filter(|c| c.batch_width > 0) {
            (c.batch_width, WidthSource::Measured)
        } else {
            (std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1), WidthSource::CpuCount)
        };
        SchedulerConfig {
            width,
            width_source,
            window: Duration::from_millis(settings.batch_window_ms),
            max_attempts: settings.max_attempts,
            continuous: settings.continuous,
        }
    }

    /// A fixed configuration (tests, benches).
    pub fn fixed(width: usize, window: Duration, max_attempts: u32, continuous: bool) -> SchedulerConfig {
        SchedulerConfig { width, width_source: WidthSource::Settings, window, max_attempts, continuous }
    }

    /// Rejects a width or an attempt count of zero.
    pub fn validate(&self) -> Result<()> {
        if self.width == 0 || self.max_attempts == 0 {
            return Err(Error::InvalidInput {
                input: "[scheduler] settings".into(),
                reason: format!("batch width ({}) and max attempts ({}) must be at least 1", self.width, self.max_attempts),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_comes_from_settings_then_measurement_then_the_cpu_count() {
        let dir = tempfile::tempdir().unwrap();
        let auto = SchedulerSettings::default();
        let cpu = SchedulerConfig::resolve(&auto, dir.path());
        assert_eq!(cpu.width_source, WidthSource::CpuCount);
        assert!(cpu.width >= 1);
        Calibration { batch_width: 3, audio_seconds_per_second: 4.0, model_id: "m".into(), measured_at: "now".into() }.save(dir.path()).unwrap();
        let measured = SchedulerConfig::resolve(&auto, dir.path());
        assert_eq!((measured.width, measured.width_source), (3, WidthSource::Measured));
        let set = SchedulerConfig::resolve(&SchedulerSettings { batch_width: 5, ..auto }, dir.path());
        assert_eq!((set.width, set.width_source), (5, WidthSource::Settings));
    }

    #[test]
    fn zero_width_or_attempts_are_rejected() {
        assert!(SchedulerConfig::fixed(0, Duration::ZERO, 1, false).validate().is_err());
        assert!(SchedulerConfig::fixed(1, Duration::ZERO, 0, false).validate().is_err());
    }
}
