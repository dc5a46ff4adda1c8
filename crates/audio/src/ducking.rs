//! Sidechain ducking: the background bed's gain, sample by sample, lowered
//! while the voice track speaks. The voice's level is followed with a
//! short RMS window; above the threshold the gain heads for `depth`, with
//! one-pole smoothing at the attack time going down and the release time
//! coming back up.

use serde::{Deserialize, Serialize};

/// Ducking settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ducking {
    /// Voice level (dBFS, RMS over 10 ms) above which the bed ducks.
    pub threshold_db: f32,
    /// Time constant of the way down, seconds.
    pub attack: f32,
    /// Time constant of the way back up, seconds.
    pub release: f32,
    /// How far the bed goes down, dB (positive: 12 = −12 dB).
    pub depth_db: f32,
}

impl Default for Ducking {
    fn default() -> Self {
        Ducking { threshold_db: -40.0, attack: 0.05, release: 0.4, depth_db: 12.0 }
    }
}

/// The bed's gain (linear) for every sample of `voice`.
pub fn bed_gain(voice: &[f32], sample_rate: u32, ducking: &Ducking) -> Vec<f32> {
    let mut follower = DuckFollower::new(sample_rate, ducking);
    voice.iter().map(|&v| follower.next(v)).collect()
}

/// The ducking gain computed one voice sample at a time, for playback that
/// mixes as it goes: fed the same samples it gives exactly what
/// [`bed_gain`] gives. Allocates once, in `new`.
#[derive(Debug, Clone)]
pub struct DuckFollower {
    /// The last 10 ms of voice, squared, as a ring.
    window: Vec<f64>,
    at: usize,
    energy: f64,
    threshold: f32,
    ducked: f32,
    down: f32,
    up: f32,
    gain: f32,
}

impl DuckFollower {
    /// A follower at rest (bed at full level).
    pub fn new(sample_rate: u32, ducking: &Ducking) -> DuckFollower {
        let rate = sample_rate as f32;
        let coefficient = |seconds: f32| if seconds > 0.0 { (-1.0 / (seconds * rate)).exp() } else { 0.0 };
        DuckFollower {
            window: vec![0.0; ((0.01 * rate) as usize).max(1)],
            at: 0,
            energy: 0.0,
            threshold: 10f32.powf(ducking.threshold_db / 20.0),
            ducked: 10f32.powf(-ducking.depth_db.abs() / 20.0),
            down: coefficient(ducking.attack),
            up: coefficient(ducking.release),
            gain: 1.0,
        }
    }

    /// Back at rest, as after silence: for a jump in the timeline.
    pub fn reset(&mut self) {
        self.window.fill(0.0);
        self.energy = 0.0;
        self.gain = 1.0;
    }

    /// Takes the next voice sample; returns the bed's gain for it.
    pub fn next(&mut self, voice: f32) -> f32 {
        let squared = (voice as f64) * (voice as f64);
        self.energy += squared - self.window[self.at];
        self.window[self.at] = squared;
        self.at = (self.at + 1) % self.window.len();
        let rms = (self.energy.max(0.0) / self.window.len() as f64).sqrt() as f32;
        let target = if rms > self.threshold { self.ducked } else { 1.0 };
        let c = if target < self.gain { self.down } else { self.up };
        self.gain = target + (self.gain - target) * c;
        self.gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bed_ducks_under_speech_and_comes_back_after_it() {
        let rate = 1000;
        // 1 s silence, 1 s of voice at −20 dBFS, 2 s silence.
        let mut voice = vec![0f32; 4000];
        for (i, v) in voice.iter_mut().enumerate().take(2000).skip(1000) {
            *v = if i % 2 == 0 { 0.1 } else { -0.1 };
        }
        let d = Ducking { threshold_db: -40.0, attack: 0.05, release: 0.2, depth_db: 12.0 };
        let gain = bed_gain(&voice, rate, &d);
        let depth = 10f32.powf(-12.0 / 20.0);
        assert_eq!(gain[999], 1.0, "untouched before the voice");
        // Five attack constants in: within 1 % of the depth.
        assert!((gain[1000 + 250] - depth).abs() < 0.01, "{}", gain[1250]);
        assert!((gain[1999] - depth).abs() < 1e-3);
        // One release constant after: about 63 % of the way back.
        let back = (gain[2000 + 200 + 10] - depth) / (1.0 - depth);
        assert!((0.55..0.7).contains(&back), "{back}");
        assert!(gain[3999] > 0.99);
        // Never below the depth, never above unity.
        assert!(gain.iter().all(|&g| g >= depth - 1e-6 && g <= 1.0));
    }

    #[test]
    fn a_voice_below_the_threshold_leaves_the_bed_alone() {
        let voice = vec![0.001f32; 2000]; // −60 dBFS
        assert!(bed_gain(&voice, 1000, &Ducking::default()).iter().all(|&g| g == 1.0));
    }
}
