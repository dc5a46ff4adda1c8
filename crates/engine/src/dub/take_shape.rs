//! How a line's take is cut from what the model rendered: trimmed to its
//! speech, with a short lead-in before the first word and a short tail
//! after the last, and every silence between sentences made one sentence
//! pause. Kokoro leaves 0.15–0.4 s of silence before a sentence and up to
//! 0.7 s after it; left in, every line would start that late in its slot,
//! count that silence in its fit, and pause most of a second between its
//! sentences. A local take and a remote engine's answer are cut by the
//! same rule, from the line's audio as a whole. The same shape gives a
//! line's length before it renders, from its rows' spoken seconds.

use revoice_audio::levels::speech_runs;

/// Seconds of the take before its first word: enough for a soft onset,
/// under a video frame, so the speech starts within a frame of the slot.
pub const LEAD_IN: f64 = 0.02;
/// Seconds of the take after its last word: the release of the last sound.
pub const TAIL: f64 = 0.08;
/// Seconds between two sentences of one line: a longer silence inside a
/// take is made this long; shorter ones (a comma) stay as they are.
pub const SENTENCE_PAUSE: f64 = 0.3;
/// Seconds of fade at the take's two ends, so a cut never clicks.
const EDGE_FADE: f64 = 0.005;

fn samples_in(seconds: f64, sample_rate: u32) -> usize {
    (seconds * sample_rate as f64).round() as usize
}

/// A line's take from its audio as rendered (its rows one after another,
/// or a remote engine's answer): its stretches of speech, each after the
/// lead-in (the first) or a sentence pause (the rest), and the tail after
/// the last, with the audio's own quiet kept where it has some. A line
/// with no sound at all is a lead-in and a tail of silence.
pub fn shape_take(samples: &[f32], sample_rate: u32) -> Vec<f32> {
    let at = |seconds: f64| samples_in(seconds, sample_rate);
    let tail = at(TAIL);
    let runs = speech_runs(samples, sample_rate, SENTENCE_PAUSE);
    if runs.is_empty() {
        return vec![0.0; at(LEAD_IN) + tail];
    }
    let mut take = Vec::with_capacity(samples.len());
    let mut previous_end = 0;
    for (i, run) in runs.iter().enumerate() {
        let before = if i == 0 { at(LEAD_IN) } else { at(SENTENCE_PAUSE) - tail };
        // The quiet just before the speech is kept as far as there is some
        // after the previous stretch's release.
        let quiet = run.start - (previous_end + if i == 0 { 0 } else { tail }).min(run.start);
        let kept = before.min(quiet);
        take.resize(take.len() + before - kept, 0.0);
        take.extend_from_slice(&samples[run.start - kept..run.end]);
        let release = &samples[run.end..(run.end + tail).min(samples.len())];
        take.extend_from_slice(release);
        take.resize(take.len() + tail - release.len(), 0.0);
        previous_end = run.end;
    }
    let fade = at(EDGE_FADE).min(take.len());
    let n = take.len();
    take[..fade].iter_mut().enumerate().for_each(|(i, x)| *x *= i as f32 / fade as f32);
    take[n - fade..].iter_mut().enumerate().for_each(|(i, x)| *x *= 1.0 - (i + 1) as f32 / fade as f32);
    take
}

/// What to play of a line's row as it renders, before the whole take is
/// cut: the row cut to its speech as a take of its own, after the rest of
/// a sentence pause when rows were played before it.
pub fn preview_of_row(row: &[f32], sample_rate: u32, first: bool) -> Vec<f32> {
    let shaped = shape_take(row, sample_rate);
    if first {
        return shaped;
    }
    let mut out = vec![0.0; samples_in(SENTENCE_PAUSE - LEAD_IN - TAIL, sample_rate)];
    out.extend(shaped);
    out
}

/// Seconds a take lasts whose rows speak for `row_speech` seconds each
/// (their spoken seconds, as the model predicts them).
pub fn take_seconds(row_speech: &[f64]) -> f64 {
    let spoken: Vec<f64> = row_speech.iter().copied().filter(|&s| s > 0.0).collect();
    LEAD_IN + spoken.iter().sum::<f64>() + SENTENCE_PAUSE * spoken.len().saturating_sub(1) as f64 + TAIL
}

/// The seconds of speech a line of `rows` rows may take to last `seconds`
/// in all (what is left once the lead-in, the tail and the sentence
/// pauses are taken out; at least a frame).
pub fn speech_within(seconds: f64, rows: usize) -> f64 {
    (seconds - LEAD_IN - TAIL - SENTENCE_PAUSE * rows.saturating_sub(1) as f64).max(0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 1000;

    /// `silence` seconds, then `speech` seconds of a loud tone, then `after` seconds of silence.
    fn row(silence: f64, speech: f64, after: f64) -> Vec<f32> {
        let n = |s: f64| (s * RATE as f64).round() as usize;
        let mut r = vec![0.0; n(silence)];
        r.extend((0..n(speech)).map(|i| 0.5 * (i as f32 * 0.9).sin()));
        r.extend(vec![0.0; n(after)]);
        r
    }

    fn first_sound(samples: &[f32]) -> usize {
        samples.iter().position(|x| x.abs() > 1e-3).unwrap()
    }

    fn last_sound(samples: &[f32]) -> usize {
        samples.iter().rposition(|x| x.abs() > 1e-3).unwrap()
    }

    #[test]
    fn a_take_starts_its_speech_after_the_lead_in_and_ends_after_the_tail() {
        let take = shape_take(&row(0.4, 1.0, 0.6), RATE);
        assert!((take.len() as f64 / RATE as f64 - take_seconds(&[1.0])).abs() < 0.002, "{}", take.len());
        assert!(first_sound(&take).abs_diff((LEAD_IN * RATE as f64) as usize) <= 1, "{}", first_sound(&take));
        assert!(take[..first_sound(&take)].iter().all(|x| *x == 0.0));
        assert_eq!(preview_of_row(&row(0.4, 1.0, 0.6), RATE, true), take);
    }

    #[test]
    fn sentences_of_one_line_are_joined_by_the_sentence_pause_and_a_comma_stays() {
        let mut line = row(0.3, 0.5, 0.7);
        line.extend(row(0.2, 0.8, 0.0));
        line.extend(row(0.15, 0.4, 0.3));
        let take = shape_take(&line, RATE);
        // The second and third rows are one stretch: 0.15 s of silence is a comma.
        assert!((take.len() as f64 / RATE as f64 - take_seconds(&[0.5, 0.8 + 0.15 + 0.4])).abs() < 0.002, "{}", take.len());
        let first_end = last_sound(&take[..700]);
        let second_start = first_end + 1 + first_sound(&take[first_end + 1..]);
        assert!((second_start - first_end - 1).abs_diff((SENTENCE_PAUSE * RATE as f64) as usize) <= 1, "{first_end} {second_start}");
        // Played row by row, a preview has the same shape.
        let played: usize = [row(0.3, 0.5, 0.7), row(0.2, 0.8, 0.5)].iter().enumerate().map(|(i, r)| preview_of_row(r, RATE, i == 0).len()).sum();
        assert!((played as f64 / RATE as f64 - take_seconds(&[0.5, 0.8])).abs() < 0.002, "{played}");
    }

    #[test]
    fn a_take_and_its_16_bit_copy_are_cut_alike() {
        let line: Vec<f32> = row(0.3, 1.0, 0.4).iter().enumerate().map(|(i, x)| x + if i % 3 == 0 { 2e-4 } else { -1e-4 }).collect();
        let copy: Vec<f32> = line.iter().map(|x| (x * 32768.0).round() / 32768.0).collect();
        let (a, b) = (shape_take(&line, RATE), shape_take(&copy, RATE));
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 0.5 / 32768.0 + 1e-7));
    }

    #[test]
    fn a_line_without_sound_is_a_short_silence_and_room_is_shared_out() {
        let take = shape_take(&[0.0; 2000], RATE);
        assert!(take.iter().all(|x| *x == 0.0) && take.len() == 100);
        assert!((speech_within(3.0, 2) - (3.0 - LEAD_IN - TAIL - SENTENCE_PAUSE)).abs() < 1e-9);
        assert_eq!(speech_within(0.1, 3), 0.05);
    }
}
