//! Whisper's sizes and the generation settings that ship with the weights
//! (`whisper.json` in the model folder): read once from the CTranslate2 file
//! and its `config.json` by the installer (`install::whisper`), so loading
//! needs neither.

use serde::{Deserialize, Serialize};

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
