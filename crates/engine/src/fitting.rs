//! Fitting voices for every face: one fit per recording content and fit
//! settings at a time in this process (callers of a fit already running
//! wait for it and share its progress), a checkpoint in the database after
//! every generation (a killed fit resumes from it), and the fitted voice
//! stored under the fit's key, so the same recording is never fitted twice.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::listening::Listener;
use crate::Engine;
use revoice_audio::decode::DecodedAudio;
use revoice_audio::pitch::voice_stats;
use revoice_audio::tone::long_term_spectrum;
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};
use revoice_model::naturalness::NaturalnessJudge;
use revoice_speech::cache::ReferenceInput;
use revoice_voices::fit::flights::{Flight, MAX_QUEUED_FITS};
use revoice_voices::fit::probe::{words_heard_in, OwnWords, ProbeJudge};
use revoice_voices::fit::{self, FitCheckpoint, FitProgress, FitSettings, FittedVoice, StyleRecipe, StyleSpace};
use revoice_voices::MatchedVoice;

/// A recording to fit a voice to.
#[derive(Debug, Clone)]
pub struct FitRequest {
    pub recording: ReferenceInput,
    pub settings: FitSettings,
    /// The language the voice will speak (its probe sentences' language).
    pub language: String,
}

/// Following a running fit.
pub struct FitRun {
    progress: watch::Receiver<Option<FitProgress>>,
}

impl FitRun {
    /// The latest progress, if a generation has finished.
    pub fn progress(&self) -> Option<FitProgress> {
        self.progress.borrow().clone()
    }
}

/// A voice is fitted in a language the fit has sentences for: every
/// language the studio speaks with its own Kokoro voices.
fn check_language(language: &str) -> Result<()> {
    use revoice_voices::fit::probe::{sentences_for, SENTENCES};
    if sentences_for(language).is_some() {
        return Ok(());
    }
    let names: Vec<&str> = SENTENCES.iter().map(|s| revoice_text::language::of_tag(s.language).map_or(s.language, |l| l.name)).collect();
    Err(Error::invalid(
        format!("language {language:?}"),
        format!("voices can be fitted to speak {} so far; use a matched voice for other languages", names.join(", ")),
    ))
}

fn decode_recording(recording: &ReferenceInput) -> Result<DecodedAudio> {
    let bytes = recording.read_bytes()?;
    revoice_audio::decode::decode_bytes(bytes.to_vec(), std::path::Path::new(&recording.describe()))
}

/// A piece of the recording's own words is at least this long: less is
/// too little to compare spectra on.
const SHORTEST_PIECE_SECONDS: f64 = 2.0;
/// A piece ends at the first pause in the words (a sentence's or clause's
/// end) past [`SHORTEST_PIECE_SECONDS`], or at the first word end past
/// this: every candidate of a generation says a piece, so a long one (a
/// reader's 16 s sentence, heard as one segment) would cost more than the
/// probes themselves.
const LONGEST_PIECE_SECONDS: f64 = 4.0;

/// The recording's own words in pieces of 2 to about 4 s (Whisper's words,
/// cut at pauses where it can), its samples at `rate` for each, in the
/// language Whisper hears them in; `None` when nothing is heard.
fn own_words(engine: &Engine, decoded: &DecodedAudio, rate: u32, weight: f32) -> Result<Option<OwnWords>> {
    let options = revoice_model::whisper::TranscriptOptions { language: None, word_timestamps: true, initial_prompt: None };
    let heard = engine.listener().transcribe(&decoded.samples, decoded.sample_rate, &options, &mut |_| true)?;
    let samples = revoice_audio::resample::resample(&decoded.samples, decoded.sample_rate, rate)?;
    let at = |seconds: f64| ((seconds.max(0.0) * rate as f64) as usize).min(samples.len());
    // A segment without word timings counts as one word.
    let words: Vec<(f64, f64, &str)> = heard
        .segments
        .iter()
        .flat_map(|s| match s.words.is_empty() {
            true => vec![(s.start, s.end, s.text.as_str())],
            false => s.words.iter().map(|w| (w.start, w.end, w.word.as_str())).collect(),
        })
        .collect();
    let pieces: Vec<(String, Vec<f32>)> = pieces_of(&words).into_iter().map(|(words, start, end)| (words, samples[at(start)..at(end)].to_vec())).collect();
    if pieces.is_empty() {
        return Ok(None);
    }
    let band_top_hz = revoice_audio::cepstrum::band_top_hz(decoded.sample_rate, rate);
    Ok(Some(OwnWords { pieces, language: heard.language, band_top_hz, weight: weight as f64 }))
}

/// Kokoro's decoder and generator as differentiable operations, from the
/// data folder's install; `None` where Kokoro is not installed there (a fit
/// over another model then has no descent).
fn differentiable_voice(data_dir: &std::path::Path) -> Result<Option<revoice_model::kokoro::differentiable::DifferentiableVoice>> {
    let weights = revoice_model::assets::KOKORO.dir(data_dir).join(revoice_model::kokoro::WEIGHTS_FILE);
    if !weights.is_file() {
        return Ok(None);
    }
    let voice = revoice_model::kokoro::differentiable::DifferentiableVoice::load(&weights, &revoice_model::kokoro::config::Config::v1_0())
        .map_err(|e| Error::invalid(weights.display().to_string(), format!("not a readable weights file ({e}): run `revoice models install --force`")))?;
    Ok(Some(voice))
}

/// Whisper's words (start, end, word) as pieces of at least
/// [`SHORTEST_PIECE_SECONDS`], each ending at the first pause past that, or
/// at the first word end past [`LONGEST_PIECE_SECONDS`]; a short tail is
/// left out.
fn pieces_of(words: &[(f64, f64, &str)]) -> Vec<(String, f64, f64)> {
    let mut pieces = Vec::new();
    let (mut text, mut start) = (String::new(), None::<f64>);
    for (from, to, word) in words {
        let begun = *start.get_or_insert(*from);
        text.push_str(word);
        let seconds = to - begun;
        let pause = word.trim_end().ends_with(['.', ',', ';', ':', '!', '?', '。', '、', '，', '！', '？']);
        if seconds >= SHORTEST_PIECE_SECONDS && (pause || seconds >= LONGEST_PIECE_SECONDS) {
            pieces.push((text.trim().to_string(), begun, *to));
            (text, start) = (String::new(), None);
        }
    }
    pieces
}

/// The fit key of a recording's content identity (`sha256:<hex>`).
fn fit_key_of(content: &str, settings: &FitSettings, language: &str) -> String {
    let text = format!("{content}|{}|{language}|{}|{}", settings.key(), revoice_model::assets::KOKORO.id, revoice_model::assets::SPEAKER_ENCODER.id);
    hex::encode(Sha256::digest(text.as_bytes()))
}

impl Engine {
    /// The key a fit is single-flighted, checkpointed and stored under:
    /// the recording's content, the settings, the language, the model and
    /// the encoder.
    pub fn fit_key(&self, request: &FitRequest) -> Result<String> {
        let content = request.recording.content_identity()?.ok_or_else(|| Error::invalid(request.recording.describe(), "has no content to fit to"))?;
        Ok(fit_key_of(&content, &request.settings, &request.language))
    }

    /// A fit running now under `key`, to follow.
    pub fn fit_run(&self, key: &str) -> Option<FitRun> {
        let flights = self.fits.running.lock().unwrap_or_else(|p| p.into_inner());
        flights.get(key).map(|f| FitRun { progress: f.progress.subscribe() })
    }

    /// Asks the fit running under `key` to stop after its generation;
    /// whether one was running.
    pub fn cancel_fit(&self, key: &str) -> bool {
        let flights = self.fits.running.lock().unwrap_or_else(|p| p.into_inner());
        flights.get(key).map(|f| f.cancelled.store(true, Ordering::SeqCst)).is_some()
    }

    /// The finished fit for a request, if it was fitted before.
    pub async fn fitted_before(&self, request: &FitRequest) -> Result<Option<FittedVoice>> {
        let key = self.fit_key(request)?;
        self.stored_fit(&key).await
    }

    async fn stored_fit(&self, key: &str) -> Result<Option<FittedVoice>> {
        let Some(record) = self.store().voice_fit(key).await? else { return Ok(None) };
        let Some(json) = record.fitted_json else { return Ok(None) };
        serde_json::from_str(&json).map(Some).map_err(|e| Error::internal("a stored voice fit", e.to_string()))
    }

    /// Fits a voice to the recording (see [`revoice_voices::fit`]): the quick
    /// match first, then the search, `on_progress` called after each
    /// generation. A fit of the same recording and settings that finished
    /// before is returned at once; one running now is waited for; one that
    /// was killed resumes from its checkpoint.
    pub async fn fit_voice(self: &Arc<Self>, request: FitRequest, on_progress: Arc<dyn Fn(&FitProgress) + Send + Sync>) -> Result<(MatchedVoice, FittedVoice)> {
        let matched = self.fit_match(&request).await?;
        let key = self.fit_key(&request)?;
        let flight = self.fits.join(&key);
        let mut updates = flight.progress.subscribe();
        let forward = on_progress.clone();
        let follower = tokio::spawn(async move {
            while updates.changed().await.is_ok() {
                let latest = updates.borrow().clone();
                if let Some(progress) = latest {
                    forward(&progress);
                }
            }
        });
        let result = async {
            let _turn = flight.turn.lock().await;
            if let Some(done) = self.stored_fit(&key).await? {
                return Ok(done);
            }
            self.run_fit(&key, &request, &matched, &flight).await
        }
        .await;
        follower.abort();
        self.fits.leave(&key, &flight);
        result.map(|fitted| (matched, fitted))
    }

    /// Queues a fit of a library voice's recording to speak `language`
    /// (the voice's own when `None`) and returns its key at once; when the
    /// fit finishes, the voice speaks that language as the fitted voice (if
    /// it still has the same recording by then), and its fits for other
    /// languages stay. Refused when [`MAX_QUEUED_FITS`] fits are already
    /// waiting.
    pub async fn fit_library_voice_in_background(self: &Arc<Self>, name: &str, settings: FitSettings, language: Option<&str>) -> Result<String> {
        let (request, record) = self.library_fit_request(name, settings, language).await?;
        check_language(&request.language)?;
        request.settings.check()?;
        let key = self.fit_key(&request)?;
        if self.fit_run(&key).is_some() {
            return Ok(key);
        }
        let queued = self.fits.queued.clone();
        if queued.fetch_add(1, Ordering::SeqCst) >= MAX_QUEUED_FITS {
            queued.fetch_sub(1, Ordering::SeqCst);
            return Err(Error::busy(format!("fitting voice {name:?}"), format!("{MAX_QUEUED_FITS} voice fits are waiting already: try again later")));
        }
        let (engine, turn, name, sha) = (self.clone(), self.fits.background.clone(), name.to_string(), record.voice.reference_sha256.clone());
        // In flight from now, so it can be followed and cancelled while it waits its turn.
        let waiting = self.fits.join(&key);
        self.fits.library_fit_queued(&name, &request.language, &key);
        let fit_key = key.clone();
        tokio::spawn(async move {
            let permit = turn.acquire_owned().await;
            queued.fetch_sub(1, Ordering::SeqCst);
            let outcome = match permit {
                Ok(_permit) => engine.fit_voice(request, Arc::new(|_| {})).await,
                Err(_) => Err(Error::internal("the voice-fit queue", "closed")),
            };
            let attached = match outcome {
                Ok((_, fitted)) => engine.attach_fit(&name, &sha, fitted).await,
                Err(e) => Err(e),
            };
            if let Err(e) = attached {
                tracing::warn!(voice = %name, error = %e, "background voice fit failed");
            }
            engine.fits.library_fit_ended(&name, &fit_key);
            engine.fits.leave(&fit_key, &waiting);
        });
        Ok(key)
    }

    /// The request a background fit of a library voice makes: to speak
    /// `language`, or the voice's own language.
    async fn library_fit_request(&self, name: &str, settings: FitSettings, language: Option<&str>) -> Result<(FitRequest, revoice_store::VoiceRecord)> {
        let record = self.store().voice(name).await?.ok_or_else(|| Error::not_found(format!("voice {name:?}"), "is not in the library"))?;
        let matched: MatchedVoice = serde_json::from_str(&record.voice.artifact_json)
            .map_err(|e| Error::invalid(format!("voice {name:?}"), format!("its stored record is unreadable ({e})")))?;
        let request = FitRequest {
            recording: ReferenceInput::LocalFile(self.data_dir().join(&record.voice.reference_file)),
            settings,
            language: language.map_or(matched.language, str::to_string),
        };
        Ok((request, record))
    }

    /// A library voice's background fits, queued or running: the language
    /// each is for, and its latest progress (`None` while it waits its turn
    /// or before its first generation is judged).
    pub fn library_voice_fitting(&self, name: &str) -> Vec<(String, Option<FitProgress>)> {
        let fits = self.fits.library_fits(name);
        fits.into_iter().filter_map(|(language, key)| self.fit_run(&key).map(|run| (language, run.progress()))).collect()
    }

    /// Stops a library voice's background fits after their generation (the
    /// checkpoints are kept: fitting again resumes); whether one was running.
    pub fn cancel_library_voice_fit(&self, name: &str) -> bool {
        let fits = self.fits.library_fits(name);
        // Every one is asked to stop (no short cut after the first).
        let cancelled: Vec<bool> = fits.iter().map(|(_, key)| self.cancel_fit(key)).collect();
        cancelled.contains(&true)
    }

    /// Makes a library voice speak the language it was fitted for as
    /// `fitted`, if it still has the recording (by SHA-256) the fit was made
    /// from; its fits for other languages stay.
    async fn attach_fit(&self, name: &str, recording_sha256: &str, fitted: FittedVoice) -> Result<()> {
        let _writing = crate::voices::LIBRARY_WRITES.lock().await;
        let Some(record) = self.store().voice(name).await? else { return Ok(()) };
        if record.voice.reference_sha256 != recording_sha256 {
            return Ok(());
        }
        let mut matched: MatchedVoice =
            serde_json::from_str(&record.voice.artifact_json).map_err(|e| Error::internal(format!("voice {name:?}"), e.to_string()))?;
        matched.add_fit(fitted);
        let mut voice = record.voice.clone();
        voice.artifact_json = serde_json::to_string(&matched).expect("an artifact serialises");
        self.store().save_voice(&voice).await?;
        self.voice_artifacts().voice_overwritten(name);
        Ok(())
    }

    async fn run_fit(self: &Arc<Self>, key: &str, request: &FitRequest, matched: &MatchedVoice, flight: &Arc<Flight>) -> Result<FittedVoice> {
        let resume: Option<FitCheckpoint> = match self.store().voice_fit(key).await? {
            Some(record) => serde_json::from_str(&record.checkpoint_json).ok(),
            None => None,
        };
        let (store, runtime, key_owned, flight_owned) = (self.store().clone(), self.runtime().clone(), key.to_string(), flight.clone());
        let (settings, language) = (request.settings.clone(), request.language.clone());
        let fitted = self
            .with_fit_judge(request, matched, move |judge, space, starts, best| {
                let mut on_generation = |checkpoint: &FitCheckpoint, progress: &FitProgress| -> Result<()> {
                    let json = serde_json::to_string(checkpoint).expect("a checkpoint serialises");
                    wait(&runtime, store.save_fit_checkpoint(&key_owned, &json))?;
                    flight_owned.progress.send_replace(Some(progress.clone()));
                    Ok(())
                };
                let cancelled = || flight_owned.cancelled.load(Ordering::SeqCst);
                fit::fit(judge, space, starts, best, &language, &settings, resume, &mut on_generation, &cancelled)
            })
            .await;
        flight.cancelled.store(false, Ordering::SeqCst);
        let (fitted, checkpoint) = fitted?;
        let (checkpoint_json, fitted_json) = (serde_json::to_string(&checkpoint).expect("serialises"), serde_json::to_string(&fitted).expect("serialises"));
        self.store().finish_fit(key, &checkpoint_json, &fitted_json).await?;
        Ok(fitted)
    }

    /// A fitted voice found before (`kept`, fitted to `request`'s recording
    /// and language) judged again as a fit ending now would judge it: its
    /// style through today's tone match, its figures measured again (see
    /// [`fit::judged_again`]). Nothing is stored; for the voice-fit bench.
    pub async fn fit_judged_again(self: &Arc<Self>, request: FitRequest, kept: FittedVoice) -> Result<(MatchedVoice, FittedVoice)> {
        let matched = self.fit_match(&request).await?;
        let today = request.settings.clone();
        let fitted = self.with_fit_judge(&request, &matched, move |judge, _, starts, best| fit::judged_again(judge, starts, best, &kept, &today)).await?;
        Ok((matched, fitted))
    }

    /// A fit request checked, and its recording matched to the stock voices
    /// of the language the voice will speak (the fit starts from them).
    async fn fit_match(self: &Arc<Self>, request: &FitRequest) -> Result<MatchedVoice> {
        check_language(&request.language)?;
        request.settings.check()?;
        let engine = self.clone();
        let input = request.recording.clone();
        let mut matched = tokio::task::spawn_blocking(move || engine.match_recording(input))
            .await
            .map_err(|e| Error::internal("matching the recording", e.to_string()))??;
        matched.speak(&request.language)?;
        Ok(matched)
    }

    /// Runs `work` off the async threads with the judge a fit of `request`
    /// hears its candidates with, the style space it searches, its
    /// starting voices (the best stock voice of its language, and the blend)
    /// and the best stock voice's name.
    async fn with_fit_judge<T: Send + 'static>(
        self: &Arc<Self>,
        request: &FitRequest,
        matched: &MatchedVoice,
        work: impl FnOnce(&ProbeJudge, &StyleSpace, &[(String, StyleRecipe)], &str) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let engine = self.clone();
        let speech = tokio::task::spawn_blocking(move || engine.speech()).await.map_err(|e| Error::internal("loading the model", e.to_string()))??;
        let references = self.references()?;
        let best = matched.best_voice().ok_or_else(|| Error::invalid(format!("language {:?}", request.language), "no stock voice speaks it"))?.voice.clone();
        let mut starts = vec![(best.clone(), StyleRecipe::of_blend(&[(best.clone(), 1.0)]))];
        if matched.blend.len() > 1 {
            starts.push(("blend".to_string(), StyleRecipe::of_blend(&matched.blend.iter().map(|p| (p.voice.clone(), p.weight)).collect::<Vec<_>>())));
        }
        let (request, reference, engine) = (request.clone(), matched.embedding.clone(), self.clone());
        tokio::task::spawn_blocking(move || -> Result<T> {
            let front_end = &speech.front_end;
            let encoder = references.hooks().matcher().encoder();
            let settings = &request.settings;
            let decoded = decode_recording(&request.recording)?;
            // The recording's tonal balance (none when it has too little sound
            // or too low a rate to measure it: then the fit matches no tone).
            let tone_target = match settings.tone_match_db > 0.0 {
                true => long_term_spectrum(&decoded.samples, decoded.sample_rate).map(|s| (s, settings.tone_match_db)),
                false => None,
            };
            let naturalness = naturalness_judge(engine.data_dir(), settings.naturalness_weight > 0.0 || settings.naturalness_guard > 0.0)?;
            let mut judge = ProbeJudge::new(speech.renderer.scheduler(), front_end, encoder, speech.sample_rate(), reference, tone_target, &best)?;
            if let Some(naturalness) = &naturalness {
                // The best stock voice sets the naturalness every candidate is held to.
                judge = judge.with_naturalness(naturalness).with_naturalness_guard(
                    settings.naturalness_guard,
                    settings.naturalness_guard_margin,
                    starts[0].1.clone(),
                );
            }
            // Whisper hears the validation renders, so a voice that swallows
            // words is passed over (loaded only where the fit hears words).
            let listener = engine.listener();
            if words_heard_in(&request.language) && whisper_installed(listener)? {
                judge = judge.with_words(listener.as_ref());
            }
            if settings.register_semitones > 0.0 {
                let register_hz = voice_stats(&decoded.samples, decoded.sample_rate).median_pitch_hz;
                judge = judge.with_register(register_hz, settings.register_semitones);
            }
            // Whisper hears the recording's words too, for the spectral term and the descent.
            let mut own_words_heard = false;
            if (settings.spectral_weight > 0.0 || settings.descent_share > 0.0) && whisper_installed(listener)? {
                let weight = settings.spectral_weight;
                if let Some(own) = own_words(&engine, &decoded, speech.sample_rate(), weight)? {
                    tracing::info!(pieces = own.pieces.len(), language = own.language, weight, "Whisper heard the recording's own words");
                    judge = judge.with_own_words(front_end, own, &best)?;
                    own_words_heard = true;
                }
            }
            // The decoder and generator the descent takes its gradients through, for this fit
            // only, and only where there are words to descend towards.
            let descent_voice = match settings.descent_share > 0.0 && own_words_heard {
                true => differentiable_voice(engine.data_dir())?,
                false => None,
            };
            if let Some(voice) = &descent_voice {
                judge = judge.with_descent(voice, speech.model.as_ref())?;
            }
            let space = StyleSpace::new(front_end.stock_voices(), settings.timbre_dims, settings.prosody_dims);
            work(&judge, &space, &starts, &best)
        })
        .await
        .map_err(|e| Error::internal("fitting the voice", e.to_string()))?
    }
}

/// The naturalness judge a fit weighing or guarding naturalness listens
/// with, when it is `wanted`. It is one of the model assets; a data folder
/// installed before it fits without weighing naturalness, and says so.
fn naturalness_judge(data_dir: &Path, wanted: bool) -> Result<Option<NaturalnessJudge>> {
    if !wanted {
        return Ok(None);
    }
    match NaturalnessJudge::load(data_dir) {
        Ok(judge) => Ok(Some(judge)),
        Err(Error::InvalidInput { input, reason }) => {
            tracing::warn!(%input, %reason, "the fit cannot weigh naturalness");
            Ok(None)
        }
        Err(other) => Err(other),
    }
}

/// Whether Whisper can hear a fit's renders and recording (it loads, or is
/// loaded); a data folder without it fits without hearing words (neither
/// the renders' nor the recording's own), and says so.
fn whisper_installed(listener: &Listener) -> Result<bool> {
    match listener.model() {
        Ok(_) => Ok(true),
        Err(Error::InvalidInput { input, reason }) => {
            tracing::warn!(%input, %reason, "the fit cannot hear words: not the fitted voice's, nor the recording's own");
            Ok(false)
        }
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recordings_words_are_cut_in_pieces_long_enough_to_compare() {
        let words = [
            (0.0, 0.6, " The"),
            (0.6, 1.4, " weather"),
            (1.4, 2.2, " turned,"),
            (2.2, 3.1, " cold."),
            (3.1, 3.9, " Brr."),
            (3.9, 5.0, " Children"),
            (5.0, 6.5, " gathered"),
            (6.5, 7.2, " on"),
            (7.2, 8.4, " the"),
            (8.4, 9.0, " shore"),
            (9.0, 9.4, " yes."),
        ];
        assert_eq!(
            pieces_of(&words),
            vec![
                ("The weather turned,".to_string(), 0.0, 2.2),
                ("cold. Brr. Children gathered".to_string(), 2.2, 6.5),
                ("on the shore yes.".to_string(), 6.5, 9.4),
            ],
            "a piece ends at the first pause past 2 s, else at the first word past 4 s"
        );
        assert_eq!(pieces_of(&words[..10]).len(), 2, "a short tail is left out");
        assert!(pieces_of(&[]).is_empty());
    }
}
