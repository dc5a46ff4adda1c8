//! Mixing a dub track: each rendered line fitted to its placement
//! (`fit_line`: time-stretch, trim with a fade, padding, the segment's gain
//! and fades), the fitted lines summed on the programme's timeline
//! (`mix_voice_track`), and the voice laid over the background bed with
//! the bed ducked under speech (`mix_with_bed`). The result is a [`Mix`]:
//! the summed programme and its two stems, all the programme's length to
//! the sample, before any loudness normalisation or limiting, so
//! `voice + bed == mixed` sample for sample.
//!
//! Everything here is mono f32 at one sample rate: the caller decodes and
//! resamples the bed (`audio::decode`, `audio::resample`) and hands the
//! lines as rendered. The placement arithmetic lives in `dub::timing`; the
//! exporter (`dub::export`) normalises, limits and writes a [`Mix`] using
//! the loudness and limiter settings of [`MixSettings`]. Changing anything
//! here re-mixes; it never re-synthesises (fit settings are the mix key,
//! not the synthesis key).

use serde::{Deserialize, Serialize};

use crate::dub::timing::Placement;
use revoice_audio::ducking::{bed_gain, Ducking};
use revoice_audio::loudness::Limiter;
use revoice_audio::stretch::stretch;

/// How a programme is mixed and mastered.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MixSettings {
    /// How the bed ducks under the voice.
    pub ducking: Ducking,
    /// The bed's level before ducking, dB (0 = as decoded).
    pub bed_gain_db: f32,
    /// Integrated loudness the exported mix is normalised to, LUFS
    /// (-23 for EBU R128 broadcast; -16 is usual for streaming and podcasts).
    pub loudness_target_lufs: f64,
    /// The true-peak limiter after normalisation (ceiling -1 dBTP by default).
    pub limiter: Limiter,
}

impl Default for MixSettings {
    fn default() -> Self {
        MixSettings { ducking: Ducking::default(), bed_gain_db: -8.0, loudness_target_lufs: -23.0, limiter: Limiter::default() }
    }
}

impl MixSettings {
    /// The defaults with an integrated loudness target of -16 LUFS
    /// (streaming services and podcasts).
    pub fn streaming() -> Self {
        MixSettings { loudness_target_lufs: -16.0, ..MixSettings::default() }
    }
}

/// A mixed programme and its stems, all the same length.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    /// Voice plus the beds.
    pub mixed: Vec<f32>,
    /// The voice track alone.
    pub voice: Vec<f32>,
    /// Each bed stem alone, at its level and ducked when it ducks; empty without a bed.
    pub beds: Vec<Vec<f32>>,
}

impl Mix {
    /// Samples in the programme.
    pub fn len(&self) -> usize {
        self.mixed.len()
    }

    /// Whether the programme has no samples.
    pub fn is_empty(&self) -> bool {
        self.mixed.is_empty()
    }
}

/// Samples in `seconds` at `sample_rate`, rounded to the nearest sample:
/// the one conversion the mixer and the exporter share, so a programme of
/// `d` seconds is always `samples_in(d, rate)` samples long.
pub fn samples_in(seconds: f64, sample_rate: u32) -> usize {
    (seconds.max(0.0) * sample_rate as f64).round() as usize
}

pub(crate) fn db_to_gain(db: f32) -> f32 {
    10f32.powf(db / 20.0)
}

/// Raised-cosine fade-in over the first `n` samples: the first sample is
/// silent, the curve reaches unity just after the fade.
fn fade_in(audio: &mut [f32], n: usize) {
    let n = n.min(audio.len());
    for (j, s) in audio[..n].iter_mut().enumerate() {
        *s *= (0.5 - 0.5 * (std::f64::consts::PI * j as f64 / n as f64).cos()) as f32;
    }
}

/// Raised-cosine fade-out over the last `n` samples, ending at exactly zero.
fn fade_out(audio: &mut [f32], n: usize) {
    let n = n.min(audio.len());
    let start = audio.len() - n;
    for (k, s) in audio[start..].iter_mut().enumerate() {
        *s *= (0.5 + 0.5 * (std::f64::consts::PI * (k + 1) as f64 / n as f64).cos()) as f32;
    }
}

/// Fits one rendered line to its placement: time-stretched by
/// `placement.rate` (pitch kept), cut to `placement.trimmed_to` with the
/// placement's fade-out ending at zero, then padded with silence (or cut by
/// rounding) to exactly `placement.length` seconds, the length it takes on
/// the timeline (a strict slot pads short lines this way). The segment's
/// own `gain_db` and fades apply to the line's audio, not to the padding:
/// `fade_out_s` ends where the speech ends. Fades longer than the audio
/// are shortened in proportion.
pub fn fit_line(samples: &[f32], sample_rate: u32, placement: &Placement, gain_db: f32, fade_in_s: f32, fade_out_s: f32) -> Vec<f32> {
    let mut audio = if placement.rate.is_finite() && placement.rate > 0.0 && (placement.rate - 1.0).abs() > 1e-9 {
        stretch(samples, sample_rate, placement.rate)
    } else {
        samples.to_vec()
    };
    if let Some(trimmed) = placement.trimmed_to {
        let keep = samples_in(trimmed, sample_rate);
        if audio.len() > keep {
            audio.truncate(keep);
            fade_out(&mut audio, samples_in(placement.fade, sample_rate));
        }
    }
    let total = samples_in(placement.length, sample_rate);
    let content = audio.len().min(total);
    audio.resize(total, 0.0);

    let speech = &mut audio[..content];
    let gain = db_to_gain(gain_db);
    if gain != 1.0 {
        speech.iter_mut().for_each(|s| *s *= gain);
    }
    let (mut fade_in_n, mut fade_out_n) = (samples_in(fade_in_s as f64, sample_rate), samples_in(fade_out_s as f64, sample_rate));
    if fade_in_n + fade_out_n > content {
        let scale = content as f64 / (fade_in_n + fade_out_n) as f64;
        fade_in_n = (fade_in_n as f64 * scale).floor() as usize;
        fade_out_n = (fade_out_n as f64 * scale).floor() as usize;
    }
    fade_in(speech, fade_in_n);
    fade_out(speech, fade_out_n);
    audio
}

/// Sums fitted lines, each `(start seconds, samples)`, on a timeline of
/// `duration_s` seconds (exactly [`samples_in`]`(duration_s, rate)`
/// samples). Overlapping lines add; audio before 0 or after the end is cut.
pub fn mix_voice_track(lines: &[(f64, Vec<f32>)], duration_s: f64, sample_rate: u32) -> Vec<f32> {
    let total = samples_in(duration_s, sample_rate);
    let mut track = vec![0f32; total];
    for (start, audio) in lines {
        let offset = (start * sample_rate as f64).round() as i64;
        let skip = (-offset).max(0) as usize;
        let first = offset.max(0) as usize;
        if first >= total || skip >= audio.len() {
            continue;
        }
        for (t, s) in track[first..].iter_mut().zip(&audio[skip..]) {
            *t += s;
        }
    }
    track
}

/// Crossfade where a looped bed meets its own start again, seconds.
const BED_LOOP_CROSSFADE_S: f64 = 0.05;
/// Fade-out where the bed is cut at the programme's end, seconds.
const BED_END_FADE_S: f64 = 1.0;

/// The bed looped (with an equal-power crossfade at each seam) or cut to
/// `len` samples; a cut bed fades out over the last second.
pub(crate) fn fit_bed(bed: &[f32], len: usize, sample_rate: u32) -> Vec<f32> {
    let mut out = Vec::with_capacity(len + bed.len());
    out.extend_from_slice(&bed[..bed.len().min(len)]);
    if bed.len() < len {
        let crossfade = samples_in(BED_LOOP_CROSSFADE_S, sample_rate).min(bed.len() / 4);
        while out.len() < len {
            let seam = out.len() - crossfade;
            for (k, s) in out[seam..].iter_mut().enumerate() {
                let t = (k as f64 + 0.5) / crossfade as f64 * std::f64::consts::FRAC_PI_2;
                *s = *s * t.cos() as f32 + bed[k] * t.sin() as f32;
            }
            out.extend_from_slice(&bed[crossfade..]);
        }
    }
    if out.len() > len || bed.len() > len {
        out.truncate(len);
        fade_out(&mut out, samples_in(BED_END_FADE_S, sample_rate));
    }
    out
}

/// A bed stem decoded at the programme's rate, ready to mix.
#[derive(Debug, Clone, PartialEq)]
pub struct BedAudio {
    pub samples: Vec<f32>,
    /// Level on top of the mix's bed level, dB.
    pub gain_db: f32,
    /// Ducks under the voice.
    pub ducked: bool,
}

impl BedAudio {
    /// A bed at the mix's level that ducks (the usual music bed).
    pub fn ducked(samples: Vec<f32>) -> BedAudio {
        BedAudio { samples, gain_db: 0.0, ducked: true }
    }
}

/// Lays the voice track over the bed stems: each (looped or cut to the
/// voice's length) is set to `bed_gain_db` plus its own level and, when it
/// ducks, ducked by [`bed_gain`] wherever the voice speaks; then all are
/// summed. The stems are the voice alone and each bed as mixed, so they
/// add up to the mix exactly. Without beds (or with empty ones) the mix is
/// the voice.
pub fn mix_with_beds(voice: &[f32], beds: &[BedAudio], sample_rate: u32, ducking: &Ducking, bed_gain_db: f32) -> Mix {
    let beds: Vec<&BedAudio> = beds.iter().filter(|b| !b.samples.is_empty() && !voice.is_empty()).collect();
    if beds.is_empty() {
        return Mix { mixed: voice.to_vec(), voice: voice.to_vec(), beds: Vec::new() };
    }
    let duck = beds.iter().any(|b| b.ducked).then(|| bed_gain(voice, sample_rate, ducking));
    let mut mixed = voice.to_vec();
    let mut stems = Vec::with_capacity(beds.len());
    for bed in beds {
        let level = db_to_gain(bed_gain_db + bed.gain_db);
        let fitted = fit_bed(&bed.samples, voice.len(), sample_rate);
        let stem: Vec<f32> = match (&duck, bed.ducked) {
            (Some(duck), true) => fitted.iter().zip(duck).map(|(b, g)| b * level * g).collect(),
            _ => fitted.iter().map(|b| b * level).collect(),
        };
        mixed.iter_mut().zip(&stem).for_each(|(m, b)| *m += b);
        stems.push(stem);
    }
    Mix { mixed, voice: voice.to_vec(), beds: stems }
}

/// [`mix_with_beds`] with one ducked bed, or none.
pub fn mix_with_bed(voice: &[f32], bed: Option<&[f32]>, sample_rate: u32, ducking: &Ducking, bed_gain_db: f32) -> Mix {
    let beds: Vec<BedAudio> = bed.map(|b| BedAudio::ducked(b.to_vec())).into_iter().collect();
    mix_with_beds(voice, &beds, sample_rate, ducking, bed_gain_db)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dub::timing::{place, FitLimits, Slot, TimingStrategy};

    const RATE: u32 = 24_000;

    fn tone(seconds: f64, amplitude: f32) -> Vec<f32> {
        (0..samples_in(seconds, RATE)).map(|n| amplitude * (std::f32::consts::TAU * 220.0 * n as f32 / RATE as f32).sin()).collect()
    }

    fn rms(x: &[f32]) -> f32 {
        (x.iter().map(|v| v * v).sum::<f32>() / x.len().max(1) as f32).sqrt()
    }

    fn natural(seconds: f64) -> Placement {
        Placement { start: 0.0, rate: 1.0, length: seconds, trimmed_to: None, fade: 0.0, overlap: None, overflow: None }
    }

    #[test]
    fn stretching_changes_the_length_as_the_placement_says() {
        let line = tone(1.0, 0.5);
        let limits = FitLimits::default();
        // 1 s in a 0.8 s slot with the next line right after: played at 1.25x.
        let p = place(TimingStrategy::SmartFit, &Slot { start: 2.0, end: 2.8, next_start: Some(2.9), prev_end: None }, 1.0, &limits);
        assert!((p.rate - 1.25).abs() < 1e-9, "{p:?}");
        let fitted = fit_line(&line, RATE, &p, 0.0, 0.0, 0.0);
        assert_eq!(fitted.len(), samples_in(0.8, RATE));
        // Pitch kept, so the level in the middle is the tone's.
        assert!((rms(&fitted[4000..15000]) - 0.5 / 2f32.sqrt()).abs() < 0.03);
    }

    #[test]
    fn a_trimmed_line_fades_out_to_zero_at_the_cut() {
        let line = tone(1.0, 0.5);
        let p = Placement { trimmed_to: Some(0.5), fade: 0.03, length: 0.5, ..natural(1.0) };
        let fitted = fit_line(&line, RATE, &p, 0.0, 0.0, 0.0);
        assert_eq!(fitted.len(), RATE as usize / 2);
        assert_eq!(*fitted.last().unwrap(), 0.0);
        // Untouched before the fade, attenuated within it.
        let fade_start = fitted.len() - samples_in(0.03, RATE);
        assert_eq!(&fitted[..fade_start], &line[..fade_start]);
        let tail = &fitted[fitted.len() - 100..];
        assert!(tail.iter().zip(&line[fitted.len() - 100..fitted.len()]).all(|(f, l)| f.abs() <= l.abs() * 0.05 + 1e-6));
    }

    #[test]
    fn a_strict_slot_pads_a_short_line_with_silence() {
        let line = tone(1.2, 0.5);
        let p = place(TimingStrategy::StrictSlot, &Slot { start: 1.0, end: 3.0, next_start: None, prev_end: None }, 1.2, &FitLimits::default());
        let fitted = fit_line(&line, RATE, &p, 0.0, 0.0, 0.0);
        assert_eq!(fitted.len(), samples_in(2.0, RATE));
        assert_eq!(&fitted[..line.len()], &line[..]);
        assert!(fitted[line.len()..].iter().all(|&s| s == 0.0));
    }

    #[test]
    fn gain_and_fades_shape_the_line_but_not_its_padding() {
        let line = vec![0.5f32; samples_in(1.0, RATE)];
        let p = natural(1.5);
        let fitted = fit_line(&line, RATE, &p, -6.0, 0.1, 0.2);
        assert_eq!(fitted.len(), samples_in(1.5, RATE));
        let half = 0.5 * db_to_gain(-6.0);
        assert_eq!(fitted[0], 0.0, "the fade-in starts silent");
        assert!((fitted[samples_in(0.5, RATE)] - half).abs() < 1e-6, "-6 dB in the middle");
        assert!(fitted[samples_in(0.05, RATE)] < half && fitted[samples_in(0.05, RATE)] > 0.0);
        // The fade-out ends with the speech, not with the padding.
        assert_eq!(fitted[line.len() - 1], 0.0);
        assert!(fitted[line.len() - samples_in(0.1, RATE)] < half);
        assert!(fitted[line.len()..].iter().all(|&s| s == 0.0));
        // Rising through the fade-in, falling through the fade-out.
        assert!(fitted[..samples_in(0.1, RATE)].windows(2).all(|w| w[1] >= w[0]));
        assert!(fitted[line.len() - samples_in(0.2, RATE)..line.len()].windows(2).all(|w| w[1] <= w[0]));
    }

    #[test]
    fn fades_longer_than_the_line_are_shortened_in_proportion() {
        let line = vec![0.5f32; 1000];
        let fitted = fit_line(&line, RATE, &natural(1000.0 / RATE as f64), 0.0, 1.0, 1.0);
        assert_eq!(fitted.len(), 1000);
        assert_eq!((fitted[0], fitted[999]), (0.0, 0.0));
        assert!((fitted[499] - 0.5).abs() < 0.01);
    }

    #[test]
    fn overlapping_lines_add_on_the_timeline() {
        let a = vec![0.25f32; RATE as usize];
        let b = vec![0.125f32; RATE as usize];
        let track = mix_voice_track(&[(0.0, a), (0.5, b), (1.8, vec![0.5; RATE as usize])], 2.0, RATE);
        assert_eq!(track.len(), 2 * RATE as usize);
        let at = |s: f64| track[samples_in(s, RATE)];
        assert_eq!((at(0.25), at(0.75), at(1.25), at(1.6), at(1.9)), (0.25, 0.375, 0.125, 0.0, 0.5));
    }

    #[test]
    fn the_bed_ducks_under_speech() {
        // Speech from 1 s to 2 s of a 4 s programme; a steady bed.
        let voice = mix_voice_track(&[(1.0, tone(1.0, 0.3))], 4.0, RATE);
        let bed: Vec<f32> = (0..4 * RATE as usize).map(|n| 0.2 * (n as f32 * 0.05).sin()).collect();
        let ducking = Ducking::default();
        let mix = mix_with_bed(&voice, Some(&bed), RATE, &ducking, 0.0);
        let stem = &mix.beds[0];
        let during = rms(&stem[samples_in(1.3, RATE)..samples_in(1.9, RATE)]);
        let before = rms(&stem[samples_in(0.2, RATE)..samples_in(0.9, RATE)]);
        let after = rms(&stem[samples_in(3.5, RATE)..samples_in(3.9, RATE)]);
        let depth_db = 20.0 * (during / before).log10();
        assert!((depth_db + ducking.depth_db).abs() < 1.0, "ducked by {depth_db:.1} dB");
        assert!((after / before - 1.0).abs() < 0.05, "the bed comes back after the speech");
    }

    #[test]
    fn the_stems_sum_to_the_mix() {
        let voice = mix_voice_track(&[(0.5, tone(1.0, 0.3)), (1.2, tone(0.7, 0.2))], 3.0, RATE);
        let bed = tone(0.9, 0.1);
        let mix = mix_with_bed(&voice, Some(&bed), RATE, &Ducking::default(), -6.0);
        let bed_stem = &mix.beds[0];
        assert_eq!((mix.voice.len(), bed_stem.len(), mix.len()), (voice.len(), voice.len(), voice.len()));
        assert!(mix.mixed.iter().zip(&mix.voice).zip(bed_stem).all(|((m, v), b)| *m == v + b));
        assert_eq!(mix.voice, voice);
    }

    #[test]
    fn a_short_bed_loops_and_a_long_one_is_cut_with_a_fade() {
        let voice = vec![0f32; 3 * RATE as usize];
        let bed = vec![0.5f32; RATE as usize];
        let looped = mix_with_bed(&voice, Some(&bed), RATE, &Ducking::default(), 0.0).beds.remove(0);
        assert_eq!(looped.len(), voice.len());
        // A steady bed stays steady across the seams (equal-power, no gaps).
        let seam = RATE as usize - samples_in(BED_LOOP_CROSSFADE_S, RATE) / 2;
        assert!(looped[seam] > 0.5 && looped[seam] < 0.5 * 2f32.sqrt() + 1e-3);
        assert!(looped[samples_in(1.5, RATE)] == 0.5 && looped[samples_in(2.5, RATE) - 1] > 0.0);

        let long = vec![0.5f32; 5 * RATE as usize];
        let cut = mix_with_bed(&voice, Some(&long), RATE, &Ducking::default(), 0.0).beds.remove(0);
        assert_eq!(cut.len(), voice.len());
        assert_eq!(*cut.last().unwrap(), 0.0);
        assert_eq!(cut[RATE as usize], 0.5);
    }

    #[test]
    fn without_a_bed_the_mix_is_the_voice() {
        let voice = tone(0.5, 0.3);
        let mix = mix_with_bed(&voice, None, RATE, &Ducking::default(), 0.0);
        assert_eq!((mix.mixed.as_slice(), mix.voice.as_slice(), mix.beds.len()), (voice.as_slice(), voice.as_slice(), 0));
    }

    #[test]
    fn mix_settings_default_to_broadcast_and_read_partial_json() {
        let s = MixSettings::default();
        assert_eq!((s.loudness_target_lufs, s.limiter.ceiling_dbtp), (-23.0, -1.0));
        let s: MixSettings = serde_json::from_str(r#"{"loudness_target_lufs": -16}"#).unwrap();
        assert_eq!(s, MixSettings::streaming());
    }

    #[test]
    fn several_stems_each_at_its_level_only_the_ducking_ones_duck_and_all_sum_to_the_mix() {
        let voice = mix_voice_track(&[(1.0, tone(1.0, 0.3))], 3.0, RATE);
        let steady: Vec<f32> = (0..3 * RATE as usize).map(|n| 0.2 * (n as f32 * 0.05).sin()).collect();
        let beds = [BedAudio::ducked(steady.clone()), BedAudio { samples: steady.clone(), gain_db: -6.0, ducked: false }];
        let mix = mix_with_beds(&voice, &beds, RATE, &Ducking::default(), 0.0);
        assert_eq!(mix.beds.len(), 2);
        let (music, effects) = (&mix.beds[0], &mix.beds[1]);
        let window = |x: &[f32], a: f64, b: f64| rms(&x[samples_in(a, RATE)..samples_in(b, RATE)]);
        assert!(window(music, 1.3, 1.9) < 0.5 * window(music, 0.2, 0.9), "the music ducks under speech");
        assert!((window(effects, 1.3, 1.9) / window(effects, 0.2, 0.9) - 1.0).abs() < 0.05, "the effects stay");
        assert!((window(effects, 0.2, 0.9) / window(music, 0.2, 0.9) - db_to_gain(-6.0)).abs() < 0.01, "each at its own level");
        let worst = (0..mix.len()).map(|i| (mix.mixed[i] - mix.voice[i] - music[i] - effects[i]).abs()).fold(0f32, f32::max);
        assert!(worst < 1e-6, "{worst}");
    }
}
