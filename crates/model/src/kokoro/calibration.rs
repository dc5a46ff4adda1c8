//! Weights that let a stream's sketch stand for its whole line. The sketch
//! measures the generator's norms on some frames only; each of those frames
//! is weighted so that what is known of every frame before the generator
//! runs (the model's energy curve and a few fixed projections of the
//! decoder's features) sums over the sketch as it sums over the line: a
//! calibration (generalised regression) estimator, which counts on the
//! norms' per-frame values following those features.

/// Fixed projections of the decoder's features taken per frame.
const PROJECTIONS: usize = 8;

/// Ridge on the calibration's normal equations, per measured frame (the
/// covariates are standardised): keeps weights tame when the sketch's
/// frames hardly vary in some direction.
const RIDGE: f64 = 1.0;

/// No weight falls below this share of its frame's plain weight, so every
/// weighted variance stays a variance.
const LEAST_WEIGHT: f64 = 0.1;

/// What is known of every frame of a line before the generator runs, one
/// row per frame, standardised over the line, with a constant first.
#[derive(Debug, Clone)]
pub struct FrameCovariates {
    rows: Vec<Vec<f64>>,
}

impl FrameCovariates {
    /// From the energy curve (one value per frame) and the decoder's
    /// features `channels × frames`, row-major.
    pub fn new(energy: &[f32], features: &[f32], channels: usize) -> FrameCovariates {
        let frames = energy.len();
        assert_eq!(features.len(), channels * frames, "decoder features per frame");
        let projections = sign_projections(channels);
        let mut columns: Vec<Vec<f64>> = vec![energy.iter().map(|&e| e as f64).collect()];
        for signs in &projections {
            let mut column = vec![0f64; frames];
            for (c, &sign) in signs.iter().enumerate() {
                for (v, &x) in column.iter_mut().zip(&features[c * frames..(c + 1) * frames]) {
                    *v += sign * x as f64;
                }
            }
            columns.push(column);
        }
        for column in &mut columns {
            let mean = column.iter().sum::<f64>() / frames.max(1) as f64;
            let spread = (column.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / frames.max(1) as f64).sqrt();
            column.iter_mut().for_each(|v| *v = if spread > 1e-9 { (*v - mean) / spread } else { 0.0 });
        }
        let rows = (0..frames).map(|f| std::iter::once(1.0).chain(columns.iter().map(|c| c[f])).collect()).collect();
        FrameCovariates { rows }
    }

    /// Frames in the line.
    pub fn frames(&self) -> usize {
        self.rows.len()
    }

    /// The weight of each of `measured` (frame indices): the plain weight
    /// (frames in the line over frames measured) adjusted so the
    /// covariates' weighted sums over `measured` match their sums over the
    /// line (up to the ridge and the least weight).
    pub fn weights(&self, measured: &[usize]) -> Vec<f64> {
        let n = measured.len().max(1) as f64;
        let plain = self.frames() as f64 / n;
        let dims = self.rows.first().map_or(0, Vec::len);
        // Normal equations: (Σ d z zᵀ + ridge) λ = Σ_line z − Σ d z.
        let mut matrix = vec![0f64; dims * dims];
        let mut gap = vec![0f64; dims];
        for row in &self.rows {
            gap.iter_mut().zip(row).for_each(|(g, z)| *g += z);
        }
        for &f in measured {
            let z = &self.rows[f];
            for a in 0..dims {
                gap[a] -= plain * z[a];
                for b in 0..dims {
                    matrix[a * dims + b] += plain * z[a] * z[b];
                }
            }
        }
        (0..dims).for_each(|a| matrix[a * dims + a] += RIDGE * n);
        let lambda = solve_positive_definite(&mut matrix, gap);
        measured
            .iter()
            .map(|&f| {
                let adjust: f64 = self.rows[f].iter().zip(&lambda).map(|(z, l)| z * l).sum();
                plain * (1.0 + adjust).max(LEAST_WEIGHT)
            })
            .collect()
    }
}

/// `PROJECTIONS` fixed ±1 vectors over `channels` (a xorshift sequence, the
/// same for every line).
fn sign_projections(channels: usize) -> Vec<Vec<f64>> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut sign = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if state & 1 == 0 {
            1.0
        } else {
            -1.0
        }
    };
    (0..PROJECTIONS).map(|_| (0..channels).map(|_| sign()).collect()).collect()
}

/// Solves `A x = b` for a symmetric positive definite `A` (`n × n`,
/// row-major, overwritten by its Cholesky factor).
fn solve_positive_definite(a: &mut [f64], mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for j in 0..n {
        let diagonal = (a[j * n + j] - (0..j).map(|k| a[j * n + k].powi(2)).sum::<f64>()).max(f64::MIN_POSITIVE).sqrt();
        a[j * n + j] = diagonal;
        for i in j + 1..n {
            a[i * n + j] = (a[i * n + j] - (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>()) / diagonal;
        }
    }
    for i in 0..n {
        b[i] = (b[i] - (0..i).map(|k| a[i * n + k] * b[k]).sum::<f64>()) / a[i * n + i];
    }
    for i in (0..n).rev() {
        b[i] = (b[i] - (i + 1..n).map(|k| a[k * n + i] * b[k]).sum::<f64>()) / a[i * n + i];
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solve_undoes_its_product() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let x = [1.0, -2.0, 0.5];
        let b: Vec<f64> = (0..3).map(|i| (0..3).map(|j| a[i * 3 + j] * x[j]).sum()).collect();
        let solved = solve_positive_definite(&mut a.to_vec(), b);
        assert!(solved.iter().zip(x).all(|(s, x)| (s - x).abs() < 1e-12), "{solved:?}");
    }

    #[test]
    fn a_sketch_of_quiet_frames_is_weighted_up_to_the_line_s_energy() {
        // Loud in the middle; the sketch measures mostly quiet frames.
        let frames = 200;
        let energy: Vec<f32> = (0..frames).map(|f| if (50..150).contains(&f) { 2.0 } else { -1.0 }).collect();
        let features: Vec<f32> = (0..4 * frames).map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.1).collect();
        let covariates = FrameCovariates::new(&energy, &features, 4);
        let measured: Vec<usize> = (0..40).chain(60..70).collect();
        let weights = covariates.weights(&measured);
        assert!(weights.iter().all(|&w| w > 0.0));
        let share = |w: &[f64]| measured.iter().zip(w).filter(|(&f, _)| (50..150).contains(&f)).map(|(_, w)| w).sum::<f64>() / w.iter().sum::<f64>();
        let plain = share(&vec![1.0; measured.len()]);
        assert!((plain - 0.2).abs() < 1e-9);
        assert!(share(&weights) > 0.4, "the loud frames' share {} moves towards the line's 0.5", share(&weights));
    }

    #[test]
    fn a_sketch_of_every_frame_keeps_equal_weights() {
        let energy: Vec<f32> = (0..50).map(|f| (f as f32 * 0.3).sin()).collect();
        let features: Vec<f32> = (0..3 * 50).map(|i| (i as f32 * 0.17).cos()).collect();
        let covariates = FrameCovariates::new(&energy, &features, 3);
        let all: Vec<usize> = (0..50).collect();
        assert!(covariates.weights(&all).iter().all(|&w| (w - 1.0).abs() < 1e-9));
    }
}
