//! Whisper's tokenizer (`tokenizer.json`, byte-level BPE, read by the
//! `tokenizers` crate) and its special tokens: the start-of-transcript
//! sequence, the language and task tokens, timestamps (one per 20 ms from
//! `<|0.00|>`), and the split of text tokens into words that word timing
//! aligns.

use std::path::Path;

use revoice_core::error::{Error, Result};

/// The tokenizer and the ids of its special tokens.
pub struct WhisperTokens {
    tokenizer: tokenizers::Tokenizer,
    pub eot: u32,
    pub sot: u32,
    pub sot_prev: u32,
    pub transcribe: u32,
    pub no_speech: u32,
    pub no_timestamps: u32,
    /// `<|0.00|>`; every later id is 20 ms more.
    pub timestamp_begin: u32,
    /// `(code, id)` for every language token, in the model's order.
    pub languages: Vec<(String, u32)>,
}

const ASCII_PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// Seconds per timestamp step.
pub const TIME_PRECISION: f64 = 0.02;

impl WhisperTokens {
    /// Loads `tokenizer.json`; `lang_ids` are the model's language tokens.
    pub fn load(path: &Path, lang_ids: &[u32]) -> Result<WhisperTokens> {
        let tokenizer =
            tokenizers::Tokenizer::from_file(path).map_err(|e| Error::invalid(path.display().to_string(), format!("not a Whisper tokenizer: {e}")))?;
        let id = |token: &str| tokenizer.token_to_id(token).ok_or_else(|| Error::invalid(path.display().to_string(), format!("has no {token} token")));
        let no_speech = id("<|nospeech|>").or_else(|_| id("<|nocaptions|>"))?;
        let languages =
            lang_ids.iter().filter_map(|&i| tokenizer.id_to_token(i).map(|t| (t.trim_start_matches("<|").trim_end_matches("|>").to_string(), i))).collect();
        Ok(WhisperTokens {
            eot: id("<|endoftext|>")?,
            sot: id("<|startoftranscript|>")?,
            sot_prev: id("<|startofprev|>")?,
            transcribe: id("<|transcribe|>")?,
            no_speech,
            no_timestamps: id("<|notimestamps|>")?,
            timestamp_begin: id("<|notimestamps|>")? + 1,
            languages,
            tokenizer,
        })
    }

    /// The language token of `code` ("en", "es"), if the model knows it.
    pub fn language(&self, code: &str) -> Option<u32> {
        self.languages.iter().find(|(c, _)| c == code).map(|(_, id)| *id)
    }

    /// `<|startoftranscript|> <|lang|> <|transcribe|>`.
    pub fn sot_sequence(&self, language: u32) -> [u32; 3] {
        [self.sot, language, self.transcribe]
    }

    /// Text of `tokens`, timestamps and other special tokens left out.
    pub fn decode(&self, tokens: &[u32]) -> String {
        let text: Vec<u32> = tokens.iter().copied().filter(|&t| t < self.eot).collect();
        self.tokenizer.decode(&text, false).unwrap_or_default()
    }

    /// Tokens of `text` (no special tokens added).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self.tokenizer.encode(text, false).map_err(|e| Error::invalid("text", format!("cannot tokenize: {e}")))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// Splits text tokens (and a trailing end of text) into words, as
    /// faster-whisper does for languages written with spaces: a word starts
    /// at a token run that decodes with a leading space, at punctuation and
    /// at special tokens. Runs end where the bytes decode to whole characters.
    pub fn split_words(&self, tokens: &[u32]) -> (Vec<String>, Vec<Vec<u32>>) {
        let mut pieces: Vec<(String, Vec<u32>)> = Vec::new();
        let mut current = Vec::new();
        for &t in tokens {
            current.push(t);
            let text = if current[0] >= self.eot { String::new() } else { self.tokenizer.decode(&current, false).unwrap_or_default() };
            if !text.contains('\u{fffd}') {
                pieces.push((text, std::mem::take(&mut current)));
            }
        }
        if !current.is_empty() {
            pieces.push((self.tokenizer.decode(&current, false).unwrap_or_default(), current));
        }
        let mut words: Vec<String> = Vec::new();
        let mut word_tokens: Vec<Vec<u32>> = Vec::new();
        for (piece, toks) in pieces {
            let special = toks[0] >= self.eot;
            let with_space = piece.starts_with(' ');
            // Python's `piece.strip() in string.punctuation`: a substring test.
            let punctuation = ASCII_PUNCTUATION.contains(piece.trim());
            if special || with_space || punctuation || words.is_empty() {
                words.push(piece);
                word_tokens.push(toks);
            } else {
                words.last_mut().expect("a word").push_str(&piece);
                word_tokens.last_mut().expect("a word").extend(toks);
            }
        }
        (words, word_tokens)
    }
}
