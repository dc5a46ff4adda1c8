//! What callers hand the scheduler and what they get back. A caller
//! resolves its request itself (text → rows with voice, speed, seed) and
//! submits a [`Job`]: rows in order, the batch settings they need, and
//! whether the reply is buffered or streamed. The [`JobHandle`] yields the
//! rows' audio in order; dropping it (or [`JobHandle::cancel`]) withdraws
//! every row not yet started.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use revoice_core::error::{Error, Result};
use revoice_model::speech::{RowAudio, SpeechRow};

/// Settings a model applies to a whole batch: only rows with equal
/// settings share one. Kokoro has none (every per-line option, voice,
/// speed, seed and target, is per row), so its rows all use the default;
/// a model with a batch-wide sampler names it here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct BatchSettings {
    /// Sampler name and parameters, as the model spells them.
    pub sampler: String,
}

/// How the caller takes the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The caller waits for all rows: bad takes are retried on a fresh
    /// seed before the row is handed back.
    Buffered,
    /// Each row is handed back as soon as it and the rows before it are
    /// done (a take may already be playing, so none is retried).
    Streaming,
}

/// Rows to synthesise, in the order they are to be heard.
#[derive(Debug, Clone)]
pub struct Job {
    pub rows: Vec<SpeechRow>,
    pub settings: BatchSettings,
    pub delivery: Delivery,
    /// Where the first row's audio goes in pieces as it renders (see
    /// `SpeechModel::generate_streaming`), ahead of its whole reply; that
    /// row renders alone. The sender is dropped when the row is done.
    pub first_row_pieces: Option<mpsc::Sender<Vec<f32>>>,
}

impl Job {
    /// A buffered job with default batch settings.
    pub fn buffered(rows: Vec<SpeechRow>) -> Job {
        Job { rows, settings: BatchSettings::default(), delivery: Delivery::Buffered, first_row_pieces: None }
    }

    /// A streaming job with default batch settings.
    pub fn streaming(rows: Vec<SpeechRow>) -> Job {
        Job { rows, settings: BatchSettings::default(), delivery: Delivery::Streaming, first_row_pieces: None }
    }

    /// A streaming job whose first row also streams inside itself, its
    /// pieces sent to `pieces`.
    pub fn streaming_first_in_pieces(rows: Vec<SpeechRow>, pieces: mpsc::Sender<Vec<f32>>) -> Job {
        Job { first_row_pieces: Some(pieces), ..Job::streaming(rows) }
    }
}

/// One row's outcome as the owner thread sends it.
pub(crate) type RowReply = Result<RowAudio>;

/// The caller's end of a submitted job.
pub struct JobHandle {
    pub(crate) replies: mpsc::Receiver<RowReply>,
    pub(crate) canceller: JobCanceller,
    pub(crate) rows: usize,
    pub(crate) received: usize,
}

/// Cancels one job from any thread, for callers whose waiting thread
/// cannot notice by itself that nobody wants the rows any more.
#[derive(Clone)]
pub struct JobCanceller {
    pub(crate) cancelled: Arc<AtomicBool>,
    /// Wakes the owner thread so a cancellation frees rows at once.
    pub(crate) wake: Arc<dyn Fn() + Send + Sync>,
}

impl JobCanceller {
    /// Withdraws every row of the job that has not started; rows already
    /// rendering finish and are discarded.
    pub fn cancel(&self) {
        if !self.cancelled.swap(true, Ordering::AcqRel) {
            (self.wake)();
        }
    }
}

impl JobHandle {
    /// Rows in the job.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The next row's audio, in order; `None` after the last row (or when
    /// the scheduler has shut down).
    pub fn next_row(&mut self) -> Option<Result<RowAudio>> {
        if self.received == self.rows {
            return None;
        }
        let reply = self.replies.recv().ok()?;
        self.received += 1;
        Some(reply)
    }

    /// Waits for every row; the first failed row's error, if any.
    pub fn wait(mut self) -> Result<Vec<RowAudio>> {
        let mut out = Vec::with_capacity(self.rows);
        while let Some(row) = self.next_row() {
            out.push(row?);
        }
        if out.len() < self.rows {
            return Err(Error::InvalidInput {
                input: "synthesis job".into(),
                reason: format!("the scheduler stopped after {} of {} rows", out.len(), self.rows),
            });
        }
        Ok(out)
    }

    /// Withdraws every row that has not started; rows already rendering finish
    /// and are discarded.
    pub fn cancel(&self) {
        self.canceller.cancel();
    }

    /// A handle that cancels this job from another thread.
    pub fn canceller(&self) -> JobCanceller {
        self.canceller.clone()
    }
}

impl Drop for JobHandle {
    fn drop(&mut self) {
        if self.received < self.rows {
            self.cancel();
        }
    }
}
