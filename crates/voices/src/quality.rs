//! How usable a reference recording is: its length, how much of it is
//! speech, peak and RMS level, clipping, noise floor and signal-to-noise
//! ratio, plus plain-language warnings. Any recording with samples in it
//! gets a report, as a cloning server accepts any decodable reference and
//! says what it thinks of it: one that is silent, holds no speech or under
//! [`MIN_SPEECH_SECONDS`] of it is matched all the same, and its warnings
//! say the match is a guess. Only an empty recording is an error.

use serde::{Deserialize, Serialize};

use revoice_core::error::{Error, Result};
use revoice_model::speaker::preprocess::{rms_dbfs, voiced_windows, VAD_WINDOW};

/// Less speech than this, and a match is little better than a guess.
pub const MIN_SPEECH_SECONDS: f64 = 1.5;
/// A sample at or above this magnitude counts as clipped.
pub const CLIP_LEVEL: f32 = 0.999;
/// Peaks below this are silence.
pub const SILENCE_DBFS: f64 = -60.0;

/// The measurements of one recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct QualityReport {
    /// Length of the recording.
    pub seconds: f64,
    /// Time marked as speech by the voice-activity detector (30 ms windows).
    pub speech_seconds: f64,
    /// Largest sample magnitude, dBFS.
    pub peak_dbfs: f64,
    /// RMS level of the whole recording, dBFS.
    pub rms_dbfs: f64,
    /// Share of samples at full scale (|x| ≥ 0.999).
    pub clipped_fraction: f64,
    /// Level of the quietest 10 % of 30 ms windows, dBFS.
    pub noise_floor_dbfs: f64,
    /// RMS level of the speech windows over the noise floor, dB.
    pub snr_db: f64,
    /// Things that make the match less reliable, in words.
    pub warnings: Vec<String>,
}

fn db(power: f64) -> f64 {
    10.0 * power.max(1e-12).log10()
}

/// Measures `samples16k` (mono, 16 kHz: the encoder's view) and `original`
/// (the decoded samples, for peak and clipping). `source` names the
/// recording in errors.
pub fn measure(original: &[f32], samples16k: &[f32], source: &str) -> Result<QualityReport> {
    let reject = |reason: String| Error::InvalidInput { input: source.to_string(), reason };
    let seconds = samples16k.len() as f64 / 16_000.0;
    let peak = original.iter().fold(0f32, |m, v| m.max(v.abs()));
    let peak_dbfs = 20.0 * (peak as f64).max(1e-6).log10();
    if original.is_empty() || samples16k.is_empty() {
        return Err(reject("holds no audio: there is nothing to match".into()));
    }
    let mut warnings = Vec::new();
    let voiced = voiced_windows(samples16k);
    let powers: Vec<f64> = samples16k.chunks_exact(VAD_WINDOW).map(|w| w.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / w.len() as f64).collect();
    let speech: Vec<f64> = powers.iter().zip(&voiced).filter(|(_, &v)| v).map(|(p, _)| *p).collect();
    let speech_seconds = speech.len() as f64 * VAD_WINDOW as f64 / 16_000.0;
    if peak_dbfs < SILENCE_DBFS {
        warnings.push(format!("silent: the peak is {peak_dbfs:.0} dBFS over {seconds:.1} s; the match is a guess: record the voice again"));
    } else if speech.is_empty() {
        warnings.push(format!("no speech found in {seconds:.1} s of audio; the match is a guess: record the voice again"));
    } else if speech_seconds < MIN_SPEECH_SECONDS {
        warnings.push(format!(
            "very short: only {speech_seconds:.1} s of speech; under {MIN_SPEECH_SECONDS} s a match is little better than a guess (5 to 30 s works best)"
        ));
    } else if speech_seconds < 5.0 {
        warnings.push(format!("short: {speech_seconds:.1} s of speech; matches are steadier with 5 to 30 s"));
    }
    let mut sorted = powers.clone();
    sorted.sort_by(f64::total_cmp);
    let noise_floor_dbfs = sorted.get(sorted.len() / 10).map_or(-120.0, |&p| db(p));
    let speech_dbfs = if speech.is_empty() { noise_floor_dbfs } else { db(speech.iter().sum::<f64>() / speech.len() as f64) };
    let snr_db = (speech_dbfs - noise_floor_dbfs).min(120.0);
    let clipped = original.iter().filter(|v| v.abs() >= CLIP_LEVEL).count();
    let clipped_fraction = clipped as f64 / original.len().max(1) as f64;
    let level = rms_dbfs(original);

    if clipped_fraction > 0.001 {
        warnings.push(format!("clipped: {:.2} % of samples are at full scale; record with less gain", clipped_fraction * 100.0));
    }
    if snr_db < 15.0 && !speech.is_empty() {
        warnings.push(format!("noisy: speech is only {snr_db:.0} dB above the background; record somewhere quieter"));
    }
    if level < -40.0 && peak_dbfs >= SILENCE_DBFS {
        warnings.push(format!("quiet: the recording's level is {level:.0} dBFS; it is raised before matching, noise and all"));
    }
    Ok(QualityReport { seconds, speech_seconds, peak_dbfs, rms_dbfs: level.max(-120.0), clipped_fraction, noise_floor_dbfs, snr_db, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seconds` of a 200 Hz "voice" switching on and off every 0.5 s, over `noise` white noise.
    fn speechlike(seconds: f64, amplitude: f32, noise: f32) -> Vec<f32> {
        let mut state = 12345u32;
        (0..(seconds * 16_000.0) as usize)
            .map(|n| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let hiss = noise * ((state >> 8) as f32 / (1u32 << 24) as f32 - 0.5);
                let on = (n / 8000) % 2 == 0;
                let voice = if on { amplitude * (n as f32 * 2.0 * std::f32::consts::PI * 200.0 / 16_000.0).sin() } else { 0.0 };
                voice + hiss
            })
            .collect()
    }

    #[test]
    fn a_clean_recording_reports_its_levels_and_speech_time() {
        let wav = speechlike(12.0, 0.3, 0.002);
        let q = measure(&wav, &wav, "clean.wav").unwrap();
        assert!((q.seconds - 12.0).abs() < 1e-9);
        // Windows straddling an on/off edge count as speech: up to 30 ms per edge.
        assert!(q.speech_seconds >= 6.0 && q.speech_seconds < 6.0 + 24.0 * 0.03, "{q:?}");
        assert!((q.peak_dbfs - 20.0 * 0.3f64.log10()).abs() < 0.5, "{q:?}");
        assert!(q.snr_db > 30.0 && q.clipped_fraction == 0.0, "{q:?}");
        assert!(q.warnings.is_empty(), "{:?}", q.warnings);
    }

    #[test]
    fn a_silent_recording_is_taken_with_a_warning_that_says_silent_and_an_empty_one_is_refused() {
        let q = measure(&[0.0; 48_000], &[0.0; 16_000], "mute.wav").unwrap();
        assert!(q.warnings.len() == 1 && q.warnings[0].starts_with("silent") && q.warnings[0].contains("a guess"), "{:?}", q.warnings);
        let err = measure(&[], &[], "empty.wav").unwrap_err().to_string();
        assert!(err.contains("empty.wav") && err.contains("no audio"), "{err}");
    }

    #[test]
    fn under_one_and_a_half_seconds_of_speech_is_taken_with_a_warning() {
        let wav = speechlike(2.0, 0.3, 0.0);
        let q = measure(&wav, &wav, "short.wav").unwrap();
        assert!(q.warnings.iter().any(|w| w.starts_with("very short") && w.contains("1.0 s of speech") && w.contains("1.5 s")), "{:?}", q.warnings);
        let noise: Vec<f32> = (0..32_000).map(|n| 0.01 * ((n * 7919 % 1000) as f32 / 1000.0 - 0.5)).collect();
        let q = measure(&noise, &noise, "hiss.wav").unwrap();
        assert!(q.warnings.iter().any(|w| w.starts_with("no speech found")), "{:?}", q.warnings);
    }

    #[test]
    fn clipping_and_noise_are_warned_about() {
        let mut wav = speechlike(10.0, 0.3, 0.2);
        wav.iter_mut().take(2000).for_each(|v| *v = 1.0);
        let q = measure(&wav, &wav, "rough.wav").unwrap();
        assert!(q.warnings.iter().any(|w| w.starts_with("clipped")), "{:?}", q.warnings);
        assert!(q.warnings.iter().any(|w| w.starts_with("noisy")), "{:?}", q.warnings);
    }
}
