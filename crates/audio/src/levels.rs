//! Speech and pause by loudness: the RMS level of each 10 ms frame of a
//! recording, measured once, and what follows from it: where the sound of
//! a stretch of time starts and ends, where the pauses between words
//! are (the places a line can be cut without cutting a word), and where a
//! take's speech begins and ends inside the silence around it.

/// Frames a second.
pub const FRAMES_PER_SECOND: f64 = 100.0;

/// Frames quieter than this fraction of the loudest frame (26 dB under it)
/// are silence.
const QUIET_FRACTION: f32 = 0.05;

/// Frames quieter than this fraction of the loudest frame (50 dB under it)
/// are the silence around speech: low enough that a soft onset ("h", "f")
/// or a breathy release counts as speech.
const EDGE_QUIET_FRACTION: f32 = 0.003;

/// Which 10 ms frames of `samples` hold speech (louder than 50 dB under
/// the loudest), with the frame's length in samples. Measured on the
/// samples as 16-bit PCM holds them, so audio and its 16-bit copy (a
/// remote engine's answer) are judged frame for frame alike.
fn speech_frames(samples: &[f32], sample_rate: u32) -> (usize, Vec<bool>) {
    let frame = (sample_rate as usize / 100).max(1);
    let as_16_bit = |x: f32| (x as f64 * 32768.0).round().clamp(-32768.0, 32767.0) / 32768.0;
    let rms: Vec<f64> = samples.chunks(frame).map(|c| (c.iter().map(|&x| as_16_bit(x).powi(2)).sum::<f64>() / c.len() as f64).sqrt()).collect();
    let loudest = rms.iter().copied().fold(0.0f64, f64::max);
    (frame, rms.iter().map(|&r| loudest > 0.0 && r > loudest * EDGE_QUIET_FRACTION as f64).collect())
}

/// Where the speech in `samples` begins and ends, as a sample range: from
/// the first 10 ms frame louder than 50 dB under the loudest to the end of
/// the last such frame. `None` when nothing is that loud (silence, or no
/// signal).
pub fn speech_edges(samples: &[f32], sample_rate: u32) -> Option<std::ops::Range<usize>> {
    let runs = speech_runs(samples, sample_rate, f64::INFINITY);
    Some(runs.first()?.start..runs.last()?.end)
}

/// The stretches of speech in `samples` (frames as [`speech_edges`]
/// judges them), as sample ranges, split where a silence lasts at least
/// `min_gap_seconds`; shorter silences stay inside a stretch.
pub fn speech_runs(samples: &[f32], sample_rate: u32, min_gap_seconds: f64) -> Vec<std::ops::Range<usize>> {
    let (frame, loud) = speech_frames(samples, sample_rate);
    let min_gap = (min_gap_seconds * FRAMES_PER_SECOND).ceil().max(1.0);
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, _) in loud.iter().enumerate().filter(|(_, l)| **l) {
        let (from, to) = (i * frame, ((i + 1) * frame).min(samples.len()));
        match runs.last_mut() {
            Some(run) if ((from - run.end) / frame) < min_gap as usize => run.end = to,
            _ => runs.push(from..to),
        }
    }
    runs
}

/// The RMS level of every 10 ms frame of a signal (the last partial frame
/// dropped).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameLevels {
    rms: Vec<f32>,
    threshold: f32,
}

impl FrameLevels {
    /// Measures `samples` at `sample_rate`.
    pub fn of(samples: &[f32], sample_rate: u32) -> FrameLevels {
        let frame = (sample_rate as usize / 100).max(1);
        let rms: Vec<f32> = samples.chunks_exact(frame).map(|c| (c.iter().map(|x| x * x).sum::<f32>() / frame as f32).sqrt()).collect();
        let loudest = rms.iter().copied().fold(0.0f32, f32::max);
        FrameLevels { rms, threshold: loudest * QUIET_FRACTION }
    }

    /// How many frames were measured.
    pub fn len(&self) -> usize {
        self.rms.len()
    }

    /// Whether there are no frames (less than 10 ms of signal).
    pub fn is_empty(&self) -> bool {
        self.rms.is_empty()
    }

    /// Whether frame `i` holds sound (louder than 26 dB under the loudest frame).
    pub fn is_sound(&self, i: usize) -> bool {
        self.rms.get(i).is_some_and(|&r| r > self.threshold)
    }

    /// The first and last frame with sound in `[start, end)` seconds, as
    /// frame indices, or `None` when it is all silence.
    pub fn sound_between(&self, start: f64, end: f64) -> Option<(usize, usize)> {
        let first = ((start * FRAMES_PER_SECOND) as usize).min(self.len());
        let last = ((end * FRAMES_PER_SECOND).ceil() as usize).min(self.len());
        let onset = (first..last).find(|&i| self.is_sound(i))?;
        let offset = (first..last).rev().find(|&i| self.is_sound(i)).unwrap_or(onset);
        Some((onset, offset))
    }

    /// The silent stretches inside the sound, as `(start, end)` seconds:
    /// runs of at least `min_seconds` of silence with sound on both sides
    /// (the silence before the first and after the last sound is not a pause).
    pub fn pauses(&self, min_seconds: f64) -> Vec<(f64, f64)> {
        let min_frames = (min_seconds * FRAMES_PER_SECOND).ceil().max(1.0) as usize;
        let mut pauses = Vec::new();
        let mut quiet_from: Option<usize> = None;
        let mut heard_sound = false;
        for i in 0..self.len() {
            if self.is_sound(i) {
                if let Some(from) = quiet_from.take() {
                    if heard_sound && i - from >= min_frames {
                        pauses.push((from as f64 / FRAMES_PER_SECOND, i as f64 / FRAMES_PER_SECOND));
                    }
                }
                heard_sound = true;
            } else if quiet_from.is_none() {
                quiet_from = Some(i);
            }
        }
        pauses
    }

    /// Whether `[start, end)` seconds is all silence (time past the end
    /// of the signal counts as silence).
    pub fn is_silent_between(&self, start: f64, end: f64) -> bool {
        let first = (start.max(0.0) * FRAMES_PER_SECOND).floor() as usize;
        let last = (end.max(0.0) * FRAMES_PER_SECOND).ceil() as usize;
        (first..last.min(self.len())).all(|i| !self.is_sound(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 kHz sample rate: `pattern` of (seconds, loud) stretches.
    fn signal(pattern: &[(f64, bool)]) -> Vec<f32> {
        pattern.iter().flat_map(|&(s, loud)| (0..(s * 1000.0) as usize).map(move |i| if loud { (i as f32 * 0.7).sin() * 0.5 } else { 0.0 })).collect()
    }

    #[test]
    fn pauses_are_the_silences_between_sounds_long_enough() {
        let s = signal(&[(0.2, false), (0.5, true), (0.15, false), (0.4, true), (0.03, false), (0.3, true), (0.4, false)]);
        let levels = FrameLevels::of(&s, 1000);
        assert_eq!(levels.len(), 198);
        let pauses = levels.pauses(0.08);
        assert_eq!(pauses.len(), 1, "{pauses:?}");
        assert!((pauses[0].0 - 0.7).abs() < 0.011 && (pauses[0].1 - 0.85).abs() < 0.011, "{pauses:?}");
        assert_eq!(levels.pauses(0.02).len(), 2);
    }

    #[test]
    fn sound_is_found_between_times_and_silence_is_silence() {
        let s = signal(&[(0.3, false), (0.5, true), (0.2, false)]);
        let levels = FrameLevels::of(&s, 1000);
        assert_eq!(levels.sound_between(0.0, 1.0), Some((30, 79)));
        assert_eq!(levels.sound_between(0.85, 1.0), None);
        assert!(levels.is_silent_between(0.82, 1.5));
        assert!(!levels.is_silent_between(0.7, 0.9));
        assert!(FrameLevels::of(&[0.0; 5], 1000).is_empty());
    }

    #[test]
    fn speech_edges_take_in_quiet_onsets_and_leave_the_silence_around() {
        // 0.3 s silence, a soft onset 40 dB down, the loud part, 0.2 s silence.
        let mut s = signal(&[(0.3, false)]);
        s.extend((0..100).map(|i| (i as f32 * 0.7).sin() * 0.005));
        s.extend(signal(&[(0.4, true), (0.2, false)]));
        assert_eq!(speech_edges(&s, 1000), Some(300..800));
        // Noise 60 dB down is still silence.
        let hiss: Vec<f32> = s.iter().enumerate().map(|(i, x)| x + if i % 2 == 0 { 0.0005 } else { -0.0005 }).collect();
        assert_eq!(speech_edges(&hiss, 1000), Some(300..800));
        assert_eq!(speech_edges(&[0.0; 500], 1000), None);
        assert_eq!(speech_edges(&[], 1000), None);
    }

    #[test]
    fn speech_runs_split_at_silences_as_long_as_asked() {
        let s = signal(&[(0.2, false), (0.5, true), (0.15, false), (0.4, true), (0.4, false), (0.3, true), (0.1, false)]);
        assert_eq!(speech_runs(&s, 1000, 0.3), vec![200..1250, 1650..1950]);
        assert_eq!(speech_runs(&s, 1000, 0.1), vec![200..700, 850..1250, 1650..1950]);
        assert_eq!(speech_runs(&s, 1000, f64::INFINITY), vec![200..1950]);
    }
}
