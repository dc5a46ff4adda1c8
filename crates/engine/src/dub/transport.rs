//! The transport: plays a [`Programme`] through cpal with play, pause,
//! seek and loop, mixing in the audio callback as the playhead moves. Lines
//! can be set while it plays. It measures the time to first audio: from a
//! play request to the first non-silent sample handed to the callback's
//! buffer, and separately to the first sample of voice (a bed alone is
//! heard at once; the voice may still be rendering).
//!
//! The callback takes the deck's lock with `try_lock` and plays silence for
//! that buffer if a control call holds it; control calls hold it only to
//! copy a few fields.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cpal::traits::{DeviceTrait, StreamTrait};

use super::programme::{Cursor, Programme};
use revoice_audio::playback::{open_output, Output};
use revoice_core::error::{Error, Result};

/// Source samples mixed at a time in the callback.
const BLOCK: usize = 512;
/// A sample this loud or louder counts as sound.
const AUDIBLE: f32 = 1e-4;

/// What the transport is doing, for display.
#[derive(Debug, Clone, PartialEq)]
pub struct TransportState {
    pub playing: bool,
    /// Seconds into the programme of the sample being heard.
    pub position_s: f64,
    pub length_s: f64,
    /// The loop region, seconds.
    pub looping: Option<(f64, f64)>,
    /// Played to the programme's end (and stopped there).
    pub ended: bool,
    /// From the last play request to the first audible sample.
    pub first_sound: Option<Duration>,
    /// From the last play request to the first audible voice sample.
    pub first_voice: Option<Duration>,
}

/// The state the callback plays from.
pub(crate) struct Deck {
    programme: Arc<Programme>,
    cursor: Cursor,
    playing: bool,
    ended: bool,
    /// Source rate over device rate.
    step: f64,
    mixed: Vec<f32>,
    voice: Vec<f32>,
    /// Next unread sample of `mixed`/`voice`, and how many they hold.
    read: usize,
    filled: usize,
    /// Linear interpolation between `prev` and `next` at `frac` ∈ [0, 1).
    prev: f32,
    next: f32,
    next_is_voice: bool,
    frac: f64,
    requested: Option<Instant>,
    first_sound: Option<Duration>,
    first_voice: Option<Duration>,
}

impl Deck {
    pub(crate) fn new(programme: Arc<Programme>, step: f64) -> Deck {
        Deck {
            cursor: Cursor::new(&programme),
            programme,
            playing: false,
            ended: false,
            step,
            mixed: vec![0.0; BLOCK],
            voice: vec![0.0; BLOCK],
            read: 0,
            filled: 0,
            prev: 0.0,
            next: 0.0,
            next_is_voice: false,
            frac: 1.0,
            requested: None,
            first_sound: None,
            first_voice: None,
        }
    }

    /// The next source sample, mixing a block when the last one is used up;
    /// `None` at the end.
    fn pull(&mut self) -> Option<(f32, bool)> {
        if self.read == self.filled {
            self.filled = self.cursor.render(&self.programme, &mut self.mixed, &mut self.voice);
            self.read = 0;
            if self.filled == 0 {
                return None;
            }
        }
        let i = self.read;
        self.read += 1;
        Some((self.mixed[i], self.voice[i].abs() >= AUDIBLE))
    }

    /// Drops what is mixed ahead, after a jump or an edit; a jump also
    /// restarts the interpolation (an edit keeps it, so it does not click).
    fn flush(&mut self, jump: bool) {
        self.read = 0;
        self.filled = 0;
        if jump {
            self.frac = 1.0;
            self.prev = 0.0;
            self.next = 0.0;
        }
    }

    /// Fills a device buffer of `channels` interleaved channels.
    pub(crate) fn fill(&mut self, out: &mut [f32], channels: usize) {
        if !self.playing {
            out.fill(0.0);
            return;
        }
        for frame in out.chunks_mut(channels.max(1)) {
            let mut value = 0.0;
            let mut is_voice = false;
            if self.playing {
                while self.frac >= 1.0 {
                    match self.pull() {
                        Some((v, voice)) => {
                            (self.prev, self.next) = (self.next, v);
                            self.next_is_voice = voice;
                            self.frac -= 1.0;
                        }
                        None => {
                            self.playing = false;
                            self.ended = true;
                            break;
                        }
                    }
                }
                if self.playing {
                    value = self.prev + (self.next - self.prev) * self.frac as f32;
                    is_voice = self.next_is_voice;
                    self.frac += self.step;
                }
            }
            frame.fill(value);
            if let Some(requested) = self.requested {
                if self.first_sound.is_none() && value.abs() >= AUDIBLE {
                    self.first_sound = Some(requested.elapsed());
                }
                if self.first_voice.is_none() && is_voice && value.abs() >= AUDIBLE {
                    self.first_voice = Some(requested.elapsed());
                }
            }
        }
    }

    fn state(&self) -> TransportState {
        let rate = self.programme.sample_rate() as f64;
        // The sample being heard is about one block behind the mixing cursor.
        TransportState {
            playing: self.playing,
            position_s: self.heard() as f64 / rate,
            length_s: self.programme.seconds(),
            looping: self.cursor.looping().map(|(a, b)| (a as f64 / rate, b as f64 / rate)),
            ended: self.ended,
            first_sound: self.first_sound,
            first_voice: self.first_voice,
        }
    }

    /// The timeline sample being heard: the mixing cursor less what is
    /// mixed but not yet handed out (a loop's wrap inside a block aside).
    fn heard(&self) -> usize {
        self.cursor.position().saturating_sub(self.filled - self.read)
    }

    pub(crate) fn play(&mut self) {
        if self.ended || self.cursor.position() >= self.programme.len() && self.cursor.looping().is_none() {
            self.cursor.seek(&self.programme, 0);
            self.flush(true);
        }
        self.ended = false;
        self.playing = true;
        self.requested = Some(Instant::now());
        self.first_sound = None;
        self.first_voice = None;
    }

    pub(crate) fn pause(&mut self) {
        // Resume where the listener stopped hearing, not where mixing had got to.
        let heard = self.heard();
        self.playing = false;
        self.cursor.seek(&self.programme, heard);
        self.flush(true);
    }

    pub(crate) fn seek(&mut self, seconds: f64) {
        let index = (seconds.max(0.0) * self.programme.sample_rate() as f64).round() as usize;
        self.cursor.seek(&self.programme, index);
        self.ended = false;
        self.flush(true);
    }

    pub(crate) fn set_loop(&mut self, region: Option<(f64, f64)>) {
        let rate = self.programme.sample_rate() as f64;
        let to_index = |s: f64| (s.max(0.0) * rate).round() as usize;
        self.cursor.set_loop(&self.programme, region.map(|(a, b)| (to_index(a), to_index(b))));
        self.flush(true);
    }

    /// Swaps in an edited programme; the playhead stays, the block mixed
    /// ahead is dropped so the edit is heard at once.
    pub(crate) fn replace(&mut self, programme: Arc<Programme>) {
        let heard = self.heard();
        let looping = self.cursor.looping();
        self.programme = programme;
        self.cursor.seek(&self.programme, heard);
        if looping.is_some() {
            self.cursor.set_loop(&self.programme, looping);
        }
        self.flush(false);
    }
}

/// A device may take audio ahead of time by at most this much, seconds.
const PACE_AHEAD_S: f64 = 0.5;

/// Keeps a device without a clock in real time. A sound card takes samples
/// as it plays them, so it never gets ahead; a null sink (no sound card, a
/// headless session) takes them as fast as they come, and the playhead,
/// the picture following it and the timeline would race to the end. Once
/// more audio than [`PACE_AHEAD_S`] has been handed over beyond the time
/// gone by, the callback waits, outside the deck's lock.
struct Pacer {
    started: Option<Instant>,
    frames: u64,
    rate: u32,
}

impl Pacer {
    fn pace(&mut self, frames: usize) {
        let started = *self.started.get_or_insert_with(Instant::now);
        self.frames += frames as u64;
        let ahead = self.frames as f64 / self.rate.max(1) as f64 - started.elapsed().as_secs_f64() - PACE_AHEAD_S;
        if ahead > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(ahead.min(0.25)));
        }
    }
}

/// Playback of a programme on an output device.
pub struct Transport {
    deck: Arc<Mutex<Deck>>,
    _stream: cpal::Stream,
    device_rate: u32,
}

impl Transport {
    /// Opens `device_id` (`host:device`, or the default output when empty),
    /// paused at the start of `programme`.
    pub fn open(device_id: &str, programme: Programme) -> Result<Transport> {
        let Output { device, config, channels, sample_rate: device_rate } = open_output(device_id)?;
        let step = programme.sample_rate() as f64 / device_rate as f64;
        let deck = Arc::new(Mutex::new(Deck::new(Arc::new(programme), step)));
        let callback_deck = deck.clone();
        let mut pacer = Pacer { started: None, frames: 0, rate: device_rate };
        let stream = device
            .build_output_stream(
                config,
                move |out: &mut [f32], _| {
                    match callback_deck.try_lock() {
                        Ok(mut deck) => deck.fill(out, channels),
                        Err(_) => out.fill(0.0),
                    }
                    pacer.pace(out.len() / channels.max(1));
                },
                |e| tracing::warn!(error = %e, "audio stream error"),
                None,
            )
            .map_err(|e| Error::Audio(format!("cannot open the output stream: {e}")))?;
        stream.play().map_err(|e| Error::Audio(format!("cannot start playback: {e}")))?;
        Ok(Transport { deck, _stream: stream, device_rate })
    }

    fn deck(&self) -> MutexGuard<'_, Deck> {
        self.deck.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The output device's sample rate.
    pub fn device_rate(&self) -> u32 {
        self.device_rate
    }

    /// Plays from the playhead (from the start once it has played to the end).
    pub fn play(&self) {
        self.deck().play();
    }

    /// Stops where the listener is; `play` resumes there.
    pub fn pause(&self) {
        self.deck().pause();
    }

    /// Moves the playhead to `seconds` (clamped to the programme).
    pub fn seek(&self, seconds: f64) {
        self.deck().seek(seconds);
    }

    /// Loops `[start, end)` seconds, or stops looping with `None`.
    pub fn set_loop(&self, region: Option<(f64, f64)>) {
        self.deck().set_loop(region);
    }

    /// Where playback stands.
    pub fn state(&self) -> TransportState {
        self.deck().state()
    }

    /// The programme now playing.
    pub fn programme(&self) -> Arc<Programme> {
        self.deck().programme.clone()
    }

    /// Edits the programme while it plays: `edit` runs on a copy, outside
    /// the lock the audio callback takes; the copy then replaces it.
    pub fn edit(&self, edit: impl FnOnce(&mut Programme)) {
        let mut programme = (*self.programme()).clone();
        edit(&mut programme);
        self.deck().replace(Arc::new(programme));
    }
}

#[cfg(test)]
mod tests {
    use super::Pacer;

    #[test]
    fn a_device_that_takes_audio_faster_than_it_plays_is_held_to_real_time() {
        let mut pacer = Pacer { started: None, frames: 0, rate: 1000 };
        let start = std::time::Instant::now();
        // 0.4 s goes at once (within the allowance); the next 0.4 s waits for the clock.
        for _ in 0..8 {
            pacer.pace(100);
        }
        let elapsed = start.elapsed().as_secs_f64();
        assert!(elapsed >= 0.25, "{elapsed} s for 0.8 s of audio");
    }
    use super::*;
    use revoice_audio::ducking::Ducking;

    fn programme() -> Programme {
        let mut p = Programme::new(1000, 2.0, vec![crate::dub::mix::BedAudio::ducked(vec![0.1; 500])], 0.0, Ducking::default());
        p.set_clip(7, None, 0.5, vec![0.5; 300]);
        p
    }

    fn run(deck: &mut Deck, frames: usize) -> Vec<f32> {
        let mut out = vec![9.0; frames * 2];
        deck.fill(&mut out, 2);
        assert!(out.chunks(2).all(|f| f[0] == f[1]), "every channel gets the same sample");
        out.chunks(2).map(|f| f[0]).collect()
    }

    #[test]
    fn paused_it_plays_silence_and_playing_it_plays_the_programme() {
        let mut deck = Deck::new(Arc::new(programme()), 1.0);
        assert!(run(&mut deck, 100).iter().all(|&v| v == 0.0));
        deck.play();
        let out = run(&mut deck, 2100);
        // The first output frame interpolates from silence; then the programme, one frame late.
        assert!((out[1] - 0.1).abs() < 1e-6, "{}", out[1]);
        assert!(out[600] > 0.5, "voice over the (ducked) bed: {}", out[600]);
        assert!(out[2050..].iter().all(|&v| v == 0.0), "silence after the end");
        let state = deck.state();
        assert!(state.ended && !state.playing);
        assert!(state.first_sound.is_some() && state.first_voice.is_some());
    }

    #[test]
    fn pause_resumes_where_the_listener_stopped() {
        let mut deck = Deck::new(Arc::new(programme()), 1.0);
        deck.play();
        run(&mut deck, 700);
        deck.pause();
        let at = deck.state().position_s;
        assert!((at - 0.699).abs() < 0.002, "{at}");
        assert!(run(&mut deck, 50).iter().all(|&v| v == 0.0));
        deck.play();
        let out = run(&mut deck, 50);
        assert!(out[10] > 0.5, "still inside the line at 0.7 s: {}", out[10]);
    }

    #[test]
    fn seek_and_loop_move_the_playhead_and_a_device_at_twice_the_rate_takes_two_frames_a_sample() {
        let mut deck = Deck::new(Arc::new(programme()), 0.5);
        deck.seek(0.6);
        deck.set_loop(Some((0.5, 0.8)));
        assert!((deck.state().position_s - 0.6).abs() < 1e-9);
        deck.play();
        let out = run(&mut deck, 2000); // 1 s of source: three passes and a bit
        assert!(out.iter().skip(2).all(|&v| v > 0.4), "only the line's region plays");
        assert!(deck.state().playing && !deck.state().ended);
        deck.set_loop(None);
        deck.seek(1.95);
        let out = run(&mut deck, 200);
        assert!(out[150..].iter().all(|&v| v == 0.0) && deck.state().ended);
    }

    #[test]
    fn an_edit_while_playing_is_heard_at_once() {
        let mut deck = Deck::new(Arc::new(programme()), 1.0);
        deck.seek(0.55);
        deck.play();
        run(&mut deck, 10);
        let mut edited = (*deck.programme).clone();
        edited.set_clip(7, None, 0.5, vec![0.0; 300]);
        deck.replace(Arc::new(edited));
        let out = run(&mut deck, 100);
        assert!(out[5..].iter().all(|&v| v.abs() < 0.11), "the old line is gone: {:?}", &out[..10]);
    }
}
