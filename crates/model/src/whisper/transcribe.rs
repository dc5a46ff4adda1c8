//! A whole recording into timed text, window by window, as faster-whisper
//! 1.2.1's `WhisperModel.transcribe` runs with `beam_size=1,
//! temperature=0` (greedy, no sampling fallback): log-mel frames of the
//! whole recording; 30 s windows starting at `seek`; the prompt carries the
//! text decoded so far (`<|startofprev|>`, up to 223 tokens); a window the
//! model calls silent (no-speech probability over 0.6 and average
//! log-probability under -1) is skipped; segments are cut at consecutive
//! timestamp pairs and `seek` moves to the last complete one, so a sentence
//! cut by the window's end is decoded again in the next window. Words, when
//! asked for, are timed by cross-attention and cleaned up as faster-whisper
//! does (long words at sentence and pause boundaries, punctuation merged).

use serde::Serialize;

use super::mel::{log_mel, HOP, SAMPLE_RATE};
use super::tokens::TIME_PRECISION;
use super::{WhisperModel, WordTiming, WINDOW_FRAMES};
use revoice_core::error::{Error, Result};

/// What to transcribe with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TranscriptOptions {
    /// The spoken language ("en"); `None` detects it on the first window.
    pub language: Option<String>,
    /// Time every word.
    pub word_timestamps: bool,
    /// Text that comes before the recording (names, spelling), as a prompt.
    pub initial_prompt: Option<String>,
}

/// One timed word.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TranscriptWord {
    pub word: String,
    pub start: f64,
    pub end: f64,
    pub probability: f32,
}

/// One timed stretch of text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TranscriptSegment {
    pub start: f64,
    pub end: f64,
    pub text: String,
    #[serde(skip)]
    pub tokens: Vec<u32>,
    pub avg_logprob: f64,
    pub no_speech_prob: f32,
    pub words: Vec<TranscriptWord>,
}

/// A recording's transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transcript {
    pub language: String,
    pub language_probability: f32,
    /// Seconds of audio heard.
    pub duration: f64,
    pub segments: Vec<TranscriptSegment>,
}

impl Transcript {
    /// All segments' text, joined.
    pub fn text(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect::<String>().trim().to_string()
    }
}

const NO_SPEECH_THRESHOLD: f32 = 0.6;
const LOG_PROB_THRESHOLD: f64 = -1.0;
const MAX_INITIAL_TIMESTAMP: f64 = 1.0;
const FRAMES_PER_SECOND: f64 = (SAMPLE_RATE as usize / HOP) as f64;
/// Mel frames per encoder position.
const INPUT_STRIDE: usize = 2;

struct Piece {
    start: f64,
    end: f64,
    tokens: Vec<u32>,
    words: Vec<TranscriptWord>,
}

impl WhisperModel {
    /// Transcribes 16 kHz `samples`. `progress` hears the seconds done after
    /// each window and stops the work by returning false.
    pub fn transcribe(&self, samples: &[f32], options: &TranscriptOptions, progress: &mut dyn FnMut(f64) -> bool) -> Result<Transcript> {
        let mel = log_mel(samples, self.cfg.n_mels);
        let content_frames = mel.content_frames();
        let duration = samples.len() as f64 / SAMPLE_RATE as f64;
        let t = &self.tokens;
        let mut seek = 0usize;
        let mut all_tokens: Vec<u32> = Vec::new();
        if let Some(prompt) = options.initial_prompt.as_deref().filter(|p| !p.trim().is_empty()) {
            all_tokens.extend(t.encode(&format!(" {}", prompt.trim()))?);
        }
        let mut cached_first: Option<candle_core::Tensor> = None;
        let (language, language_probability) = match &options.language {
            Some(code) => (code.clone(), 1.0),
            None => {
                // Detection hears the first 30 s with the padding frame; the first
                // window hears content frames only, so it reuses this encoding only
                // when the two are the same frames.
                let first = self.encode(&mel.window(0, WINDOW_FRAMES, WINDOW_FRAMES))?;
                let detected = self.detect_language(&first)?;
                if content_frames >= WINDOW_FRAMES {
                    cached_first = Some(first);
                }
                detected
            }
        };
        let language_token = t.language(&language).ok_or_else(|| Error::invalid(format!("language {language}"), "Whisper does not know this language"))?;
        let max_initial = (MAX_INITIAL_TIMESTAMP / TIME_PRECISION).round() as u32;
        let mut segments = Vec::new();
        let mut last_speech_timestamp = 0.0;
        while seek < content_frames {
            let time_offset = seek as f64 / FRAMES_PER_SECOND;
            let segment_size = WINDOW_FRAMES.min(content_frames - seek);
            let segment_duration = segment_size as f64 / FRAMES_PER_SECOND;
            let audio = match (seek, cached_first.take()) {
                (0, Some(first)) => first,
                _ => self.encode(&mel.window(seek, segment_size, WINDOW_FRAMES))?,
            };
            let mut prompt = Vec::new();
            if !all_tokens.is_empty() {
                prompt.push(t.sot_prev);
                let keep = self.cfg.n_text_ctx / 2 - 1;
                prompt.extend_from_slice(&all_tokens[all_tokens.len().saturating_sub(keep)..]);
            }
            prompt.extend_from_slice(&t.sot_sequence(language_token));
            let result = self.generate(&audio, &prompt, max_initial)?;
            let avg_logprob = result.sum_logprob / (result.tokens.len() + 1) as f64;
            if result.no_speech_prob > NO_SPEECH_THRESHOLD && avg_logprob <= LOG_PROB_THRESHOLD {
                seek += segment_size;
                if !progress(seek.min(content_frames) as f64 / FRAMES_PER_SECOND) {
                    return Err(Error::Cancelled("transcription".into()));
                }
                continue;
            }
            let (mut pieces, next_seek, single_ending) =
                split_by_timestamps(&result.tokens, t.timestamp_begin, time_offset, segment_size, segment_duration, seek);
            seek = next_seek;
            if options.word_timestamps {
                last_speech_timestamp = self.time_words(&audio, language_token, &mut pieces, segment_size, time_offset, last_speech_timestamp)?;
                if !single_ending {
                    if let Some(end) = pieces.iter().rev().flat_map(|p| p.words.last()).next().map(|w| w.end) {
                        if end > time_offset {
                            seek = (end * FRAMES_PER_SECOND).round() as usize;
                        }
                    }
                }
            }
            for piece in pieces {
                let text = t.decode(&piece.tokens);
                if piece.start == piece.end || text.trim().is_empty() {
                    continue;
                }
                all_tokens.extend_from_slice(&piece.tokens);
                segments.push(TranscriptSegment {
                    start: piece.start,
                    end: piece.end,
                    text,
                    tokens: piece.tokens,
                    avg_logprob,
                    no_speech_prob: result.no_speech_prob,
                    words: piece.words,
                });
            }
            if !progress(seek.min(content_frames) as f64 / FRAMES_PER_SECOND) {
                return Err(Error::Cancelled("transcription".into()));
            }
        }
        Ok(Transcript { language, language_probability, duration, segments })
    }

    /// Times the words of one window's pieces and applies faster-whisper's
    /// clean-ups; returns the new end of speech.
    fn time_words(
        &self,
        audio: &candle_core::Tensor,
        language: u32,
        pieces: &mut [Piece],
        num_frames: usize,
        time_offset: f64,
        mut last_speech: f64,
    ) -> Result<f64> {
        let eot = self.tokens.eot;
        let per_piece: Vec<Vec<u32>> = pieces.iter().map(|p| p.tokens.iter().copied().filter(|&x| x < eot).collect()).collect();
        let text: Vec<u32> = per_piece.iter().flatten().copied().collect();
        let mut alignment = self.align(audio, language, &text, num_frames)?;
        let mut durations: Vec<f64> = alignment.iter().map(|w| w.end - w.start).filter(|d| *d != 0.0).collect();
        let median = if durations.is_empty() {
            0.0
        } else {
            durations.sort_by(f64::total_cmp);
            let n = durations.len();
            if n % 2 == 1 {
                durations[n / 2]
            } else {
                (durations[n / 2 - 1] + durations[n / 2]) / 2.0
            }
        };
        let median = median.min(0.7);
        let max_duration = median * 2.0;
        if !durations.is_empty() {
            const SENTENCE_END: &str = ".。!！?？";
            for i in 1..alignment.len() {
                if alignment[i].end - alignment[i].start > max_duration {
                    if SENTENCE_END.contains(alignment[i].word.as_str()) {
                        alignment[i].end = alignment[i].start + max_duration;
                    } else if SENTENCE_END.contains(alignment[i - 1].word.as_str()) {
                        alignment[i].start = alignment[i].end - max_duration;
                    }
                }
            }
        }
        merge_punctuations(&mut alignment, "\"'“¿([{-", "\"'.。,，!！?？:：”)]}、");
        let mut index = 0;
        for (piece, piece_text) in pieces.iter_mut().zip(&per_piece) {
            let mut saved = 0;
            let mut words = Vec::new();
            while index < alignment.len() && saved < piece_text.len() {
                let timing = &alignment[index];
                if !timing.word.is_empty() {
                    words.push(TranscriptWord {
                        word: timing.word.clone(),
                        start: round2(time_offset + timing.start),
                        end: round2(time_offset + timing.end),
                        probability: timing.probability,
                    });
                }
                saved += timing.tokens.len();
                index += 1;
            }
            if !words.is_empty() {
                if words[0].end - last_speech > median * 4.0
                    && (words[0].end - words[0].start > max_duration || (words.len() > 1 && words[1].end - words[0].start > max_duration * 2.0))
                {
                    if words.len() > 1 && words[1].end - words[1].start > max_duration {
                        let boundary = (words[1].end / 2.0).max(words[1].end - max_duration);
                        words[0].end = boundary;
                        words[1].start = boundary;
                    }
                    words[0].start = (words[0].end - max_duration).max(0.0);
                }
                if piece.start < words[0].end && piece.start - 0.5 > words[0].start {
                    words[0].start = (words[0].end - median).min(piece.start).max(0.0);
                } else {
                    piece.start = words[0].start;
                }
                let last = words.len() - 1;
                if piece.end > words[last].start && piece.end + 0.5 < words[last].end {
                    words[last].end = (words[last].start + median).max(piece.end);
                } else {
                    piece.end = words[last].end;
                }
                last_speech = piece.end;
            }
            piece.words = words;
        }
        Ok(last_speech)
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// faster-whisper's `merge_punctuations`: opening marks join the next word,
/// closing marks the previous one.
fn merge_punctuations(alignment: &mut [WordTiming], prepended: &str, appended: &str) {
    if alignment.len() >= 2 {
        let mut i = alignment.len() as isize - 2;
        let mut j = alignment.len() - 1;
        while i >= 0 {
            let iu = i as usize;
            let previous = &alignment[iu];
            if previous.word.starts_with(' ') && prepended.contains(previous.word.trim()) {
                let (word, tokens) = (previous.word.clone(), previous.tokens.clone());
                let following = &mut alignment[j];
                following.word = word + &following.word;
                following.tokens = [tokens, following.tokens.clone()].concat();
                alignment[iu].word.clear();
                alignment[iu].tokens.clear();
            } else {
                j = iu;
            }
            i -= 1;
        }
    }
    let (mut i, mut j) = (0usize, 1usize);
    while j < alignment.len() {
        if !alignment[i].word.ends_with(' ') && appended.contains(alignment[j].word.as_str()) {
            let (word, tokens) = (alignment[j].word.clone(), alignment[j].tokens.clone());
            alignment[i].word.push_str(&word);
            alignment[i].tokens.extend(tokens);
            alignment[j].word.clear();
            alignment[j].tokens.clear();
        } else {
            i = j;
        }
        j += 1;
    }
}

/// faster-whisper's `_split_segments_by_timestamps`: pieces between
/// consecutive timestamp tokens, and where the next window starts.
fn split_by_timestamps(tokens: &[u32], ts_begin: u32, time_offset: f64, segment_size: usize, segment_duration: f64, seek: usize) -> (Vec<Piece>, usize, bool) {
    let single_ending = tokens.len() >= 2 && tokens[tokens.len() - 2] < ts_begin && tokens[tokens.len() - 1] >= ts_begin;
    let consecutive: Vec<usize> = (1..tokens.len()).filter(|&i| tokens[i] >= ts_begin && tokens[i - 1] >= ts_begin).collect();
    let time = |tok: u32| (tok - ts_begin) as f64 * TIME_PRECISION;
    let mut pieces = Vec::new();
    let mut seek = seek;
    if !consecutive.is_empty() {
        let mut slices = consecutive.clone();
        if single_ending {
            slices.push(tokens.len());
        }
        let mut last = 0;
        for &cut in &slices {
            let sliced = &tokens[last..cut];
            let start = time_offset + sliced.first().map_or(0.0, |&t| if t >= ts_begin { time(t) } else { 0.0 });
            let end = time_offset + sliced.last().map_or(0.0, |&t| if t >= ts_begin { time(t) } else { 0.0 });
            pieces.push(Piece { start, end, tokens: sliced.to_vec(), words: Vec::new() });
            last = cut;
        }
        if single_ending {
            seek += segment_size;
        } else {
            let last_ts = tokens[last - 1];
            seek += (last_ts - ts_begin) as usize * INPUT_STRIDE;
        }
    } else {
        let mut duration = segment_duration;
        if let Some(&last_ts) = tokens.iter().rev().find(|&&t| t >= ts_begin) {
            if last_ts != ts_begin {
                duration = time(last_ts);
            }
        }
        pieces.push(Piece { start: time_offset, end: time_offset + duration, tokens: tokens.to_vec(), words: Vec::new() });
        seek += segment_size;
    }
    (pieces, seek, single_ending)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: u32 = 50364;

    #[test]
    fn pieces_are_cut_at_timestamp_pairs_and_the_next_window_starts_at_the_last_one() {
        // <0.00> a b <1.00><1.00> c <2.40> (no end): one piece, seek to 1.00 s.
        let tokens = [TS, 1, 2, TS + 50, TS + 50, 3, TS + 120, 4];
        let (pieces, seek, single) = split_by_timestamps(&tokens, TS, 0.0, 3000, 30.0, 0);
        assert!(!single);
        assert_eq!(pieces.len(), 1);
        assert_eq!((pieces[0].start, pieces[0].end), (0.0, 1.0));
        assert_eq!(seek, 100);
        // Ending on a lone timestamp: every piece kept and the whole window consumed.
        let tokens = [TS, 1, TS + 50, TS + 50, 3, TS + 120];
        let (pieces, seek, single) = split_by_timestamps(&tokens, TS, 10.0, 3000, 30.0, 1000);
        assert!(single);
        assert_eq!(pieces.len(), 2);
        assert!((pieces[1].end - 12.4).abs() < 1e-9);
        assert_eq!(seek, 4000);
    }

    #[test]
    fn text_without_timestamp_pairs_is_one_piece_to_its_last_timestamp() {
        let tokens = [TS, 1, 2, TS + 75];
        let (pieces, seek, _) = split_by_timestamps(&tokens, TS, 0.0, 800, 8.0, 0);
        assert_eq!(pieces.len(), 1);
        assert!((pieces[0].end - 1.5).abs() < 1e-9);
        assert_eq!(seek, 800);
    }

    #[test]
    fn punctuation_joins_its_word() {
        let w = |s: &str| WordTiming { word: s.into(), tokens: vec![1], start: 0.0, end: 0.0, probability: 1.0 };
        let mut a = vec![w(" \""), w("Hi"), w(","), w(" you"), w(".")];
        merge_punctuations(&mut a, "\"'“¿([{-", "\"'.。,，!！?？:：”)]}、");
        let words: Vec<&str> = a.iter().map(|w| w.word.as_str()).collect();
        assert_eq!(words, vec!["", " \"Hi,", "", " you.", ""]);
    }
}
