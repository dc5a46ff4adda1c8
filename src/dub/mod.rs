//! Dub projects: the timed lines of a programme and what becomes of them.
//! So far: subtitle files in and out (`subtitles`) and the timing
//! strategies' placement arithmetic (`timing`).

pub mod subtitles;
pub mod timing;
