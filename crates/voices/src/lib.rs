//! Voices: stock packs, blends, voices from reference recordings, and the voice library.
//!
//! Today this holds the reference-recording path: [`quality`] measures a
//! recording and rejects unusable ones, [`stock_embeddings`] keeps one
//! speaker embedding per stock voice (cached in the data folder), and
//! [`reference`] ranks the stock voices against a recording and blends the
//! closest into a [`reference::MatchedVoice`]. Matching picks and mixes
//! stock voices; it does not clone a speaker. [`fit`] goes further: it
//! searches Kokoro's style space for a fitted voice that sounds like the
//! recording (still not a clone: a style found by search).

pub mod encoding;
pub mod fit;
pub mod library;
pub mod quality;
pub mod reference;
pub mod stock_embeddings;

pub use reference::{MatchedVoice, VoiceMatch, VoiceMatcher};
pub use revoice_speech::voice_spec::{VoiceKind, VoiceSpec};
