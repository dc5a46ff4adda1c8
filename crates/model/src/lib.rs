//! The neural models the engine runs, and the assets they load from. The
//! installer writes each model's files into its folder under
//! `<data dir>/models/` and a `manifest.json` last, so a folder with a
//! manifest whose files all match it is a complete install.

pub mod assets;
pub mod bf16_matmul;
pub mod cpu_features;
pub mod cpu_tensor;
pub mod fast_math;
pub mod half_rows;
pub mod install;
pub mod kokoro;
pub mod lstm;
pub mod naturalness;
pub mod onnx;
pub mod speaker;
pub mod spectral_distance;
pub mod speech;
pub mod testing;
pub mod whisper;

pub use assets::{AssetState, ModelAsset, ModelAssetStatus};
