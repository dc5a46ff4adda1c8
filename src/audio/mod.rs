//! Audio in and out of the engine. For now: which output devices exist and
//! which one playback will use. Decoding, resampling, WAV and playback join
//! here as modules of their own.

pub mod compare;
pub mod devices;
pub mod playback;
pub mod wav;

pub use devices::{list_output_devices, OutputDevice, OutputDevices};
