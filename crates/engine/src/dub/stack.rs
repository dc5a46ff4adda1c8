//! What rendering takes, opened once and shared by everything in a process
//! that asks for speech (the editor, the CLI, the speech API): the model,
//! the scheduler with the render cache in front of it (one owner thread,
//! so all callers batch together), the batch widths it forms, the segment
//! store and the registered voices' artifacts. Opening it loads the model
//! (seconds).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::pipeline::ProjectRenderer;
use super::segment_store::SegmentStore;
use crate::cache::{RenderCacheConfig, VoiceArtifactCache};
use crate::config::Settings;
use crate::error::Result;
use crate::render::Renderer;
use crate::scheduler::{BatchSizes, ObservedModel, SchedulerConfig};
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
    pub synth: Arc<Synthesizer>,
    pub renderer: Arc<Renderer>,
    /// The widths of the batches the scheduler has formed.
    pub batch_sizes: Arc<BatchSizes>,
    pub segments: SegmentStore,
    pub voices: VoiceArtifactCache<MatchedVoice>,
}

impl RenderStack {
    /// Loads the model and starts the scheduler (blocking: seconds), its
    /// width and window from the settings or the host's calibration.
    pub fn open(data_dir: &Path, settings: &Settings) -> Result<RenderStack> {
        RenderStack::open_with(data_dir, settings, SchedulerConfig::resolve(&settings.scheduler, data_dir))
    }

    /// The same with a scheduler configured by the caller (tests, benches).
    pub fn open_with(data_dir: &Path, settings: &Settings, scheduler: SchedulerConfig) -> Result<RenderStack> {
        let synth = Synthesizer::load(data_dir)?;
        let model = synth.shared_model();
        let model_key = format!("{}:{:?}", crate::model::speech::SpeechModel::id(model.as_ref()), model.precision());
        let cache = RenderCacheConfig { max_bytes: (settings.dub.render_cache_mb.max(1) as usize) << 20, ttl: Duration::from_secs(3600) };
        let batch_sizes = Arc::new(BatchSizes::default());
        let renderer = Renderer::start(Arc::new(ObservedModel::new(model, batch_sizes.clone())), model_key, scheduler, cache)?;
        let segments = open_segments(data_dir, settings)?;
        let voices = VoiceArtifactCache::new(16 << 20)?;
        Ok(RenderStack { synth: Arc::new(synth), renderer: Arc::new(renderer), batch_sizes, segments, voices })
    }

    /// The project renderer over this stack.
    pub fn pipeline<'a>(&'a self, runtime: &'a tokio::runtime::Handle, store: &'a Store) -> ProjectRenderer<'a> {
        ProjectRenderer { runtime, store, synth: &self.synth, renderer: &self.renderer, segments: &self.segments, voices: &self.voices }
    }
}
