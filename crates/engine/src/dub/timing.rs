//! Timing strategies: where a rendered line goes on the timeline and how
//! it is fitted to its slot. Pure arithmetic over the slot, its
//! neighbours and the line's natural length (rendered, or predicted before
//! any render), so every strategy can be switched without re-synthesis
//! (except fit-by-re-synthesis, whose render asks the model for a target
//! length and so has its own synthesis key: slot-fitted audio never passes
//! for natural-rate audio).
//!
//! Only strict slot cuts words, and the user picks it knowingly: smart fit
//! and fit-by-re-synthesis place every line whole, and a line that cannot
//! fit overflows its room, flagged ([`Placement::overflow`]).

use serde::{Deserialize, Serialize};

/// How a line is fitted to its slot. Stored and sent to the window by its
/// snake_case name (`smart_fit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TimingStrategy {
    /// At the slot's start, at its natural length; overlaps are flagged.
    Natural,
    /// Exactly the slot: padded with silence, or trimmed with a fade at a
    /// pause between words where there is one (see [`cut_at_pause`]).
    StrictSlot,
    /// Use the silence before the next line (minus a guard), then speed up
    /// to a cap, then start earlier into the silence after the previous
    /// line; a line still too long runs past its room, whole, and is
    /// flagged. Lines much shorter than their slot are slowed a little.
    SmartFit,
    /// Render at the speed that fills the slot (the model is asked for the
    /// length, no faster than [`FitLimits::resynthesize_max_speed`]); what
    /// is still too long is placed whole as smart fit places it.
    Resynthesize,
}

impl TimingStrategy {
    /// Every strategy, in the order a person is offered them.
    pub const ALL: [TimingStrategy; 4] = [TimingStrategy::Natural, TimingStrategy::StrictSlot, TimingStrategy::SmartFit, TimingStrategy::Resynthesize];

    /// Its stored name (`smart_fit`).
    pub fn name(self) -> &'static str {
        match self {
            TimingStrategy::Natural => "natural",
            TimingStrategy::StrictSlot => "strict_slot",
            TimingStrategy::SmartFit => "smart_fit",
            TimingStrategy::Resynthesize => "resynthesize",
        }
    }
}

impl std::str::FromStr for TimingStrategy {
    type Err = revoice_core::Error;

    /// A strategy by its stored name; anything else is refused naming the choices.
    fn from_str(name: &str) -> revoice_core::Result<TimingStrategy> {
        TimingStrategy::ALL.into_iter().find(|s| s.name() == name.trim()).ok_or_else(|| {
            let names: Vec<&str> = TimingStrategy::ALL.iter().map(|s| s.name()).collect();
            revoice_core::Error::invalid(format!("timing strategy {name:?}"), format!("use {}", names.join(", ")))
        })
    }
}

impl std::fmt::Display for TimingStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The limits the strategies work within.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FitLimits {
    /// Silence kept before the next line and after the previous one, seconds.
    pub guard: f64,
    /// Fastest playback rate (1.25 = 25 % faster).
    pub max_speedup: f64,
    /// Slowest playback rate for short lines (0.85 = 15 % slower).
    pub min_slowdown: f64,
    /// Fade applied where audio is cut, seconds.
    pub fade: f64,
    /// Fastest speed fit-by-re-synthesis may ask the model for, relative
    /// to the line's own (a setting: `dub.resynthesize_max_speed`).
    pub resynthesize_max_speed: f64,
}

impl Default for FitLimits {
    fn default() -> Self {
        FitLimits { guard: 0.1, max_speedup: 1.25, min_slowdown: 0.85, fade: 0.03, resynthesize_max_speed: 1.25 }
    }
}

/// A line's slot on its track, with its neighbours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot {
    pub start: f64,
    pub end: f64,
    /// Where the next line on the track starts, if there is one.
    pub next_start: Option<f64>,
    /// Where the previous line's slot ends, if there is one.
    pub prev_end: Option<f64>,
}

impl Slot {
    /// The slot's own length, seconds.
    pub fn length(&self) -> f64 {
        (self.end - self.start).max(0.0)
    }
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
    /// How far the line runs past the next line's start, seconds.
    pub overlap: Option<f64>,
    /// How far the line runs past the room it may use (the next line's
    /// start less the guard), placed whole at the fastest rate allowed,
    /// seconds: it does not fit (smart fit and re-synthesis).
    pub overflow: Option<f64>,
}

/// What the renderer must be asked for under a strategy: `None` for
/// natural-rate audio, or the length to render to: the slot's own length,
/// or the line's `natural` length (predicted) at the fastest speed
/// re-synthesis may use, whichever is longer.
pub fn render_target(strategy: TimingStrategy, slot: &Slot, natural: Option<f64>, limits: &FitLimits) -> Option<f64> {
    match strategy {
        TimingStrategy::Resynthesize => {
            let fastest = natural.map_or(0.0, |n| n / limits.resynthesize_max_speed.max(1.0));
            Some(slot.length().max(fastest).max(0.05))
        }
        _ => None,
    }
}

/// Where a line's room ends: the next line's start minus the guard (never
/// before its own slot's end); the last line of a track has no limit.
fn room_end(slot: &Slot, limits: &FitLimits) -> f64 {
    match slot.next_start {
        Some(next) => (next - limits.guard).max(slot.end),
        None => f64::INFINITY,
    }
}

/// The earliest a line may start: the previous line's end plus the guard
/// (never after its own start, never before 0).
fn earliest_start(slot: &Slot, limits: &FitLimits) -> f64 {
    match slot.prev_end {
        Some(prev) => (prev + limits.guard).clamp(0.0, slot.start.max(0.0)),
        None => 0.0f64.min(slot.start),
    }
}

/// `natural` seconds placed whole at `rate`: at the slot's start when that
/// fits before `room_end`, else as much earlier as the gap before allows,
/// and past the room (flagged) when even that is not enough.
fn whole(slot: &Slot, natural: f64, rate: f64, limits: &FitLimits) -> Placement {
    let length = natural / rate;
    let end_of_room = room_end(slot, limits);
    let start = if slot.start + length <= end_of_room + 1e-9 { slot.start } else { (end_of_room - length).max(earliest_start(slot, limits)).min(slot.start) };
    let end = start + length;
    let overflow = Some(end - end_of_room).filter(|&o| o > 1e-9);
    let overlap = slot.next_start.map(|next| end - next).filter(|&o| o > 1e-9);
    Placement { start, rate, length, trimmed_to: None, fade: 0.0, overlap, overflow }
}

/// Places a rendered line of `natural` seconds (as rendered, for
/// `Resynthesize` already rendered to the target) in `slot`.
pub fn place(strategy: TimingStrategy, slot: &Slot, natural: f64, limits: &FitLimits) -> Placement {
    let own = slot.length();
    let plain = Placement { start: slot.start, rate: 1.0, length: natural, trimmed_to: None, fade: 0.0, overlap: None, overflow: None };
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
            let room = room_end(slot, limits) - slot.start;
            if natural <= room {
                if natural < own && own > 0.0 {
                    // Slow a short line towards its slot, no slower than the floor.
                    let rate = (natural / own).max(limits.min_slowdown);
                    return Placement { rate, length: natural / rate, ..plain };
                }
                return plain;
            }
            whole(slot, natural, (natural / room).min(limits.max_speedup), limits)
        }
        TimingStrategy::Resynthesize => whole(slot, natural, 1.0, limits),
    }
}

/// Seconds by which a line of `natural` seconds does not fit, however its
/// strategy would place it: placed whole at the fastest smart-fit rate,
/// borrowing the gaps after and before it, how far it still runs past its
/// room. `None` when it fits.
pub fn shortfall(slot: &Slot, natural: f64, limits: &FitLimits) -> Option<f64> {
    place(TimingStrategy::SmartFit, slot, natural, limits).overflow
}

/// Silence shorter than this is not a pause a cut may land in, seconds.
pub const MIN_PAUSE: f64 = 0.05;

/// A strict-slot trim moved back so it never cuts a word: when the planned
/// cut (with its fade) falls in sound, the line is cut instead at the last
/// pause that ends before it, the fade starting where the pause starts,
/// and padded with silence to the same length on the timeline. `pauses`
/// are the silent stretches inside the rendered audio (natural-rate
/// seconds, as [`FrameLevels::pauses`](revoice_audio::levels::FrameLevels::pauses)
/// finds them); `cut_is_silent` says whether the planned cut already falls
/// in silence, where it stays. With no pause before the cut, it stays too
/// (the take's check then reports the words it lost).
pub fn cut_at_pause(p: &Placement, pauses: &[(f64, f64)], cut_is_silent: bool) -> Placement {
    let Some(cut) = p.trimmed_to else { return *p };
    if cut_is_silent || p.rate.is_nan() || p.rate <= 0.0 {
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

/// Where a trim falls in the rendered audio, natural-rate seconds: the
/// span its fade covers. [`cut_at_pause`] needs to know whether that span
/// is silent.
pub fn cut_span(p: &Placement) -> Option<(f64, f64)> {
    p.trimmed_to.map(|cut| ((cut - p.fade).max(0.0) * p.rate, cut * p.rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: FitLimits = FitLimits { guard: 0.1, max_speedup: 1.25, min_slowdown: 0.85, fade: 0.03, resynthesize_max_speed: 1.25 };

    fn slot(start: f64, end: f64, next: Option<f64>) -> Slot {
        Slot { start, end, next_start: next, prev_end: None }
    }

    fn between(prev_end: f64, start: f64, end: f64, next: f64) -> Slot {
        Slot { start, end, next_start: Some(next), prev_end: Some(prev_end) }
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
        assert_eq!((p.rate, p.length, p.trimmed_to, p.overflow), (1.0, 2.5, None, None));
    }

    #[test]
    fn smart_fit_then_speeds_up_to_the_cap() {
        // 2.9 s of room: a 3.48 s line plays at 1.2x in 2.9 s.
        let p = place(TimingStrategy::SmartFit, &slot(0.0, 2.0, Some(3.0)), 3.48, &LIMITS);
        assert!(close(p.rate, 1.2) && close(p.length, 2.9) && p.trimmed_to.is_none() && p.overflow.is_none(), "{p:?}");
    }

    #[test]
    fn smart_fit_then_starts_earlier_into_the_gap_before() {
        // Previous line ends at 0.5, slot 1.0-2.0, next at 2.6: room ends at 2.5.
        // 2.0 s at 1.25x is 1.6 s: it starts 0.1 s early, at 0.9, and ends at 2.5.
        let p = place(TimingStrategy::SmartFit, &between(0.5, 1.0, 2.0, 2.6), 2.0, &LIMITS);
        assert!(close(p.rate, 1.25) && close(p.start, 0.9) && close(p.start + p.length, 2.5), "{p:?}");
        assert_eq!((p.trimmed_to, p.overflow, p.overlap), (None, None, None));
    }

    #[test]
    fn smart_fit_never_cuts_a_line_too_long_for_its_room_it_overflows_flagged() {
        // A 4.35 s line would need 1.5x in 2.9 s of room: at 1.25x (3.48 s),
        // from the earliest start (the previous line's end + guard = 0.0),
        // it ends at 3.48, past its room (2.9) and 0.48 s into the next line.
        let p = place(TimingStrategy::SmartFit, &between(-1.0, 0.0, 2.0, 3.0), 4.35, &LIMITS);
        assert!(close(p.rate, 1.25) && close(p.length, 3.48) && p.trimmed_to.is_none(), "{p:?}");
        assert!(close(p.start, 0.0) && close(p.overflow.unwrap(), 0.58) && close(p.overlap.unwrap(), 0.48), "{p:?}");
        // With a gap before, it starts into it first: previous line ends at 0.6.
        let p = place(TimingStrategy::SmartFit, &between(0.6, 1.0, 3.0, 4.0), 4.35, &LIMITS);
        assert!(close(p.start, 0.7) && close(p.overflow.unwrap(), 0.7 + 3.48 - 3.9), "{p:?}");
        assert_eq!(shortfall(&between(0.6, 1.0, 3.0, 4.0), 4.35, &LIMITS), p.overflow);
        assert_eq!(shortfall(&between(0.6, 1.0, 3.0, 4.0), 3.0, &LIMITS), None);
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
        assert_eq!((p.rate, p.length, p.trimmed_to, p.overflow), (1.0, 5.0, None, None));
    }

    #[test]
    fn resynthesis_asks_for_the_slot_no_faster_than_its_cap_and_never_trims() {
        let s = slot(0.0, 2.0, Some(2.05));
        assert_eq!(render_target(TimingStrategy::Resynthesize, &s, None, &LIMITS), Some(2.0));
        assert_eq!(render_target(TimingStrategy::Resynthesize, &s, Some(2.4), &LIMITS), Some(2.0));
        // 3 s of speech at no more than 1.25x: 2.4 s asked for, not 2.
        assert!(close(render_target(TimingStrategy::Resynthesize, &s, Some(3.0), &LIMITS).unwrap(), 2.4));
        let wider = FitLimits { resynthesize_max_speed: 1.5, ..LIMITS };
        assert_eq!(render_target(TimingStrategy::Resynthesize, &s, Some(3.0), &wider), Some(2.0));
        assert_eq!(render_target(TimingStrategy::SmartFit, &s, Some(3.0), &LIMITS), None);
        // Rounding left over: placed whole, flagged past its room.
        let p = place(TimingStrategy::Resynthesize, &s, 2.02, &LIMITS);
        assert_eq!((p.rate, p.length, p.trimmed_to), (1.0, 2.02, None));
        assert!(p.overflow.is_some());
        let p = place(TimingStrategy::Resynthesize, &s, 1.98, &LIMITS);
        assert_eq!((p.length, p.trimmed_to, p.overflow), (1.98, None, None));
    }

    #[test]
    fn a_trim_in_the_middle_of_a_word_moves_back_to_the_last_pause() {
        // Strict slot of 2.9 s over a 3.625 s render: the cut is planned at 2.9 s, in sound.
        let planned = place(TimingStrategy::StrictSlot, &slot(0.0, 2.9, Some(3.0)), 3.625, &LIMITS);
        let pauses = [(1.0, 1.2), (2.0, 2.2), (3.0, 3.2)];
        let cut = cut_at_pause(&planned, &pauses, false);
        // The pause at 2.0 s; the fade runs into it.
        assert!(close(cut.trimmed_to.unwrap(), 2.0 + 0.03), "{cut:?}");
        assert_eq!((cut.length, cut.rate, cut.fade), (planned.length, planned.rate, planned.fade));
        // A cut already in silence, or no pause before it: the cut stays.
        assert_eq!(cut_at_pause(&planned, &pauses, true), planned);
        assert_eq!(cut_at_pause(&planned, &[(3.0, 3.2)], false), planned);
        // Nothing trimmed: nothing to move.
        let whole = place(TimingStrategy::StrictSlot, &slot(0.0, 2.9, Some(3.0)), 2.5, &LIMITS);
        assert_eq!(cut_at_pause(&whole, &pauses, false), whole);
        let (from, to) = cut_span(&planned).unwrap();
        assert!(close(from, 2.9 - 0.03) && close(to, 2.9));
    }
}
