//! Audio in and out of the engine: output devices, playback of a finished
//! buffer and live playback while rendering, decoding and resampling,
//! WAV files, frame levels (speech and pauses), pitch tracking, pitch-keeping time-stretch, tone matching, sidechain ducking, and the
//! log-mel distance the model tests compare audio by, and the mel-cepstral
//! distortion between two takes of the same words (`cepstrum`).

pub mod cepstrum;
pub mod compare;
pub mod decode;
pub mod devices;
pub mod ducking;
pub mod encode;
pub mod levels;
pub mod live;
pub mod loudness;
pub mod peaks;
pub mod pitch;
pub mod playback;
pub mod resample;
pub mod stretch;
pub mod tone;
pub mod wav;

pub use devices::{list_output_devices, OutputDevice, OutputDevices};
