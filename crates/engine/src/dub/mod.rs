//! Dub projects: the timed lines of a programme and what becomes of them.
//! A track's lines resolved (`lines`), the timing strategies'
//! placement arithmetic (`timing`), SMPTE timecode (`timecode`),
//! lengths predicted before a render (`spoken_length`), rendered lines on disk by synthesis key
//! (`segment_store`), rendering (`pipeline`), a take cut to its speech (`take_shape`), fitting and mixing
//! (`assemble`, `mix`), which lanes sound (`lanes`), export (`export`), and playback (`programme`,
//! `transport`, `player`).

pub mod assemble;
pub mod export;
pub mod flags;
pub mod handoff;
pub mod lanes;
pub mod lines;
pub mod mix;
pub mod picture;
pub mod pipeline;
pub mod player;
pub mod programme;
pub mod project_file;
pub mod qc;
pub mod segment_store;
pub mod spoken_length;
pub mod staging;
pub mod take_shape;
pub mod timecode;
pub mod timing;
pub mod transport;

/// The rate a project's lines are stored, mixed and played at (Kokoro's
/// own); lines stored at another rate are resampled when read.
pub const PROGRAMME_RATE: u32 = 24_000;
