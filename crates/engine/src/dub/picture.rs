//! A project's picture: a video file read by `ffprobe` (its container,
//! video stream, frame rate and audio streams) and the export muxed by
//! `ffmpeg`: the video stream copied, never re-encoded; a dub audio
//! stream per language track (lossless: ALAC in MP4 and MOV, FLAC in
//! Matroska, so the stream decodes to the exported mix's samples), the
//! first one the default; the video's own audio copied after them as the
//! original; the subtitles as streams; every stream language-tagged.
//! ffmpeg is a program the studio runs, found on the PATH; without it,
//! attaching or exporting video says so by name.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use revoice_core::error::{Error, Result};

/// What `ffprobe` found in a video file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct VideoInfo {
    /// The container as ffprobe names it (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
    pub container: String,
    /// The video codec (`h264`, `vp9`, `prores`…).
    pub codec: String,
    pub width: u32,
    pub height: u32,
    /// Frames per second.
    pub frame_rate: f64,
    pub duration_s: f64,
    /// The audio streams, in order.
    pub audio: Vec<AudioStream>,
}

/// An audio stream of a video file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AudioStream {
    pub codec: String,
    pub channels: u32,
    /// Its language tag, when it has one (`eng`).
    pub language: Option<String>,
}

/// The muxer's name in every error.
const FFMPEG: &str = "ffmpeg";

fn missing_tool(tool: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        Error::invalid(tool, "is not installed: video needs FFmpeg (Debian and Ubuntu: apt install ffmpeg; scripts/studio installs it)")
    } else {
        Error::internal(format!("running {tool}"), e.to_string())
    }
}

/// The version line of the installed ffmpeg (`5.1.9-0+deb12u1`), or why there is none.
pub fn ffmpeg_version() -> Result<String> {
    let out = Command::new(FFMPEG).arg("-version").output().map_err(|e| missing_tool(FFMPEG, e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.lines().next().and_then(|l| l.strip_prefix("ffmpeg version ")).and_then(|l| l.split_whitespace().next());
    version.map(str::to_string).ok_or_else(|| Error::internal(FFMPEG, format!("-version printed no version: {}", text.lines().next().unwrap_or(""))))
}

/// The major version of an ffmpeg version string (`5.1.9-0+deb12u1` → 5; `n6.1` → 6).
pub fn ffmpeg_major(version: &str) -> Option<u32> {
    version.trim_start_matches(|c: char| !c.is_ascii_digit()).split(['.', '-']).next()?.parse().ok()
}

/// The oldest ffmpeg whose muxers this export was checked with.
pub const FFMPEG_MIN_MAJOR: u32 = 4;

#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    streams: Vec<ProbeStream>,
    format: Option<ProbeFormat>,
}

#[derive(Deserialize)]
struct ProbeStream {
    codec_type: Option<String>,
    codec_name: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    avg_frame_rate: Option<String>,
    r_frame_rate: Option<String>,
    channels: Option<u32>,
    duration: Option<String>,
    #[serde(default)]
    tags: std::collections::HashMap<String, String>,
    #[serde(default)]
    disposition: std::collections::HashMap<String, i64>,
}

#[derive(Deserialize)]
struct ProbeFormat {
    format_name: Option<String>,
    duration: Option<String>,
}

/// `30000/1001` → 29.97; `0/0` → None.
fn ratio(text: &str) -> Option<f64> {
    let (n, d) = text.split_once('/').unwrap_or((text, "1"));
    let (n, d): (f64, f64) = (n.trim().parse().ok()?, d.trim().parse().ok()?);
    (n > 0.0 && d > 0.0).then_some(n / d)
}

/// Reads a video file's container, picture and audio streams with ffprobe.
/// A file without a video stream (a cover image is not one) is refused by name.
pub fn probe(path: &Path) -> Result<VideoInfo> {
    let named = || format!("video {}", path.display());
    if !path.is_file() {
        return Err(Error::not_found(named(), "no such file"));
    }
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-print_format", "json", "-show_format", "-show_streams"])
        .arg(path)
        .output()
        .map_err(|e| missing_tool("ffprobe", e))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(Error::invalid(named(), format!("ffprobe cannot read it: {}", if why.is_empty() { "no reason given".into() } else { why })));
    }
    let probe: Probe = serde_json::from_slice(&out.stdout).map_err(|e| Error::invalid(named(), format!("ffprobe's answer did not read: {e}")))?;
    let video = probe
        .streams
        .iter()
        .find(|s| s.codec_type.as_deref() == Some("video") && s.disposition.get("attached_pic").copied().unwrap_or(0) == 0)
        .ok_or_else(|| Error::invalid(named(), "has no video stream (for a recording, use it as original dialogue or the bed)"))?;
    let frame_rate = video.avg_frame_rate.as_deref().and_then(ratio).or_else(|| video.r_frame_rate.as_deref().and_then(ratio)).unwrap_or(25.0);
    let format = probe.format.as_ref();
    let duration_s = format.and_then(|f| f.duration.as_deref()).or(video.duration.as_deref()).and_then(|d| d.parse().ok()).unwrap_or(0.0);
    let audio = probe
        .streams
        .iter()
        .filter(|s| s.codec_type.as_deref() == Some("audio"))
        .map(|s| AudioStream {
            codec: s.codec_name.clone().unwrap_or_default(),
            channels: s.channels.unwrap_or(0),
            language: s.tags.get("language").filter(|l| !l.is_empty() && l.as_str() != "und").cloned(),
        })
        .collect();
    Ok(VideoInfo {
        container: format.and_then(|f| f.format_name.clone()).unwrap_or_default(),
        codec: video.codec_name.clone().unwrap_or_default(),
        width: video.width.unwrap_or(0),
        height: video.height.unwrap_or(0),
        frame_rate,
        duration_s,
        audio,
    })
}

/// The container a muxed export is written in, by the video's own:
/// MP4 stays MP4, QuickTime stays MOV, anything else becomes Matroska.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MuxContainer {
    Mp4,
    Mov,
    Matroska,
}

impl MuxContainer {
    /// The container for a video of `source` (its file name decides between MP4 and MOV).
    pub fn for_video(source: &Path) -> MuxContainer {
        match source.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("mp4" | "m4v") => MuxContainer::Mp4,
            Some("mov") => MuxContainer::Mov,
            _ => MuxContainer::Matroska,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            MuxContainer::Mp4 => "mp4",
            MuxContainer::Mov => "mov",
            MuxContainer::Matroska => "mkv",
        }
    }

    /// The lossless audio codec this container carries.
    fn dub_codec(self) -> &'static str {
        match self {
            MuxContainer::Mp4 | MuxContainer::Mov => "alac",
            MuxContainer::Matroska => "flac",
        }
    }

    fn subtitle_codec(self) -> &'static str {
        match self {
            MuxContainer::Mp4 | MuxContainer::Mov => "mov_text",
            MuxContainer::Matroska => "srt",
        }
    }
}

/// One language of the dub, as exported.
#[derive(Debug, Clone)]
pub struct DubStream {
    /// The track's language tag (`en-US`).
    pub language: String,
    /// The exported mix.
    pub mix: PathBuf,
    /// The rate the dub stream is written at, Hz (the delivery's).
    pub sample_rate: u32,
    /// Its SubRip subtitles, if exported.
    pub subtitles: Option<PathBuf>,
}

/// What goes into a muxed export.
#[derive(Debug, Clone)]
pub struct MuxPlan {
    pub video: PathBuf,
    /// In order: the first is the default audio stream.
    pub dubs: Vec<DubStream>,
    /// The language the original audio is tagged with, when it is known.
    pub original_language: Option<String>,
}

/// Writes `plan` into `out` (its extension the container's) with ffmpeg:
/// the picture copied, the dubs lossless at their delivery rate and
/// language-tagged (the first the default), the video's first audio stream copied as "Original",
/// subtitles as streams.
pub fn mux(plan: &MuxPlan, container: MuxContainer, out: &Path) -> Result<()> {
    let info = probe(&plan.video)?;
    let mut args: Vec<String> = vec!["-nostdin".into(), "-y".into(), "-v".into(), "error".into()];
    let input = |path: &Path, args: &mut Vec<String>| {
        args.push("-i".into());
        args.push(path.to_string_lossy().into_owned());
    };
    input(&plan.video, &mut args);
    for dub in &plan.dubs {
        input(&dub.mix, &mut args);
    }
    let with_subtitles: Vec<(usize, &DubStream)> = plan.dubs.iter().filter(|d| d.subtitles.is_some()).enumerate().collect();
    for (_, dub) in &with_subtitles {
        input(dub.subtitles.as_deref().expect("filtered"), &mut args);
    }
    let mut push = |items: &[&str]| args.extend(items.iter().map(|s| s.to_string()));
    push(&["-map", "0:v:0", "-c:v", "copy"]);
    for (i, dub) in plan.dubs.iter().enumerate() {
        let stream = format!("a:{i}");
        push(&["-map", &format!("{}:a:0", i + 1), &format!("-c:{stream}"), container.dub_codec(), &format!("-ar:{stream}"), &dub.sample_rate.to_string()]);
        push(&[&format!("-metadata:s:{stream}"), &format!("language={}", revoice_text::language::iso639_2(&dub.language))]);
        // MP4 and MOV keep a stream's name as its handler name, Matroska as its title.
        push(&[
            &format!("-metadata:s:{stream}"),
            &format!("title=Dub ({})", dub.language),
            &format!("-metadata:s:{stream}"),
            &format!("handler_name=Dub ({})", dub.language),
        ]);
        push(&[&format!("-disposition:{stream}"), if i == 0 { "default" } else { "0" }]);
    }
    if !info.audio.is_empty() {
        let stream = format!("a:{}", plan.dubs.len());
        let language =
            plan.original_language.as_deref().map(revoice_text::language::iso639_2).or(info.audio[0].language.as_deref()).unwrap_or("und").to_string();
        push(&["-map", "0:a:0", &format!("-c:{stream}"), "copy"]);
        push(&[&format!("-metadata:s:{stream}"), &format!("language={language}")]);
        push(&[
            &format!("-metadata:s:{stream}"),
            "title=Original",
            &format!("-metadata:s:{stream}"),
            "handler_name=Original",
            &format!("-disposition:{stream}"),
            "0",
        ]);
    }
    for (n, (_, dub)) in with_subtitles.iter().enumerate() {
        let input = 1 + plan.dubs.len() + n;
        let stream = format!("s:{n}");
        push(&["-map", &format!("{input}:s:0"), &format!("-c:{stream}"), container.subtitle_codec()]);
        push(&[&format!("-metadata:s:{stream}"), &format!("language={}", revoice_text::language::iso639_2(&dub.language))]);
    }
    args.push(out.to_string_lossy().into_owned());
    let run = Command::new(FFMPEG).args(&args).output().map_err(|e| missing_tool(FFMPEG, e))?;
    if !run.status.success() {
        let why = String::from_utf8_lossy(&run.stderr);
        let why = why.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no reason given");
        return Err(Error::invalid(format!("muxing {}", out.display()), format!("ffmpeg failed: {why}")));
    }
    let written = probe(out).map_err(|e| e.context(format!("checking {}", out.display())))?;
    let expected = plan.dubs.len() + usize::from(!info.audio.is_empty());
    if written.audio.len() != expected || written.codec != info.codec {
        return Err(Error::invalid(
            format!("muxed video {}", out.display()),
            format!("holds {} audio streams and {} video where {expected} and {} were written", written.audio.len(), written.codec, info.codec),
        ));
    }
    Ok(())
}

/// Makes a proxy of a video the window can play: VP8 in WebM (which the
/// webview's GStreamer plays with its good plugins), at most 640 pixels wide, a
/// key frame every half second so scrubbing lands quickly, no audio (the
/// engine plays the sound). Written to a temporary file and renamed, so a
/// stopped proxy leaves nothing half-made.
pub fn make_proxy(video: &Path, proxy: &Path) -> Result<()> {
    let info = probe(video)?;
    let keyframes = (info.frame_rate / 2.0).round().max(1.0).to_string();
    let partial = proxy.with_extension("partial.webm");
    let run = Command::new(FFMPEG)
        .args(["-nostdin", "-y", "-v", "error", "-i"])
        .arg(video)
        .args([
            "-an",
            "-sn",
            "-vf",
            "scale='min(640,iw)':-2",
            "-c:v",
            "libvpx",
            "-deadline",
            "realtime",
            "-cpu-used",
            "8",
            "-b:v",
            "1M",
            "-g",
            &keyframes,
            "-f",
            "webm",
        ])
        .arg(&partial)
        .output()
        .map_err(|e| missing_tool(FFMPEG, e))?;
    if !run.status.success() {
        let _ = std::fs::remove_file(&partial);
        let why = String::from_utf8_lossy(&run.stderr);
        return Err(Error::invalid(
            format!("a proxy of {}", video.display()),
            format!("ffmpeg failed: {}", why.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no reason given")),
        ));
    }
    std::fs::rename(&partial, proxy).map_err(|e| Error::io("move into place", proxy, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_rates_and_versions_read() {
        assert_eq!(ratio("25/1"), Some(25.0));
        assert!((ratio("30000/1001").unwrap() - 29.97).abs() < 0.001);
        assert_eq!(ratio("0/0"), None);
        assert_eq!(ffmpeg_major("5.1.9-0+deb12u1"), Some(5));
        assert_eq!(ffmpeg_major("n6.1.1"), Some(6));
        assert_eq!(MuxContainer::for_video(Path::new("a/b.MP4")), MuxContainer::Mp4);
        assert_eq!(MuxContainer::for_video(Path::new("b.webm")).extension(), "mkv");
    }

    #[test]
    fn a_missing_file_is_named() {
        let err = probe(Path::new("/no/such/scene.mp4")).unwrap_err().to_string();
        assert!(err.contains("/no/such/scene.mp4") && err.contains("no such file"), "{err}");
    }
}
