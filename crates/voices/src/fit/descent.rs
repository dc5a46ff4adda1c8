//! The fit's gradient stage: the voice's timbre offset moved down the
//! gradient of its spectral distance to the recording saying the
//! recording's own words ([`super::Judge::spectral_gradient`], one piece of
//! the words a step, in turn), by Adam. The encoder's similarity has no
//! gradient here and the evolution strategy ([`super::refine`]) needs many
//! renders for each step it takes in 128 dimensions; the distance has one,
//! through Kokoro's decoder and generator, and a step needs one pass forward
//! and back over a few seconds of speech. The offset stays within
//! [`super::space::BOUND`] of the stock packs' spread per column, as the
//! refinement's does; the fit stops it where a hearing finds it worth
//! clearly less than its start, and keeps only as much of the move as
//! sounds natural (`run.rs`'s `worse_than_its_start` and
//! `natural_descent`). Its state serialises, and each
//! step depends only on it and the gradient, so a checkpoint resumes exactly.

use serde::{Deserialize, Serialize};

use super::space::BOUND;

/// Adam's step size, in the timbre's own units: about a tenth of a stock
/// column's spread. On slt's and the LibriVox reader's words, 0.02 took
/// the distance down 20-27 % in 15 steps (session 57).
pub const LEARNING_RATE: f64 = 0.02;
const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

/// Where a descent stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Descent {
    /// The timbre offset so far.
    pub offset: Vec<f32>,
    /// Adam's running moments of the gradient.
    first: Vec<f64>,
    second: Vec<f64>,
    /// Steps taken.
    pub step: u64,
    /// The distance before each step, in dB (the latest last).
    pub distances: Vec<f32>,
    /// Whether the stage is over (its share of the budget spent, or no
    /// gradient to follow).
    pub done: bool,
    /// Whether a hearing found the voice worth less than where the descent
    /// began, so it stopped before its share of the budget ran out.
    #[serde(default)]
    pub stopped: bool,
    /// The share of the move the fit kept once the stage was over (1: all
    /// of it; less where the whole move sounded less natural; 0: none).
    #[serde(default)]
    pub kept: f32,
}

impl Descent {
    /// A descent from `offset` (the voice's offset so far; zeros for none).
    pub fn new(offset: Vec<f32>) -> Descent {
        let n = offset.len();
        Descent { offset, first: vec![0.0; n], second: vec![0.0; n], step: 0, distances: Vec::new(), done: false, stopped: false, kept: 0.0 }
    }

    /// One step down `gradient` (of `distance`, in dB, at the current
    /// offset), the offset kept within [`BOUND`] of each column's `spread`.
    pub fn step(&mut self, distance: f32, gradient: &[f32], spread: &[f32]) {
        self.step += 1;
        self.distances.push(distance);
        let t = self.step as i32;
        for (k, g) in gradient.iter().enumerate().take(self.offset.len()) {
            let g = *g as f64;
            self.first[k] = BETA1 * self.first[k] + (1.0 - BETA1) * g;
            self.second[k] = BETA2 * self.second[k] + (1.0 - BETA2) * g * g;
            let first = self.first[k] / (1.0 - BETA1.powi(t));
            let second = self.second[k] / (1.0 - BETA2.powi(t));
            let limit = BOUND * spread.get(k).copied().unwrap_or(1.0) as f64;
            let moved = self.offset[k] as f64 - LEARNING_RATE * first / (second.sqrt() + EPSILON);
            self.offset[k] = moved.clamp(-limit, limit) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gradient of Σ (x − target)² and its value, in "dB".
    fn bowl(x: &[f32], target: &[f32]) -> (f32, Vec<f32>) {
        let value = x.iter().zip(target).map(|(a, b)| (a - b) * (a - b)).sum();
        (value, x.iter().zip(target).map(|(a, b)| 2.0 * (a - b)).collect())
    }

    #[test]
    fn the_descent_walks_down_a_bowl_within_its_bounds_and_resumes_exactly() {
        let target = [0.3f32, -0.2, 0.5];
        let spread = [1.0f32, 1.0, 0.1];
        let mut descent = Descent::new(vec![0.0; 3]);
        let mut resumed = None;
        for i in 0..200 {
            let (value, gradient) = bowl(&descent.offset, &target);
            descent.step(value, &gradient, &spread);
            if i == 20 {
                let json = serde_json::to_string(&descent).unwrap();
                resumed = Some(serde_json::from_str::<Descent>(&json).unwrap());
            }
        }
        assert!((descent.offset[0] - 0.3).abs() < 0.02 && (descent.offset[1] + 0.2).abs() < 0.02, "{:?}", descent.offset);
        assert!((descent.offset[2] as f64 - BOUND * 0.1).abs() < 1e-6, "the third column stops at its bound: {:?}", descent.offset);
        assert!(descent.distances.windows(2).take(15).all(|w| w[1] < w[0]), "the distance falls: {:?}", &descent.distances[..16]);
        assert!(*descent.distances.last().unwrap() < 0.041, "down to what the bound leaves (0.04): {:?}", descent.distances.last());
        let mut resumed = resumed.unwrap();
        for _ in 21..200 {
            let (value, gradient) = bowl(&resumed.offset, &target);
            resumed.step(value, &gradient, &spread);
        }
        assert_eq!(resumed, descent, "a descent resumed from its checkpoint steps as one that never stopped");
    }
}
