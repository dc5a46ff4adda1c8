//! Judging a take: a rendered row that is silent, or far too long or too
//! short for its phonemes, is a bad take worth another try on a fresh seed.

use revoice_model::speech::{RowAudio, SpeechRow};

/// Seconds per phoneme at speed 1 below which a take is too short. Kokoro
/// speaks about 0.07–0.09 s per phoneme (pads and punctuation included).
const SHORTEST_PER_PHONEME: f32 = 0.02;
/// Seconds per phoneme at speed 1 above which a take is too long.
const LONGEST_PER_PHONEME: f32 = 0.5;
/// RMS level (linear) below which a take counts as silent: −60 dBFS.
const SILENT_RMS: f32 = 1e-3;

/// Why a take was rejected.
#[derive(Debug, Clone, PartialEq)]
pub enum BadTake {
    Silent,
    TooShort { seconds: f32, shortest: f32 },
    TooLong { seconds: f32, longest: f32 },
}

/// `None` for a usable take. Rows with a target length are judged by
/// level only: their length is what the caller asked for.
pub fn judge(row: &SpeechRow, audio: &RowAudio) -> Option<BadTake> {
    let n = audio.samples.len().max(1) as f32;
    let rms = (audio.samples.iter().map(|s| s * s).sum::<f32>() / n).sqrt();
    if rms < SILENT_RMS {
        return Some(BadTake::Silent);
    }
    if row.target_seconds.is_some() {
        return None;
    }
    let phonemes = row.tokens.len().saturating_sub(2).max(1) as f32;
    let seconds = audio.samples.len() as f32 / audio.sample_rate.max(1) as f32;
    let speed = row.speed.max(0.05);
    let (shortest, longest) = (phonemes * SHORTEST_PER_PHONEME / speed, phonemes * LONGEST_PER_PHONEME / speed);
    if seconds < shortest {
        Some(BadTake::TooShort { seconds, shortest })
    } else if seconds > longest {
        Some(BadTake::TooLong { seconds, longest })
    } else {
        None
    }
}

/// The seed for the `attempt`-th retry of a row first seeded with `seed`
/// (splitmix64: nearby inputs give unrelated seeds).
pub fn fresh_seed(seed: Option<u64>, attempt: u32) -> u64 {
    let mut z = seed.unwrap_or(0x5EED_0F7A_4E00).wrapping_add((attempt as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(phonemes: usize) -> SpeechRow {
        SpeechRow { tokens: vec![0; phonemes + 2], style: vec![], speed: 1.0, seed: None, target_seconds: None, tone: None, pitch_semitones: 0.0 }
    }

    fn audio(seconds: f32, level: f32) -> RowAudio {
        RowAudio { samples: vec![level; (seconds * 24_000.0) as usize], sample_rate: 24_000, token_seconds: vec![], speed: 1.0 }
    }

    #[test]
    fn a_take_of_plausible_length_and_level_is_good() {
        assert_eq!(judge(&row(40), &audio(3.2, 0.1)), None);
    }

    #[test]
    fn silent_far_too_short_and_far_too_long_takes_are_bad() {
        assert_eq!(judge(&row(40), &audio(3.2, 0.0)), Some(BadTake::Silent));
        assert!(matches!(judge(&row(40), &audio(0.3, 0.1)), Some(BadTake::TooShort { .. })));
        assert!(matches!(judge(&row(40), &audio(30.0, 0.1)), Some(BadTake::TooLong { .. })));
    }

    #[test]
    fn a_row_with_a_target_length_is_judged_by_level_only() {
        let mut r = row(40);
        r.target_seconds = Some(30.0);
        assert_eq!(judge(&r, &audio(30.0, 0.1)), None);
    }

    #[test]
    fn retry_seeds_differ_from_each_other_and_repeat_for_the_same_attempt() {
        let seeds: Vec<u64> = (1..5).map(|a| fresh_seed(Some(7), a)).collect();
        assert_eq!(seeds, (1..5).map(|a| fresh_seed(Some(7), a)).collect::<Vec<_>>());
        for i in 0..seeds.len() {
            for j in i + 1..seeds.len() {
                assert_ne!(seeds[i], seeds[j]);
            }
        }
    }
}
