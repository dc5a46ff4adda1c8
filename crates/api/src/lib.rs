//! The local OpenAI-compatible speech API, served by the studio's engine
//! (`revoice serve`, or the app's settings switch): HTTP and WebSocket over
//! axum, on the same synthesizer, render cache, scheduler, reference-encode
//! service and voice library the CLI and the app use.
//!
//! - [`state`]: what every route shares (the engine, counters, options);
//! - [`server`]: router, bind policy, bearer token, health,
//!   metrics and cache routes, and [`server::RunningServer`] (a server on
//!   its own thread);
//! - [`speech`]: `POST /v1/audio/speech` (whole or streamed PCM);
//! - [`batch`]: `POST /v1/audio/speech/batch`;
//! - [`voices`]: `GET|POST /v1/audio/voices`, `DELETE /v1/audio/voices/{name}`;
//! - [`stream_ws`]: the WebSocket `/v1/audio/speech/stream`;
//! - [`errors`]: the error envelope; [`formats`]: response encodings;
//!   [`voice_design`]: voices from a
//!   description; [`ref_audio`]: where references may come from;
//!   [`metrics`]: counters and distributions for `/metrics`.
//!
//! Handlers never block: model work goes to the scheduler's owner thread
//! and is awaited through channels; G2P, encoding and reference fetching
//! run on tokio's blocking pool.

pub mod batch;
pub mod errors;
pub mod formats;
pub mod metrics;
pub mod ref_audio;
pub mod server;
pub mod speech;
pub mod state;
pub mod stream_ws;
pub mod voice_design;
pub mod voices;

pub use server::RunningServer;
pub use state::{ApiOptions, ApiState};
