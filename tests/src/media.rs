//! Media the tests make with ffmpeg (which the README's test command installs).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A picture of `seconds` (25 fps H.264, 320×240) with its own audio (AAC,
/// a 220 Hz tone), as a camera would give, written as `dir/scene.mp4`.
pub fn scene_video(dir: &Path, seconds: u32) -> PathBuf {
    let path = dir.join("scene.mp4");
    let out = Command::new("ffmpeg")
        .args([
            "-nostdin",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=320x240:rate=25",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=220:sample_rate=48000",
        ])
        .args(["-t", &seconds.to_string(), "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"])
        .arg(&path)
        .output()
        .expect("ffmpeg runs (scripts/test installs it)");
    assert!(out.status.success(), "ffmpeg: {}", String::from_utf8_lossy(&out.stderr));
    path
}
