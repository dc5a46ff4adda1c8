//! Plays a finished buffer through cpal on the configured (or default)
//! output device, converting to the device's rate and channel count.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

use revoice_core::error::{Error, Result};

fn audio_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Audio(format!("{what}: {e}"))
}

/// Opens `device_id` (`host:device`), or the default output when empty.
pub fn output_device(device_id: &str) -> Result<cpal::Device> {
    let host = cpal::default_host();
    if device_id.is_empty() {
        return host
            .default_output_device()
            .ok_or_else(|| Error::Audio("no default output device; set [audio] output_device in config.toml (see `revoice doctor`)".into()));
    }
    let id: cpal::DeviceId =
        device_id.parse().map_err(|e| Error::InvalidInput { input: format!("output device {device_id:?}"), reason: format!("not a device id: {e}") })?;
    host.device_by_id(&id).ok_or_else(|| Error::Audio(format!("output device {device_id} is not present (see `revoice doctor`)")))
}

/// An output device with the format the engine plays in: its default
/// config, channel count and sample rate.
pub struct Output {
    pub device: cpal::Device,
    pub config: cpal::StreamConfig,
    pub channels: usize,
    pub sample_rate: u32,
}

/// Opens `device_id` (`host:device`, or the default output when empty) in its default format.
pub fn open_output(device_id: &str) -> Result<Output> {
    let device = output_device(device_id)?;
    let config = device.default_output_config().map_err(|e| audio_error("the output device has no usable format", e))?;
    Ok(Output { channels: config.channels() as usize, sample_rate: config.sample_rate(), config: config.config(), device })
}

/// Plays mono `samples` at `sample_rate`; returns once the device has taken
/// every sample. Returns the number of device frames written.
pub fn play_blocking(samples: &[f32], sample_rate: u32, device_id: &str) -> Result<usize> {
    let Output { device, config, channels, sample_rate: out_rate } = open_output(device_id)?;
    let resampled = Arc::new(resample_linear(samples, sample_rate, out_rate));
    let position = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let (buf, pos, finished) = (resampled.clone(), position.clone(), done.clone());
    let stream = device
        .build_output_stream(
            config,
            move |out: &mut [f32], _| {
                let mut p = pos.load(Ordering::Relaxed);
                for frame in out.chunks_mut(channels) {
                    let v = buf.get(p).copied().unwrap_or(0.0);
                    frame.iter_mut().for_each(|s| *s = v);
                    p += 1;
                }
                pos.store(p, Ordering::Relaxed);
                if p >= buf.len() {
                    finished.store(true, Ordering::Relaxed);
                }
            },
            |e| tracing::warn!(error = %e, "audio stream error"),
            None,
        )
        .map_err(|e| audio_error("cannot open the output stream", e))?;
    stream.play().map_err(|e| audio_error("cannot start playback", e))?;
    let limit = Duration::from_secs_f64(resampled.len() as f64 / out_rate as f64 + 5.0);
    let start = std::time::Instant::now();
    while !done.load(Ordering::Relaxed) {
        if start.elapsed() > limit {
            return Err(Error::Audio("the output device stopped taking samples".into()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(resampled.len())
}

/// Linear-interpolation rate conversion (playback preview quality).
pub fn resample_linear(samples: &[f32], from: u32, to: u32) -> Vec<f32> {
    if from == to || samples.is_empty() {
        return samples.to_vec();
    }
    let ratio = from as f64 / to as f64;
    let n = ((samples.len() as f64) / ratio).round() as usize;
    (0..n)
        .map(|i| {
            let src = i as f64 * ratio;
            let i0 = src.floor() as usize;
            let i1 = (i0 + 1).min(samples.len() - 1);
            let t = (src - i0 as f64) as f32;
            samples[i0.min(samples.len() - 1)] * (1.0 - t) + samples[i1] * t
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resampling_doubles_the_length_for_double_the_rate_and_keeps_values() {
        let out = resample_linear(&[0.0, 1.0, 0.0], 24_000, 48_000);
        assert_eq!(out.len(), 6);
        assert_eq!(out[0], 0.0);
        assert_eq!(out[2], 1.0);
        assert!((out[1] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn an_unknown_device_is_a_clear_error() {
        let err = play_blocking(&[0.0; 10], 24_000, "alsa:no-such-device").unwrap_err();
        assert!(err.to_string().contains("alsa:no-such-device"), "{err}");
    }
}
