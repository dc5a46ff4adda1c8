//! Timing strategies: where a rendered line goes on the timeline and how
//! it is fitted to its slot. Pure arithmetic over the slot, the next
//! line's start and the line's natural length, so every strategy can be
//! switched without re-synthesis (except fit-by-re-synthesis, whose
//! render asks the model for a target length and so has its own
//! synthesis key: slot-fitted audio never passes for natural-rate audio).

use serde::{Deserialize, Serialize};

/// How a line is fitted to its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingStrategy {
    /// At the slot's start, at its natural length; overlaps are flagged.
    Natural,
    /// Exactly the slot: padded with silence, or trimmed with a fade.
    StrictSlot,
    /// Use the silence before the next line (minus a guard), then speed up
    /// to a cap, then trim with a fade, at a pause between words when the
    /// cut would fall inside one (see [`cut_at_pause`]); lines much shorter
    /// than their slot are slowed down a little.
    SmartFit,
    /// Render at the speed that fills the slot (the model is asked for the
    /// length), trimming only what rounding leaves over.
    Resynthesize,
}

/// The limits smart fit works within.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FitLimits {
    /// Silence kept before the next line, seconds.
    pub guard: f64,
    /// Fastest playback rate (1.25 = 25 % faster).
    pub max_speedup: f64,
    /// Slowest playback rate for short lines (0.85 = 15 % slower).
    pub min_slowdown: f64,
    /// Fade applied where audio is cut, seconds.
    pub fade: f64,
}

impl Default for FitLimits {
    fn default() -> Self {
        FitLimits { guard: 0.1, max_speedup: 1.25, min_slowdown: 0.85, fade: 0.03 }
    }
}

/// A line's slot on its track.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot {
    pub start: f64,
    pub end: f64,
    /// Where the next line on the track starts, if there is one.
    pub next_start: Option<f64>,
}

/// Where and how a rendered line is placed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Timeline position of the first sample, seconds.
    pub start: f64,
    /// Playback rate applied by time-stretching (pitch kept); 1 = as rendered.
    pub rate: f64,
    /// Seconds on the timeline after stretching, trimming and padding.
    pub length: f64,
    /// Audio after stretching is cut to this many seconds, with `fade` at the cut.
    pub trimmed_to: Option<f64>,
    /// Fade-out length at a cut, seconds (0 when nothing is cut).
    pub fade: f64,
    /// How far the line runs into the next one, seconds (natural only).
    pub overlap: Option<f64>,
}

/// What the renderer must be asked for under a strategy: `None` for
/// natural-rate audio, or the length to render to (the slot's own length).
pub fn render_target(strategy: TimingStrategy, slot: &Slot) -> Option<f64> {
    match strategy {
        TimingStrategy::Resynthesize => Some((slot.end - slot.start).max(0.05)),
        _ => None,
    }
}

/// Seconds a line may use: up to the next line minus the guard (never
/// less than its own slot); the last line of a track is not limited.
fn room(slot: &Slot, limits: &FitLimits) -> f64 {
    let own = (slot.end - slot.start).max(0.0);
    match slot.next_start {
        Some(next) => (next - limits.guard - slot.start).max(own),
        None => f64::INFINITY,
    }
}

/// Places a rendered line of `natural` seconds (as rendered, for
/// `Resynthesize` already rendered to the target) in `slot`.
pub fn place(strategy: TimingStrategy, slot: &Slot, natural: f64, limits: &FitLimits) -> Placement {
    let own = (slot.end - slot.start).max(0.0);
    let plain = Placement { start: slot.start, rate: 1.0, length: natural, trimmed_to: None, fade: 0.0, overlap: None };
    match strategy {
        TimingStrategy::Natural => {
            let overlap = slot.next_start.map(|next| slot.start + natural - next).filter(|&o| o > 0.0);
            Placement { overlap, ..plain }
        }
        TimingStrategy::StrictSlot => {
            if natural > own {
                Placement { length: own, trimmed_to: Some(own), fade: limits.fade.min(own), ..plain }
            } else {
                Placement { length: own, ..plain }
            }
        }
        TimingStrategy::SmartFit => {
            let room = room(slot, limits);
            if natural <= room {
                if natural < own && own > 0.0 {
                    // Slow a short line towards its slot, no slower than the floor.
                    let rate = (natural / own).max(limits.min_slowdown);
                    return Placement { rate, length: natural / rate, ..plain };
                }
                return plain;
            }
            let rate = (natural / room).min(limits.max_speedup);
            let stretched = natural / rate;
            if stretched <= room + 1e-9 {
                Placement { rate, length: stretched, ..plain }
            } else {
                Placement { rate, length: room, trimmed_to: Some(room), fade: limits.fade.min(room), ..plain }
            }
        }
        TimingStrategy::Resynthesize => {
            let room = room(slot, limits);
            if natural > room {
                Placement { length: room, trimmed_to: Some(room), fade: limits.fade.min(room), ..plain }
            } else {
                plain
            }
        }
    }
}

/// Silence shorter than this is not a pause a cut may land in, seconds.
pub const MIN_PAUSE: f64 = 0.05;

/// A smart-fit trim moved back so it never cuts a word: when the planned
/// cut (with its fade) falls in sound, the line is cut instead at the last
/// pause that ends before it, the fade starting where the pause starts,
/// and padded with silence to the same length on the timeline. `pauses`
/// are the silent stretches inside the rendered audio (natural-rate
/// seconds, as [`FrameLevels::pauses`](crate::audio::levels::FrameLevels::pauses)
/// finds them); `cut_is_silent` says whether the planned cut already falls
/// in silence, where it stays. With no pause before the cut, it stays too
/// (the take's check then reports the words it lost).
pub fn cut_at_pause(p: &Placement, pauses: &[(f64, f64)], cut_is_silent: bool) -> Placement {
    let Some(cut) = p.trimmed_to else { return *p };
    if cut_is_silent || !(p.rate > 0.0) {
        return *p;
    }
    let at_pause = pauses
        .iter()
        .map(|&(from, to)| (from / p.rate, to / p.rate))
        .map(|(from, to)| from + p.fade.min(to - from))
        .filter(|&end| end <= cut)
        .fold(None, |last: Option<f64>, end| Some(last.map_or(end, |l| l.max(end))));
    match at_pause {
        Some(end) => Placement { trimmed_to: Some(end), ..*p },
        None => *p,
    }
}

/// Where a smart-fit trim falls in the rendered audio, natural-rate
/// seconds: the span its fade covers. [`cut_at_pause`] needs to know
/// whether that span is silent.
pub fn cut_span(p: &Placement) -> Option<(f64, f64)> {
    p.trimmed_to.map(|cut| ((cut - p.fade).max(0.0) * p.rate, cut * p.rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: FitLimits = FitLimits { guard: 0.1, max_speedup: 1.25, min_slowdown: 0.85, fade: 0.03 };

    fn slot(start: f64, end: f64, next: Option<f64>) -> Slot {
        Slot { start, end, next_start: next }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn natural_places_at_the_start_and_flags_an_overlap() {
        let p = place(TimingStrategy::Natural, &slot(1.0, 3.0, Some(3.5)), 3.0, &LIMITS);
        assert_eq!((p.start, p.rate, p.length, p.trimmed_to), (1.0, 1.0, 3.0, None));
        assert!(close(p.overlap.unwrap(), 0.5));
        assert_eq!(place(TimingStrategy::Natural, &slot(1.0, 3.0, Some(5.0)), 3.0, &LIMITS).overlap, None);
    }

    #[test]
    fn strict_slot_pads_short_lines_and_trims_long_ones_with_a_fade() {
        let short = place(TimingStrategy::StrictSlot, &slot(1.0, 3.0, None), 1.2, &LIMITS);
        assert_eq!((short.length, short.trimmed_to, short.fade), (2.0, None, 0.0));
        let long = place(TimingStrategy::StrictSlot, &slot(1.0, 3.0, None), 2.6, &LIMITS);
        assert_eq!((long.length, long.trimmed_to, long.fade), (2.0, Some(2.0), 0.03));
    }

    #[test]
    fn smart_fit_uses_the_silence_before_the_next_line_first() {
        // Slot 2 s, next line at +3 s: 2.9 s of room, a 2.5 s line fits as is.
        let p = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(3.0)), 2.5, &LIMITS);
        assert_eq!((p.rate, p.length, p.trimmed_to), (1.0, 2.5, None));
    }

    #[test]
    fn smart_fit_then_speeds_up_to_the_cap_then_trims() {
        // 2.9 s of room: a 3.48 s line plays at 1.2x in 2.9 s.
        let p = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(3.0)), 3.48, &LIMITS);
        assert!(close(p.rate, 1.2) && close(p.length, 2.9) && p.trimmed_to.is_none(), "{p:?}");
        // A 4.35 s line would need 1.5x: capped at 1.25x (3.48 s), then cut to 2.9 s.
        let p = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(3.0)), 4.35, &LIMITS);
        assert!(close(p.rate, 1.25) && close(p.length, 2.9) && p.trimmed_to == Some(p.length) && p.fade == 0.03, "{p:?}");
    }

    #[test]
    fn smart_fit_slows_short_lines_no_further_than_the_floor() {
        // 1.8 s in a 2 s slot: slowed to 0.9x, filling it.
        let p = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(4.0)), 1.8, &LIMITS);
        assert!(close(p.rate, 0.9) && close(p.length, 2.0), "{p:?}");
        // 1.0 s in a 2 s slot: only down to 0.85x.
        let p = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(4.0)), 1.0, &LIMITS);
        assert!(close(p.rate, 0.85) && close(p.length, 1.0 / 0.85), "{p:?}");
    }

    #[test]
    fn the_last_line_of_a_track_is_never_squeezed() {
        let p = place(TimingStrategy::SmartFit, &slot(10.0, 11.0, None), 5.0, &LIMITS);
        assert_eq!((p.rate, p.length, p.trimmed_to), (1.0, 5.0, None));
    }

    #[test]
    fn resynthesis_asks_for_the_slot_length_and_only_trims_rounding_left_over() {
        let s = slot(0.0, 2.0, Some(2.05));
        assert_eq!(render_target(TimingStrategy::Resynthesize, &s), Some(2.0));
        assert_eq!(render_target(TimingStrategy::SmartFit, &s), None);
        let p = place(TimingStrategy::Resynthesize, &s, 2.02, &LIMITS);
        assert_eq!((p.rate, p.length, p.trimmed_to), (1.0, 2.0, Some(2.0)));
        let p = place(TimingStrategy::Resynthesize, &s, 1.98, &LIMITS);
        assert_eq!((p.length, p.trimmed_to), (1.98, None));
    }

    #[test]
    fn a_trim_in_the_middle_of_a_word_moves_back_to_the_last_pause() {
        // Cut planned at 2.9 s (playing at 1.25x: 3.625 s of the render), in sound.
        let planned = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(3.0)), 4.35, &LIMITS);
        let pauses = [(1.0, 1.2), (2.5, 2.75), (3.7, 3.9)];
        let cut = cut_at_pause(&planned, &pauses, false);
        // The pause at 2.5 s of the render is 2.0 s on the timeline; the fade runs into it.
        assert!(close(cut.trimmed_to.unwrap(), 2.0 + 0.03), "{cut:?}");
        assert_eq!((cut.length, cut.rate, cut.fade), (planned.length, planned.rate, planned.fade));
        // A cut already in silence, or no pause before it: the cut stays.
        assert_eq!(cut_at_pause(&planned, &pauses, true), planned);
        assert_eq!(cut_at_pause(&planned, &[(3.7, 3.9)], false), planned);
        // Nothing trimmed: nothing to move.
        let whole = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(3.0)), 2.5, &LIMITS);
        assert_eq!(cut_at_pause(&whole, &pauses, false), whole);
        let (from, to) = cut_span(&planned).unwrap();
        assert!(close(from, (2.9 - 0.03) * 1.25) && close(to, 2.9 * 1.25));
    }
}
