//! What asking for speech takes, started once per process and shared by
//! everything in it (the editor, the CLI, the speech API): the front end,
//! the model behind one scheduler (one owner thread, so every caller's
//! rows batch together) with the render cache in front of it, the widths
//! of the batches it forms, and the reference-encode service whose
//! encodes run between those batches (opened on first use: it loads the
//! speaker encoder).
//!
//! The model comes from a [`SpeechLoader`]: Kokoro from the data folder
//! ([`kokoro`]) in the product, any [`SpeechModel`] in tests.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::front_end::FrontEnd;
use super::render::Renderer;
use crate::cache::RenderCacheConfig;
use crate::scheduler::{BatchSizes, ObservedModel, SchedulerConfig};
use revoice_core::config::Settings;
use revoice_core::error::Result;
use revoice_model::speech::SpeechModel;

/// A model and the front end that prepares its rows.
pub struct LoadedSpeech {
    pub model: Arc<dyn SpeechModel>,
    /// Changes whenever the same rows would sound different (model id,
    /// revision, the arithmetic it runs in): part of every render key.
    pub model_key: String,
    pub front_end: FrontEnd,
}

/// Loads the model for a data folder (blocking: seconds for Kokoro).
pub type SpeechLoader = Arc<dyn Fn(&Path) -> Result<LoadedSpeech> + Send + Sync>;

/// Kokoro-82M from the data folder's install, in the fastest precision
/// this CPU runs.
pub fn kokoro() -> SpeechLoader {
    Arc::new(|data_dir: &Path| {
        let synth = super::Synthesizer::load(data_dir)?;
        let (front_end, model) = synth.into_parts();
        let model_key = format!("{}:{}", model.id(), model.arithmetic());
        Ok(LoadedSpeech { model, model_key, front_end })
    })
}

/// The running speech stack.
pub struct SpeechStack {
    pub front_end: Arc<FrontEnd>,
    pub renderer: Arc<Renderer>,
    /// The model the renderer drives, for what goes around the renderer
    /// (a voice fit's gradient: [`SpeechModel::voicing`]).
    pub model: Arc<dyn SpeechModel>,
    /// The widths of the batches the scheduler has formed.
    pub batch_sizes: Arc<BatchSizes>,
    model_id: String,
    sample_rate: u32,
}

impl SpeechStack {
    /// Starts the scheduler over `loaded`, its width and window from the
    /// settings or the host's calibration, and the render cache at its budget.
    pub fn start(loaded: LoadedSpeech, data_dir: &Path, settings: &Settings) -> Result<SpeechStack> {
        let scheduler = SchedulerConfig::resolve(&settings.scheduler, data_dir);
        let cache = RenderCacheConfig { max_bytes: (settings.dub.render_cache_mb.max(1) as usize) << 20, ttl: Duration::from_secs(3600) };
        let batch_sizes = Arc::new(BatchSizes::default());
        let (model_id, sample_rate) = (loaded.model.id().to_string(), loaded.model.sample_rate());
        let model = loaded.model.clone();
        let observed = Arc::new(ObservedModel::new(loaded.model, batch_sizes.clone()));
        let renderer = Renderer::start(observed, loaded.model_key, scheduler, cache)?;
        Ok(SpeechStack { front_end: Arc::new(loaded.front_end), renderer: Arc::new(renderer), model, batch_sizes, model_id, sample_rate })
    }

    /// The model's id (and revision).
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The rate rendered audio comes at.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }
}
