//! What rendering a project takes, opened once and shared: the model, the
//! scheduler with the render cache in front of it, the segment store and
//! the registered voices' artifacts. Opening it loads the model (seconds).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::pipeline::ProjectRenderer;
use super::segment_store::SegmentStore;
use crate::cache::{RenderCacheConfig, VoiceArtifactCache};
use crate::config::Settings;
use crate::error::Result;
use crate::render::Renderer;
use crate::scheduler::SchedulerConfig;
use crate::store::Store;
use crate::synth::Synthesizer;
use crate::voice::MatchedVoice;

/// Where a data folder keeps rendered lines.
pub fn segment_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("segments")
}

/// The segment store of a data folder, at its configured budget.
pub fn open_segments(data_dir: &Path, settings: &Settings) -> Result<SegmentStore> {
    SegmentStore::open(&segment_dir(data_dir), settings.dub.segment_store_mb << 20)
}

/// What rendering a project takes: the model, the scheduler with the render
/// cache in front of it, the segment store and the voice artifacts.
pub struct RenderStack {
    pub synth: Synthesizer,
    pub renderer: Renderer,
    pub segments: SegmentStore,
    pub voices: VoiceArtifactCache<MatchedVoice>,
}

impl RenderStack {
    /// Loads the model and starts the scheduler (blocking: seconds).
    pub fn open(data_dir: &Path, settings: &Settings) -> Result<RenderStack> {
        let synth = Synthesizer::load(data_dir)?;
        let model = synth.shared_model();
        let model_key = format!("{}:{:?}", crate::model::speech::SpeechModel::id(model.as_ref()), model.precision());
        let scheduler = SchedulerConfig::resolve(&settings.scheduler, data_dir);
        let cache = RenderCacheConfig { max_bytes: (settings.dub.render_cache_mb as usize) << 20, ttl: Duration::from_secs(3600) };
        let renderer = Renderer::start(model, model_key, scheduler, cache)?;
        let segments = open_segments(data_dir, settings)?;
        let voices = VoiceArtifactCache::new(16 << 20)?;
        Ok(RenderStack { synth, renderer, segments, voices })
    }

    /// The project renderer over this stack.
    pub fn pipeline<'a>(&'a self, runtime: &'a tokio::runtime::Handle, store: &'a Store) -> ProjectRenderer<'a> {
        ProjectRenderer { runtime, store, synth: &self.synth, renderer: &self.renderer, segments: &self.segments, voices: &self.voices }
    }
}
