//! Kokoro-82M v1.0: the release files the engine installs from, the stock
//! voice catalogue, the conversion of the int8 ONNX export into the
//! engine's own weight files, and the network itself on candle.

mod albert;
pub mod config;
pub mod convert;
mod decoder;
mod generator;
mod layers;
mod mask;
pub mod model;
mod prosody;
mod quantized_conv;
pub mod release;
mod residual;
pub mod source;
mod stft;
mod text_encoder;
pub mod voices;
pub mod weights;

pub use layers::Precision;
pub use model::{KokoroModel, Trace};
pub use release::{KokoroRelease, StockVoice};
