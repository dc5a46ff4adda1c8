//! A line's audio in pieces, the first one early. The generator's norms
//! want statistics over the whole line. Its early upsampling stage (the
//! stats that matter most, and about a third of its work) runs on the
//! whole line as in one pass. The last stage is sketched: the line's
//! opening piece plus short spans spread over the rest by loudness, run
//! together as one input, every norm measured over the spans alone, each
//! frame weighted so that the sketch's loudness and decoder features sum
//! as the line's do (`calibration.rs`). The opening piece's audio comes out
//! of the sketch and is handed on at once; every later piece is a window of
//! the line with context on both sides, run through the last stage with the
//! sketch's statistics replayed and trimmed to its own frames. All pieces
//! share one set of statistics, so they join without seams; how far the
//! stream is from the one-pass audio is down to the sketch (measured in
//! `tests/kokoro_stream.rs`).

use std::ops::{ControlFlow, Range};

use candle_core::{Result, Tensor};

use super::calibration::FrameCovariates;
use super::generator::Generator;
use super::norm_statistics::NormStatistics;

/// How a line is cut, in generator input frames (80 per second of audio).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamPlan {
    /// Lines up to this long render in one pass, handed on whole.
    pub whole_up_to_frames: usize,
    /// The opening piece, rendered inside the sketch.
    pub first_frames: usize,
    /// Every later piece.
    pub piece_frames: usize,
    /// Context on each side of a piece: the last stage's reach, so a
    /// window's trimmed audio equals the same frames of a whole pass with
    /// the same statistics.
    pub context_frames: usize,
    /// Spans the sketch measures after the opening piece, at most.
    pub sketch_spans: usize,
    /// The share of a line (in percent) the sketch's spans may take, with
    /// their context: what keeps a short line's sketch from costing as
    /// much as the line.
    pub sketch_share_percent: usize,
    /// Frames in each sketch span's centre.
    pub sketch_span_frames: usize,
    /// Context on each side of a sketch span (below the reach, the
    /// span's edges are off and its statistics with them).
    pub sketch_context_frames: usize,
}

impl StreamPlan {
    /// The previews' plan: lines up to 2 s whole (one pass is as quick as
    /// a sketch there); longer ones a quarter second first, then a second
    /// at a time, each with the last stage's reach (3 frames) as context;
    /// a sketch of two-frame spans without context (their edges are off,
    /// but many short spans over the line measure it better than a few
    /// exact ones) covering 15 % of the line. Measured on eighteen lines
    /// against the one pass: worst log-mel L1 0.27, mean 0.20 to 0.22; the
    /// plan before (twelve exact 12-frame spans in 40 % of the line,
    /// weighted by energy quartile) 0.29, 0.22 to 0.24. 10 % left 0.37,
    /// 20 % 0.26.
    pub const PREVIEW: StreamPlan = StreamPlan {
        whole_up_to_frames: 160,
        first_frames: 20,
        piece_frames: 80,
        context_frames: 3,
        sketch_spans: 120,
        sketch_share_percent: 15,
        sketch_span_frames: 2,
        sketch_context_frames: 0,
    };

    /// How many spans the sketch of a line of `frames` measures: at most
    /// `sketch_spans`, and as many as fit their windows in
    /// `sketch_share_percent` of the line (at least one).
    pub fn sketch_spans_for(&self, frames: usize) -> usize {
        let window = self.sketch_span_frames.saturating_add(2 * self.sketch_context_frames);
        let fit = frames * self.sketch_share_percent / 100 / window.max(1);
        fit.clamp(1, self.sketch_spans.max(1))
    }

    /// True when a line of `frames` renders in one pass.
    pub fn renders_whole(&self, frames: usize) -> bool {
        frames <= self.whole_up_to_frames.max(self.first_frames + self.context_frames)
    }
}

/// A window of the input: the frames run (`outer`) and the frames kept (`centre`).
#[derive(Debug, Clone, PartialEq)]
struct Window {
    outer: Range<usize>,
    centre: Range<usize>,
}

impl Window {
    fn around(centre: Range<usize>, context: usize, frames: usize) -> Window {
        Window { outer: centre.start.saturating_sub(context)..(centre.end + context).min(frames), centre }
    }
}

/// The sketch of a line whose frames have loudness `energy` (the model's
/// energy curve): its windows, the opening piece first and then up to
/// `plan.sketch_spans` spans centred on frames at evenly spaced ranks of
/// loudness, so quiet, middling and loud stretches are all measured; and
/// each measured frame's weight (window by window, centre frames in order)
/// from `covariates` (see [`FrameCovariates::weights`]).
fn sketch(plan: &StreamPlan, energy: &[f32], covariates: &FrameCovariates) -> (Vec<Window>, Vec<f64>) {
    let frames = energy.len();
    let first = plan.first_frames.min(frames);
    let mut windows = vec![Window::around(0..first, plan.context_frames, frames)];
    let rest = frames - first;
    let spans = plan.sketch_spans_for(frames);
    let span = plan.sketch_span_frames.min(rest / spans.max(1));
    if span > 0 {
        let mut by_energy: Vec<usize> = (first..frames).collect();
        by_energy.sort_by(|&a, &b| energy[a].total_cmp(&energy[b]));
        let mut taken: Vec<Range<usize>> = Vec::new();
        taken.push(0..first);
        for i in 0..spans {
            let target = (2 * i + 1) * by_energy.len() / (2 * spans);
            // The frame nearest that rank whose span overlaps none taken.
            let free = (0..by_energy.len()).flat_map(|d| [target + d, target.wrapping_sub(d)]).filter(|&r| r < by_energy.len()).find_map(|r| {
                let start = by_energy[r].saturating_sub(span / 2).clamp(first, frames - span);
                let centre = start..start + span;
                taken.iter().all(|t| t.end <= centre.start || centre.end <= t.start).then_some(centre)
            });
            if let Some(centre) = free {
                taken.push(centre.clone());
                windows.push(Window::around(centre, plan.sketch_context_frames, frames));
            }
        }
        windows[1..].sort_by_key(|w| w.centre.start);
    }
    let measured: Vec<usize> = windows.iter().flat_map(|w| w.centre.clone()).collect();
    let weights = covariates.weights(&measured);
    (windows, weights)
}

impl Generator {
    /// Input frames per audio sample run: the product of the upsampling
    /// rates times the hop.
    pub fn samples_per_input_frame(&self) -> usize {
        self.upsampling() * self.hop()
    }

    /// Streams the audio of features `x` `[1, C, T]` with source spectrum
    /// `har` `[1, 2·bins, upsampling·T + 1]` as `plan` cuts it, handing each
    /// piece to `piece` in order (together, the line's samples). Stops
    /// early when `piece` breaks; returns whether it ran to the end.
    /// `energy` is the model's energy curve, one value per input frame.
    pub fn stream(
        &self,
        x: &Tensor,
        style: &Tensor,
        har: &Tensor,
        energy: &[f32],
        plan: &StreamPlan,
        piece: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<bool> {
        let frames = x.dim(2)?;
        let per_frame = self.samples_per_input_frame();
        if plan.renders_whole(frames) {
            let (_, audio) = self.spectrum_to_audio(x, style, har)?;
            return Ok(piece(&audio).is_continue());
        }
        if energy.len() != frames {
            candle_core::bail!("an energy value per frame: {} for {frames} frames", energy.len());
        }
        // The sketch: its windows run as one input, measured over their centres.
        let features = x.flatten_all()?.to_vec1::<f32>()?;
        let covariates = FrameCovariates::new(energy, &features, features.len() / frames);
        let (windows, weights) = sketch(plan, energy, &covariates);
        let (mut measured, mut offset) = (Vec::new(), 0);
        for w in &windows {
            measured.extend(w.centre.clone().map(|f| offset + f - w.outer.start));
            offset += w.outer.len();
        }
        // The early stages see the whole line; only the last one is sketched.
        let early = self.early_stages(x, style, har)?;
        let (early_sketch, har_sketch) = self.gather(&early, har, &windows, frames)?;
        let mut measure = NormStatistics::measure(measured.into_iter().zip(weights).collect(), offset);
        let (_, sketch_audio) = self.last_stage(&early_sketch, style, &har_sketch, &mut measure)?;
        let record = measure.into_record().expect("a measurement records");

        let first = &windows[0];
        let lead = (first.centre.start - first.outer.start) * per_frame;
        if piece(&sketch_audio[lead..lead + first.centre.len() * per_frame]).is_break() {
            return Ok(false);
        }
        // The rest, a window at a time, with the sketch's statistics.
        let mut start = first.centre.end;
        while start < frames {
            let window = Window::around(start..(start + plan.piece_frames).min(frames), plan.context_frames, frames);
            let (early_window, har_window) = self.gather(&early, har, std::slice::from_ref(&window), frames)?;
            let (_, audio) = self.last_stage(&early_window, style, &har_window, &mut NormStatistics::replay(record.clone()))?;
            let lead = (window.centre.start - window.outer.start) * per_frame;
            if piece(&audio[lead..lead + window.centre.len() * per_frame]).is_break() {
                return Ok(false);
            }
            start = window.centre.end;
        }
        Ok(true)
    }

    /// The features `x` (of a line `frames` long, at any whole number of
    /// steps per frame) and source spectrum of `windows` laid end to end,
    /// as the generator would see them for one input. The spectrum has one
    /// frame more than `upsampling` per input frame (the last stage's
    /// reflection pad), so the first window brings its leading frame and
    /// each window after it starts one frame in.
    fn gather(&self, x: &Tensor, har: &Tensor, windows: &[Window], frames: usize) -> Result<(Tensor, Tensor)> {
        let up = self.upsampling();
        let steps = x.dim(2)? / frames.max(1);
        let xs = windows.iter().map(|w| x.narrow(2, steps * w.outer.start, steps * w.outer.len())).collect::<Result<Vec<_>>>()?;
        let hars = windows
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let skip = usize::from(i > 0);
                har.narrow(2, up * w.outer.start + skip, up * w.outer.len() + 1 - skip)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((Tensor::cat(&xs, 2)?, Tensor::cat(&hars, 2)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covariates of a line with a flat decoder output: only loudness varies.
    fn flat_features(energy: &[f32]) -> FrameCovariates {
        FrameCovariates::new(energy, &vec![0.5; 4 * energy.len()], 4)
    }

    #[test]
    fn the_sketch_opens_the_line_and_measures_quiet_and_loud_stretches() {
        let plan = StreamPlan::PREVIEW;
        // Quiet at both ends, loud in the middle.
        let energy: Vec<f32> = (0..440).map(|f| if (100..340).contains(&f) { 1.0 + (f % 7) as f32 } else { -3.0 }).collect();
        let (windows, weights) = sketch(&plan, &energy, &flat_features(&energy));
        assert_eq!(windows[0], Window { outer: 0..20 + plan.context_frames, centre: 0..20 });
        assert_eq!(plan.sketch_spans_for(440), 33, "15 % of 440 frames in spans of 2");
        assert_eq!(windows.len(), 1 + 33);
        assert_eq!(plan.sketch_spans_for(4000), plan.sketch_spans);
        for pair in windows.windows(2) {
            assert!(pair[0].centre.end <= pair[1].centre.start, "{pair:?}");
        }
        for w in &windows[1..] {
            assert_eq!(w.centre.len(), plan.sketch_span_frames);
            assert_eq!(w.outer, w.centre, "sketch spans run without context");
        }
        let centres: Vec<usize> = windows.iter().flat_map(|w| w.centre.clone()).collect();
        assert_eq!(weights.len(), centres.len());
        assert!(centres.iter().any(|&f| (100..340).contains(&f)) && centres[20..].iter().any(|&f| !(100..340).contains(&f)));
        // The weights restore the line's share of quiet frames (200 of 440),
        // which the opening piece (all quiet) throws off.
        let quiet: f64 = centres.iter().zip(&weights).filter(|(&f, _)| !(100..340).contains(&f)).map(|(_, w)| w).sum();
        let total: f64 = weights.iter().sum();
        let plain = centres.iter().filter(|&&f| !(100..340).contains(&f)).count() as f64 / centres.len() as f64;
        assert!((quiet / total - 200.0 / 440.0).abs() < (plain - 200.0 / 440.0).abs(), "{} (unweighted {plain})", quiet / total);
    }

    #[test]
    fn sketch_spans_shrink_to_fit_a_short_rest() {
        let plan = StreamPlan { sketch_span_frames: 12, sketch_context_frames: 3, ..StreamPlan::PREVIEW };
        let (windows, _) = sketch(&plan, &[0.0; 50], &flat_features(&[0.0; 50]));
        assert!(windows.iter().all(|w| w.outer.end <= 50));
        assert_eq!(windows.len(), 2, "one span at least");
        assert_eq!(windows[1].centre.len(), plan.sketch_span_frames);
    }
}
