//! The widths of the batches the scheduler forms, as the model sees them:
//! [`ObservedModel`] wraps the model the scheduler calls and counts each
//! `generate` call's rows into [`BatchSizes`] (reported by `/metrics` and
//! the benches).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use revoice_core::error::Result;
use revoice_model::speech::{RowAudio, SpeechModel, SpeechRow};

/// How many `generate` calls of each width the scheduler made.
#[derive(Debug, Default)]
pub struct BatchSizes(Mutex<BTreeMap<usize, u64>>);

impl BatchSizes {
    /// Width → count.
    pub fn snapshot(&self) -> BTreeMap<usize, u64> {
        self.0.lock().expect("batch sizes lock").clone()
    }

    pub(crate) fn record(&self, width: usize) {
        *self.0.lock().expect("batch sizes lock").entry(width).or_default() += 1;
    }
}

/// The speech model, counting the width of every batch it is handed.
pub struct ObservedModel {
    inner: Arc<dyn SpeechModel>,
    sizes: Arc<BatchSizes>,
}

impl ObservedModel {
    /// Wraps `inner`; widths go to `sizes`.
    pub fn new(inner: Arc<dyn SpeechModel>, sizes: Arc<BatchSizes>) -> ObservedModel {
        ObservedModel { inner, sizes }
    }
}

impl SpeechModel for ObservedModel {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn sample_rate(&self) -> u32 {
        self.inner.sample_rate()
    }
    fn max_phonemes(&self) -> usize {
        self.inner.max_phonemes()
    }
    fn generate(&self, rows: &[SpeechRow]) -> Vec<Result<RowAudio>> {
        self.sizes.record(rows.len());
        self.inner.generate(rows)
    }
    fn generate_streaming(&self, row: &SpeechRow, piece: &mut dyn FnMut(&[f32]) -> std::ops::ControlFlow<()>) -> Result<Option<RowAudio>> {
        self.sizes.record(1);
        self.inner.generate_streaming(row, piece)
    }
    fn spoken_seconds(&self, rows: &[SpeechRow]) -> Vec<Result<f32>> {
        self.inner.spoken_seconds(rows)
    }
    fn voicing(&self, row: &SpeechRow) -> Option<Result<revoice_model::speech::Voicing>> {
        self.inner.voicing(row)
    }
}
