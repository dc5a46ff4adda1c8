//! Eigen-decomposition of small symmetric matrices (cyclic Jacobi), for
//! the search's covariance and the stock voices' principal components.
//! Sizes here are tens of rows, where Jacobi is simple and exact enough.

/// Eigenvalues (descending) and the matching unit eigenvectors (one per
/// row of the second result, each `n` long) of the symmetric `n × n`
/// row-major matrix `a`.
pub fn symmetric_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<Vec<f64>>) {
    assert_eq!(a.len(), n * n, "an n × n matrix");
    let mut m = a.to_vec();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| m[i * n + j].powi(2)).sum();
        let scale: f64 = (0..n).map(|i| m[i * n + i].powi(2)).sum::<f64>().max(1e-300);
        if off <= 1e-24 * scale {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = m[p * n + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (mkp, mkq) = (m[k * n + p], m[k * n + q]);
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for k in 0..n {
                    let (mpk, mqk) = (m[p * n + k], m[q * n + k]);
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| m[b * n + b].total_cmp(&m[a * n + a]));
    let values = order.iter().map(|&i| m[i * n + i]).collect();
    let vectors = order.iter().map(|&i| (0..n).map(|k| v[k * n + i]).collect()).collect();
    (values, vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symmetric_matrix_is_rebuilt_from_its_eigenpairs() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, -0.2, 0.5, -0.2, 1.0];
        let (values, vectors) = symmetric_eigen(&a, 3);
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        for i in 0..3 {
            for j in 0..3 {
                let rebuilt: f64 = (0..3).map(|k| values[k] * vectors[k][i] * vectors[k][j]).sum();
                assert!((rebuilt - a[i * 3 + j]).abs() < 1e-9, "{i},{j}: {rebuilt}");
                let dot: f64 = (0..3).map(|k| vectors[i][k] * vectors[j][k]).sum();
                assert!((dot - if i == j { 1.0 } else { 0.0 }).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn a_diagonal_matrix_is_its_own_decomposition() {
        let (values, vectors) = symmetric_eigen(&[1.0, 0.0, 0.0, 5.0], 2);
        assert_eq!(values, [5.0, 1.0]);
        assert_eq!(vectors[0].iter().map(|x| x.abs()).collect::<Vec<_>>(), [0.0, 1.0]);
    }
}
