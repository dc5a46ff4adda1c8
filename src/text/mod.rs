//! The text front end: a line of text in, Kokoro phoneme tokens out, in
//! chunks the model can take in one pass. English (US and GB) goes through
//! misaki-rs with espeak-ng (the program) for words outside its lexicon.

pub mod english;
pub mod normalize;
pub mod sentences;
pub mod tokens;

pub use english::{EnglishPhonemizer, Accent};
pub use tokens::{PhonemeChunk, Tokenizer};
