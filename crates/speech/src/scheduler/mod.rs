//! The synthesis scheduler: one owner thread that calls the speech model,
//! batching rows from every caller (editor, CLI, HTTP API). Callers
//! resolve their own rows and submit a [`Job`]; the [`JobHandle`] returns
//! the rows' audio in order and cancels what has not started when dropped.
//! `owner` runs the queue and batches, `job` is the caller's side, `takes`
//! judges renders for retries, `config` resolves width and window,
//! `widths` counts the batch widths the model is handed.

mod config;
mod job;
mod owner;
mod takes;
mod widths;

pub use config::{Calibration, SchedulerConfig, WidthSource, CALIBRATION_FILE};
pub use job::{BatchSettings, Delivery, Job, JobCanceller, JobHandle};
pub use owner::{Scheduler, SchedulerStats, TaskQueue};
pub use takes::{fresh_seed, judge, BadTake};
pub use widths::{BatchSizes, ObservedModel};
