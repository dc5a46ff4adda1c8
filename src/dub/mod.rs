//! Dub projects: the timed lines of a programme and what becomes of them.
//! So far: subtitle files in and out (`subtitles`), the timing
//! strategies' placement arithmetic (`timing`), and rendered lines on disk
//! by synthesis key (`segment_store`).

pub mod assemble;
pub mod export;
pub mod mix;
pub mod pipeline;
pub mod project_file;
pub mod segment_store;
pub mod subtitles;
pub mod timing;
