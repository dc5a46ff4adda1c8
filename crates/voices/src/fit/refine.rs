//! The fit's second stage: a step outside the stock voices. The search
//! among the stock packs ([`super::space`]) can only blend what Kokoro's
//! voices already are; this refinement adds an offset to the timbre half of
//! the best voice's style (the same for every row) and looks for it with a
//! (μ/μ_w, λ) evolution strategy: each generation judges the voice so far
//! and random steps from it, and the voice moves to the weighted mean of
//! the best half of the steps; the step's length follows the path of those
//! moves (cumulative step-length adaptation). Steps are measured in each
//! column's spread over the stock packs and the offset is kept within
//! [`super::space::BOUND`] of them, and every candidate is judged by the same
//! guards as the search's, so the refinement cannot leave speech behind.
//! Snapshots of the voice on the way let the fit choose the one that sounds
//! most like the reference on sentences the refinement never heard. Its
//! state serialises, and each generation's steps come from the seed and the
//! generation number, so a checkpoint resumes exactly.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::judge::Verdict;
use super::search::StepLength;
use super::space::StyleRecipe;
use super::space::BOUND;

/// The first step, in stock spreads per column.
const FIRST_STEP: f64 = 0.3;
/// The step stays within these bounds.
const STEPS: (f64, f64) = (0.05, 1.0);
/// The voice so far is kept aside every this many generations, for the
/// fit to choose among on sentences the refinement never heard.
const SNAPSHOT_EVERY: u64 = 8;

/// A voice as it was judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub generation: u64,
    /// The voice with the tone match it was judged through.
    pub recipe: StyleRecipe,
    pub verdict: Verdict,
}

/// Where a refinement stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refinement {
    /// The voice the next generation steps from, without a tone: the
    /// weighted mean of the last generation's best steps.
    pub current: StyleRecipe,
    /// The voice as last judged (the mean a generation ago, or the start).
    pub judged: Snapshot,
    /// Step length, in stock spreads per column.
    pub step: f64,
    /// Generations judged so far.
    pub generation: u64,
    seed: u64,
    /// The evolution path of the step-length control (cumulative: the
    /// step grows while the mean keeps moving one way, and shrinks while
    /// its moves cancel out).
    #[serde(default)]
    path: Vec<f64>,
    /// The voice at its start and every [`SNAPSHOT_EVERY`] generations
    /// since, when it changed.
    #[serde(default)]
    pub snapshots: Vec<Snapshot>,
}

impl Refinement {
    /// A refinement of `start`, judged as `verdict`.
    pub fn new(start: StyleRecipe, verdict: Verdict, seed: u64) -> Refinement {
        let current = StyleRecipe { tone: None, ..start };
        let judged = Snapshot { generation: 0, recipe: StyleRecipe { tone: verdict.tone.clone(), ..current.clone() }, verdict };
        Refinement { current, snapshots: vec![judged.clone()], judged, step: FIRST_STEP, generation: 0, seed, path: Vec::new() }
    }

    /// Moves the voice the next generation steps from to `recipe` (its own
    /// tone set aside), judged as `verdict`, and keeps it as a snapshot:
    /// a refinement that goes on from a voice found another way.
    pub fn move_to(&mut self, recipe: StyleRecipe, verdict: Verdict) {
        self.current = StyleRecipe { tone: None, ..recipe };
        self.judged = Snapshot { generation: self.generation, recipe: StyleRecipe { tone: verdict.tone.clone(), ..self.current.clone() }, verdict };
        self.path.clear();
        self.snapshots.push(self.judged.clone());
    }

    /// The voices to choose among: the snapshots and the voice as last
    /// judged, each voice once.
    pub fn choices(&self) -> Vec<Snapshot> {
        let mut choices = self.snapshots.clone();
        if self.judged_is_new() {
            choices.push(self.judged.clone());
        }
        choices
    }

    /// Whether the voice as last judged differs from the last snapshot.
    fn judged_is_new(&self) -> bool {
        self.snapshots.last().is_none_or(|last| last.recipe != self.judged.recipe)
    }

    /// The next generation: the current voice itself (so each generation
    /// judges it) and `population - 1` random steps from it, each column's
    /// step scaled by its stock `spread`.
    pub fn ask(&self, spread: &[f32], population: usize) -> Vec<StyleRecipe> {
        let mut rng = StdRng::seed_from_u64(self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (self.generation + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
        let base = self.offset(spread.len());
        let mut candidates = vec![self.current.clone()];
        candidates.extend((1..population.max(2)).map(|_| {
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
        }));
        candidates
    }

    fn offset(&self, columns: usize) -> Vec<f32> {
        self.current.timbre_offset.clone().unwrap_or_else(|| vec![0.0; columns])
    }

    /// What the generation from [`Refinement::ask`] scored: the current
    /// voice's own verdict is kept, and the voice moves to the weighted
    /// mean of the best half of the steps, whether or not they beat it.
    /// (Keeping only a step that beats the voice so far keeps the luckiest
    /// render on the probes, and the encoder's score is rugged at small
    /// scales: such a voice is hard to beat and learns the probes. A mean
    /// of several good steps follows the trend under the ruggedness.)
    pub fn tell(&mut self, spread: &[f32], candidates: &[StyleRecipe], verdicts: &[Verdict]) {
        let (Some(verdict), true) = (verdicts.first(), candidates.len() == verdicts.len() && candidates.len() >= 2) else {
            return;
        };
        self.judged =
            Snapshot { generation: self.generation, recipe: StyleRecipe { tone: verdict.tone.clone(), ..candidates[0].clone() }, verdict: verdict.clone() };
        let mut ranked: Vec<usize> = (1..candidates.len()).collect();
        ranked.sort_by(|a, b| verdicts[*b].fitness.total_cmp(&verdicts[*a].fitness));
        let control = StepLength::new(ranked.len().div_ceil(2), spread.len());
        let base = self.offset(spread.len());
        let mut mean = vec![0.0f64; spread.len()];
        for (w, at) in control.weights.iter().zip(&ranked) {
            let offset = candidates[*at].timbre_offset.as_deref().unwrap_or(&base);
            for (m, o) in mean.iter_mut().zip(offset) {
                *m += w * *o as f64;
            }
        }
        // The path of the mean's moves in units of the step: longer than a
        // random walk's, the step grows.
        if self.path.len() != spread.len() {
            self.path = vec![0.0; spread.len()];
        }
        let moved: Vec<f64> = mean.iter().zip(&base).zip(spread).map(|((m, b), s)| (m - *b as f64) / (self.step * (*s as f64).max(f64::EPSILON))).collect();
        control.follow(&mut self.path, &moved);
        let length = self.path.iter().map(|p| p * p).sum::<f64>().sqrt();
        self.step = (self.step * control.factor(length)).clamp(STEPS.0, STEPS.1);
        self.current = StyleRecipe { timbre_offset: Some(mean.iter().map(|m| *m as f32).collect()), tone: None, ..self.current.clone() };
        self.generation += 1;
        if self.generation.is_multiple_of(SNAPSHOT_EVERY) && self.judged_is_new() {
            self.snapshots.push(self.judged.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(fitness: f64) -> Verdict {
        Verdict { similarity: fitness as f32, fitness, tone: None, naturalness: None }
    }

    /// A judge that prefers offsets near `target`.
    fn score(recipe: &StyleRecipe, target: &[f32]) -> f64 {
        let offset = recipe.timbre_offset.clone().unwrap_or_else(|| vec![0.0; target.len()]);
        -offset.iter().zip(target).map(|(o, t)| ((o - t) as f64).powi(2)).sum::<f64>().sqrt()
    }

    fn generation(refinement: &mut Refinement, spread: &[f32], judge: &dyn Fn(&StyleRecipe) -> f64) -> Vec<StyleRecipe> {
        let candidates = refinement.ask(spread, 8);
        let verdicts: Vec<Verdict> = candidates.iter().map(|c| verdict(judge(c))).collect();
        refinement.tell(spread, &candidates, &verdicts);
        candidates
    }

    #[test]
    fn it_walks_towards_a_better_voice_and_keeps_snapshots_on_the_way() {
        let spread = vec![1.0f32; 16];
        let target: Vec<f32> = (0..16).map(|i| if i % 2 == 0 { 0.8 } else { -0.6 }).collect();
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let start_score = score(&start, &target);
        let mut refinement = Refinement::new(start, verdict(start_score), 7);
        for _ in 0..40 {
            let candidates = generation(&mut refinement, &spread, &|c| score(c, &target));
            assert_eq!(candidates.len(), 8);
            assert_eq!(candidates[0].timbre_offset, refinement.judged.recipe.timbre_offset, "each generation judges the voice itself");
        }
        assert_eq!(refinement.generation, 40);
        let end = score(&refinement.current, &target);
        assert!(end > 0.3 * start_score, "from {start_score} only to {end}");
        assert!((STEPS.0..=STEPS.1).contains(&refinement.step));
        let generations: Vec<u64> = refinement.snapshots.iter().map(|s| s.generation).collect();
        assert_eq!(generations, vec![0, 7, 15, 23, 31, 39]);
        let choices = refinement.choices();
        assert_eq!(choices.len(), 6, "the voice as last judged is the last snapshot");
        assert!(choices.iter().all(|c| c.verdict.fitness == score(&c.recipe, &target)), "each snapshot keeps its own verdict");
        assert!(choices.last().unwrap().verdict.fitness > choices[0].verdict.fitness);
    }

    #[test]
    fn its_step_grows_on_a_slope_and_shrinks_at_the_top() {
        let spread = vec![1.0f32; 32];
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let mut climbing = Refinement::new(start.clone(), verdict(0.0), 5);
        for _ in 0..20 {
            generation(&mut climbing, &spread, &|c| c.timbre_offset.as_ref().map_or(0.0, |o| o[0] as f64 + o[1] as f64));
        }
        assert!(climbing.step > FIRST_STEP, "{}", climbing.step);
        let mut top = Refinement::new(start, verdict(0.0), 5);
        for _ in 0..60 {
            generation(&mut top, &spread, &|c| score(c, &[0.0; 32]));
        }
        assert!(top.step < FIRST_STEP, "{}", top.step);
    }

    #[test]
    fn its_steps_come_from_the_seed_and_generation_and_stay_within_bounds() {
        let spread = vec![0.5f32; 8];
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let a = Refinement::new(start.clone(), verdict(0.0), 3);
        let resumed: Refinement = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.ask(&spread, 4), resumed.ask(&spread, 4));
        assert_ne!(a.ask(&spread, 4), Refinement::new(start, verdict(0.0), 4).ask(&spread, 4));
        let mut far = a.clone();
        far.current.timbre_offset = Some(vec![100.0; 8]);
        for c in &far.ask(&spread, 4)[1..] {
            assert!(c.timbre_offset.as_ref().unwrap().iter().all(|o| o.abs() <= (BOUND as f32) * 0.5 + 1e-5));
        }
        let mut next = a.clone();
        let first = generation(&mut next, &spread, &|_| 0.0);
        assert_eq!(next.generation, 1);
        assert_ne!(next.ask(&spread, 4)[1..], first[1..4], "the next generation steps elsewhere");
    }

    #[test]
    fn the_mean_of_the_best_half_weighs_the_best_most() {
        let w = StepLength::new(4, 2).weights;
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(w.windows(2).all(|p| p[0] > p[1]));
        let spread = vec![1.0f32; 2];
        let start = StyleRecipe::of_blend(&[("am_adam".to_string(), 1.0)]);
        let mut refinement = Refinement::new(start.clone(), verdict(0.0), 1);
        let at = |x: f32| StyleRecipe { timbre_offset: Some(vec![x, 0.0]), ..start.clone() };
        let candidates = vec![at(0.0), at(1.0), at(2.0), at(-5.0), at(-6.0)];
        let verdicts: Vec<Verdict> = [0.0, 1.0, 2.0, -5.0, -6.0].map(verdict).to_vec();
        refinement.tell(&spread, &candidates, &verdicts);
        let moved = refinement.current.timbre_offset.as_ref().unwrap()[0];
        let w = StepLength::new(2, 2).weights;
        assert!((moved as f64 - (2.0 * w[0] + w[1])).abs() < 1e-6, "{moved}");
    }
}
