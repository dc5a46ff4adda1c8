//! Kokoro with its front end, called directly (no scheduler, no cache):
//! for `revoice say`'s sentence-by-sentence playback, the benches, the
//! stock voices' embeddings and the model tests. Everything else asks for
//! speech through the engine's [`super::SpeechStack`].

use std::path::Path;
use std::sync::Arc;

use super::front_end::{FrontEnd, PreparedLine, SayRequest};
use crate::voice_spec::VoiceSpec;
use revoice_core::error::{Error, Result};
use revoice_model::assets;
use revoice_model::kokoro::voices::VoicePack;
use revoice_model::kokoro::WEIGHTS_FILE;
use revoice_model::kokoro::{KokoroModel, Precision};
use revoice_model::speech::SpeechModel;
#[cfg(doc)]
use revoice_model::speech::SpeechRow;

/// A piece of one synthesised sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct SpokenChunk {
    /// Which sentence of the request (from 0).
    pub sentence: usize,
    /// The sentence's text and phonemes.
    pub text: String,
    pub phonemes: String,
    pub samples: Vec<f32>,
}

/// The loaded model and its front end.
pub struct Synthesizer {
    front_end: FrontEnd,
    model: Arc<KokoroModel>,
}

impl Synthesizer {
    /// Loads Kokoro from a data directory's installed model, in the
    /// fastest precision this CPU runs.
    pub fn load(data_dir: &Path) -> Result<Synthesizer> {
        Self::load_in(data_dir, Precision::fastest())
    }

    /// Loads Kokoro with its convolutions in `precision`.
    pub fn load_in(data_dir: &Path, precision: Precision) -> Result<Synthesizer> {
        let status = assets::KOKORO.status(data_dir);
        if !matches!(status.state, assets::AssetState::Installed { .. }) {
            return Err(Error::invalid(status.dir.display().to_string(), "Kokoro is not installed (or the install is damaged): run `revoice models install`"));
        }
        let model = KokoroModel::load_in(&status.dir.join(WEIGHTS_FILE), precision)?;
        let front_end = FrontEnd::load(&status.dir, model.max_phonemes())?.with_japanese_dictionary(assets::JAPANESE.dir(data_dir));
        Ok(Synthesizer { front_end, model: Arc::new(model) })
    }

    /// Output sample rate.
    pub fn sample_rate(&self) -> u32 {
        self.model.sample_rate()
    }

    /// A stock voice's or blend's pack and language.
    pub fn resolve_voice(&self, voice: &VoiceSpec) -> Result<(VoicePack, &'static str)> {
        self.front_end.voice_pack(voice)
    }

    /// The loaded network.
    pub fn model(&self) -> &KokoroModel {
        &self.model
    }

    /// The model, shared (for a scheduler's owner thread).
    pub fn shared_model(&self) -> Arc<KokoroModel> {
        self.model.clone()
    }

    /// The front end.
    pub fn front_end(&self) -> &FrontEnd {
        &self.front_end
    }

    /// The parts, for a speech stack.
    pub fn into_parts(self) -> (FrontEnd, Arc<KokoroModel>) {
        (self.front_end, self.model)
    }

    /// Text → model rows (see [`FrontEnd::prepare`]).
    pub fn prepare(&self, request: &SayRequest) -> Result<Vec<PreparedLine>> {
        self.front_end.prepare(request)
    }

    /// Says `request.text`, handing its audio to `on_chunk` as soon as it
    /// is ready: each sentence in pieces as [`SpeechRow::render_in_pieces`]
    /// renders it (a fitted voice's, whose tone match needs the whole
    /// sentence, in one). Returns the number of chunks.
    pub fn say(&self, request: &SayRequest, mut on_chunk: impl FnMut(SpokenChunk) -> Result<()>) -> Result<usize> {
        let lines = self.prepare(request)?;
        let mut count = 0;
        for (sentence, line) in lines.iter().enumerate() {
            let chunk = |samples: Vec<f32>| SpokenChunk { sentence, text: line.text.clone(), phonemes: line.phonemes.clone(), samples };
            let mut failed = None;
            line.row.render_in_pieces(self.model.as_ref(), &mut |samples| match on_chunk(chunk(samples.to_vec())) {
                Ok(()) => {
                    count += 1;
                    std::ops::ControlFlow::Continue(())
                }
                Err(e) => {
                    failed = Some(e);
                    std::ops::ControlFlow::Break(())
                }
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(count)
    }
}
