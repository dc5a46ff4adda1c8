//! Kokoro-82M v1.0: the release files the engine installs from, the stock
//! voice catalogue, the conversion of the int8 ONNX export into the
//! engine's own weight files, and the network itself on candle.

mod albert;
mod calibration;
pub mod config;
mod decoder;
mod dense;
pub mod differentiable;
mod generator;
mod gradient_ops;
pub mod layers;
mod mask;
pub mod model;
pub mod norm_statistics;
pub mod packed_linear;
mod prosody;
pub mod quantized_conv;
pub mod reading;
pub mod release;
mod residual;
pub mod source;
pub mod stft;
mod stream;
mod text_encoder;
pub mod voices;

/// The engine's weights file in an installed Kokoro folder.
pub const WEIGHTS_FILE: &str = "kokoro.safetensors";
/// The 54 stock voices' style packs.
pub const VOICES_FILE: &str = "voices.safetensors";
/// The phoneme vocabulary.
pub const VOCAB_FILE: &str = "vocab.json";

pub use layers::Precision;
pub use model::{KokoroModel, Trace};
pub use release::{KokoroRelease, StockVoice};
pub use stream::StreamPlan;
