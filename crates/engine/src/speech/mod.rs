//! Speech: text and a voice in, audio out. [`front_end`] turns text and a
//! voice into model rows; [`render`] puts the render cache in front of
//! the scheduler; [`stack`] is the model, scheduler, caches and reference
//! encodes started once per process; [`service`] loads that stack once,
//! on first need or in the background; [`synth`] calls Kokoro directly.

pub mod front_end;
pub mod render;
pub mod service;
pub mod stack;
pub mod synth;

pub use front_end::{FrontEnd, PreparedLine, SayRequest};
pub use render::{AudioPiece, PieceStream, Renderer, RowStream};
pub use service::SpeechService;
pub use stack::{kokoro, LoadedSpeech, SpeechLoader, SpeechStack};
pub use synth::{SpokenChunk, Synthesizer};
