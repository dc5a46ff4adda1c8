//! How a voice sits: its pitch (McLeod pitch method, from the
//! `pitch-detection` crate, over 40 ms frames) and how widely it moves, how
//! much of it is voiced, how loud its speech is and how much of the time is
//! speech rather than pause. Fitting a voice reads these to tell speech
//! from noise that merely scores well with a speaker encoder, and the voice
//! fit's bench to compare a voice's register, range and pace with a
//! recording's.

use pitch_detection::detector::mcleod::McLeodDetector;
use pitch_detection::detector::PitchDetector;

/// Lowest and highest pitch taken as a human voice, in Hz.
pub const VOICE_PITCH_HZ: (f32, f32) = (50.0, 500.0);

/// A voice's statistics over a stretch of audio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoiceStats {
    /// Median pitch of the voiced frames, in Hz (0 when none are voiced).
    pub median_pitch_hz: f32,
    /// How widely the pitch moves: the span from the 10th to the 90th
    /// percentile of the voiced frames, in semitones (0 when none are).
    pub pitch_range_semitones: f32,
    /// Fraction of the loud frames that are voiced with a clear pitch.
    pub voiced_fraction: f32,
    /// RMS of the loud frames, in dBFS.
    pub speech_rms_dbfs: f32,
    /// Seconds of audio measured.
    pub seconds: f32,
    /// Seconds of it that are speech (loud frames), the rest being pauses.
    pub speech_seconds: f32,
}

/// Frames quieter than this (dBFS) are pauses, not speech.
const SILENCE_DBFS: f32 = -45.0;
/// A frame's pitch counts when the detector's clarity reaches this.
const CLARITY: f32 = 0.6;

fn dbfs(rms: f32) -> f32 {
    20.0 * rms.max(1e-9).log10()
}

/// Measures mono `samples` at `sample_rate`.
pub fn voice_stats(samples: &[f32], sample_rate: u32) -> VoiceStats {
    let size = (sample_rate as usize * 40 / 1000).next_power_of_two();
    let hop = size / 2;
    let mut detector = McLeodDetector::new(size, size / 2);
    let (mut pitches, mut loud, mut energy) = (Vec::new(), 0usize, 0.0f64);
    let mut start = 0;
    while start + size <= samples.len() {
        let frame = &samples[start..start + size];
        start += hop;
        let mean_square = frame.iter().map(|s| (*s as f64).powi(2)).sum::<f64>() / size as f64;
        if dbfs(mean_square.sqrt() as f32) < SILENCE_DBFS {
            continue;
        }
        loud += 1;
        energy += mean_square;
        let frame64: Vec<f64> = frame.iter().map(|&s| s as f64).collect();
        if let Some(pitch) = detector.get_pitch(&frame64, sample_rate as usize, 0.0, CLARITY as f64) {
            let hz = pitch.frequency as f32;
            if (VOICE_PITCH_HZ.0..=VOICE_PITCH_HZ.1).contains(&hz) {
                pitches.push(hz);
            }
        }
    }
    pitches.sort_by(f32::total_cmp);
    let percentile = |p: usize| pitches.get(pitches.len() * p / 100).copied();
    VoiceStats {
        median_pitch_hz: percentile(50).unwrap_or(0.0),
        pitch_range_semitones: percentile(10).zip(percentile(90)).map_or(0.0, |(low, high)| 12.0 * (high / low).log2()),
        voiced_fraction: if loud == 0 { 0.0 } else { pitches.len() as f32 / loud as f32 },
        speech_rms_dbfs: if loud == 0 { dbfs(0.0) } else { dbfs((energy / loud as f64).sqrt() as f32) },
        seconds: samples.len() as f32 / sample_rate as f32,
        speech_seconds: (loud * hop) as f32 / sample_rate as f32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f32, seconds: f32, rate: u32) -> Vec<f32> {
        (0..(seconds * rate as f32) as usize).map(|i| 0.3 * (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin()).collect()
    }

    #[test]
    fn a_voiced_tone_has_its_pitch_and_is_all_voiced() {
        // A buzz with harmonics, like a vowel.
        let rate = 24_000;
        let base = tone(140.0, 1.0, rate);
        let buzz: Vec<f32> = base.iter().zip(tone(280.0, 1.0, rate)).zip(tone(420.0, 1.0, rate)).map(|((a, b), c)| a + 0.5 * b + 0.25 * c).collect();
        let stats = voice_stats(&buzz, rate);
        assert!((stats.median_pitch_hz - 140.0).abs() < 5.0, "{stats:?}");
        assert!(stats.voiced_fraction > 0.9, "{stats:?}");
        assert!((stats.seconds - 1.0).abs() < 1e-3);
        assert!(stats.pitch_range_semitones < 0.5, "a steady tone has no range: {stats:?}");
        assert!((stats.speech_seconds - 1.0).abs() < 0.1, "{stats:?}");
    }

    #[test]
    fn a_gliding_voice_has_its_range_and_pauses_are_not_speech() {
        // A buzz gliding from 100 to 200 Hz over a second (an octave), then a second of silence.
        let rate = 24_000;
        let mut phase = 0.0f32;
        let mut glide: Vec<f32> = (0..rate)
            .map(|i| {
                let hz = 100.0 * 2f32.powf(i as f32 / rate as f32);
                phase += 2.0 * std::f32::consts::PI * hz / rate as f32;
                0.3 * phase.sin() + 0.15 * (2.0 * phase).sin()
            })
            .collect();
        glide.extend(vec![0.0; rate as usize]);
        let stats = voice_stats(&glide, rate);
        // The 10th to 90th percentile of an even glide over 12 semitones spans about 9.6.
        assert!((stats.pitch_range_semitones - 9.6).abs() < 1.5, "{stats:?}");
        assert!((stats.seconds - 2.0).abs() < 1e-3);
        assert!((stats.speech_seconds - 1.0).abs() < 0.1, "half of it is a pause: {stats:?}");
    }

    #[test]
    fn noise_is_loud_but_not_voiced_and_silence_is_neither() {
        let rate = 24_000;
        let mut state = 12345u32;
        let noise: Vec<f32> = (0..rate)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                ((state >> 16) as f32 / 32768.0 - 1.0) * 0.3
            })
            .collect();
        let stats = voice_stats(&noise, rate);
        assert!(stats.voiced_fraction < 0.2 && stats.speech_rms_dbfs > -20.0, "{stats:?}");
        let silent = voice_stats(&vec![0.0; rate as usize], rate);
        assert_eq!((silent.voiced_fraction, silent.median_pitch_hz), (0.0, 0.0));
    }
}
