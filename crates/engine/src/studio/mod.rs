//! The editor's side of the engine: what the desktop app's commands call.
//! `view` turns a project into what the timeline shows; `session` keeps
//! the loaded model, the running render and the playback for one window.

pub mod session;
pub mod view;
