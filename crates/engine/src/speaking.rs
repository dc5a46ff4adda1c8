//! The one speaking operation: a text in a voice, heard now. `revoice say`,
//! the speech API, the editor's voice previews and the dictionary's preview
//! all speak through [`Engine::speak`], so the same text in the same voice
//! is the same audio from the same render cache, whichever face asked, and
//! a voice on a remote engine speaks wherever a local one does.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use revoice_core::error::{Error, Result};
use revoice_model::speech::SpeechRow;
use revoice_speech::front_end::SayRequest;
use revoice_speech::scheduler::JobCanceller;
use revoice_speech::voice_spec::VoiceSpec;
use revoice_speech::{AudioPiece, SpeechStack};
use revoice_text::pronounce::Pronunciations;

use crate::Engine;

/// The rate a remote engine is asked for: the studio's programme rate.
const REMOTE_RATE: u32 = crate::dub::PROGRAMME_RATE;

/// Stops a speaking operation from another thread (a client gone, a
/// preview replaced): sentences not yet synthesised are withdrawn at once.
#[derive(Default)]
pub struct StopSpeaking {
    stopped: AtomicBool,
    jobs: Mutex<Vec<JobCanceller>>,
}

impl StopSpeaking {
    /// Stops it; what has not started is cancelled.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        for job in self.jobs.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            job.cancel();
        }
    }

    /// Whether [`StopSpeaking::stop`] was called.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Cancels `job` when this stops (at once if it has).
    fn watch(&self, job: Option<JobCanceller>) {
        let Some(job) = job else { return };
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if self.stopped() {
            job.cancel();
        } else {
            jobs.push(job);
        }
    }
}

/// How the audio is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Delivery {
    /// Heard now: pieces as they come (the first sentence not cached
    /// streams inside itself).
    #[default]
    Pieces,
    /// Each sentence whole, batched with other work (an answer sent whole).
    Whole,
}

/// What to say, in which voice, and how.
#[derive(Debug, Clone)]
pub struct SpeakRequest {
    pub text: String,
    /// The voice as it speaks: a stock voice, a blend, a fitted voice or a
    /// remote one ([`Engine::voice_to_speak`] resolves a name).
    pub voice: VoiceSpec,
    pub speed: f32,
    /// The vocoder's noise seed; `None` renders without noise.
    pub seed: Option<u64>,
    /// How to read the text when not as the voice's own language reads it
    /// (an API request's `language`).
    pub reading: Option<&'static str>,
    /// Words said as a dictionary says them (a project's pronunciations).
    pub dictionary: Pronunciations,
    pub delivery: Delivery,
}

impl SpeakRequest {
    /// `text` in `voice` at normal speed, read as the voice's language
    /// reads, heard now.
    pub fn new(text: impl Into<String>, voice: VoiceSpec) -> SpeakRequest {
        SpeakRequest { text: text.into(), voice, speed: 1.0, seed: None, reading: None, dictionary: Pronunciations::default(), delivery: Delivery::Pieces }
    }
}

/// A request through the front end, ready to be said: its voice and text
/// checked, its sentences as model rows.
pub struct PreparedSpeech {
    request: SpeakRequest,
    /// The loaded speech stack and the rows, for a local voice.
    local: Option<(Arc<SpeechStack>, Vec<SpeechRow>)>,
    phonemes: String,
}

impl PreparedSpeech {
    /// Sentences to say (a remote voice's text is one).
    pub fn rows(&self) -> usize {
        self.local.as_ref().map_or(1, |(_, rows)| rows.len())
    }

    /// The phonemes each sentence is said with (empty for a remote voice).
    pub fn phonemes(&self) -> &str {
        &self.phonemes
    }
}

/// What was said.
#[derive(Debug, Clone, PartialEq)]
pub struct Spoken {
    pub samples: Vec<f32>,
    pub sample_rate: u32,
    /// The phonemes each sentence was said with, space-separated (empty for
    /// a remote voice: its engine reads the text).
    pub phonemes: String,
    /// Sentences (the model's rows) said, and how many came from the render cache.
    pub rows: usize,
    pub cache_hits: usize,
}

impl Engine {
    /// The voice a person names, as it speaks: a library voice becomes its
    /// blend or fitted voice, an unknown name is refused naming it.
    pub async fn voice_to_speak(&self, name: &str) -> Result<VoiceSpec> {
        let named = self.voice_spec(name).await?;
        self.resolve_voice(&named).await
    }

    /// Says `request`, handing each piece of audio to `on_piece` as it is
    /// ready, and answers the whole. Blocking; loads the model if it is not
    /// loaded. A local voice goes through the render cache and the
    /// scheduler, a remote one to its engine's least busy server. `stop`
    /// (or an error from `on_piece`) stops it and cancels what has not started.
    pub fn speak(&self, request: &SpeakRequest, stop: &StopSpeaking, on_piece: &mut dyn FnMut(&AudioPiece) -> Result<()>) -> Result<Spoken> {
        let prepared = self.prepare_speech(request.clone())?;
        self.speak_prepared(&prepared, stop, on_piece)
    }

    /// [`Engine::speak`]'s first half: the text through the front end (bad
    /// text or a voice that cannot read it is refused here, before any
    /// audio). Blocking; loads the model for a local voice.
    pub fn prepare_speech(&self, request: SpeakRequest) -> Result<PreparedSpeech> {
        if request.voice.remote().is_some() {
            return Ok(PreparedSpeech { request, local: None, phonemes: String::new() });
        }
        let speech = self.speech()?;
        let say = SayRequest { text: request.text.clone(), voice: request.voice.clone(), speed: request.speed, seed: request.seed };
        let lines = speech.front_end.prepare_with(&say, request.reading, &request.dictionary)?;
        let phonemes = lines.iter().map(|l| l.phonemes.as_str()).collect::<Vec<_>>().join(" ");
        let rows = lines.into_iter().map(|l| l.row).collect();
        Ok(PreparedSpeech { request, local: Some((speech, rows)), phonemes })
    }

    /// [`Engine::speak`]'s second half: the prepared rows said. Blocking.
    pub fn speak_prepared(&self, prepared: &PreparedSpeech, stop: &StopSpeaking, on_piece: &mut dyn FnMut(&AudioPiece) -> Result<()>) -> Result<Spoken> {
        let Some((speech, rows)) = &prepared.local else {
            return self.speak_remotely(&prepared.request, stop, on_piece);
        };
        let mut samples = Vec::new();
        let mut hear = |piece: AudioPiece| -> Result<()> {
            if stop.stopped() {
                return Err(Error::Cancelled("speaking".into()));
            }
            on_piece(&piece)?;
            samples.extend_from_slice(&piece.samples);
            Ok(())
        };
        let cache_hits = match prepared.request.delivery {
            Delivery::Pieces => {
                let pieces = speech.renderer.pieces(rows);
                stop.watch(pieces.canceller());
                let hits = pieces.cache_hits();
                for piece in pieces {
                    hear(piece?)?;
                }
                hits
            }
            Delivery::Whole => {
                let mut whole = speech.renderer.heard_whole(rows);
                stop.watch(whole.canceller());
                let hits = whole.cache_hits();
                for (row, audio) in whole.by_ref().enumerate() {
                    let audio = audio?;
                    hear(AudioPiece { row, samples: audio.samples, sample_rate: audio.sample_rate })?;
                }
                hits
            }
        };
        Ok(Spoken { samples, sample_rate: speech.sample_rate(), phonemes: prepared.phonemes.clone(), rows: rows.len(), cache_hits })
    }

    fn speak_remotely(&self, request: &SpeakRequest, stop: &StopSpeaking, on_piece: &mut dyn FnMut(&AudioPiece) -> Result<()>) -> Result<Spoken> {
        let mut forward = |chunk: &[f32]| on_piece(&AudioPiece { row: 0, samples: chunk.to_vec(), sample_rate: REMOTE_RATE });
        let samples = self.remote().speak(&request.voice, &request.text, request.speed, None, &stop.stopped, REMOTE_RATE, &mut forward)?;
        Ok(Spoken { samples, sample_rate: REMOTE_RATE, phonemes: String::new(), rows: 1, cache_hits: 0 })
    }
}
