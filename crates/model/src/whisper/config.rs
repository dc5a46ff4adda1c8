//! Whisper's sizes and the generation settings that ship with the weights
//! (`whisper.json` in the model folder): read once from the CTranslate2 file
//! and its `config.json` by the installer, so loading needs neither.

use serde::{Deserialize, Serialize};

use crate::install::ctranslate2::Ct2Model;
use revoice_core::error::{Error, Result};

/// Sizes of one Whisper model and its special-token settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhisperConfig {
    /// Mel bands of the input (80).
    pub n_mels: usize,
    /// Encoder positions (1500: 30 s at 50 per second).
    pub n_audio_ctx: usize,
    /// Decoder positions (448).
    pub n_text_ctx: usize,
    /// Width of both stacks (512 for base).
    pub d_model: usize,
    pub encoder_layers: usize,
    pub encoder_heads: usize,
    pub decoder_layers: usize,
    pub decoder_heads: usize,
    /// Tokens (51865 for the multilingual models).
    pub vocab: usize,
    /// `(layer, head)` pairs whose cross-attention follows the words in time.
    pub alignment_heads: Vec<(usize, usize)>,
    /// Tokens never generated (non-speech symbols).
    pub suppress_ids: Vec<u32>,
    /// Tokens never generated first (a blank, end of text).
    pub suppress_ids_begin: Vec<u32>,
    /// The language tokens, in the model's order.
    pub lang_ids: Vec<u32>,
}

#[derive(Deserialize)]
struct GenerationConfig {
    alignment_heads: Vec<(usize, usize)>,
    #[serde(default)]
    suppress_ids: Vec<u32>,
    #[serde(default)]
    suppress_ids_begin: Vec<u32>,
    #[serde(default)]
    lang_ids: Vec<u32>,
}

impl WhisperConfig {
    /// Reads the sizes off a CTranslate2 Whisper model and the settings off
    /// the `config.json` that ships beside it.
    pub fn from_ct2(model: &Ct2Model, generation_json: &[u8]) -> Result<WhisperConfig> {
        let generation: GenerationConfig = serde_json::from_slice(generation_json)
            .map_err(|e| Error::invalid("Whisper's config.json", format!("not a generation config: {e}")))?;
        let dim = |name: &str, axis: usize| -> Result<usize> {
            let v = model.variable(name)?;
            v.shape.get(axis).copied().ok_or_else(|| Error::invalid(format!("{} model", model.spec), format!("{name} has rank {}", v.shape.len())))
        };
        let scalar = |name: &str| -> Result<usize> {
            model.variable(name)?.scalar().map(|v| v as usize).ok_or_else(|| Error::invalid(format!("{} model", model.spec), format!("{name} is not a setting")))
        };
        let layers = |stack: &str| (0..).take_while(|i| model.variables.contains_key(&format!("{stack}/layer_{i}/ffn/linear_0/weight"))).count();
        let config = WhisperConfig {
            n_mels: dim("encoder/conv1/weight", 1)?,
            n_audio_ctx: dim("encoder/position_encodings/encodings", 0)?,
            n_text_ctx: dim("decoder/position_encodings/encodings", 0)?,
            d_model: dim("encoder/conv1/weight", 0)?,
            encoder_layers: layers("encoder"),
            encoder_heads: scalar("encoder/num_heads")?,
            decoder_layers: layers("decoder"),
            decoder_heads: scalar("decoder/num_heads")?,
            vocab: dim("decoder/embeddings/weight", 0)?,
            alignment_heads: generation.alignment_heads,
            suppress_ids: generation.suppress_ids,
            suppress_ids_begin: generation.suppress_ids_begin,
            lang_ids: generation.lang_ids,
        };
        if config.encoder_layers == 0 || config.decoder_layers == 0 {
            return Err(Error::invalid(format!("{} model", model.spec), "has no transformer layers"));
        }
        if let Some(&(layer, head)) = config.alignment_heads.iter().find(|(l, h)| *l >= config.decoder_layers || *h >= config.decoder_heads) {
            return Err(Error::invalid("Whisper's config.json", format!("alignment head ({layer}, {head}) is outside the decoder")));
        }
        Ok(config)
    }
}
