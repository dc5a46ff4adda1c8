//! Bounded, statistics-keeping caches: the reference-encode service, the
//! registered-voice artifact cache and the render cache. Each is bounded in
//! bytes, reports its statistics, never caches a failure, and hands callers
//! values they own (clones, or `Arc`s of immutable data).
//!
//! - [`reference`]: ad-hoc voice references in, voice artifacts out, one
//!   encode per key at a time (single flight), generic over
//!   [`ReferenceEncodeHooks`] that do the actual encoding;
//!   [`reference_input`] says what identifies a reference's content.
//! - [`voice_artifacts`]: artifacts of voices in the library, by name and
//!   version, dropped when the voice is deleted or overwritten.
//! - [`render`]: final audio by a SHA-256 over the synthesis parameters,
//!   with a TTL and an optional background sweeper.
//!
//! Two private pieces are shared: `byte_lru` (an LRU bounded by bytes, over
//! the `lru` crate) and `single_flight` (the leader/follower rendezvous).
//! All of it is synchronous: std threads, `Mutex` and `Condvar`, no async.

mod byte_lru;
pub mod reference;
pub mod reference_input;
pub mod render;
mod single_flight;
pub mod voice_artifacts;

pub use reference::{
    EncoderIdentity, ReferenceEncodeConfig, ReferenceEncodeHooks, ReferenceEncodeKey, ReferenceEncodeService, ReferenceEncodeStats, StoredArtifact,
};
pub use reference_input::ReferenceInput;
pub use render::{Clock, ManualClock, RenderCache, RenderCacheConfig, RenderCacheStats, RenderKey, RenderKeyBuilder, SystemClock};
pub use voice_artifacts::{VoiceArtifactCache, VoiceArtifactStats, VoiceVersion};
