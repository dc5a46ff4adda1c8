//! Reference encodes through the reference-encode service: the hooks that
//! turn a reference (file, bytes, data URI, URL) into a [`MatchedVoice`]
//! with the speaker encoder, keyed by the content's SHA-256 and everything
//! about the encoder and stock voices that changes the result. When a
//! scheduler is attached, the encode itself runs on its owner thread
//! between batches, taking turns with synthesis for the same cores.

use std::path::Path;
use std::sync::Arc;

use revoice_core::error::{Error, Result};
use revoice_model::assets;
use revoice_speech::cache::{
    EncoderIdentity, ReferenceEncodeConfig, ReferenceEncodeHooks, ReferenceEncodeKey, ReferenceEncodeService, ReferenceInput, StoredArtifact,
};
use revoice_speech::scheduler::TaskQueue;

use super::reference::{MatchedVoice, VoiceMatcher, BLEND_SIZE, BLEND_TEMPERATURE, DEFAULT_LANGUAGE};

/// Largest reference fetched from a URL.
const MAX_REMOTE_BYTES: u64 = 64 << 20;

/// The hooks: a matcher, and where to run encodes.
pub struct MatcherHooks {
    matcher: Arc<VoiceMatcher>,
    identity: EncoderIdentity,
    between_batches: Option<TaskQueue>,
}

/// The reference-encode service for voice matching.
pub type ReferenceVoices = ReferenceEncodeService<MatcherHooks>;

impl MatcherHooks {
    /// Hooks over `matcher`; with `between_batches`, encodes run on that
    /// scheduler's owner thread between batches.
    pub fn new(matcher: Arc<VoiceMatcher>, between_batches: Option<TaskQueue>) -> MatcherHooks {
        let identity = EncoderIdentity {
            model_id: assets::KOKORO.id.to_string(),
            model_revision: matcher.stock().key.clone(),
            encoder_id: assets::SPEAKER_ENCODER.id.to_string(),
            encoder_config_hash: format!("blend {BLEND_SIZE} at temperature {BLEND_TEMPERATURE} of {DEFAULT_LANGUAGE} voices"),
            artifact_kind: "matched-voice/v2".to_string(),
        };
        MatcherHooks { matcher, identity, between_batches }
    }

    /// The matcher encodes run with.
    pub fn matcher(&self) -> &Arc<VoiceMatcher> {
        &self.matcher
    }

    /// Opens the matcher from a data directory and builds the service.
    pub fn service(data_dir: &Path, between_batches: Option<TaskQueue>, config: ReferenceEncodeConfig) -> Result<ReferenceVoices> {
        let matcher = VoiceMatcher::open(data_dir, &|_, _, _| {})?;
        ReferenceEncodeService::new(MatcherHooks::new(Arc::new(matcher), between_batches), config)
    }
}

/// The name the decoder sees (its extension is a hint checked against the content).
fn file_name(input: &ReferenceInput) -> String {
    match input {
        ReferenceInput::LocalFile(path) => path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned()),
        ReferenceInput::Bytes { name, .. } => name.clone(),
        ReferenceInput::Fetched { url, .. } | ReferenceInput::RemoteUrl(url) => url.clone(),
        ReferenceInput::DataUri(_) => "data URI".into(),
    }
}

fn encode(matcher: &VoiceMatcher, input: &ReferenceInput) -> Result<MatchedVoice> {
    let name = file_name(input);
    let bytes = input.read_bytes()?;
    let decoded = revoice_audio::decode::decode_bytes(bytes.to_vec(), Path::new(&name))?;
    matcher.match_samples(&decoded.samples, decoded.sample_rate, &name)
}

impl ReferenceEncodeHooks for MatcherHooks {
    type Input = ReferenceInput;
    type Artifact = MatchedVoice;
    type Stored = MatchedVoice;

    fn normalize_input(&self, input: ReferenceInput) -> Result<ReferenceInput> {
        match input {
            ReferenceInput::RemoteUrl(url) => {
                let bytes = revoice_model::install::http::fetch_small(&url, MAX_REMOTE_BYTES)?;
                Ok(ReferenceInput::Fetched { url, bytes: bytes.into() })
            }
            other => Ok(other),
        }
    }

    fn describe_input(&self, input: &ReferenceInput) -> String {
        input.describe()
    }

    fn cache_key(&self, input: &ReferenceInput) -> Option<ReferenceEncodeKey> {
        let identity = input.content_identity().ok()??;
        Some(self.identity.key(identity, ""))
    }

    fn encode_one(&self, input: &ReferenceInput) -> Result<MatchedVoice> {
        match &self.between_batches {
            None => encode(&self.matcher, input),
            Some(tasks) => {
                let (matcher, input) = (self.matcher.clone(), input.clone());
                let name = input.describe();
                tasks
                    .run_between_batches(move || encode(&matcher, &input))
                    .recv()
                    .map_err(|_| Error::InvalidInput { input: name, reason: "the scheduler stopped before encoding this reference".into() })?
            }
        }
    }

    fn store_artifact(&self, _key: &ReferenceEncodeKey, artifact: MatchedVoice) -> Result<StoredArtifact<MatchedVoice>> {
        let bytes = serde_json::to_vec(&artifact).map(|v| v.len()).unwrap_or(4096);
        Ok(StoredArtifact { value: artifact, bytes })
    }

    fn load_artifact(&self, _key: &ReferenceEncodeKey, stored: &MatchedVoice) -> Result<MatchedVoice> {
        Ok(stored.clone())
    }

    fn revalidate(&self, input: &ReferenceInput, key: &ReferenceEncodeKey) -> bool {
        input.still_matches(&key.input_key)
    }
}
