//! Where the generator's instance norms take their per-channel statistics
//! from. A one-pass render measures each norm over its own input, the whole
//! line. A stream cannot: it measures them once on a sketch of the line
//! (some of its spans, run together) and replays that record in every
//! window it renders, so the windows share one set of statistics and join
//! without seams.

use std::ops::Range;
use std::sync::Arc;

/// One norm's per-channel mean and (biased) variance.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelMoments {
    pub mean: Vec<f64>,
    pub variance: Vec<f64>,
}

/// The statistics of every norm in a generator pass, in the order the pass
/// meets them.
pub type NormRecord = Arc<[ChannelMoments]>;

/// How a generator pass gets its norms' statistics.
#[derive(Debug, Clone)]
pub enum NormStatistics {
    /// Each norm over its whole input.
    Own,
    /// Each norm over the given input frames, each frame weighted, and
    /// recorded. A layer `k` times longer than the input gives each frame
    /// `k` steps; a step of padding in front (the last stage's) goes with
    /// the first frame, as a whole pass counts it.
    Measure { frames: Vec<(usize, f64)>, input_frames: usize, recorded: Vec<ChannelMoments> },
    /// Taken in order from a measured record.
    Replay { record: NormRecord, next: usize },
}

/// What one norm layer reads its statistics from; shared across the
/// threads that normalise its channels.
pub enum LayerMoments<'a> {
    /// Each channel over its whole row.
    Whole,
    /// Each channel over these steps of its row, weighted.
    Weighted(Vec<(Range<usize>, f64)>),
    /// Given.
    Given(&'a ChannelMoments),
}

impl NormStatistics {
    /// A measurement over `frames` (index, weight) of an input
    /// `input_frames` long.
    pub fn measure(frames: Vec<(usize, f64)>, input_frames: usize) -> NormStatistics {
        NormStatistics::Measure { frames, input_frames, recorded: Vec::new() }
    }

    /// A replay of `record` from its first norm.
    pub fn replay(record: NormRecord) -> NormStatistics {
        NormStatistics::Replay { record, next: 0 }
    }

    /// The statistics for the next norm, whose rows are `len` steps long.
    pub fn next_layer(&mut self, len: usize) -> candle_core::Result<LayerMoments<'_>> {
        match self {
            NormStatistics::Own => Ok(LayerMoments::Whole),
            NormStatistics::Measure { frames, input_frames, .. } => {
                let width = len / (*input_frames).max(1);
                let offset = len - width * *input_frames;
                let steps = |f: usize| if f == 0 { 0 } else { f * width + offset }..(f + 1) * width + offset;
                Ok(LayerMoments::Weighted(frames.iter().map(|&(f, w)| (steps(f), w)).collect()))
            }
            NormStatistics::Replay { record, next } => {
                let moments =
                    record.get(*next).ok_or_else(|| candle_core::Error::Msg(format!("the norm record holds {} layers; the pass has more", record.len())))?;
                *next += 1;
                Ok(LayerMoments::Given(moments))
            }
        }
    }

    /// Keeps what the last layer measured (only a measurement records).
    pub fn record(&mut self, moments: impl FnOnce() -> ChannelMoments) {
        if let NormStatistics::Measure { recorded, .. } = self {
            recorded.push(moments());
        }
    }

    /// The measured record, once the pass is done.
    pub fn into_record(self) -> Option<NormRecord> {
        match self {
            NormStatistics::Measure { recorded, .. } => Some(recorded.into()),
            _ => None,
        }
    }
}

impl LayerMoments<'_> {
    /// Mean and variance of channel `channel`, whose row is `row`.
    #[inline(always)]
    pub fn of(&self, channel: usize, row: &[f32]) -> (f64, f64) {
        match self {
            LayerMoments::Whole => mean_and_variance(row),
            LayerMoments::Weighted(spans) => {
                // Two passes, as for a whole row: the weighted mean, then the
                // weighted mean square about it.
                let steps = |s: &Range<usize>| &row[s.start.min(row.len())..s.end.min(row.len())];
                let (mut total, mut weight) = (0f64, 0f64);
                for (span, w) in spans {
                    let part = steps(span);
                    total += w * part.iter().map(|&v| v as f64).sum::<f64>();
                    weight += w * part.len() as f64;
                }
                let mean = total / weight.max(f64::MIN_POSITIVE);
                let mut square = 0f64;
                for (span, w) in spans {
                    square += w * steps(span).iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>();
                }
                (mean, square / weight.max(f64::MIN_POSITIVE))
            }
            LayerMoments::Given(m) => (m.mean[channel], m.variance[channel]),
        }
    }
}

/// Mean and (biased) variance of a row, accumulated in 16 f32 lanes per
/// 1024-sample block and f64 across blocks: fast and accurate enough for
/// rows of tens of thousands of samples.
#[inline(always)]
pub fn mean_and_variance(row: &[f32]) -> (f64, f64) {
    #[inline(always)]
    fn block_sums(row: &[f32], f: impl Fn(f32) -> f32) -> f64 {
        row.chunks(1024)
            .map(|block| {
                let mut lanes = [0f32; 16];
                let mut chunks = block.chunks_exact(16);
                for chunk in &mut chunks {
                    for (lane, &v) in lanes.iter_mut().zip(chunk) {
                        *lane += f(v);
                    }
                }
                let tail: f32 = chunks.remainder().iter().map(|&v| f(v)).sum();
                lanes.iter().map(|&l| l as f64).sum::<f64>() + tail as f64
            })
            .sum()
    }
    let n = row.len().max(1) as f64;
    let mean = block_sums(row, |v| v) / n;
    let m = mean as f32;
    let var = block_sums(row, |v| (v - m) * (v - m)) / n;
    (mean, var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_weights_give_the_moments_of_the_frames_joined_and_weights_count_frames_twice() {
        let row: Vec<f32> = (0..500).map(|i| ((i * 37 % 101) as f32 - 40.0) * 0.1).collect();
        let joined: Vec<f32> = [30..40, 200..210].iter().flat_map(|s| row[s.clone()].iter().copied()).collect();
        let (m, v) = LayerMoments::Weighted(vec![(30..40, 1.0), (200..210, 1.0)]).of(0, &row);
        let (jm, jv) = mean_and_variance(&joined);
        assert!((m - jm).abs() < 1e-6 && (v - jv).abs() < 1e-5, "{m} {v} vs {jm} {jv}");
        let twice: Vec<f32> = [30..40, 30..40, 200..210].iter().flat_map(|s| row[s.clone()].iter().copied()).collect();
        let (m, v) = LayerMoments::Weighted(vec![(30..40, 2.0), (200..210, 1.0)]).of(0, &row);
        let (tm, tv) = mean_and_variance(&twice);
        assert!((m - tm).abs() < 1e-6 && (v - tv).abs() < 1e-5, "{m} {v} vs {tm} {tv}");
    }

    #[test]
    fn spans_scale_with_the_layer_and_a_replay_runs_out() {
        let mut measure = NormStatistics::measure(vec![(0, 1.0), (3, 0.5)], 10);
        match measure.next_layer(61).unwrap() {
            LayerMoments::Weighted(spans) => assert_eq!(spans, vec![(0..7, 1.0), (19..25, 0.5)], "the padding step goes with frame 0"),
            _ => panic!("a measurement measures frames"),
        }
        measure.record(|| ChannelMoments { mean: vec![1.0], variance: vec![2.0] });
        let record = measure.into_record().unwrap();
        let mut replay = NormStatistics::replay(record);
        assert!(matches!(replay.next_layer(5).unwrap(), LayerMoments::Given(m) if m.mean == [1.0]));
        assert!(replay.next_layer(5).is_err(), "a record of one layer replays one layer");
    }
}
