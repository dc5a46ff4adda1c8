//! The text front end: a line of text in, Kokoro phoneme tokens out, in
//! chunks the model can take in one pass. English (US and GB) goes through
//! misaki-rs with espeak-ng (the program) for words outside its lexicon;
//! Spanish, French, Italian, Brazilian Portuguese and Hindi through
//! espeak-ng alone, as Kokoro's own pipeline does.

pub mod english;
pub mod espeak;
pub mod normalize;
pub mod pronounce;
pub mod sentences;
pub mod tokens;
pub mod word_errors;

pub use english::{EnglishPhonemizer, Accent};
pub use tokens::{PhonemeChunk, Tokenizer};
