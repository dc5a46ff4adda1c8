//! Waveform overviews: the lowest and highest sample of each bucket of a
//! signal, what the timeline draws for a line or the bed.

use serde::Serialize;

/// Min and max per bucket of `seconds_per_bucket`, from `start` seconds.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Peaks {
    pub start: f64,
    pub seconds_per_bucket: f64,
    pub min: Vec<f32>,
    pub max: Vec<f32>,
}

/// The overview of `samples` (at `sample_rate`, placed at `start` seconds)
/// with `per_second` buckets a second; the last bucket may be partial.
pub fn peaks(samples: &[f32], sample_rate: u32, start: f64, per_second: u32) -> Peaks {
    let bucket = (sample_rate / per_second.max(1)).max(1) as usize;
    let (min, max) = samples.chunks(bucket).map(|chunk| chunk.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &s| (lo.min(s), hi.max(s)))).unzip();
    Peaks { start, seconds_per_bucket: bucket as f64 / sample_rate as f64, min, max }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bucket_holds_its_extremes_and_the_last_may_be_partial() {
        let samples: Vec<f32> = (0..250).map(|i| ((i % 100) as f32 - 50.0) / 100.0).collect();
        let p = peaks(&samples, 1000, 2.5, 10);
        assert_eq!(p.seconds_per_bucket, 0.1);
        assert_eq!(p.min.len(), 3);
        assert_eq!((p.min[0], p.max[0]), (-0.5, 0.49));
        assert_eq!((p.min[2], p.max[2]), (-0.5, -0.01), "the half bucket at the end");
        assert_eq!(p.start, 2.5);
    }
}
