//! The text front end: a line of text in, Kokoro phoneme tokens out, in
//! chunks the model can take in one pass. English (US and GB) goes through
//! misaki-rs with espeak-ng (the program) for words outside its lexicon;
//! Spanish, French, Italian, Brazilian Portuguese and Hindi through
//! espeak-ng alone, as Kokoro's own pipeline does; Mandarin through its own
//! reader (`mandarin`: jieba words, dictionary tones, Kokoro's tone
//! arrows). Beside it, what a text says word by word in each language
//! (`spoken`), and how far what was heard is from what was written
//! (`word_errors`), for checking takes.
//! Japanese is read by its own reader too (`japanese`: MeCab's word cutting over unidic-lite, misaki's spelling).
//! Under it all, the one language table (`language`); beside it, subtitle
//! files in and out (`subtitles`).

pub mod english;
pub mod espeak;
pub mod japanese;
pub mod language;
pub mod mandarin;
pub mod normalize;
pub mod pronounce;
pub mod script;
pub mod sentences;
pub mod spoken;
pub mod subtitles;
pub mod tokens;
pub mod word_errors;

pub use english::{Accent, EnglishPhonemizer};
pub use tokens::{PhonemeChunk, Tokenizer};
