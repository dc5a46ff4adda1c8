//! Speech: text and a voice in, audio out. [`front_end`] turns text and a
//! voice into model rows; [`render`] puts the render cache in front of
//! the scheduler; [`stack`] is the model, scheduler, caches and reference
//! encodes started once per process; [`service`] loads that stack once,
//! on first need or in the background; [`synth`] calls Kokoro directly.
//! Beneath them: [`voice_spec`] (what a voice name means), [`scheduler`]
//! (rows batched on the model's owner thread), [`cache`] (reference
//! encodes and rendered audio, bounded in bytes), [`fitted_style`],
//! and per process [`allocator`] and [`compute_threads`].

pub mod allocator;
pub mod cache;
pub mod compute_threads;
pub mod fitted_style;
pub mod front_end;
pub mod render;
pub mod scheduler;
pub mod service;
pub mod stack;
pub mod synth;
pub mod voice_spec;

pub use front_end::{FrontEnd, PreparedLine, SayRequest};
pub use render::{AudioPiece, PieceStream, Renderer, RowStream};
pub use service::SpeechService;
pub use stack::{kokoro, LoadedSpeech, SpeechLoader, SpeechStack};
pub use synth::{SpokenChunk, Synthesizer};
