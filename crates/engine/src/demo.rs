//! The demo project a first start offers (an `impl Engine`): the lighthouse
//! scene (32 timed lines, Maya and Theo) with stock voices for both and its
//! harbour music bed, ready to render, so a new user hears a dub at once.
//! The script and bed ship inside the engine; the bed is written into the
//! data folder the first time it is needed.

use crate::error::{Error, Result};
use crate::store::Project;
use crate::Engine;

/// The demo's name in the project list.
pub const DEMO_NAME: &str = "The lighthouse (demo)";
const SCRIPT: &str = include_str!("../../../assets/demo/lighthouse.srt");
const BED: &[u8] = include_bytes!("../../../assets/demo/harbour-bed.wav");
/// Who speaks with which stock voice.
const CAST: [(&str, &str); 2] = [("Maya", "af_bella"), ("Theo", "bm_george")];

impl Engine {
    /// Makes the demo project: the scene's lines, a voice for each speaker
    /// and the bed (`<data>/demo/harbour-bed.wav`).
    pub async fn create_demo_project(&self) -> Result<Project> {
        let bed = self.data_dir().join("demo").join("harbour-bed.wav");
        if std::fs::read(&bed).ok().as_deref() != Some(BED) {
            std::fs::create_dir_all(bed.parent().expect("a folder")).map_err(|e| Error::io("create", &bed, e))?;
            crate::fsutil::write_atomically(&bed, BED)?;
        }
        let cues = crate::subtitles::parse_srt(SCRIPT, "lighthouse.srt")?;
        let (project, track) = self.create_project(DEMO_NAME, "en-US").await?;
        self.store().import_cues(&track, &cues).await?;
        for (speaker, voice) in CAST {
            let found = self.speaker_named(project.id, speaker).await?;
            self.set_speaker_voice(project.id, found.id, voice, None).await?;
        }
        self.set_bed(project.id, &bed).await?;
        self.store().project(project.id).await
    }
}

#[cfg(test)]
mod tests {
    use crate::{Engine, EngineConfig};

    #[test]
    fn the_demo_is_a_voiced_two_speaker_scene_over_its_bed() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let engine = runtime.block_on(Engine::open(EngineConfig::load_from(dir.path().to_path_buf()).unwrap())).unwrap();
        let project = runtime.block_on(engine.create_demo_project()).unwrap();
        assert_eq!(project.name, super::DEMO_NAME);
        assert!(project.bed_file.as_deref().is_some_and(|b| std::path::Path::new(b).is_file()));
        let speakers = runtime.block_on(engine.store().speakers(project.id)).unwrap();
        let voices: Vec<(&str, &str)> = speakers.iter().map(|s| (s.name.as_str(), s.voice.as_str())).collect();
        assert_eq!(voices, [("Maya", "af_bella"), ("Theo", "bm_george")]);
        let lines = runtime.block_on(engine.project_lines(project.id)).unwrap();
        assert_eq!(lines[0].lines.len(), 32);
        // A second demo is another project beside the first.
        assert_ne!(runtime.block_on(engine.create_demo_project()).unwrap().id, project.id);
    }
}
