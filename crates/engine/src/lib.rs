//! Revoice Studio's engine: one library that the desktop app, the `revoice`
//! CLI and the local HTTP API all drive. [`Engine`] owns one of each
//! service per process (the settings and database, the speech stack, the
//! caches, the segment store, project editing, rendering, playback and
//! export); each face is a thin layer that turns user actions into engine
//! calls and shows the results.
//!
//! It composes the crates below it (text, store, speech, voices, remote,
//! over model, audio and core). Its own modules: [`dub`] (a project's
//! lines, timing, mixing, export, playback), [`studio`] (what the editor
//! window sees and hears), [`listening`] (Whisper: recordings into timed
//! text), [`media_script`] (a recording or video into a project's lines
//! and speakers), [`checking`] (listening back), line fits (how long each
//! line will be and whether it fits, before it renders), casting (a
//! project's speakers voiced from clips), project editing, rendering,
//! [`logging`] and [`doctor`]. The lower crates come re-exported for the
//! faces ([`store`], [`speech`], [`voice`], [`remote`], [`text`], [`audio`],
//! [`model`], [`config`], [`error`]); the engine's own modules name them
//! directly.

mod cast_sheets;
mod casting;
pub mod checking;
mod demo;
pub mod doctor;
pub mod dub;
mod engine;
pub mod engines;
mod fitting;
pub mod hearing_while_rendering;
mod lane_mixes;
mod line_fits;
pub mod listening;
pub mod logging;
mod markers;
pub mod media_script;
pub mod original_dialogue;
mod playing;
mod projects;
mod pronouncing;
mod rendering;
mod replacing;
mod speaking;
pub mod studio;
pub mod testing;
pub mod translating;
pub mod translation_view;
mod video;
mod voices;

use std::path::PathBuf;

pub use revoice_audio as audio;
pub use revoice_core::{config, error, fsutil, translators};
pub use revoice_model as model;
pub use revoice_remote as remote;
pub use revoice_speech as speech;
pub use revoice_speech::{allocator, cache, compute_threads, fitted_style, scheduler, voice_spec};
pub use revoice_store as store;
pub use revoice_text as text;
pub use revoice_text::{language, subtitles};
pub use revoice_translate as translate;
pub use revoice_voices as voice;

pub use casting::{cast_voice_name, SpeakerClip, SpeakerVoiced};
pub use config::{EngineConfig, Settings};
pub use doctor::{Check, CheckStatus, Diagnosis};
pub use engine::{segment_dir, Engine};
pub use error::{Error, ErrorKind, Result, ResultExt};
pub use fitting::{FitRequest, FitRun};
pub use lane_mixes::{LaneMixEdit, NO_SPEAKER_LANE};
pub use line_fits::TrackFit;
pub use projects::LineEdit;
pub use rendering::ExportRequest;
pub use replacing::ReplaceOptions;
pub use speaking::{Delivery, PreparedSpeech, SpeakRequest, Spoken, StopSpeaking};
pub use video::{AttachedVideo, PictureSource};
pub use voices::NewLibraryVoice;

/// The engine's version, as built.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Convenience for faces: resolve the data dir, load the config, start
/// logging and open the engine, in that order.
pub async fn start(data_dir_override: Option<PathBuf>) -> Result<(Engine, logging::LogGuard)> {
    let config = EngineConfig::load(data_dir_override)?;
    let guard = logging::init(&config.data_dir, &config.settings.log.filter)?;
    let engine = Engine::open(config).await?;
    Ok((engine, guard))
}
