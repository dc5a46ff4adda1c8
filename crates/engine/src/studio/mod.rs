//! The editor's side of the engine: what the desktop app's commands call
//! and what its window is sent. `view` is a project as the timeline shows
//! it; `session` keeps the running render, previews and playback for one
//! window; `takes`, `voices` and `settings` are what the inspector, the
//! voice library and the settings view show. The shapes sent to the window
//! derive `ts_rs::TS`: `ui/src/engine-types.ts` is generated from them.

pub mod session;
pub mod settings;
pub mod takes;
pub mod view;
pub mod voices;
