//! What Resemblyzer does to a 16 kHz clip before the network sees it
//! (`audio.preprocess_wav` and `VoiceEncoder.compute_partial_slices`):
//!
//! - volume normalisation to -30 dBFS RMS, raising quiet clips only;
//! - trimming long silences: 30 ms windows are marked voiced or not, the
//!   marks are smoothed (moving average over 8 windows, rounded) and dilated
//!   by 3 windows each side, and unmarked windows are cut. Resemblyzer marks
//!   windows with webrtcvad (mode 3); this engine marks a window voiced when
//!   its energy is above an adaptive threshold ([`voiced_windows`]), which
//!   agrees with it on clean speech and differs on noisy recordings, where it
//!   keeps more (and the quality report warns about the noise);
//! - partial windows of 160 mel frames (1.6 s) at 1.3 per second; the last is
//!   dropped when less than 75 % of it is covered by audio.

/// Resemblyzer's target level.
pub const TARGET_DBFS: f64 = -30.0;
/// Samples per VAD window (30 ms at 16 kHz).
pub const VAD_WINDOW: usize = 480;
const VAD_AVERAGE_WIDTH: usize = 8;
const VAD_MAX_SILENCE: usize = 6;
/// Mel frames per partial utterance (1.6 s).
pub const PARTIAL_FRAMES: usize = 160;
/// Partial utterances per second of audio.
pub const PARTIAL_RATE: f64 = 1.3;
/// Coverage below which the last partial is dropped.
pub const MIN_COVERAGE: f64 = 0.75;

/// The RMS level of `wav` in dBFS (full scale = 1.0); `-inf` for silence.
pub fn rms_dbfs(wav: &[f32]) -> f64 {
    if wav.is_empty() {
        return f64::NEG_INFINITY;
    }
    let mean = wav.iter().map(|&v| (v as f64) * (v as f64)).sum::<f64>() / wav.len() as f64;
    10.0 * mean.log10()
}

/// Raises `wav` to [`TARGET_DBFS`] RMS if it is quieter (never lowers it);
/// returns the gain applied. Digital silence is left alone (gain 1).
pub fn normalize_volume(wav: &mut [f32]) -> f32 {
    let level = rms_dbfs(wav);
    if !level.is_finite() || level >= TARGET_DBFS {
        return 1.0;
    }
    let gain = 10f64.powf((TARGET_DBFS - level) / 20.0) as f32;
    wav.iter_mut().for_each(|v| *v *= gain);
    gain
}

/// Marks each whole 30 ms window of `wav` voiced or not, by energy: voiced
/// when its RMS is above the highest of 9 dB over the noise floor (the
/// 10th percentile of window levels), 45 dB under the loudest window, and
/// -60 dBFS.
pub fn voiced_windows(wav: &[f32]) -> Vec<bool> {
    let levels: Vec<f64> = wav.chunks_exact(VAD_WINDOW).map(rms_dbfs).map(|l| l.max(-120.0)).collect();
    if levels.is_empty() {
        return Vec::new();
    }
    let mut sorted = levels.clone();
    sorted.sort_by(f64::total_cmp);
    let floor = sorted[sorted.len() / 10];
    let loudest = sorted[sorted.len() - 1];
    let threshold = (floor + 9.0).max(loudest - 45.0).max(-60.0);
    levels.iter().map(|&l| l > threshold).collect()
}

/// Resemblyzer's smoothing and dilation of per-window voice marks: a window
/// is kept when more than half of the 8 windows around it (3 before, 4
/// after) are voiced, or when a kept one is within 3 windows.
pub fn keep_mask(voiced: &[bool]) -> Vec<bool> {
    let n = voiced.len();
    let before = (VAD_AVERAGE_WIDTH - 1) / 2;
    let smoothed: Vec<bool> = (0..n)
        .map(|i| {
            let lo = i.saturating_sub(before);
            let hi = (i + VAD_AVERAGE_WIDTH - before).min(n);
            let count = voiced[lo..hi].iter().filter(|&&v| v).count();
            // np.round(count / 8) rounds 0.5 to even (0): more than half is needed.
            2 * count > VAD_AVERAGE_WIDTH
        })
        .collect();
    let reach = VAD_MAX_SILENCE.div_ceil(2);
    (0..n).map(|i| smoothed[i.saturating_sub(reach)..(i + reach + 1).min(n)].iter().any(|&v| v)).collect()
}

/// Cuts long silences from `wav` (see the module doc); the tail shorter
/// than one VAD window is dropped, as upstream does.
pub fn trim_long_silences(wav: &[f32]) -> Vec<f32> {
    let keep = keep_mask(&voiced_windows(wav));
    wav.chunks_exact(VAD_WINDOW).zip(&keep).filter(|(_, &k)| k).flat_map(|(w, _)| w.iter().copied()).collect()
}

/// Mel-frame ranges `[start, end)` of the partial utterances for a clip of
/// `samples` samples (Resemblyzer's `compute_partial_slices`). Ranges may
/// reach past the clip: pad it with zeros to `end * 160` samples.
pub fn partial_slices(samples: usize) -> Vec<(usize, usize)> {
    let hop = super::mel::HOP;
    let frames = (samples + 1).div_ceil(hop);
    let step = ((super::mel::SAMPLE_RATE as f64 / PARTIAL_RATE) / hop as f64).round().max(1.0) as usize;
    let steps = (frames + step + 1).saturating_sub(PARTIAL_FRAMES).max(1);
    let mut slices: Vec<(usize, usize)> = (0..steps).step_by(step).map(|i| (i, i + PARTIAL_FRAMES)).collect();
    let last = slices[slices.len() - 1];
    let coverage = (samples as f64 - (last.0 * hop) as f64) / (PARTIAL_FRAMES * hop) as f64;
    if coverage < MIN_COVERAGE && slices.len() > 1 {
        slices.pop();
    }
    slices
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_slices_match_resemblyzer_for_short_and_long_clips() {
        // Values from VoiceEncoder.compute_partial_slices(n, 1.3, 0.75).
        assert_eq!(partial_slices(32_000), vec![(0, 160), (77, 237)]);
        assert_eq!(partial_slices(27_200), vec![(0, 160)]);
        assert_eq!(partial_slices(8_000), vec![(0, 160)]);
        assert_eq!(partial_slices(160_000).len(), 12);
        assert_eq!(partial_slices(160_000)[11], (847, 1007));
    }

    #[test]
    fn quiet_clips_are_raised_to_minus_30_dbfs_and_loud_ones_left_alone() {
        let mut quiet = vec![0.001f32; 1000];
        let gain = normalize_volume(&mut quiet);
        assert!((rms_dbfs(&quiet) - TARGET_DBFS).abs() < 1e-3 && gain > 30.0);
        let mut loud = vec![0.5f32; 1000];
        assert_eq!(normalize_volume(&mut loud), 1.0);
        assert_eq!(loud[0], 0.5);
        let mut silent = vec![0f32; 100];
        assert_eq!(normalize_volume(&mut silent), 1.0);
    }

    #[test]
    fn smoothing_drops_isolated_clicks_and_dilation_keeps_short_pauses() {
        let mut voiced = vec![false; 40];
        voiced[5] = true; // a click
        for v in &mut voiced[15..35] {
            *v = true;
        }
        let keep = keep_mask(&voiced);
        assert!(!keep[5]);
        // Speech 15..35: smoothing needs 5 of 8 voiced, dilation reaches 3 further.
        assert!(keep[14] && keep[35]);
        assert!(!keep[9]);
    }

    #[test]
    fn a_long_silence_between_two_bursts_is_cut() {
        let tone = |n: usize| (0..n).map(|i| 0.3 * (i as f32 * 0.07).sin()).collect::<Vec<f32>>();
        let mut wav = tone(16_000);
        wav.extend(vec![0.0; 48_000]);
        wav.extend(tone(16_000));
        let trimmed = trim_long_silences(&wav);
        // Two seconds of sound and a little of the 3 s pause around each edge.
        assert!(trimmed.len() > 32_000 && trimmed.len() < 32_000 + 8 * VAD_WINDOW, "{}", trimmed.len());
    }
}
