//! The programme as playback hears it: fitted lines placed on the
//! timeline and the bed stems under them, mixed block by block where the
//! playhead is (never as one whole-track buffer), the stems that duck
//! ducked under the voice exactly as the exported mix ducks them; and the
//! original dialogue, for reference, off, under the dub at a level, or
//! alone (solo). Lines join or change while it plays: a line rendered in
//! the background is set as a clip and heard from the next block on. Each
//! clip is on its lane (its speaker), heard at the lane's gain
//! (`dub::lanes`), so muting, soloing or levelling a lane is heard from
//! the next block without fitting any line again.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::lanes::LaneMixes;
use super::mix::{db_to_gain, fit_bed, samples_in, BedAudio};
use revoice_audio::ducking::{DuckFollower, Ducking};

/// A fitted line at its place on the timeline.
#[derive(Debug, Clone)]
pub struct Clip {
    pub segment_id: i64,
    /// Its lane: the speaker (`None`: no speaker).
    pub lane: Option<i64>,
    /// Timeline sample of its first sample.
    pub start: usize,
    pub audio: Arc<[f32]>,
}

impl Clip {
    fn end(&self) -> usize {
        self.start + self.audio.len()
    }
}

/// A bed stem as decoded, and fitted (looped or cut, at its level) to the programme.
#[derive(Debug, Clone)]
struct Bed {
    raw: Arc<[f32]>,
    fitted: Arc<[f32]>,
    gain_db: f32,
    ducked: bool,
}

/// How the original dialogue is heard while the dub plays.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", tag = "mode")]
pub enum OriginalMonitor {
    /// Not heard.
    Off,
    /// Under the dub at a level, dB.
    #[serde(rename_all = "camelCase")]
    Under { gain_db: f32 },
    /// Alone: the dub and the bed are silent.
    Solo,
}

/// What plays: clips over the bed stems, and the original for reference. Cheap to clone (audio is shared).
#[derive(Debug, Clone)]
pub struct Programme {
    sample_rate: u32,
    /// Samples, at least to the end of the last slot and of every clip.
    length: usize,
    /// Sorted by start; one per segment.
    clips: Vec<Clip>,
    /// The longest clip, to bound the search for clips under a sample.
    longest: usize,
    beds: Vec<Bed>,
    bed_gain_db: f32,
    ducking: Ducking,
    /// The original dialogue at the programme's rate, if the project has one.
    original: Option<Arc<[f32]>>,
    monitor: OriginalMonitor,
    /// How each lane is heard.
    lanes: LaneMixes,
}

impl Programme {
    /// An empty programme of `seconds` (the track's last slot end) over `beds`.
    pub fn new(sample_rate: u32, seconds: f64, beds: Vec<BedAudio>, bed_gain_db: f32, ducking: Ducking) -> Programme {
        let beds = beds
            .into_iter()
            .filter(|b| !b.samples.is_empty())
            .map(|b| Bed { raw: Arc::from(b.samples), fitted: Arc::from(Vec::new()), gain_db: b.gain_db, ducked: b.ducked })
            .collect();
        let mut programme = Programme {
            sample_rate,
            length: samples_in(seconds, sample_rate),
            clips: Vec::new(),
            longest: 0,
            beds,
            bed_gain_db,
            ducking,
            original: None,
            monitor: OriginalMonitor::Off,
            lanes: LaneMixes::default(),
        };
        programme.refit_bed();
        programme
    }

    /// The original dialogue (at the programme's rate) and how it is heard.
    pub fn set_original(&mut self, original: Option<Vec<f32>>, monitor: OriginalMonitor) {
        self.original = original.map(Arc::from);
        self.monitor = monitor;
    }

    /// Changes how the lanes are heard (from the next block on).
    pub fn set_lanes(&mut self, lanes: LaneMixes) {
        self.lanes = lanes;
    }

    pub fn lanes(&self) -> &LaneMixes {
        &self.lanes
    }

    /// Changes how the original is heard.
    pub fn set_monitor(&mut self, monitor: OriginalMonitor) {
        self.monitor = monitor;
    }

    pub fn monitor(&self) -> OriginalMonitor {
        self.monitor
    }

    /// Whether the original dialogue is loaded in it.
    pub fn has_original(&self) -> bool {
        self.original.is_some()
    }

    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Length in samples.
    pub fn len(&self) -> usize {
        self.length
    }

    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.length as f64 / self.sample_rate as f64
    }

    pub fn ducking(&self) -> &Ducking {
        &self.ducking
    }

    /// The clips, sorted by start.
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// Takes `segment_id`'s line out (a line deleted, merged away, or left
    /// without a take); false when it had none.
    pub fn remove_clip(&mut self, segment_id: i64) -> bool {
        let before = self.clips.len();
        self.clips.retain(|c| c.segment_id != segment_id);
        self.clips.len() != before
    }

    /// Sets `segment_id`'s line (replacing what it had) on `lane` at
    /// `start_s`; the programme grows if the line ends past it.
    pub fn set_clip(&mut self, segment_id: i64, lane: Option<i64>, start_s: f64, audio: Vec<f32>) {
        self.clips.retain(|c| c.segment_id != segment_id);
        let clip = Clip { segment_id, lane, start: samples_in(start_s, self.sample_rate), audio: Arc::from(audio) };
        let at = self.clips.partition_point(|c| (c.start, c.segment_id) <= (clip.start, segment_id));
        self.longest = self.longest.max(clip.audio.len());
        if clip.end() > self.length {
            self.length = clip.end();
            self.refit_bed();
        }
        self.clips.insert(at, clip);
    }

    fn refit_bed(&mut self) {
        for bed in &mut self.beds {
            let level = db_to_gain(self.bed_gain_db + bed.gain_db);
            bed.fitted = fit_bed(&bed.raw, self.length, self.sample_rate).into_iter().map(|b| b * level).collect();
        }
    }

    /// Adds the voice of `[from, from + voice.len())` into `voice`, each
    /// clip at its lane's gain.
    fn mix_voice(&self, from: usize, voice: &mut [f32]) {
        let to = from + voice.len();
        let first = self.clips.partition_point(|c| c.start + self.longest <= from);
        for clip in &self.clips[first..] {
            if clip.start >= to {
                break;
            }
            if clip.end() <= from {
                continue;
            }
            let gain = self.lanes.gain(clip.lane);
            if gain == 0.0 {
                continue;
            }
            let (a, b) = (clip.start.max(from), clip.end().min(to));
            for (out, s) in voice[a - from..b - from].iter_mut().zip(&clip.audio[a - clip.start..b - clip.start]) {
                *out += s * gain;
            }
        }
    }

    /// The bed stems at `index`: those that duck, and those that do not.
    fn bed_at(&self, index: usize) -> (f32, f32) {
        let mut sums = (0.0, 0.0);
        for bed in &self.beds {
            let value = bed.fitted.get(index).copied().unwrap_or(0.0);
            if bed.ducked {
                sums.0 += value;
            } else {
                sums.1 += value;
            }
        }
        sums
    }

    /// The original dialogue at `index` as the monitor hears it under the dub.
    fn original_at(&self, index: usize, level: f32) -> f32 {
        self.original.as_ref().and_then(|o| o.get(index).copied()).map_or(0.0, |v| v * level)
    }
}

/// Where playback is in a programme, and the ducking state there.
#[derive(Debug, Clone)]
pub struct Cursor {
    /// The next timeline sample to mix.
    next: usize,
    duck: DuckFollower,
    /// Plays `[start, end)` over and over when set.
    looping: Option<(usize, usize)>,
}

/// Seconds of voice run through the ducking follower before a jump's
/// target, so the bed is already ducked when the jump lands mid-line.
const DUCK_WARM_UP_S: f64 = 1.0;

impl Cursor {
    /// A cursor at the programme's start.
    pub fn new(programme: &Programme) -> Cursor {
        Cursor { next: 0, duck: DuckFollower::new(programme.sample_rate, &programme.ducking), looping: None }
    }

    /// The next sample to mix.
    pub fn position(&self) -> usize {
        self.next
    }

    pub fn looping(&self) -> Option<(usize, usize)> {
        self.looping
    }

    /// Jumps to `index` (clamped to the programme).
    pub fn seek(&mut self, programme: &Programme, index: usize) {
        self.next = index.min(programme.len());
        self.duck.reset();
        let warm = samples_in(DUCK_WARM_UP_S, programme.sample_rate).min(self.next);
        let mut voice = vec![0f32; warm];
        programme.mix_voice(self.next - warm, &mut voice);
        voice.iter().for_each(|&v| {
            self.duck.next(v);
        });
    }

    /// Loops `[start, end)` from now on (`None` plays through); a playhead
    /// outside the region jumps to its start.
    pub fn set_loop(&mut self, programme: &Programme, region: Option<(usize, usize)>) {
        let region = region.map(|(a, b)| (a.min(programme.len()), b.min(programme.len()))).filter(|(a, b)| b > a);
        self.looping = region;
        if let Some((a, b)) = region {
            if self.next < a || self.next >= b {
                self.seek(programme, a);
            }
        }
    }

    /// Mixes the next samples into `mixed` (voice plus ducked bed) and
    /// `voice` (the voice alone), both the same length; returns how many it
    /// wrote: fewer than asked only at the programme's end.
    pub fn render(&mut self, programme: &Programme, mixed: &mut [f32], voice: &mut [f32]) -> usize {
        let wanted = mixed.len().min(voice.len());
        let mut written = 0;
        while written < wanted {
            let end = match self.looping {
                Some((a, b)) => {
                    if self.next >= b {
                        self.seek(programme, a);
                    }
                    b
                }
                None => programme.len(),
            };
            if self.next >= end {
                break;
            }
            let n = (end - self.next).min(wanted - written);
            let (voice_out, mixed_out) = (&mut voice[written..written + n], &mut mixed[written..written + n]);
            voice_out.fill(0.0);
            programme.mix_voice(self.next, voice_out);
            let original_level = match programme.monitor {
                OriginalMonitor::Off => 0.0,
                OriginalMonitor::Under { gain_db } => db_to_gain(gain_db),
                OriginalMonitor::Solo => 1.0,
            };
            for (k, (m, &v)) in mixed_out.iter_mut().zip(voice_out.iter()).enumerate() {
                let gain = self.duck.next(v);
                let original = programme.original_at(self.next + k, original_level);
                *m = if programme.monitor == OriginalMonitor::Solo {
                    original
                } else {
                    let (ducked, plain) = programme.bed_at(self.next + k);
                    v + ducked * gain + plain + original
                };
            }
            self.next += n;
            written += n;
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dub::mix::{mix_voice_track, mix_with_bed};

    const RATE: u32 = 1000;

    fn tone(n: usize, amplitude: f32, period: usize) -> Vec<f32> {
        (0..n).map(|i| amplitude * (std::f32::consts::TAU * i as f32 / period as f32).sin()).collect()
    }

    type Lines = Vec<(f64, Vec<f32>)>;

    fn demo() -> (Programme, Lines, Vec<f32>) {
        let lines = vec![(0.5, tone(700, 0.3, 10)), (1.0, tone(400, 0.2, 7)), (2.6, tone(900, 0.25, 13))];
        let bed = tone(1300, 0.4, 23);
        let mut programme = Programme::new(RATE, 3.0, vec![BedAudio::ducked(bed.clone())], -6.0, Ducking::default());
        // Set out of order, as background renders finish.
        for (i, (start, audio)) in lines.iter().enumerate().rev() {
            programme.set_clip(i as i64, Some(i as i64 % 2), *start, audio.clone());
        }
        (programme, lines, bed)
    }

    fn play_all(programme: &Programme, cursor: &mut Cursor, block: usize) -> Vec<f32> {
        let (mut mixed, mut voice) = (vec![0f32; block], vec![0f32; block]);
        let mut out = Vec::new();
        loop {
            let n = cursor.render(programme, &mut mixed, &mut voice);
            out.extend_from_slice(&mixed[..n]);
            if n < block {
                return out;
            }
        }
    }

    #[test]
    fn playing_through_in_blocks_equals_the_exported_mix() {
        let (programme, lines, bed) = demo();
        // The last line ends at 3.5 s, past the 3 s of slots.
        assert_eq!(programme.len(), 3500);
        let voice = mix_voice_track(&lines, 3.5, RATE);
        let exported = mix_with_bed(&voice, Some(&bed), RATE, &Ducking::default(), -6.0).mixed;
        for block in [1, 37, 256, 5000] {
            let played = play_all(&programme, &mut Cursor::new(&programme), block);
            assert_eq!(played.len(), exported.len(), "block {block}");
            let worst = played.iter().zip(&exported).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            assert!(worst < 1e-6, "block {block}: {worst}");
        }
    }

    #[test]
    fn a_seek_lands_on_the_same_samples_with_the_bed_already_ducked() {
        let (programme, _, _) = demo();
        let whole = play_all(&programme, &mut Cursor::new(&programme), 128);
        let mut cursor = Cursor::new(&programme);
        // Mid-line, more than the warm-up after the line's start.
        cursor.seek(&programme, 1200);
        let tail = play_all(&programme, &mut cursor, 128);
        assert_eq!(tail.len(), whole.len() - 1200);
        let worst = tail.iter().zip(&whole[1200..]).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(worst < 1e-4, "{worst}");
    }

    #[test]
    fn a_loop_repeats_its_region_exactly_and_never_ends() {
        let (programme, _, _) = demo();
        let mut cursor = Cursor::new(&programme);
        cursor.set_loop(&programme, Some((1500, 2000)));
        assert_eq!(cursor.position(), 1500, "the playhead jumps into the region");
        let (mut mixed, mut voice) = (vec![0f32; 1500], vec![0f32; 1500]);
        assert_eq!(cursor.render(&programme, &mut mixed, &mut voice), 1500);
        assert_eq!(&mixed[..500], &mixed[500..1000]);
        assert_eq!(&mixed[500..1000], &mixed[1000..1500]);
        cursor.set_loop(&programme, None);
        let rest = play_all(&programme, &mut cursor, 100);
        assert_eq!(rest.len(), 3500 - 2000, "plays on to the end from the loop's start");
    }

    #[test]
    fn a_replaced_clip_is_heard_instead_of_the_old_one() {
        let (mut programme, _, _) = demo();
        programme.set_clip(1, Some(1), 1.0, vec![0.0; 400]);
        assert_eq!(programme.clips().len(), 3);
        let mut cursor = Cursor::new(&programme);
        cursor.seek(&programme, 1250);
        let (mut mixed, mut voice) = (vec![0f32; 100], vec![0f32; 100]);
        cursor.render(&programme, &mut mixed, &mut voice);
        // Line 0 (0.5–1.2 s) has ended; line 1 is now silent.
        assert!(voice.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn the_original_is_heard_under_the_dub_at_its_level_or_alone() {
        let (mut programme, lines, bed) = demo();
        let original = tone(3500, 0.5, 31);
        let dub = play_all(&programme, &mut Cursor::new(&programme), 256);
        programme.set_original(Some(original.clone()), OriginalMonitor::Under { gain_db: -12.0 });
        let under = play_all(&programme, &mut Cursor::new(&programme), 256);
        let level = db_to_gain(-12.0);
        let worst = (0..dub.len()).map(|i| (under[i] - dub[i] - original[i] * level).abs()).fold(0f32, f32::max);
        assert!(worst < 1e-6, "{worst}");
        programme.set_monitor(OriginalMonitor::Solo);
        assert_eq!(play_all(&programme, &mut Cursor::new(&programme), 256), original, "solo: only the original");
        programme.set_monitor(OriginalMonitor::Off);
        assert_eq!(play_all(&programme, &mut Cursor::new(&programme), 256), dub);
        let _ = (lines, bed);
    }

    #[test]
    fn a_stem_that_does_not_duck_plays_at_its_level_under_speech() {
        let effects = vec![0.1f32; 3500];
        let mut programme = Programme::new(RATE, 3.5, vec![BedAudio { samples: effects, gain_db: 6.0, ducked: false }], -6.0, Ducking::default());
        programme.set_clip(1, None, 0.5, tone(1000, 0.3, 10));
        let played = play_all(&programme, &mut Cursor::new(&programme), 128);
        // Under speech (1.0 s) the effects are there at full level: 0.1 at 0 dB (−6 + 6).
        let voice = tone(1000, 0.3, 10)[500];
        assert!((played[1000] - voice - 0.1).abs() < 1e-6, "{}", played[1000]);
    }

    #[test]
    fn a_lane_change_is_heard_from_the_next_block_without_setting_any_clip_again() {
        use revoice_store::LaneMix;
        let (mut programme, lines, _) = demo();
        // Lines 0 and 2 are on lane 0, line 1 on lane 1.
        let voice_at = |programme: &Programme, at: usize| {
            let mut cursor = Cursor::new(programme);
            cursor.seek(programme, at);
            let (mut mixed, mut voice) = (vec![0f32; 1], vec![0f32; 1]);
            cursor.render(programme, &mut mixed, &mut voice);
            voice[0]
        };
        let (line0, line1) = (lines[0].1[103], lines[1].1[3]);
        assert!((voice_at(&programme, 603) - line0).abs() < 1e-6);
        programme.set_lanes(LaneMixes::new([(Some(1), LaneMix { solo: true, ..LaneMix::default() })]));
        assert_eq!(voice_at(&programme, 603), 0.0, "lane 0 is silent while lane 1 is soloed");
        assert!((voice_at(&programme, 1003) - line1).abs() < 1e-6);
        programme
            .set_lanes(LaneMixes::new([(Some(0), LaneMix { level_db: -6.0, ..LaneMix::default() }), (Some(1), LaneMix { muted: true, ..LaneMix::default() })]));
        assert!((voice_at(&programme, 603) - line0 * 0.501).abs() < 1e-3, "-6 dB halves it");
        assert!((voice_at(&programme, 1003) - lines[0].1[503] * 0.501).abs() < 1e-3, "line 1's lane muted: only line 0 under it");
    }
}
