//! The fit's second stage: a step outside the stock voices. The search
//! among the stock packs ([`super::space`]) can only blend what Kokoro's
//! voices already are; this refinement adds an offset to the timbre half of
//! the best voice's style (the same for every row) and looks for it with a
//! (1+λ) evolution strategy: each generation tries λ random steps from the
//! voice so far, keeps the best if it scores higher, and lengthens its step
//! after a win and shortens it after a miss. Steps are measured in each
//! column's spread over the stock packs and the offset is kept within
//! [`super::run::BOUND`] of them, and every candidate is judged by the same
//! guards as the search's, so the refinement cannot leave speech behind.
//! Its state serialises, and each generation's steps come from the seed
//! and the generation number, so a checkpoint resumes exactly.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::run::{Verdict, BOUND};
use super::space::StyleRecipe;

/// The first step, in stock spreads per column.
const FIRST_STEP: f64 = 0.3;
/// After a win the step grows by this factor; after a miss it shrinks by
/// [`SHRINK`]. (0.85^4 ≈ 1/1.3: a win in about one generation out of five
/// keeps the step.)
const GROW: f64 = 1.3;
const SHRINK: f64 = 0.85;
/// The step stays within these bounds.
const STEPS: (f64, f64) = (0.02, 1.0);
/// After this many generations in a row without a win, the step goes back
/// to its first length: the voice's neighbourhood has been searched at
/// ever shorter steps, and the encoder's landscape is too rugged for
/// shorter ones to find much (the climb stalled for 40 generations in
/// `revoice bench voicefit` without it). The voice so far stays.
const STALL: u32 = 8;

/// Where a refinement stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refinement {
    /// The voice so far, without a tone (its tone is in `verdict`).
    pub current: StyleRecipe,
    pub verdict: Verdict,
    /// Step length, in stock spreads per column.
    pub step: f64,
    /// Generations judged so far.
    pub generation: u64,
    seed: u64,
    /// Generations since the last win.
    #[serde(default)]
    misses: u32,
}

impl Refinement {
    /// A refinement of `start`, judged as `verdict`.
    pub fn new(start: StyleRecipe, verdict: Verdict, seed: u64) -> Refinement {
        Refinement { current: StyleRecipe { tone: None, ..start }, verdict, step: FIRST_STEP, generation: 0, seed, misses: 0 }
    }

    /// The next generation: `population` random steps from the current
    /// voice, each column's step scaled by its stock `spread`.
    pub fn ask(&self, spread: &[f32], population: usize) -> Vec<StyleRecipe> {
        let mut rng = StdRng::seed_from_u64(self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (self.generation + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
        let base = self.current.timbre_offset.clone().unwrap_or_else(|| vec![0.0; spread.len()]);
        (0..population)
            .map(|_| {
                let offset = base
                    .iter()
                    .zip(spread)
                    .map(|(o, s)| {
                        let z: f64 = StandardNormal.sample(&mut rng);
                        let limit = BOUND * *s as f64;
                        (*o as f64 + self.step * *s as f64 * z).clamp(-limit, limit) as f32
                    })
                    .collect();
                StyleRecipe { timbre_offset: Some(offset), ..self.current.clone() }
            })
            .collect()
    }

    /// What the generation `candidates` scored: the best replaces the
    /// current voice if its fitness is higher.
    pub fn tell(&mut self, candidates: &[StyleRecipe], verdicts: &[Verdict]) {
        let best = candidates.iter().zip(verdicts).max_by(|a, b| a.1.fitness.total_cmp(&b.1.fitness));
        match best {
            Some((recipe, verdict)) if verdict.fitness > self.verdict.fitness => {
                self.current = StyleRecipe { tone: None, ..recipe.clone() };
                self.verdict = verdict.clone();
                self.step = (self.step * GROW).min(STEPS.1);
                self.misses = 0;
            }
            _ => {
                self.misses += 1;
                self.step = if self.misses >= STALL {
                    self.misses = 0;
                    FIRST_STEP
                } else {
                    (self.step * SHRINK).max(STEPS.0)
                };
            }
        }
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(fitness: f64) -> Verdict {
        Verdict { similarity: fitness as f32, fitness, tone: None }
    }

    /// A judge that prefers offsets near `target`.
    fn score(recipe: &StyleRecipe, target: &[f32]) -> f64 {
        let offset = recipe.timbre_offset.as_deref().unwrap();
        -offset.iter().zip(target).map(|(o, t)| ((o - t) as f64).powi(2)).sum::<f64>().sqrt()
    }

    #[test]
    fn it_climbs_towards_a_better_voice_and_never_keeps_a_worse_one() {
        let spread = vec![1.0f32; 16];
        let target: Vec<f32> = (0..16).map(|i| if i % 2 == 0 { 0.8 } else { -0.6 }).collect();
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let start_score = -target.iter().map(|t| (*t as f64).powi(2)).sum::<f64>().sqrt();
        let mut refinement = Refinement::new(start, verdict(start_score), 7);
        let mut last = start_score;
        for _ in 0..40 {
            let candidates = refinement.ask(&spread, 8);
            assert_eq!(candidates.len(), 8);
            let verdicts: Vec<Verdict> = candidates.iter().map(|c| verdict(score(c, &target))).collect();
            refinement.tell(&candidates, &verdicts);
            assert!(refinement.verdict.fitness >= last, "it kept a worse voice");
            last = refinement.verdict.fitness;
        }
        assert_eq!(refinement.generation, 40);
        assert!(last > 0.5 * start_score, "from {start_score} only to {last}");
        assert!((STEPS.0..=STEPS.1).contains(&refinement.step));
    }

    #[test]
    fn its_steps_come_from_the_seed_and_generation_stay_within_bounds_and_adapt() {
        let spread = vec![0.5f32; 8];
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let a = Refinement::new(start.clone(), verdict(0.0), 3);
        let resumed: Refinement = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.ask(&spread, 4), resumed.ask(&spread, 4));
        assert_ne!(a.ask(&spread, 4), Refinement::new(start.clone(), verdict(0.0), 4).ask(&spread, 4));
        let mut far = a.clone();
        far.current.timbre_offset = Some(vec![100.0; 8]);
        for c in far.ask(&spread, 4) {
            assert!(c.timbre_offset.unwrap().iter().all(|o| o.abs() <= (BOUND as f32) * 0.5 + 1e-5));
        }
        let mut missed = a.clone();
        let candidates = missed.ask(&spread, 2);
        missed.tell(&candidates, &[verdict(-1.0), verdict(-2.0)]);
        assert_eq!((missed.current.timbre_offset.clone(), missed.generation), (None, 1));
        assert!(missed.step < FIRST_STEP);
        assert_ne!(missed.ask(&spread, 2), candidates, "the next generation steps elsewhere");
        // A stalled refinement starts its steps afresh, keeping its voice.
        let mut stalled = a.clone();
        let mut steps = Vec::new();
        for _ in 0..STALL {
            let candidates = stalled.ask(&spread, 2);
            stalled.tell(&candidates, &[verdict(-1.0), verdict(-2.0)]);
            steps.push(stalled.step);
        }
        assert!(steps.windows(2).take(STALL as usize - 2).all(|w| w[1] < w[0]), "{steps:?}");
        assert_eq!((stalled.step, stalled.current.timbre_offset.clone()), (FIRST_STEP, None));
        let mut won = a;
        let candidates = won.ask(&spread, 2);
        won.tell(&candidates, &[verdict(-1.0), verdict(0.5)]);
        assert_eq!(won.current.timbre_offset, candidates[1].timbre_offset);
        assert!(won.step > FIRST_STEP);
    }
}
