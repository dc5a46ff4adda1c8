//! The renderer: what every face asks for speech through. Rows are looked
//! up in the render cache by their synthesis key; only the misses go to the
//! scheduler, and what it renders is cached. So rendering a script again
//! after editing one line synthesises that one line.
//!
//! A row's key covers everything that changes its audio: the model (id and
//! the arithmetic it runs in), tokens, style vector, speed, seed and target
//! length. How the audio is later fitted or mixed is not part of it.

use std::sync::Arc;

use crate::cache::{RenderCache, RenderCacheConfig, RenderCacheStats, RenderKey, RenderKeyBuilder};
use crate::scheduler::{Job, JobCanceller, JobHandle, Scheduler, SchedulerConfig, SchedulerStats};
use revoice_core::error::{Error, Result};
use revoice_model::speech::{RowAudio, SpeechModel, SpeechRow};

/// Rows predicted in one task on the owner thread (about a third of a
/// second of Kokoro's front end on 2 cores).
const PREDICTED_ROWS_A_TASK: usize = 4;

/// Scheduler plus render cache for one model.
pub struct Renderer {
    scheduler: Scheduler,
    /// The model the scheduler drives, for work on its owner thread.
    model: Arc<dyn SpeechModel>,
    /// The model's output rate.
    sample_rate: u32,
    cache: RenderCache,
    /// The model's identity in render keys (id, revision, arithmetic).
    model_key: String,
}

impl Renderer {
    /// Starts the scheduler's owner thread for `model`. `model_key` must
    /// change whenever the same rows would sound different (another model,
    /// revision or precision).
    pub fn start(model: Arc<dyn SpeechModel>, model_key: impl Into<String>, scheduler: SchedulerConfig, cache: RenderCacheConfig) -> Result<Renderer> {
        Ok(Renderer {
            sample_rate: model.sample_rate(),
            scheduler: Scheduler::start(model.clone(), scheduler)?,
            model,
            cache: RenderCache::new(cache)?,
            model_key: model_key.into(),
        })
    }

    /// Seconds each row will last when rendered, without rendering it: a
    /// cached render's own length, else the model's prediction (Kokoro's
    /// durations), worked out on the owner thread between batches, a few
    /// rows at a time, so a preview or render asked for meanwhile waits
    /// for one small task, not for a whole project's lines.
    pub fn spoken_seconds(&self, rows: &[SpeechRow]) -> Result<Vec<f32>> {
        let known: Vec<Option<f32>> =
            rows.iter().map(|r| self.cache.get(&self.key(r)).and_then(|b| decode(&b)).map(|a| a.samples.len() as f32 / a.sample_rate.max(1) as f32)).collect();
        let unknown: Vec<SpeechRow> = rows.iter().zip(&known).filter(|(_, k)| k.is_none()).map(|(r, _)| r.clone()).collect();
        let mut predicted = Vec::with_capacity(unknown.len());
        for chunk in unknown.chunks(PREDICTED_ROWS_A_TASK) {
            let (model, chunk) = (self.model.clone(), chunk.to_vec());
            let answer = self.scheduler.run_between_batches(move || model.spoken_seconds(&chunk)).recv();
            predicted.extend(answer.map_err(|_| Error::internal("predicting line lengths", "the scheduler stopped"))?);
        }
        let mut predicted = predicted.into_iter();
        known.into_iter().map(|k| k.map_or_else(|| predicted.next().expect("one prediction per unknown row"), Ok)).collect()
    }

    /// The synthesis key of a row.
    pub fn key(&self, row: &SpeechRow) -> RenderKey {
        let tokens: Vec<u8> = row.tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
        let style: Vec<u8> = row.style.iter().flat_map(|v| v.to_le_bytes()).collect();
        let key = RenderKeyBuilder::new("speech-row/v1")
            .param("model", &self.model_key)
            .bytes_param("tokens", &tokens)
            .bytes_param("style", &style)
            .param("speed", row.speed.to_bits())
            .param("seed", row.seed.map_or("none".to_string(), |s| s.to_string()))
            // A target times the row's speech alone (it timed the whole row
            // once): a timed row's key says so; untimed rows keep theirs.
            .param(
                if row.target_seconds.is_some() { "target_speech_seconds" } else { "target_seconds" },
                row.target_seconds.map_or("none".to_string(), |s| s.to_bits().to_string()),
            );
        // Only a toned or pitched row names its tone or pitch, so every other row keeps its key.
        let key = match &row.tone {
            Some(tone) => key.param("tone", tone.gains_db.iter().map(|g| g.to_bits().to_string()).collect::<Vec<_>>().join(",")),
            None => key,
        };
        match row.pitch_semitones {
            0.0 => key.build(),
            semitones => key.param("pitch_semitones", semitones.to_bits().to_string()).build(),
        }
    }

    /// Renders every row (cached ones from the cache), in order; the first
    /// failed row's error, if any.
    pub fn render(&self, rows: &[SpeechRow]) -> Result<Vec<RowAudio>> {
        self.stream(rows).collect()
    }

    /// Rows in order as they become ready: cached rows at once, the rest
    /// streamed from one scheduler job. Dropping the stream cancels rows
    /// that have not started.
    pub fn stream(&self, rows: &[SpeechRow]) -> RowStream<'_> {
        self.row_stream(rows, Hearing::Render).0
    }

    /// Rows in order, each whole, for someone who will hear them (an
    /// answer sent whole): as [`Renderer::stream`], except that a row
    /// streamed earlier for listening counts as cached, so the same text
    /// heard any way is synthesised once.
    pub fn heard_whole(&self, rows: &[SpeechRow]) -> RowStream<'_> {
        self.row_stream(rows, Hearing::Whole).0
    }

    /// The rows' audio in order as pieces, for listening now: the first
    /// row that is not cached streams inside itself (see
    /// [`SpeechModel::generate_streaming`]; the scheduler renders it alone)
    /// and the rows after it render as usual in the same job. A streamed
    /// row is cached apart from the one-pass audio (its key says so), so
    /// hearing it again is instant and a render still makes the one pass.
    /// A toned row (a fitted voice's) comes whole. Dropping the stream
    /// stops the streamed row and cancels rows that have not started.
    pub fn pieces(&self, rows: &[SpeechRow]) -> PieceStream<'_> {
        let (rows, streaming) = self.row_stream(rows, Hearing::Pieces);
        PieceStream { rows, streaming }
    }

    /// `rows` looked up in the render cache, the misses sent as one job.
    /// For someone listening, a row streamed earlier counts as cached; for
    /// [`Hearing::Pieces`] the first miss streams in pieces (cached under its
    /// streamed key): its index and where its pieces arrive come back too.
    fn row_stream(&self, rows: &[SpeechRow], hearing: Hearing) -> (RowStream<'_>, Option<StreamedRow>) {
        let listening = hearing != Hearing::Render;
        let mut keys: Vec<RenderKey> = rows.iter().map(|r| self.key(r)).collect();
        let cached: Vec<Option<RowAudio>> = rows
            .iter()
            .zip(&keys)
            .map(|(r, key)| {
                let found = if listening { self.cache.get_first(&[*key, self.streamed_key(r)]) } else { self.cache.get(key) };
                found.and_then(|bytes| decode(&bytes))
            })
            .collect();
        let misses: Vec<SpeechRow> = rows.iter().zip(&cached).filter(|(_, c)| c.is_none()).map(|(r, _)| r.clone()).collect();
        let hits = rows.len() - misses.len();
        let (mut job, mut streaming) = (None, None);
        if let Some(first) = cached.iter().position(Option::is_none) {
            job = Some(if hearing == Hearing::Pieces {
                let (sink, pieces) = std::sync::mpsc::channel();
                keys[first] = self.streamed_key(&rows[first]);
                streaming = Some((first, pieces));
                self.scheduler.submit(Job::streaming_first_in_pieces(misses, sink))
            } else {
                self.scheduler.submit(Job::streaming(misses))
            });
        }
        (RowStream { renderer: self, keys, cached, job, next: 0, hits }, streaming)
    }

    /// The key a row streamed inside itself is cached under.
    fn streamed_key(&self, row: &SpeechRow) -> RenderKey {
        RenderKeyBuilder::new("speech-row-streamed/v1").param("row", self.key(row).to_hex()).build()
    }

    /// Scheduler counters.
    pub fn scheduler_stats(&self) -> SchedulerStats {
        self.scheduler.stats()
    }

    /// Render cache counters.
    pub fn cache_stats(&self) -> RenderCacheStats {
        self.cache.stats()
    }

    /// Empties the render cache (its counters stay).
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// The scheduler, for work that is not rows (reference encodes between batches).
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }
}

/// Who the rows are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hearing {
    /// A project's render: each row's one-pass audio.
    Render,
    /// Someone listening, each row whole.
    Whole,
    /// Someone listening now: the first row not cached streams in pieces.
    Pieces,
}

/// Rows of one [`Renderer::stream`] call, in order.
pub struct RowStream<'a> {
    renderer: &'a Renderer,
    keys: Vec<RenderKey>,
    cached: Vec<Option<RowAudio>>,
    job: Option<JobHandle>,
    next: usize,
    hits: usize,
}

impl RowStream<'_> {
    /// How many of the rows came from the render cache.
    pub fn cache_hits(&self) -> usize {
        self.hits
    }

    /// Cancels the rows still to be synthesised from another thread (the
    /// thread reading the stream may be blocked waiting for one). `None`
    /// when every row came from the cache.
    pub fn canceller(&self) -> Option<JobCanceller> {
        self.job.as_ref().map(JobHandle::canceller)
    }
}

impl Iterator for RowStream<'_> {
    type Item = Result<RowAudio>;

    fn next(&mut self) -> Option<Result<RowAudio>> {
        let i = self.next;
        if i == self.keys.len() {
            return None;
        }
        self.next += 1;
        if let Some(audio) = self.cached[i].take() {
            return Some(Ok(audio));
        }
        let reply = match self.job.as_mut().and_then(JobHandle::next_row) {
            Some(reply) => reply,
            None => Err(Error::InvalidInput { input: format!("row {}", i + 1), reason: "the scheduler stopped before rendering it".into() }),
        };
        if let Ok(audio) = &reply {
            self.renderer.cache.insert(self.keys[i], encode(audio));
        }
        Some(reply)
    }
}

/// A piece of one row's audio, as [`Renderer::pieces`] hands it on.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioPiece {
    /// Which row (from 0).
    pub row: usize,
    pub samples: Vec<f32>,
    pub sample_rate: u32,
}

/// The pieces of one [`Renderer::pieces`] call, in order: the streamed
/// row's as they come, every other row whole.
pub struct PieceStream<'a> {
    rows: RowStream<'a>,
    streaming: Option<StreamedRow>,
}

/// The row streaming in pieces, and where its pieces arrive.
type StreamedRow = (usize, std::sync::mpsc::Receiver<Vec<f32>>);

impl PieceStream<'_> {
    /// Cancels the rows still to be synthesised from another thread.
    pub fn canceller(&self) -> Option<JobCanceller> {
        self.rows.canceller()
    }

    /// How many of the rows came from the render cache (a row streamed
    /// earlier counts).
    pub fn cache_hits(&self) -> usize {
        self.rows.cache_hits()
    }
}

impl Iterator for PieceStream<'_> {
    type Item = Result<AudioPiece>;

    fn next(&mut self) -> Option<Result<AudioPiece>> {
        let row = self.rows.next;
        if let Some((streamed, pieces)) = &self.streaming {
            if *streamed == row {
                if let Ok(samples) = pieces.recv() {
                    let sample_rate = self.rows.renderer.sample_rate;
                    return Some(Ok(AudioPiece { row, samples, sample_rate }));
                }
                // Its pieces are over: its whole reply is kept (or says why it failed).
                self.streaming = None;
                return match self.rows.next()? {
                    Ok(_) => self.next(),
                    Err(e) => Some(Err(e)),
                };
            }
        }
        let audio = self.rows.next()?;
        Some(audio.map(|a| AudioPiece { row, samples: a.samples, sample_rate: a.sample_rate }))
    }
}

/// Row audio as cache bytes: rate, speed, token count, token seconds, samples (all LE).
fn encode(audio: &RowAudio) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + 4 * (audio.token_seconds.len() + audio.samples.len()));
    out.extend(audio.sample_rate.to_le_bytes());
    out.extend(audio.speed.to_le_bytes());
    out.extend((audio.token_seconds.len() as u32).to_le_bytes());
    out.extend(audio.token_seconds.iter().flat_map(|v| v.to_le_bytes()));
    out.extend(audio.samples.iter().flat_map(|v| v.to_le_bytes()));
    out
}

/// The inverse of [`encode`]; `None` for bytes it did not write.
fn decode(bytes: &[u8]) -> Option<RowAudio> {
    let word = |i: usize| bytes.get(4 * i..4 * i + 4).map(|b| [b[0], b[1], b[2], b[3]]);
    let sample_rate = u32::from_le_bytes(word(0)?);
    let speed = f32::from_le_bytes(word(1)?);
    let tokens = u32::from_le_bytes(word(2)?) as usize;
    let rest = bytes.get(12..)?;
    if rest.len() % 4 != 0 || rest.len() / 4 < tokens {
        return None;
    }
    let values: Vec<f32> = rest.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some(RowAudio { sample_rate, speed, token_seconds: values[..tokens].to_vec(), samples: values[tokens..].to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_audio_survives_the_cache_encoding() {
        let audio = RowAudio { samples: vec![0.5, -0.25, 0.0], sample_rate: 24_000, token_seconds: vec![0.1, 0.2], speed: 1.25 };
        assert_eq!(decode(&encode(&audio)), Some(audio));
        assert_eq!(decode(&[1, 2, 3]), None);
    }
}
