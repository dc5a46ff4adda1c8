//! Revoice Studio's engine: one library that the desktop app, the `revoice`
//! CLI and the local HTTP API all drive. [`Engine`] owns one of each
//! service per process (the settings and database, the speech stack, the
//! caches, the segment store, project editing, rendering, playback and
//! export); each face is a thin layer that turns user actions into engine
//! calls and shows the results.
//!
//! Modules, by what they own: [`speech`] (front end, model stack,
//! scheduler-backed renderer), [`voice`] (voice names, the library,
//! matching recordings), [`language`] (the one language table), [`text`]
//! (G2P and sentence splitting), [`cache`], [`scheduler`], [`store`]
//! (SQLite), [`listening`] (Whisper: recordings into timed text),
//! [`media_script`] (a recording or video into a project's lines and speakers), line fits (how
//! long each line will be and whether it fits, before it renders), [`dub`] (a project's lines, timing, mixing, export, playback),
//! [`studio`] (what the editor window sees and hears), casting (a
//! project's speakers voiced from clips, fitted one after another), [`config`],
//! [`logging`], [`doctor`], and per process [`allocator`] and [`compute_threads`].
//! The lower crates come re-exported:
//! [`audio`], [`model`], [`error`], [`fsutil`].

pub mod allocator;
pub mod cache;
mod cast_sheets;
mod casting;
pub mod checking;
pub mod compute_threads;
pub mod config;
mod demo;
pub mod doctor;
pub mod dub;
mod engine;
pub mod engines;
pub mod fitted_style;
mod fitting;
mod lane_mixes;
pub mod language;
mod line_fits;
pub mod listening;
pub mod logging;
mod markers;
pub mod media_script;
pub mod original_dialogue;
mod projects;
mod pronouncing;
pub mod remote;
mod rendering;
mod replacing;
pub mod scheduler;
pub mod speech;
pub mod store;
pub mod studio;
pub mod subtitles;
pub mod testing;
pub mod text;
mod video;
pub mod voice;
pub mod voice_spec;
mod voices;

use std::path::PathBuf;

pub use revoice_audio as audio;
pub use revoice_core::{error, fsutil};
pub use revoice_model as model;

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
