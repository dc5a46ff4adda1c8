//! The derivative-free search: CMA-ES (Hansen's (μ/μ_w, λ) form with
//! rank-one and rank-μ covariance updates), maximising, in ask/tell form so
//! a whole generation can be rendered as one batch. Its state serialises,
//! and each generation's samples come from a seed and the generation
//! number, so a checkpointed search resumes exactly where it stopped.
//!
//! Written here rather than taken from a crate: the ones published either
//! run the objective themselves (no batching through our scheduler) or keep
//! state that cannot be saved, and pull in a linear-algebra stack.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::eigen::symmetric_eigen;

/// A search in `n` dimensions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cmaes {
    n: usize,
    /// Candidates per generation (λ).
    pub population: usize,
    mean: Vec<f64>,
    sigma: f64,
    /// Row-major `n × n`.
    cov: Vec<f64>,
    p_sigma: Vec<f64>,
    p_c: Vec<f64>,
    /// Generations told so far.
    pub generation: u64,
    seed: u64,
    /// The best point told so far and its fitness.
    pub best: Option<(Vec<f64>, f64)>,
}

/// Log-rank recombination weights and cumulative step-length adaptation
/// (CSA), as CMA-ES sets them: shared by the search and the refinement.
pub(super) struct StepLength {
    /// Weights of a generation's best `parents`, best first, summing to one.
    pub weights: Vec<f64>,
    pub mu_eff: f64,
    pub c_sigma: f64,
    d_sigma: f64,
    /// The expected length of an `n`-dimensional standard normal vector.
    pub chi_n: f64,
}

impl StepLength {
    /// The constants for the best `parents` of a generation in `n` dimensions.
    pub fn new(parents: usize, n: usize) -> StepLength {
        let n = n as f64;
        let raw: Vec<f64> = (0..parents).map(|i| ((parents as f64) + 0.5).ln() - ((i + 1) as f64).ln()).collect();
        let total: f64 = raw.iter().sum();
        let weights: Vec<f64> = raw.iter().map(|w| w / total).collect();
        let mu_eff = 1.0 / weights.iter().map(|w| w * w).sum::<f64>();
        let c_sigma = (mu_eff + 2.0) / (n + mu_eff + 5.0);
        let d_sigma = 1.0 + 2.0 * (((mu_eff - 1.0) / (n + 1.0)).sqrt() - 1.0).max(0.0) + c_sigma;
        let chi_n = n.sqrt() * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n));
        StepLength { weights, mu_eff, c_sigma, d_sigma, chi_n }
    }

    /// Folds the mean's move, in units of the step (whitened), into `path`.
    pub fn follow(&self, path: &mut [f64], moved: &[f64]) {
        let gain = (self.c_sigma * (2.0 - self.c_sigma) * self.mu_eff).sqrt();
        for (p, m) in path.iter_mut().zip(moved) {
            *p = (1.0 - self.c_sigma) * *p + gain * m;
        }
    }

    /// What the step is multiplied by for a path of length `path_length`:
    /// more than one when the path is longer than a random walk's.
    pub fn factor(&self, path_length: f64) -> f64 {
        ((self.c_sigma / self.d_sigma) * (path_length / self.chi_n - 1.0)).exp()
    }
}

struct Constants {
    step: StepLength,
    c_c: f64,
    c_1: f64,
    c_mu: f64,
}

impl Cmaes {
    /// A search from `mean` with step `sigma`; `population` of `None` takes
    /// the usual `4 + 3 ln n`.
    pub fn new(mean: Vec<f64>, sigma: f64, population: Option<usize>, seed: u64) -> Cmaes {
        let n = mean.len();
        assert!(n > 0 && sigma > 0.0, "a search needs a dimension and a step");
        let population = population.unwrap_or(4 + (3.0 * (n as f64).ln()).floor() as usize).max(4);
        let mut cov = vec![0.0; n * n];
        for i in 0..n {
            cov[i * n + i] = 1.0;
        }
        Cmaes { n, population, mean, sigma, cov, p_sigma: vec![0.0; n], p_c: vec![0.0; n], generation: 0, seed, best: None }
    }

    /// The centre of the search.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// The step size.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    fn constants(&self) -> Constants {
        let n = self.n as f64;
        let step = StepLength::new(self.population / 2, self.n);
        let mu_eff = step.mu_eff;
        let c_c = (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n);
        let c_1 = 2.0 / ((n + 1.3).powi(2) + mu_eff);
        let c_mu = (1.0 - c_1).min(2.0 * (mu_eff - 2.0 + 1.0 / mu_eff) / ((n + 2.0).powi(2) + mu_eff));
        Constants { step, c_c, c_1, c_mu }
    }

    /// `B` (eigenvectors as rows) and `D` (square roots of the eigenvalues).
    fn decomposed(&self) -> (Vec<Vec<f64>>, Vec<f64>) {
        let (values, vectors) = symmetric_eigen(&self.cov, self.n);
        (vectors, values.iter().map(|v| v.max(1e-20).sqrt()).collect())
    }

    /// This generation's candidates (the same ones every time it is asked
    /// until it is told).
    pub fn ask(&self) -> Vec<Vec<f64>> {
        let (b, d) = self.decomposed();
        let mut rng = StdRng::seed_from_u64(self.seed ^ self.generation.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        (0..self.population)
            .map(|_| {
                let z: Vec<f64> = (0..self.n).map(|_| StandardNormal.sample(&mut rng)).collect();
                let mut x = self.mean.clone();
                for (k, row) in b.iter().enumerate() {
                    let scaled = d[k] * z[k] * self.sigma;
                    for (xi, bi) in x.iter_mut().zip(row) {
                        *xi += bi * scaled;
                    }
                }
                x
            })
            .collect()
    }

    /// Moves the search on from `candidates` (as asked) and their fitness
    /// (higher is better).
    pub fn tell(&mut self, candidates: &[Vec<f64>], fitness: &[f64]) {
        assert_eq!(candidates.len(), fitness.len(), "a fitness per candidate");
        let k = self.constants();
        let n = self.n;
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]));
        if let Some(&top) = order.first() {
            if self.best.as_ref().is_none_or(|(_, f)| fitness[top] > *f) {
                self.best = Some((candidates[top].clone(), fitness[top]));
            }
        }
        let steps: Vec<Vec<f64>> =
            order.iter().take(k.step.weights.len()).map(|&i| candidates[i].iter().zip(&self.mean).map(|(x, m)| (x - m) / self.sigma).collect()).collect();
        let mut y_w = vec![0.0; n];
        for (w, y) in k.step.weights.iter().zip(&steps) {
            for (acc, yi) in y_w.iter_mut().zip(y) {
                *acc += w * yi;
            }
        }
        for (m, y) in self.mean.iter_mut().zip(&y_w) {
            *m += self.sigma * y;
        }
        // C^(-1/2) y_w = B D^-1 Bᵀ y_w
        let (b, d) = self.decomposed();
        let mut whitened = vec![0.0; n];
        for (row, dk) in b.iter().zip(&d) {
            let projection: f64 = row.iter().zip(&y_w).map(|(r, y)| r * y).sum::<f64>() / dk;
            for (acc, r) in whitened.iter_mut().zip(row) {
                *acc += r * projection;
            }
        }
        k.step.follow(&mut self.p_sigma, &whitened);
        let p_sigma_norm = self.p_sigma.iter().map(|p| p * p).sum::<f64>().sqrt();
        let generations = (self.generation + 1) as i32;
        let h_sigma = p_sigma_norm / (1.0 - (1.0 - k.step.c_sigma).powi(2 * generations)).sqrt() < (1.4 + 2.0 / (n as f64 + 1.0)) * k.step.chi_n;
        let h = if h_sigma { 1.0 } else { 0.0 };
        let c_gain = (k.c_c * (2.0 - k.c_c) * k.step.mu_eff).sqrt();
        for (p, y) in self.p_c.iter_mut().zip(&y_w) {
            *p = (1.0 - k.c_c) * *p + h * c_gain * y;
        }
        let keep = 1.0 - k.c_1 - k.c_mu + (1.0 - h) * k.c_1 * k.c_c * (2.0 - k.c_c);
        for i in 0..n {
            for j in 0..n {
                let rank_mu: f64 = k.step.weights.iter().zip(&steps).map(|(w, y)| w * y[i] * y[j]).sum();
                self.cov[i * n + j] = keep * self.cov[i * n + j] + k.c_1 * self.p_c[i] * self.p_c[j] + k.c_mu * rank_mu;
            }
        }
        self.sigma *= k.step.factor(p_sigma_norm);
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rotated, stretched bowl with its top at `(1, -2, 0.5, ...)`.
    fn bowl(x: &[f64]) -> f64 {
        let shifted: Vec<f64> = x.iter().enumerate().map(|(i, v)| v - [1.0, -2.0, 0.5, 0.0, 3.0, -1.0][i % 6]).collect();
        -shifted
            .iter()
            .enumerate()
            .map(|(i, v)| 10f64.powf(i as f64 / shifted.len() as f64 * 2.0) * (v + 0.5 * shifted[(i + 1) % shifted.len()]).powi(2))
            .sum::<f64>()
    }

    fn run(search: &mut Cmaes, generations: usize) {
        for _ in 0..generations {
            let asked = search.ask();
            let fitness: Vec<f64> = asked.iter().map(|x| bowl(x)).collect();
            search.tell(&asked, &fitness);
        }
    }

    #[test]
    fn a_checkpoint_reads_every_number_back_exactly() {
        // serde_json's float_roundtrip: without it some values read back a
        // unit off in the last place, and a resumed fit climbs elsewhere
        // than a straight one.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let values: Vec<f64> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0
            })
            .collect();
        let back: Vec<f64> = serde_json::from_str(&serde_json::to_string(&values).unwrap()).unwrap();
        let off = values.iter().zip(&back).filter(|(a, b)| a != b).count();
        assert_eq!(off, 0, "{off} of {} values read back otherwise", values.len());
    }

    #[test]
    fn it_climbs_to_the_top_of_a_stretched_rotated_bowl() {
        let mut search = Cmaes::new(vec![0.0; 6], 1.0, None, 7);
        run(&mut search, 250);
        let (best, fitness) = search.best.clone().unwrap();
        assert!(fitness > -1e-6, "{fitness}");
        assert!((best[0] - 1.0).abs() < 1e-2 && (best[1] + 2.0).abs() < 1e-2, "{best:?}");
    }

    #[test]
    fn a_search_saved_mid_way_resumes_exactly() {
        let mut straight = Cmaes::new(vec![0.5; 4], 0.7, Some(8), 3);
        run(&mut straight, 10);
        let saved = serde_json::to_string(&straight).unwrap();
        run(&mut straight, 10);
        let mut resumed: Cmaes = serde_json::from_str(&saved).unwrap();
        assert_eq!(resumed.ask(), resumed.ask(), "asking again gives the same generation");
        run(&mut resumed, 10);
        assert_eq!(resumed, straight);
    }
}
