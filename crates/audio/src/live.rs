//! Live playback: audio is pushed while it is still being rendered and
//! plays as soon as the first piece arrives. Samples cross to the cpal
//! callback through a lock-free ring (rtrb); the callback converts the
//! rate by linear interpolation, continuous across pushes, and plays
//! silence (counted) when rendering falls behind.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cpal::traits::{DeviceTrait, StreamTrait};

use super::playback::{open_output, Output};
use revoice_core::error::{Error, Result};

/// Seconds of source audio the ring holds before `push` waits.
const RING_SECONDS: usize = 30;

/// What a finished live playback did.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveReport {
    /// Source samples the device took (all that were pushed).
    pub samples: u64,
    /// Seconds of silence played because the next piece was not ready
    /// (the wait for the first one included).
    pub starved_seconds: f64,
    /// From opening to the first audible sample handed to the device.
    pub first_sound: Option<Duration>,
}

/// State the callback and the pushing thread share.
#[derive(Default)]
struct Shared {
    /// Source samples the callback has taken from the ring.
    taken: AtomicU64,
    /// Device frames of silence while waiting for more audio.
    starved_frames: AtomicU64,
    /// Set once the last piece is pushed: running dry is then the end.
    closing: AtomicBool,
    /// Nanoseconds from opening to the first audible sample handed to the
    /// device (0 until then): the time to first audio.
    first_sound_ns: AtomicU64,
}

/// An open output stream fed piece by piece.
pub struct LivePlayback {
    producer: rtrb::Producer<f32>,
    shared: Arc<Shared>,
    pushed: u64,
    opened: Instant,
    source_rate: u32,
    device_rate: u32,
    stream: cpal::Stream,
}

impl LivePlayback {
    /// Opens `device_id` (`host:device`, or the default output when empty)
    /// for mono audio at `source_rate`; plays silence until the first push.
    pub fn open(device_id: &str, source_rate: u32) -> Result<LivePlayback> {
        let Output { device, config, channels, sample_rate: device_rate } = open_output(device_id)?;
        let (producer, mut consumer) = rtrb::RingBuffer::<f32>::new(RING_SECONDS * source_rate as usize);
        let shared = Arc::new(Shared::default());
        let state = shared.clone();
        let step = source_rate as f64 / device_rate as f64;
        let opened = Instant::now();
        // Interpolation between `prev` and `next` at `frac` ∈ [0, 1).
        let (mut prev, mut next, mut frac) = (0f32, 0f32, 1f64);
        let stream = device
            .build_output_stream(
                config,
                move |out: &mut [f32], _| {
                    let mut taken = 0u64;
                    let mut starved = 0u64;
                    for frame in out.chunks_mut(channels) {
                        while frac >= 1.0 {
                            match consumer.pop() {
                                Ok(v) => {
                                    (prev, next) = (next, v);
                                    frac -= 1.0;
                                    taken += 1;
                                }
                                Err(_) => break,
                            }
                        }
                        let value = if frac >= 1.0 {
                            starved += 1;
                            0.0
                        } else {
                            let v = prev + (next - prev) * frac as f32;
                            frac += step;
                            v
                        };
                        frame.fill(value);
                        if value.abs() > 1e-4 && state.first_sound_ns.load(Ordering::Relaxed) == 0 {
                            state.first_sound_ns.store(opened.elapsed().as_nanos().max(1) as u64, Ordering::Relaxed);
                        }
                    }
                    state.taken.fetch_add(taken, Ordering::Release);
                    if !state.closing.load(Ordering::Acquire) {
                        state.starved_frames.fetch_add(starved, Ordering::Relaxed);
                    }
                },
                |e| tracing::warn!(error = %e, "audio stream error"),
                None,
            )
            .map_err(|e| Error::Audio(format!("cannot open the output stream on {}: {e}", describe(device_id))))?;
        stream.play().map_err(|e| Error::Audio(format!("cannot start playback on {}: {e}", describe(device_id))))?;
        Ok(LivePlayback { producer, shared, pushed: 0, opened, source_rate, device_rate, stream })
    }

    /// Queues `samples` behind what is already playing; waits only while
    /// the ring is full (more than 30 s ahead of the speaker).
    pub fn push(&mut self, samples: &[f32]) -> Result<()> {
        let mut rest = samples;
        let mut stalled_since = None;
        while !rest.is_empty() {
            let n = self.producer.slots().min(rest.len());
            if n == 0 {
                let since = *stalled_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(RING_SECONDS as u64 + 5) {
                    return Err(Error::Audio("the output device stopped taking samples".into()));
                }
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            stalled_since = None;
            let mut chunk = self.producer.write_chunk_uninit(n).expect("n slots are free");
            let (a, b) = chunk.as_mut_slices();
            for (slot, &v) in a.iter_mut().chain(b.iter_mut()).zip(&rest[..n]) {
                slot.write(v);
            }
            // SAFETY: all n slots were written just above.
            unsafe { chunk.commit_all() };
            self.pushed += n as u64;
            rest = &rest[n..];
        }
        Ok(())
    }

    /// Time from opening to the first audible sample handed to the device,
    /// once there has been one.
    pub fn first_sound(&self) -> Option<Duration> {
        match self.shared.first_sound_ns.load(Ordering::Relaxed) {
            0 => None,
            ns => Some(Duration::from_nanos(ns)),
        }
    }

    /// Seconds of pushed audio the device has not played yet.
    pub fn queued_seconds(&self) -> f64 {
        (self.pushed - self.shared.taken.load(Ordering::Acquire)) as f64 / self.source_rate as f64
    }

    /// Waits until everything pushed has played, then closes the stream.
    pub fn finish(self) -> Result<LiveReport> {
        self.shared.closing.store(true, Ordering::Release);
        let limit = Duration::from_secs_f64(self.queued_seconds() + 5.0);
        let start = Instant::now();
        while self.shared.taken.load(Ordering::Acquire) < self.pushed {
            if start.elapsed() > limit {
                return Err(Error::Audio("the output device stopped taking samples".into()));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // Let the device's own buffer run out before the stream stops.
        std::thread::sleep(Duration::from_millis(150));
        let first_sound = self.first_sound();
        drop(self.stream);
        Ok(LiveReport {
            first_sound,
            samples: self.shared.taken.load(Ordering::Acquire),
            // A device that is not paced (a null sink) would count more
            // silence than time went by.
            starved_seconds: (self.shared.starved_frames.load(Ordering::Relaxed) as f64 / self.device_rate as f64).min(self.opened.elapsed().as_secs_f64()),
        })
    }
}

fn describe(device_id: &str) -> &str {
    if device_id.is_empty() {
        "the default output"
    } else {
        device_id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_device_is_a_clear_error() {
        let err = LivePlayback::open("alsa:no-such-device", 24_000).err().expect("an error");
        assert!(err.to_string().contains("alsa:no-such-device"), "{err}");
    }

    #[test]
    fn pieces_pushed_while_playing_all_play_before_finish_returns() {
        // Needs an output device; the test scripts point ALSA at a null one.
        let mut live = match LivePlayback::open("", 24_000) {
            Ok(live) => live,
            Err(e) => panic!("no output device to test on (run through scripts/test): {e}"),
        };
        let piece: Vec<f32> = (0..2400).map(|i| (i as f32 * 0.05).sin() * 0.1).collect();
        assert_eq!(live.first_sound(), None, "nothing audible before the first push");
        for _ in 0..3 {
            live.push(&piece).unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(live.first_sound().is_some(), "the first audible sample was seen");
        let report = live.finish().unwrap();
        assert_eq!(report.samples, 7200);
    }
}
