//! Deterministic stand-ins for tests and benches, so that the engine's
//! logic (render scope, assembly, the editor's session and view) can be
//! tested in seconds without the 325 MB model, and where the real model's
//! tests find its install.
//!
//! [`ScriptedModel`] is a [`SpeechModel`] whose audio follows from the row
//! alone, as the real one's does: a tone whose pitch comes from the style
//! vector, as long as the phonemes at the row's speed (or its target
//! length), with seeded noise. It counts what it renders, can be told to
//! fail on a token, and can be held shut so a test sees work waiting.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use revoice_core::{Error, Result};

use crate::assets::{self, AssetState};
use crate::speech::{RowAudio, SpeechModel, SpeechRow};

/// `n` values spread evenly over [−1, 1), the same for the same `seed`
/// (a linear congruential generator): inputs and weights for kernel tests.
pub fn uniform_noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// The data folder the README's test command installs the models into
/// (`REVOICE_TEST_DATA_DIR`, else `target/test-data`). Fails (never skips)
/// when Kokoro is not installed there, saying how to install it.
pub fn installed_data_dir() -> PathBuf {
    let dir = std::env::var_os("REVOICE_TEST_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/test-data")));
    let state = assets::KOKORO.status(&dir).state;
    assert!(
        matches!(state, AssetState::Installed { .. }),
        "Kokoro is not installed in {} ({state:?}): run scripts/test, or \
         `cargo run --bin revoice -- --data-dir {} models install`",
        dir.display(),
        dir.display()
    );
    dir
}

/// The installed Kokoro folder in [`installed_data_dir`].
pub fn installed_model_dir() -> PathBuf {
    assets::KOKORO.dir(&installed_data_dir())
}

/// The data folder of [`installed_data_dir`], checked to hold Whisper too.
pub fn installed_whisper_data_dir() -> PathBuf {
    let dir = installed_data_dir();
    let state = assets::WHISPER.status(&dir).state;
    assert!(
        matches!(state, AssetState::Installed { .. }),
        "Whisper is not installed in {} ({state:?}): run scripts/test, or \
         `cargo run --bin revoice -- --data-dir {} models install`",
        dir.display(),
        dir.display()
    );
    dir
}

/// Seconds one phoneme token lasts at speed 1.
pub const SCRIPTED_TOKEN_SECONDS: f32 = 0.04;

/// A speech model for tests: see the module docs.
pub struct ScriptedModel {
    sample_rate: u32,
    fail_on_token: Option<u32>,
    rows: AtomicUsize,
    batches: AtomicUsize,
    predictions: AtomicUsize,
    open: Mutex<bool>,
    opened: Condvar,
}

impl Default for ScriptedModel {
    fn default() -> Self {
        ScriptedModel::new()
    }
}

impl ScriptedModel {
    /// At Kokoro's rate (24 kHz), failing nothing, open.
    pub fn new() -> ScriptedModel {
        ScriptedModel {
            sample_rate: 24_000,
            fail_on_token: None,
            rows: AtomicUsize::new(0),
            batches: AtomicUsize::new(0),
            predictions: AtomicUsize::new(0),
            open: Mutex::new(true),
            opened: Condvar::new(),
        }
    }

    /// Rows holding `token` fail with an error naming it.
    pub fn failing_on(mut self, token: u32) -> ScriptedModel {
        self.fail_on_token = Some(token);
        self
    }

    /// Rows rendered so far (failed ones included).
    pub fn rows_rendered(&self) -> usize {
        self.rows.load(Ordering::SeqCst)
    }

    /// Rows whose length was asked for without rendering them.
    pub fn rows_predicted(&self) -> usize {
        self.predictions.load(Ordering::SeqCst)
    }

    /// Batches asked for so far.
    pub fn batches(&self) -> usize {
        self.batches.load(Ordering::SeqCst)
    }

    /// Holds every batch until [`Self::open`]: work queues up behind it.
    pub fn hold(&self) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = false;
    }

    /// Lets held batches go.
    pub fn open(&self) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.opened.notify_all();
    }

    fn wait_open(&self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// How long `row` lasts and at what speed: its phonemes at its speed, or its target.
    fn pace(&self, row: &SpeechRow) -> Result<(f32, f32)> {
        if let Some(bad) = self.fail_on_token.filter(|t| row.tokens.contains(t)) {
            return Err(Error::internal("scripted model", format!("told to fail on token {bad}")));
        }
        let natural = row.tokens.len().max(1) as f32 * SCRIPTED_TOKEN_SECONDS / row.speed.max(0.01);
        Ok(match row.target_seconds {
            Some(target) if target > 0.0 => (target, row.speed * natural / target),
            _ => (natural, row.speed),
        })
    }

    fn render(&self, row: &SpeechRow) -> Result<RowAudio> {
        let phonemes = row.tokens.len().max(1);
        let (seconds, speed) = self.pace(row)?;
        let samples = (seconds * self.sample_rate as f32).round() as usize;
        let pitch = 110.0 + 220.0 * row.style.first().copied().unwrap_or(0.0).abs().min(2.0);
        let mut noise = row.seed.unwrap_or(0).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let audio = (0..samples)
            .map(|i| {
                let t = i as f32 / self.sample_rate as f32;
                let tone = 0.3 * (std::f32::consts::TAU * pitch * t).sin();
                if row.seed.is_none() {
                    return tone;
                }
                noise ^= noise << 13;
                noise ^= noise >> 7;
                noise ^= noise << 17;
                tone + 0.01 * ((noise >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            })
            .collect();
        let token_seconds = vec![seconds / phonemes as f32; phonemes];
        Ok(RowAudio { samples: audio, sample_rate: self.sample_rate, token_seconds, speed })
    }
}

impl SpeechModel for ScriptedModel {
    fn id(&self) -> &str {
        "scripted/v1"
    }

    fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    fn max_phonemes(&self) -> usize {
        510
    }

    fn generate(&self, rows: &[SpeechRow]) -> Vec<Result<RowAudio>> {
        self.wait_open();
        self.batches.fetch_add(1, Ordering::SeqCst);
        rows.iter()
            .map(|row| {
                self.rows.fetch_add(1, Ordering::SeqCst);
                self.render(row)
            })
            .collect()
    }

    /// The rendered length, by arithmetic (no audio, no rows counted).
    fn spoken_seconds(&self, rows: &[SpeechRow]) -> Vec<Result<f32>> {
        self.predictions.fetch_add(rows.len(), Ordering::SeqCst);
        rows.iter().map(|row| self.pace(row).map(|(seconds, _)| (seconds * self.sample_rate as f32).round() / self.sample_rate as f32)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tokens: usize, speed: f32, seed: Option<u64>, target: Option<f32>) -> SpeechRow {
        SpeechRow { tokens: vec![5; tokens], style: vec![0.5; 256], speed, seed, target_seconds: target, tone: None, pitch_semitones: 0.0 }
    }

    #[test]
    fn a_scripted_row_lasts_its_phonemes_at_its_speed_or_its_target() {
        let model = ScriptedModel::new();
        let out = model.generate(&[row(10, 1.0, None, None), row(10, 2.0, None, None), row(10, 1.0, None, Some(1.0))]);
        let seconds: Vec<f32> = out.iter().map(|r| r.as_ref().unwrap().samples.len() as f32 / 24_000.0).collect();
        assert!((seconds[0] - 0.4).abs() < 1e-3 && (seconds[1] - 0.2).abs() < 1e-3 && (seconds[2] - 1.0).abs() < 1e-3, "{seconds:?}");
        assert!((out[2].as_ref().unwrap().speed - 0.4).abs() < 1e-4);
        assert_eq!(model.rows_rendered(), 3);
        // Its predicted lengths are its rendered ones, without rendering.
        let predicted: Vec<f32> = model
            .spoken_seconds(&[row(10, 1.0, None, None), row(10, 2.0, None, None), row(10, 1.0, None, Some(1.0))])
            .into_iter()
            .map(|s| s.unwrap())
            .collect();
        for (p, s) in predicted.iter().zip(&seconds) {
            assert!((p - s).abs() < 1e-6, "{predicted:?} against {seconds:?}");
        }
        assert_eq!((model.rows_rendered(), model.rows_predicted()), (3, 3));
    }

    #[test]
    fn a_scripted_row_depends_on_the_row_alone_and_its_seed() {
        let model = ScriptedModel::new();
        let alone = model.generate(&[row(8, 1.0, Some(3), None)]);
        let together = model.generate(&[row(4, 1.0, None, None), row(8, 1.0, Some(3), None)]);
        assert_eq!(alone[0].as_ref().unwrap(), together[1].as_ref().unwrap());
        let other_seed = model.generate(&[row(8, 1.0, Some(4), None)]);
        assert_ne!(alone[0].as_ref().unwrap().samples, other_seed[0].as_ref().unwrap().samples);
    }

    #[test]
    fn a_row_with_the_poisoned_token_fails_alone() {
        let model = ScriptedModel::new().failing_on(99);
        let mut bad = row(3, 1.0, None, None);
        bad.tokens[1] = 99;
        let out = model.generate(&[row(3, 1.0, None, None), bad]);
        assert!(out[0].is_ok());
        assert!(out[1].as_ref().unwrap_err().to_string().contains("token 99"));
    }
}
