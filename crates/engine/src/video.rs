//! A project's picture, for every face (an `impl Engine`): attaching a
//! video (read by ffprobe: a video stream is required), whose audio
//! becomes the original dialogue when the project has none and, when
//! asked, the bed; and detaching it. Muxing it into an export is
//! `dub::picture`'s, called by the export. The project's timecode rate:
//! the picture's when it has one (stored as the video is attached, so
//! readers never run ffprobe), else its own setting.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::dub::picture::{probe, VideoInfo};
use crate::dub::timecode::FrameRate;
use crate::Engine;
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};

/// What attaching a video did.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AttachedVideo {
    /// The video's absolute path.
    pub path: String,
    pub info: VideoInfo,
    /// Its audio became the project's original dialogue (it had none).
    pub original_dialogue: bool,
    /// Its audio became the project's bed (asked for).
    pub bed: bool,
}

/// The picture as the editor's window plays it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PictureSource {
    /// Where the window loads it from.
    pub url: String,
    /// The video itself (its codec, size and frame rate).
    pub info: VideoInfo,
    /// The window plays a proxy made for it, not the video's own stream.
    pub proxy: bool,
}

impl Engine {
    /// Attaches `file` as the project's picture. When it has audio, that
    /// becomes the original dialogue if the project has none, and the bed
    /// when `as_bed`; `original_language` tags the original's language.
    pub async fn attach_video(&self, project_id: i64, file: &Path, as_bed: bool, original_language: Option<&str>) -> Result<AttachedVideo> {
        let project = self.store().project(project_id).await?;
        if let Some(language) = original_language {
            revoice_text::language::parse(language).map_err(|reason| Error::invalid(format!("language {language:?}"), reason))?;
        }
        let path = file.to_path_buf();
        let info = tokio::task::spawn_blocking(move || probe(&path)).await.map_err(|e| Error::internal("reading the video", e.to_string()))??;
        let absolute = std::fs::canonicalize(file).map_err(|e| Error::io("resolve", file, e))?;
        let has_audio = !info.audio.is_empty();
        if as_bed && !has_audio {
            return Err(Error::invalid(format!("video {}", file.display()), "has no audio to use as the bed"));
        }
        let original_dialogue = has_audio && project.original_media.is_none();
        // Checked to decode before anything is written.
        if original_dialogue || as_bed {
            crate::projects::decodable_media(file, "the video's audio").await?;
        }
        self.store().set_video(project_id, Some(&absolute.to_string_lossy())).await?;
        // The timecode follows the picture; a 29.97 picture keeps the
        // project's choice between drop-frame and non-drop.
        let rate = FrameRate::nearest(info.frame_rate, Some(FrameRate::stored(project.frame_rate.as_deref())));
        self.store().set_frame_rate(project_id, rate.name()).await?;
        if original_dialogue {
            self.set_original_dialogue(project_id, file).await?;
        }
        if as_bed {
            self.set_bed(project_id, file).await?;
        }
        if let Some(language) = original_language {
            self.store().set_original_language(project_id, Some(language)).await?;
        }
        Ok(AttachedVideo { path: absolute.to_string_lossy().into_owned(), info, original_dialogue, bed: as_bed })
    }

    /// The rate the project's timecode runs at.
    pub async fn frame_rate(&self, project_id: i64) -> Result<FrameRate> {
        Ok(FrameRate::stored(self.store().project(project_id).await?.frame_rate.as_deref()))
    }

    /// Sets the rate the project's timecode runs at (`"25"`, `"29.97df"`…),
    /// an edit that undo and redo step through.
    /// With a picture attached the timecode follows the picture: only the
    /// choice between 29.97 drop-frame and non-drop is left to make.
    pub async fn set_frame_rate(&self, project_id: i64, rate: &str) -> Result<FrameRate> {
        let project = self.store().project(project_id).await?;
        let rate: FrameRate = rate.parse()?;
        let current = FrameRate::stored(project.frame_rate.as_deref());
        if project.video_file.is_some() && rate.fps() != current.fps() {
            return Err(Error::invalid(
                format!("frame rate {rate}"),
                format!("project {project_id} has a picture at {current} fps, and its timecode follows the picture"),
            ));
        }
        self.store().change_frame_rate(project_id, rate.name()).await?;
        Ok(rate)
    }

    /// Takes the picture off the project (its original dialogue and bed stay;
    /// the timecode keeps the picture's rate until it is set).
    pub async fn detach_video(&self, project_id: i64) -> Result<()> {
        self.store().project(project_id).await?;
        self.store().set_video(project_id, None).await
    }

    /// A proxy of the project's picture the editor's window can play
    /// (blocking: ffmpeg makes it once, under `<data>/proxies/`, named by
    /// the video's path, size and time of change, so an edited video gets
    /// a new one); its path.
    pub fn picture_proxy(&self, project_id: i64) -> Result<PathBuf> {
        let project = wait(self.runtime(), self.store().project(project_id))?;
        let video = project.video_file.ok_or_else(|| Error::invalid(format!("project {project_id}"), "has no video to make a proxy of"))?;
        let meta = std::fs::metadata(&video).map_err(|e| Error::io("read", Path::new(&video), e))?;
        let changed = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
        let key = revoice_speech::cache::RenderKeyBuilder::new("picture-proxy/v1")
            .param("path", &video)
            .param("size", meta.len())
            .param("changed", changed)
            .build()
            .to_hex();
        let folder = self.data_dir().join("proxies");
        std::fs::create_dir_all(&folder).map_err(|e| Error::io("create", &folder, e))?;
        let proxy = folder.join(format!("{}.webm", &key[..24]));
        if !proxy.is_file() {
            crate::dub::picture::make_proxy(Path::new(&video), &proxy)?;
        }
        Ok(proxy)
    }

    /// The project's picture read again (blocking), or `None` without one.
    pub fn project_video(&self, project_id: i64) -> Result<Option<(String, VideoInfo)>> {
        let project = wait(self.runtime(), self.store().project(project_id))?;
        let Some(video) = project.video_file else { return Ok(None) };
        let info = probe(Path::new(&video)).map_err(|e| e.context(format!("the picture of project {project_id}")))?;
        Ok(Some((video, info)))
    }
}
