//! The demo project a first start offers (an `impl Engine`): the lighthouse
//! scene (32 timed lines, Maya and Theo) with stock voices for both, its
//! harbour music bed and a short picture made for it (a lighthouse at
//! night with a timecode burned in, VP8), ready to render, so a new user
//! hears a dub against picture at once. The script, bed and picture ship
//! inside the engine and are written into the data folder when needed.

use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_store::Project;

/// The demo's name in the project list.
pub const DEMO_NAME: &str = "The lighthouse (demo)";
const SCRIPT: &str = include_str!("../../../assets/demo/lighthouse.srt");
const BED: &[u8] = include_bytes!("../../../assets/demo/harbour-bed.wav");
const PICTURE: &[u8] = include_bytes!("../../../assets/demo/lighthouse.webm");
/// Who speaks with which stock voice.
const CAST: [(&str, &str); 2] = [("Maya", "af_bella"), ("Theo", "bm_george")];

impl Engine {
    /// Makes the demo project: the scene's lines, a voice for each speaker
    /// and the bed (`<data>/demo/harbour-bed.wav`).
    pub async fn create_demo_project(&self) -> Result<Project> {
        let bed = self.demo_file("harbour-bed.wav", BED)?;
        let picture = self.demo_file("lighthouse.webm", PICTURE)?;
        let cues = revoice_text::subtitles::parse_srt(SCRIPT, "lighthouse.srt")?;
        let (project, track) = self.create_project(DEMO_NAME, "en-US").await?;
        self.store().import_cues(&track, &cues).await?;
        for (speaker, voice) in CAST {
            let found = self.speaker_named(project.id, speaker).await?;
            self.set_speaker_voice(project.id, found.id, voice, None).await?;
        }
        self.set_bed(project.id, &bed).await?;
        // The picture needs FFmpeg to be read; without it the demo is heard without picture.
        if let Err(e) = self.attach_video(project.id, &picture, false, Some("en-US")).await {
            tracing::warn!(error = %e, "the demo's picture was not attached");
        }
        self.store().project(project.id).await
    }

    /// `<data>/demo/<name>` holding `bytes`, written when it does not.
    fn demo_file(&self, name: &str, bytes: &[u8]) -> Result<std::path::PathBuf> {
        let path = self.data_dir().join("demo").join(name);
        if std::fs::read(&path).ok().as_deref() != Some(bytes) {
            std::fs::create_dir_all(path.parent().expect("a folder")).map_err(|e| Error::io("create", &path, e))?;
            revoice_core::fsutil::write_atomically(&path, bytes)?;
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use crate::Engine;
    use revoice_core::config::EngineConfig;

    #[test]
    fn the_demo_is_a_voiced_two_speaker_scene_over_its_bed() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let engine = runtime.block_on(Engine::open(EngineConfig::load_from(dir.path().to_path_buf()).unwrap())).unwrap();
        let project = runtime.block_on(engine.create_demo_project()).unwrap();
        assert_eq!(project.name, super::DEMO_NAME);
        let beds = runtime.block_on(engine.store().bed_stems(project.id)).unwrap();
        assert!(beds.len() == 1 && std::path::Path::new(&beds[0].file).is_file(), "{beds:?}");
        assert!(project.video_file.as_deref().is_some_and(|v| v.ends_with("lighthouse.webm")), "the demo has its picture: {:?}", project.video_file);
        let speakers = runtime.block_on(engine.store().speakers(project.id)).unwrap();
        let voices: Vec<(&str, &str)> = speakers.iter().map(|s| (s.name.as_str(), s.voice.as_str())).collect();
        assert_eq!(voices, [("Maya", "af_bella"), ("Theo", "bm_george")]);
        let lines = runtime.block_on(engine.project_lines(project.id)).unwrap();
        assert_eq!(lines[0].lines.len(), 32);
        // A second demo is another project beside the first.
        assert_ne!(runtime.block_on(engine.create_demo_project()).unwrap().id, project.id);
    }
}
