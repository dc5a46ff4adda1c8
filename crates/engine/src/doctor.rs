//! The engine's health report: where its files are, which SQLite it runs,
//! which model assets are installed, which audio outputs exist, and what
//! this host lacks for the desktop app. The CLI's `revoice doctor` and the
//! desktop app's engine panel both show this same report.

use std::path::{Path, PathBuf};

use serde::Serialize;

use revoice_audio::OutputDevices;
use revoice_model::{AssetState, ModelAssetStatus};

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Ok,
    /// Works, but something a user may want is unavailable.
    Warning,
    /// Something the studio needs is missing or broken.
    Problem,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Check {
    /// Short name: "Data folder", "Audio output".
    pub name: String,
    pub status: CheckStatus,
    /// What was found.
    pub detail: String,
    /// What to do about it, when something is wrong.
    pub fix: Option<String>,
}

/// The full report.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct Diagnosis {
    pub engine_version: String,
    pub data_dir: PathBuf,
    pub config_file: PathBuf,
    pub log_dir: PathBuf,
    pub database: PathBuf,
    pub sqlite_version: Option<String>,
    pub models: Vec<ModelAssetStatus>,
    pub audio: OutputDevices,
    /// The output device playback would use, if there is one.
    pub audio_output: Option<String>,
    pub checks: Vec<Check>,
    /// When the report was made (UTC, RFC 3339).
    pub checked_at: String,
}

impl Diagnosis {
    /// The worst status of all checks.
    pub fn overall(&self) -> CheckStatus {
        self.checks.iter().map(|c| c.status).max().unwrap_or(CheckStatus::Ok)
    }
}

fn check(name: &str, status: CheckStatus, detail: String, fix: Option<&str>) -> Check {
    Check { name: name.to_string(), status, detail, fix: fix.map(str::to_string) }
}

/// Space below which the data folder gets a warning.
const LOW_DISK_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Data folder: writable, and with room for renders.
pub(crate) fn check_data_dir(data_dir: &Path) -> Check {
    let probe = data_dir.join(".write-check");
    let writable = std::fs::write(&probe, b"ok").and_then(|_| std::fs::remove_file(&probe));
    if let Err(e) = writable {
        return check(
            "Data folder",
            CheckStatus::Problem,
            format!("{} is not writable: {e}", data_dir.display()),
            Some("choose another folder with --data-dir or REVOICE_DATA_DIR"),
        );
    }
    match revoice_core::fsutil::free_space(data_dir) {
        Some(free) if free < LOW_DISK_BYTES => check(
            "Data folder",
            CheckStatus::Warning,
            format!("{} has only {} free", data_dir.display(), format_bytes(free)),
            Some("free some space: renders and model assets need room"),
        ),
        Some(free) => check("Data folder", CheckStatus::Ok, format!("{} ({} free)", data_dir.display(), format_bytes(free)), None),
        None => check("Data folder", CheckStatus::Ok, data_dir.display().to_string(), None),
    }
}

pub(crate) fn check_database(path: &Path, sqlite_version: &Result<String, String>) -> Check {
    match sqlite_version {
        Ok(v) => check("Database", CheckStatus::Ok, format!("SQLite {v}, {}", path.display()), None),
        Err(e) => check("Database", CheckStatus::Problem, e.clone(), Some("move the database file aside and start again; the studio creates a new one")),
    }
}

pub(crate) fn check_model(status: &ModelAssetStatus) -> Check {
    let name = status.asset.name;
    match &status.state {
        AssetState::Installed { files, bytes } => {
            check(name, CheckStatus::Ok, format!("installed: {files} file{}, {}", if *files == 1 { "" } else { "s" }, format_bytes(*bytes)), None)
        }
        AssetState::Missing => check(
            name,
            CheckStatus::Problem,
            format!("not installed (looked in {}); needed for {}", status.dir.display(), status.asset.purpose),
            Some("run `revoice models install` (or scripts/studio, which runs it)"),
        ),
        AssetState::Damaged { reason } => {
            check(name, CheckStatus::Problem, format!("damaged install: {reason}"), Some("delete the model folder and install the model again"))
        }
    }
}

pub(crate) fn check_audio(audio: &OutputDevices, configured: &str) -> Check {
    if let Some(e) = &audio.error {
        return check(
            "Audio output",
            CheckStatus::Warning,
            format!("{}: cannot list devices: {e}", audio.host),
            Some("playback is unavailable; rendering and export still work"),
        );
    }
    match audio.chosen(configured) {
        Some(d) => check("Audio output", CheckStatus::Ok, format!("{} ({}) on {}", d.name, d.id, audio.host), None),
        None if !configured.is_empty() => check(
            "Audio output",
            CheckStatus::Warning,
            format!("configured device {configured} is not present on {}", audio.host),
            Some("pick a listed device in config.toml [audio] output_device, or leave it empty for the default"),
        ),
        None => check(
            "Audio output",
            CheckStatus::Warning,
            format!("{} reports no default output device", audio.host),
            Some("connect an output device or set [audio] output_device in config.toml; rendering and export still work"),
        ),
    }
}

/// Whether a desktop session is there for the app's window.
pub(crate) fn check_display(display: Option<String>, wayland: Option<String>) -> Check {
    if !cfg!(target_os = "linux") {
        return check("Display", CheckStatus::Ok, "desktop session".into(), None);
    }
    match (display, wayland) {
        (_, Some(w)) => check("Display", CheckStatus::Ok, format!("Wayland {w}"), None),
        (Some(d), None) => check("Display", CheckStatus::Ok, format!("X11 {d}"), None),
        (None, None) => check(
            "Display",
            CheckStatus::Warning,
            "no DISPLAY or WAYLAND_DISPLAY: the desktop app cannot open a window here".into(),
            Some("the CLI works as is; run the app in a desktop session or under xvfb-run"),
        ),
    }
}

/// The WebKitGTK runtime library the desktop app links against on Linux.
pub(crate) fn check_webview(lib_dirs: &[&Path]) -> Check {
    if !cfg!(target_os = "linux") {
        return check("Web view", CheckStatus::Ok, "system web view".into(), None);
    }
    const LIB: &str = "libwebkit2gtk-4.1.so.0";
    match lib_dirs.iter().map(|d| d.join(LIB)).find(|p| p.exists()) {
        Some(path) => check("Web view", CheckStatus::Ok, format!("WebKitGTK 4.1 ({})", path.display()), None),
        None => check(
            "Web view",
            CheckStatus::Problem,
            format!("{LIB} not found: the desktop app cannot start"),
            Some("install it: sudo apt-get install libwebkit2gtk-4.1-0"),
        ),
    }
}

/// The `espeak-ng` program, which reads English words outside the lexicon.
pub(crate) fn check_espeak(found: Option<std::path::PathBuf>) -> Check {
    match found {
        Some(path) => check("Phonemizer fallback", CheckStatus::Ok, format!("espeak-ng ({})", path.display()), None),
        None => check(
            "Phonemizer fallback",
            CheckStatus::Warning,
            "espeak-ng not found: English words outside the lexicon (names, jargon) are skipped".into(),
            Some("install it: sudo apt-get install espeak-ng"),
        ),
    }
}

/// FFmpeg, which reads a project's picture and muxes it into exports.
pub(crate) fn check_ffmpeg(version: revoice_core::error::Result<String>) -> Check {
    use crate::dub::picture::{ffmpeg_major, FFMPEG_MIN_MAJOR};
    match version {
        Ok(v) if ffmpeg_major(&v).is_some_and(|m| m >= FFMPEG_MIN_MAJOR) => check("Video (FFmpeg)", CheckStatus::Ok, format!("ffmpeg {v}"), None),
        Ok(v) => check(
            "Video (FFmpeg)",
            CheckStatus::Warning,
            format!("ffmpeg {v} is older than {FFMPEG_MIN_MAJOR}.0: muxed exports may fail"),
            Some("install a newer ffmpeg"),
        ),
        Err(e) => check(
            "Video (FFmpeg)",
            CheckStatus::Warning,
            format!("{e}: videos cannot be attached or exported"),
            Some("install it: sudo apt-get install ffmpeg"),
        ),
    }
}

/// A remote engine: how many of its servers are ready, their version, and what it can do.
pub(crate) fn check_remote_engine(report: &crate::engines::EngineReport) -> Check {
    let name = format!("Engine {}", report.name);
    let ready = report.ready();
    let versions: Vec<String> = report.nodes.iter().filter_map(|n| n.version.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let version = if versions.is_empty() { String::new() } else { format!(", version {}", versions.join("/")) };
    let problems: Vec<String> = report.nodes.iter().filter_map(|n| n.problem.as_ref().map(|p| format!("{}: {p}", n.url))).collect();
    let detail = format!(
        "{ready} of {} servers ready{version}; {}{}",
        report.nodes.len(),
        report.capabilities.describe(),
        if problems.is_empty() { String::new() } else { format!(" ({})", problems.join("; ")) }
    );
    let status = if ready == 0 {
        CheckStatus::Problem
    } else if ready < report.nodes.len() {
        CheckStatus::Warning
    } else {
        CheckStatus::Ok
    };
    check(&name, status, detail, (status != CheckStatus::Ok).then_some("start the servers, or `revoice engines remove` the engine"))
}

/// Library folders searched for the web view on Linux.
pub(crate) const LINUX_LIB_DIRS: [&str; 5] = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"];

/// `1.5 GiB`, `320 MiB`, `12 KiB`, `17 B`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// This process's peak and current resident memory, MiB (`NaN` where
/// `/proc/self/status` cannot tell): every bench prints them.
pub fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .map(|kib| kib / 1024.0)
            .unwrap_or(f64::NAN)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use revoice_audio::OutputDevice;

    #[test]
    fn bytes_read_as_a_person_would_say_them() {
        assert_eq!(format_bytes(17), "17 B");
        assert_eq!(format_bytes(12 * 1024), "12.0 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(format_bytes(92_361_271), "88.1 MiB");
    }

    #[test]
    fn a_read_only_data_folder_is_a_problem_with_a_fix() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("does-not-exist");
        let c = check_data_dir(&missing);
        assert_eq!(c.status, CheckStatus::Problem);
        assert!(c.detail.contains("does-not-exist"));
        assert!(c.fix.is_some());
        assert_eq!(check_data_dir(dir.path()).status, CheckStatus::Ok);
    }

    #[test]
    fn audio_reports_the_configured_device_or_says_it_is_gone() {
        let audio = OutputDevices {
            host: "ALSA".into(),
            devices: vec![OutputDevice { id: "alsa:null".into(), name: "Discard all samples".into(), is_default: true, default_format: None }],
            error: None,
        };
        assert_eq!(check_audio(&audio, "").status, CheckStatus::Ok);
        let gone = check_audio(&audio, "alsa:hw:CARD=USB");
        assert_eq!(gone.status, CheckStatus::Warning);
        assert!(gone.detail.contains("alsa:hw:CARD=USB"));
        let none = OutputDevices { devices: vec![], ..audio };
        assert_eq!(check_audio(&none, "").status, CheckStatus::Warning);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn no_display_is_a_warning_that_says_how_to_run_headless() {
        let c = check_display(None, None);
        assert_eq!(c.status, CheckStatus::Warning);
        assert!(c.fix.unwrap().contains("xvfb-run"));
        assert_eq!(check_display(Some(":99".into()), None).status, CheckStatus::Ok);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_missing_web_view_library_is_a_problem_naming_the_package() {
        let empty = tempfile::tempdir().unwrap();
        let c = check_webview(&[empty.path()]);
        assert_eq!(c.status, CheckStatus::Problem);
        assert!(c.fix.unwrap().contains("libwebkit2gtk-4.1-0"));
    }

    #[test]
    fn ffmpeg_is_reported_with_its_version_or_how_to_install_it() {
        assert_eq!(check_ffmpeg(Ok("5.1.9-0+deb12u1".into())).status, CheckStatus::Ok);
        assert_eq!(check_ffmpeg(Ok("3.4.8".into())).status, CheckStatus::Warning);
        let missing = check_ffmpeg(Err(revoice_core::error::Error::invalid("ffmpeg", "is not installed")));
        assert!(missing.status == CheckStatus::Warning && missing.fix.as_deref().is_some_and(|f| f.contains("apt-get install ffmpeg")), "{missing:?}");
    }
}
