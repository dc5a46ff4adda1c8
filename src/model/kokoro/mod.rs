//! Kokoro-82M v1.0: the release files the engine installs from, the stock
//! voice catalogue, and the conversion of the int8 ONNX export into the
//! engine's own weight files.

pub mod convert;
pub mod release;
pub mod weights;

pub use release::{KokoroRelease, StockVoice};
