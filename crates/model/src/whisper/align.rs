//! Word timing from cross-attention, as faster-whisper 1.2.1 and
//! CTranslate2 compute it: the alignment heads' attention over the audio
//! (softmax over the frames that hold audio, standardised per frame across
//! tokens, median-filtered over time with width 7, averaged over heads),
//! a dynamic-time-warping path through its negative, and a word's start
//! and end at the frames where the path enters its first token and leaves
//! its last. The clean-ups faster-whisper applies afterwards (long words at
//! sentence and segment boundaries, punctuation merged into words) live in
//! [`super::transcribe`].

/// Frames per second of the encoder output (20 ms each).
pub const TOKENS_PER_SECOND: f64 = 50.0;

/// Standardises each frame's column across tokens, median-filters every
/// token's row over time and averages the heads: `heads[h][token][frame]`
/// → `[token][frame]`.
pub fn combine_heads(heads: &[Vec<Vec<f32>>], filter_width: usize) -> Vec<Vec<f32>> {
    let tokens = heads.first().map_or(0, |h| h.len());
    let frames = heads.first().and_then(|h| h.first()).map_or(0, |r| r.len());
    let mut out = vec![vec![0f32; frames]; tokens];
    for head in heads {
        let mut w = head.clone();
        for f in 0..frames {
            let mean = (0..tokens).map(|t| w[t][f]).sum::<f32>() / tokens as f32;
            let var = (0..tokens).map(|t| (w[t][f] - mean).powi(2)).sum::<f32>() / tokens as f32;
            let std = var.sqrt();
            for row in w.iter_mut() {
                row[f] = (row[f] - mean) / std;
            }
        }
        for (t, row) in w.iter().enumerate() {
            let filtered = median_filter(row, filter_width);
            for (o, v) in out[t].iter_mut().zip(filtered) {
                *o += v / heads.len() as f32;
            }
        }
    }
    out
}

/// Median over a centred window of `width` (odd), the edges reflected.
pub fn median_filter(x: &[f32], width: usize) -> Vec<f32> {
    let half = width / 2;
    let n = x.len() as isize;
    if n <= half as isize {
        return x.to_vec();
    }
    let at = |i: isize| -> f32 {
        let j = if i < 0 {
            -i
        } else if i >= n {
            2 * (n - 1) - i
        } else {
            i
        };
        x[j as usize]
    };
    let mut window = vec![0f32; width];
    (0..n)
        .map(|i| {
            for (k, w) in window.iter_mut().enumerate() {
                *w = at(i - half as isize + k as isize);
            }
            window.sort_by(|a, b| a.total_cmp(b));
            window[half]
        })
        .collect()
}

/// The cheapest monotonic path through `cost[rows][cols]` from the first
/// cell to the last, as `(row, col)` steps in order.
pub fn dtw(cost: &[Vec<f32>]) -> Vec<(usize, usize)> {
    let n = cost.len();
    let m = cost.first().map_or(0, |r| r.len());
    let mut acc = vec![vec![f32::INFINITY; m + 1]; n + 1];
    let mut trace = vec![vec![-1i8; m + 1]; n + 1];
    acc[0][0] = 0.0;
    for j in 1..=m {
        for i in 1..=n {
            let (c0, c1, c2) = (acc[i - 1][j - 1], acc[i - 1][j], acc[i][j - 1]);
            let (c, t) = if c0 < c1 && c0 < c2 {
                (c0, 0)
            } else if c1 < c0 && c1 < c2 {
                (c1, 1)
            } else {
                (c2, 2)
            };
            acc[i][j] = cost[i - 1][j - 1] + c;
            trace[i][j] = t;
        }
    }
    for t in trace[0].iter_mut() {
        *t = 2;
    }
    for row in trace.iter_mut() {
        row[0] = 1;
    }
    let (mut i, mut j) = (n, m);
    let mut path = Vec::new();
    while i > 0 || j > 0 {
        path.push((i.wrapping_sub(1), j.wrapping_sub(1)));
        match trace[i][j] {
            0 => {
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    path.reverse();
    path.retain(|(i, j)| *i != usize::MAX && *j != usize::MAX);
    path
}

/// The time (s) at which the path enters each row, from a DTW path.
pub fn row_entry_times(path: &[(usize, usize)]) -> Vec<f64> {
    let mut times = Vec::new();
    let mut last = None;
    for &(row, col) in path {
        if last != Some(row) {
            times.push(col as f64 / TOKENS_PER_SECOND);
            last = Some(row);
        }
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_filter_keeps_steps_and_removes_spikes() {
        let x = [0.0, 0.0, 9.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        assert_eq!(median_filter(&x, 3), vec![0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn dtw_follows_the_cheap_diagonal_band() {
        // Row r is cheap at columns 2r..2r+1: each row takes two frames.
        let cost: Vec<Vec<f32>> = (0..3).map(|r| (0..6).map(|c| if c / 2 == r { -1.0 } else { 1.0 }).collect()).collect();
        let path = dtw(&cost);
        assert_eq!(path.first(), Some(&(0, 0)));
        assert_eq!(path.last(), Some(&(2, 5)));
        assert_eq!(row_entry_times(&path), vec![0.0, 2.0 / 50.0, 4.0 / 50.0]);
    }

    #[test]
    fn heads_are_standardised_per_frame_before_they_are_averaged() {
        // Two tokens, two frames; a head that is a scaled copy of another gives the same result.
        let a = vec![vec![0.9, 0.1], vec![0.1, 0.9]];
        let b = vec![vec![0.6, 0.4], vec![0.4, 0.6]];
        let one = combine_heads(std::slice::from_ref(&a), 1);
        let both = combine_heads(&[a, b], 1);
        for (x, y) in one.iter().flatten().zip(both.iter().flatten()) {
            assert!((x - y).abs() < 1e-5);
        }
        assert!(one[0][0] > 0.0 && one[0][1] < 0.0);
    }
}
