//! Output device discovery through cpal. Device ids are cpal's stable
//! `host:device` strings (`alsa:null`, `alsa:default`), which is also what
//! the config file's `audio.output_device` holds.

use cpal::traits::{DeviceTrait, HostTrait};
use serde::Serialize;

/// One output device as a person would pick it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct OutputDevice {
    /// Stable id to store in settings (`alsa:null`).
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// The host's default output device.
    pub is_default: bool,
    /// Default stream format, e.g. `2 ch, 48000 Hz, f32`; `None` when the
    /// device cannot report one (it may still open with an explicit format).
    pub default_format: Option<String>,
}

/// What the audio host reports.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct OutputDevices {
    /// Audio host name (`ALSA`, `CoreAudio`, `WASAPI`).
    pub host: String,
    pub devices: Vec<OutputDevice>,
    /// Why devices could not be listed, if they could not.
    pub error: Option<String>,
}

impl OutputDevices {
    /// The device playback would use for a configured id (`""` = default).
    pub fn chosen(&self, configured: &str) -> Option<&OutputDevice> {
        if configured.is_empty() {
            self.devices.iter().find(|d| d.is_default)
        } else {
            self.devices.iter().find(|d| d.id == configured)
        }
    }
}

/// Lists output devices on the default host. Blocking (ALSA can take a
/// moment): call it off async worker threads.
pub fn list_output_devices() -> OutputDevices {
    let host = cpal::default_host();
    let host_name = host.id().name().to_string();
    let default_id = host.default_output_device().and_then(|d| d.id().ok()).map(|id| id.to_string());
    let devices = match host.output_devices() {
        Ok(devices) => devices,
        Err(e) => return OutputDevices { host: host_name, devices: Vec::new(), error: Some(e.to_string()) },
    };
    let mut listed = Vec::new();
    for device in devices {
        let Ok(id) = device.id().map(|id| id.to_string()) else {
            continue;
        };
        let name = device.description().map(|d| d.name().to_string()).unwrap_or_else(|_| id.clone());
        let default_format = device.default_output_config().ok().map(|c| format!("{} ch, {} Hz, {}", c.channels(), c.sample_rate(), c.sample_format()));
        listed.push(OutputDevice { is_default: default_id.as_deref() == Some(id.as_str()), id, name, default_format });
    }
    OutputDevices { host: host_name, devices: listed, error: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(id: &str, is_default: bool) -> OutputDevice {
        OutputDevice { id: id.into(), name: id.into(), is_default, default_format: None }
    }

    #[test]
    fn an_empty_setting_chooses_the_default_device_and_an_id_chooses_that_device() {
        let found = OutputDevices { host: "ALSA".into(), devices: vec![device("alsa:null", false), device("alsa:default", true)], error: None };
        assert_eq!(found.chosen("").unwrap().id, "alsa:default");
        assert_eq!(found.chosen("alsa:null").unwrap().id, "alsa:null");
        assert!(found.chosen("alsa:gone").is_none());
    }

    #[test]
    fn listing_devices_never_panics_without_a_sound_card() {
        let found = list_output_devices();
        assert!(!found.host.is_empty());
        // Every listed device has an id a user can put in the config file.
        for d in &found.devices {
            assert!(d.id.contains(':'), "{d:?}");
        }
    }
}
