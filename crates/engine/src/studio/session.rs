//! One editor window's hold on the engine: the model and scheduler, loaded
//! on first need and kept; at most one render job at a time, whose line
//! states overlay the stored ones; one translation of a track at a time,
//! with its progress; previews of single lines; and the
//! window's [`Playback`] of a track's timeline, which plays only the lines
//! that have a take. Everything the window should know as it happens
//! arrives as a [`StudioEvent`] through the sink the window gave.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;

use super::view::{project_view, CheckView, LiveStates, ProjectView, SegmentState};
use crate::checking::{ListenEvent, ListenRequest};
use crate::dub::pipeline::{RenderScope, RenderSummary};
use crate::dub::player::Playback;
use crate::dub::programme::OriginalMonitor;
use crate::dub::PROGRAMME_RATE;
use crate::hearing_while_rendering::Hearing;
use crate::speaking::{SpeakRequest, StopSpeaking};
use crate::translating::{TranslateReport, TranslateRequest};
use crate::Engine;
use revoice_audio::peaks::{peaks, Peaks};
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};
use revoice_speech::SpeechStack;

/// What plays, as the window sees it (defined with the player, which every face uses).
pub use crate::dub::player::{PlaybackView, ProgrammeClip};

/// How much of a reference recording plays beside its voice's preview.
pub const RECORDING_PREVIEW_SECONDS: f64 = 12.0;

/// What the window hears about as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum StudioEvent {
    /// The model is loading (the first render or preview waits for it).
    #[serde(rename_all = "camelCase")]
    ModelLoading {
        loading: bool,
    },
    #[serde(rename_all = "camelCase")]
    RenderProgress {
        project_id: i64,
        done: usize,
        total: usize,
        rendered: usize,
    },
    #[serde(rename_all = "camelCase")]
    SegmentState {
        segment_id: i64,
        state: SegmentState,
        error: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    RenderFinished {
        project_id: i64,
        rendered: usize,
        fresh: usize,
        failed: usize,
        cancelled: bool,
        error: Option<String>,
    },
    /// Listening back after a render: `done` of `total` lines heard;
    /// `retaking` the line being taken again on a fresh seed, if one is.
    #[serde(rename_all = "camelCase")]
    ListenProgress {
        project_id: i64,
        done: usize,
        total: usize,
        retaking: Option<i64>,
    },
    /// A line heard back (after its re-take, when it had one).
    #[serde(rename_all = "camelCase")]
    SegmentChecked {
        segment_id: i64,
        check: CheckView,
        retaken: bool,
    },
    /// Listening back ended: lines heard, how many fail, how many were taken again.
    #[serde(rename_all = "camelCase")]
    ListenFinished {
        project_id: i64,
        checked: usize,
        failing: usize,
        retaken: usize,
        cancelled: bool,
        error: Option<String>,
    },
    Playback(PlaybackView),
    #[serde(rename_all = "camelCase")]
    PreviewFinished {
        segment_id: i64,
        first_sound_ms: Option<f64>,
        error: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    VoicePreviewFinished {
        voice: String,
        first_sound_ms: Option<f64>,
        error: Option<String>,
    },
    /// A recording or video being heard into a new project: seconds heard so far.
    #[serde(rename_all = "camelCase")]
    MediaHeard {
        seconds: f64,
    },
    /// A track being translated: `done` of `total` lines written.
    #[serde(rename_all = "camelCase")]
    Translating {
        project_id: i64,
        done: usize,
        total: usize,
    },
    /// Lines of a project had their spoken lengths predicted (after an
    /// import or an edit): its view now shows which lines fit.
    #[serde(rename_all = "camelCase")]
    LengthsPredicted {
        project_id: i64,
        lines: usize,
    },
}

/// Where events go (the desktop shell emits them to the window).
pub type EventSink = Arc<dyn Fn(StudioEvent) + Send + Sync>;

struct RunningRender {
    project_id: i64,
    cancel: Arc<AtomicBool>,
    /// Past rendering, listening back: a new render request stops it.
    listening: bool,
}

/// What a background job does.
#[derive(Debug, Clone)]
enum Job {
    /// Render what is stale (only these lines when given), its lines heard
    /// beside the render and after it when listening back is on.
    Render(Option<Vec<i64>>),
    /// Listen back to every rendered line not heard since its take or fit changed.
    Listen,
}

/// The editor's session; share it as `Arc<StudioSession>`.
pub struct StudioSession {
    engine: Arc<Engine>,
    runtime: tokio::runtime::Handle,
    live: Mutex<LiveStates>,
    render: Mutex<Option<RunningRender>>,
    /// A render asked for while the running job listened back; it runs next.
    next_render: Mutex<Option<(i64, Job)>>,
    /// Stops the recording being heard into a new project, if one is.
    hearing: Mutex<Option<Arc<AtomicBool>>>,
    /// Stops the translation running, if one is.
    translating: Mutex<Option<Arc<AtomicBool>>>,
    player: Playback,
    sink: EventSink,
    /// Projects whose lines' lengths are being predicted in the background.
    predicting: Arc<Mutex<std::collections::HashSet<i64>>>,
}

/// Local lines whose spoken length is not known.
fn unknown_lengths(tracks: &[crate::dub::lines::TrackLines]) -> usize {
    tracks.iter().map(|t| t.lines.iter().filter(|l| l.predicted.is_none() && !l.is_remote()).count()).sum()
}

/// The `ListenFinished` of a listening back that ended with `heard`.
fn listen_finished(project_id: i64, heard: Result<Vec<crate::checking::CheckedLine>>) -> StudioEvent {
    match heard {
        Ok(lines) => StudioEvent::ListenFinished {
            project_id,
            checked: lines.len(),
            failing: lines.iter().filter(|l| !l.passed()).count(),
            retaken: lines.iter().filter(|l| l.retaken).count(),
            cancelled: false,
            error: None,
        },
        Err(Error::Cancelled(_)) => StudioEvent::ListenFinished { project_id, checked: 0, failing: 0, retaken: 0, cancelled: true, error: None },
        Err(e) => StudioEvent::ListenFinished { project_id, checked: 0, failing: 0, retaken: 0, cancelled: false, error: Some(e.to_string()) },
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl StudioSession {
    /// A session on `engine`, whose events go to `sink`.
    pub fn new(engine: Arc<Engine>, sink: EventSink) -> Result<Arc<StudioSession>> {
        let runtime = engine.runtime().clone();
        let views = sink.clone();
        let player = Playback::start(engine.clone(), Arc::new(move |view: &PlaybackView| views(StudioEvent::Playback(view.clone()))))?;
        Ok(Arc::new(StudioSession {
            engine,
            runtime,
            live: Mutex::new(LiveStates::new()),
            render: Mutex::new(None),
            next_render: Mutex::new(None),
            hearing: Mutex::new(None),
            translating: Mutex::new(None),
            player,
            sink,
            predicting: Arc::new(Mutex::new(std::collections::HashSet::new())),
        }))
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The engine's speech stack, loaded on first use (blocking: seconds),
    /// with the window told while it loads.
    pub fn speech(&self) -> Result<Arc<SpeechStack>> {
        if let Some(stack) = self.engine.speech_loaded() {
            return Ok(stack);
        }
        (self.sink)(StudioEvent::ModelLoading { loading: true });
        let loaded = self.engine.speech();
        (self.sink)(StudioEvent::ModelLoading { loading: false });
        loaded
    }

    /// The project as the timeline shows it, with the running job's states.
    /// Lines whose spoken length is not known yet (just imported or edited)
    /// are predicted in the background; `LengthsPredicted` says when.
    pub async fn view(&self, project_id: i64) -> Result<ProjectView> {
        let tracks = self.engine.project_lines(project_id).await?;
        if tracks.iter().any(|t| t.lines.iter().any(|l| l.predicted.is_none() && !l.is_remote())) {
            self.predict_lengths(project_id);
        }
        let live = lock(&self.live).clone();
        project_view(self.engine.store(), &tracks, project_id, &live).await
    }

    /// Predicts the lengths `project_id`'s lines lack on a thread of its
    /// own (one at a time per project; the model loads first if needed),
    /// then tells the window. A line that cannot be predicted (text no
    /// voice reads) stays unknown and is not asked for again until edited.
    fn predict_lengths(&self, project_id: i64) {
        if !lock(&self.predicting).insert(project_id) {
            return;
        }
        let (engine, sink, predicting) = (self.engine.clone(), self.sink.clone(), self.predicting.clone());
        let spawned = std::thread::Builder::new().name("revoice-line-lengths".into()).spawn(move || {
            revoice_speech::compute_threads::enter_compute_thread();
            let before = wait(engine.runtime(), engine.project_lines(project_id)).map(|t| unknown_lengths(&t)).unwrap_or(0);
            match engine.predict_lengths(project_id) {
                Ok(tracks) => {
                    let lines = before.saturating_sub(unknown_lengths(&tracks));
                    if lines > 0 {
                        sink(StudioEvent::LengthsPredicted { project_id, lines });
                    }
                }
                Err(e) => tracing::warn!("predicting the lines' lengths of project {project_id}: {e}"),
            }
            lock(&predicting).remove(&project_id);
        });
        if spawned.is_err() {
            lock(&self.predicting).remove(&project_id);
        }
    }

    /// Whether a render is running, and for which project.
    pub fn rendering(&self) -> Option<i64> {
        lock(&self.render).as_ref().map(|r| r.project_id)
    }

    /// Starts rendering what is stale in `project_id` (only `segments` when
    /// given) on a background thread; progress and line states arrive as
    /// events. When it is done and listening back is on, the lines it
    /// rendered are heard (`ListenProgress`, `SegmentChecked`,
    /// `ListenFinished`). Refused while another render runs; a render asked
    /// for while the last one listens back stops the listening and runs next.
    pub fn render(self: &Arc<Self>, project_id: i64, segments: Option<Vec<i64>>) -> Result<()> {
        self.start_job(project_id, Job::Render(segments))
    }

    /// Listens back to every rendered line of `project_id` not heard since
    /// its take or fit changed, on the background thread renders use
    /// (refused while one runs; a render asked for meanwhile stops it).
    pub fn listen(self: &Arc<Self>, project_id: i64) -> Result<()> {
        self.start_job(project_id, Job::Listen)
    }

    fn start_job(self: &Arc<Self>, project_id: i64, job: Job) -> Result<()> {
        let cancel = {
            let mut running = lock(&self.render);
            if let Some(r) = running.as_ref() {
                if let (true, Job::Render(lines)) = (r.listening, &job) {
                    r.cancel.store(true, Ordering::Release);
                    let mut next = lock(&self.next_render);
                    // Two renders asked for meanwhile: one render of both.
                    let lines = match next.take() {
                        Some((queued, Job::Render(Some(mut earlier)))) if queued == project_id => lines.as_ref().map(|l| {
                            earlier.extend(l.iter().filter(|id| !earlier.contains(id)).copied().collect::<Vec<_>>());
                            earlier
                        }),
                        Some((queued, Job::Render(None))) if queued == project_id => None,
                        _ => lines.clone(),
                    };
                    *next = Some((project_id, Job::Render(lines)));
                    return Ok(());
                }
                let doing = if r.listening { "listening back to its takes" } else { "rendering" };
                return Err(Error::conflict(format!("job on project {project_id}"), format!("project {} is {doing}; cancel it or wait", r.project_id)));
            }
            let cancel = Arc::new(AtomicBool::new(false));
            *running = Some(RunningRender { project_id, cancel: cancel.clone(), listening: matches!(job, Job::Listen) });
            cancel
        };
        let session = self.clone();
        let spawned = std::thread::Builder::new().name("revoice-render".into()).spawn(move || {
            revoice_speech::compute_threads::enter_compute_thread();
            let mut next = Some((project_id, job, cancel));
            while let Some((project_id, job, cancel)) = next.take() {
                next = session.run_job(project_id, job, &cancel);
            }
        });
        if let Err(e) = spawned {
            *lock(&self.render) = None;
            return Err(Error::Audio(format!("cannot start the render thread: {e}")));
        }
        Ok(())
    }

    /// One job: a render, its lines heard back beside it and after it
    /// ([`Hearing`]); or listening alone. Its last event goes out once the
    /// job has let go of the session (see [`StudioSession::finish_job`]);
    /// the job asked for meanwhile, if any, is what it returns.
    fn run_job(&self, project_id: i64, job: Job, cancel: &Arc<AtomicBool>) -> Option<(i64, Job, Arc<AtomicBool>)> {
        let segments = match job {
            Job::Listen => return self.finish_job(self.listen_back(project_id, None, cancel)),
            Job::Render(segments) => segments,
        };
        let mut hearing = match self.engine.config().settings.dub.listen_back && self.can_listen() {
            true => Hearing::start(&self.engine, project_id, cancel.clone()).map_err(|e| tracing::warn!("rendered lines go unheard: {e}")).ok(),
            false => None,
        };
        let mut rendered = Vec::new();
        let mut listened = (0, 0);
        let outcome = self.run_render(project_id, segments, cancel, &mut rendered, hearing.as_mut(), &mut listened);
        lock(&self.live).clear();
        let event = match &outcome {
            Ok(s) => {
                StudioEvent::RenderFinished { project_id, rendered: s.rendered, fresh: s.fresh, failed: s.failed.len(), cancelled: s.cancelled, error: None }
            }
            Err(e) => StudioEvent::RenderFinished { project_id, rendered: 0, fresh: 0, failed: 0, cancelled: false, error: Some(e.to_string()) },
        };
        let finished = outcome.is_ok_and(|s| !s.cancelled);
        let Some(hearing) = hearing.filter(|_| finished && !rendered.is_empty()) else {
            return self.finish_job(event);
        };
        (self.sink)(event);
        if let Some(r) = lock(&self.render).as_mut() {
            r.listening = true;
        }
        (self.sink)(StudioEvent::ListenProgress { project_id, done: listened.0, total: rendered.len(), retaking: None });
        let heard = hearing.finish(&mut |e| self.listen_event(project_id, e, &mut listened));
        lock(&self.live).clear();
        self.finish_job(listen_finished(project_id, heard))
    }

    /// Whether Whisper is installed to listen with (an older install may
    /// lack it: renders then go unheard, and the doctor says why).
    fn can_listen(&self) -> bool {
        let installed = revoice_model::assets::WHISPER.status(self.engine.data_dir()).is_installed();
        if !installed {
            tracing::warn!("Whisper is not installed: rendered lines are not heard back (revoice models install)");
        }
        installed
    }

    /// Ends the running job: the job asked for meanwhile becomes the
    /// running one (returned to run next), or the session is free; then
    /// `last` goes out, so whoever hears it finds the session as it is.
    fn finish_job(&self, last: StudioEvent) -> Option<(i64, Job, Arc<AtomicBool>)> {
        let next = {
            let mut running = lock(&self.render);
            let next = lock(&self.next_render).take().map(|(project_id, job)| {
                let cancel = Arc::new(AtomicBool::new(false));
                *running = Some(RunningRender { project_id, cancel: cancel.clone(), listening: false });
                (project_id, job, cancel)
            });
            if next.is_none() {
                *running = None;
            }
            next
        };
        (self.sink)(last);
        next
    }

    /// Hears `segments` (every rendered line when `None`) back, taking a
    /// failing one again once; the `ListenFinished` to send.
    fn listen_back(&self, project_id: i64, segments: Option<Vec<i64>>, cancel: &AtomicBool) -> StudioEvent {
        let total = segments.as_ref().map_or(0, |s| s.len());
        (self.sink)(StudioEvent::ListenProgress { project_id, done: 0, total, retaking: None });
        let request = ListenRequest { only: segments, again: false, retake: true };
        let mut listened = (0, total);
        let heard = self.engine.listen_back(project_id, &request, cancel, &mut |event| self.listen_event(project_id, event, &mut listened));
        lock(&self.live).clear();
        listen_finished(project_id, heard)
    }

    /// Passes one event of listening back on to the window; `listened`:
    /// lines heard and lines to hear, as last reported.
    fn listen_event(&self, project_id: i64, event: ListenEvent, listened: &mut (usize, usize)) {
        match event {
            ListenEvent::Retaking { segment_id } => {
                self.set_state(segment_id, SegmentState::Rendering, None);
                (self.sink)(StudioEvent::ListenProgress { project_id, done: listened.0, total: listened.1, retaking: Some(segment_id) });
            }
            ListenEvent::Checked { line, done, total } => {
                *listened = (done, total);
                if line.retaken {
                    lock(&self.live).remove(&line.segment_id);
                    (self.sink)(StudioEvent::SegmentState { segment_id: line.segment_id, state: SegmentState::Ready, error: None });
                    self.player.lay_again(vec![line.segment_id]);
                }
                let check =
                    CheckView { passed: line.passed(), heard: line.heard.clone(), problems: line.problems.clone(), word_error_rate: line.word_error_rate };
                (self.sink)(StudioEvent::SegmentChecked { segment_id: line.segment_id, check, retaken: line.retaken });
                (self.sink)(StudioEvent::ListenProgress { project_id, done, total, retaking: None });
            }
        }
    }

    /// Renders and reports each line's state; each line finished goes to
    /// `hearing`, if any, and what it has heard so far to the window
    /// (`listened`: lines heard and to hear, as last reported).
    fn run_render(
        &self,
        project_id: i64,
        segments: Option<Vec<i64>>,
        cancel: &AtomicBool,
        rendered: &mut Vec<i64>,
        mut hearing: Option<&mut Hearing>,
        listened: &mut (usize, usize),
    ) -> Result<RenderSummary> {
        self.speech()?;
        let from = self.player.view().position;
        let scope = RenderScope { only: segments, from_s: Some(from) };
        let mut announced_queue = false;
        let summary = self.engine.render_project(project_id, &scope, cancel, &mut |p| {
            if !announced_queue {
                announced_queue = true;
                for id in &p.queued {
                    self.set_state(*id, SegmentState::Queued, None);
                }
            }
            if let Some(id) = p.rendering {
                self.set_state(id, SegmentState::Rendering, None);
            }
            if let Some(id) = p.finished {
                rendered.push(id);
                self.set_state(id, SegmentState::Ready, None);
                self.player.lay_again(vec![id]);
                if let Some(h) = hearing.as_deref_mut() {
                    h.rendered(id);
                }
            }
            (self.sink)(StudioEvent::RenderProgress { project_id, done: p.done, total: p.total, rendered: p.rendered });
            if let Some(h) = hearing.as_deref_mut() {
                h.pass_on(&mut |e| self.listen_event(project_id, e, listened));
            }
        })?;
        for (id, reason) in &summary.failed {
            self.set_state(*id, SegmentState::Failed, Some(reason.clone()));
        }
        Ok(summary)
    }

    fn set_state(&self, segment_id: i64, state: SegmentState, error: Option<String>) {
        lock(&self.live).insert(segment_id, (state, error.clone()));
        (self.sink)(StudioEvent::SegmentState { segment_id, state, error });
    }

    /// Asks the running render to stop after the line in the model.
    pub fn cancel_render(&self) -> bool {
        match lock(&self.render).as_ref() {
            Some(r) => {
                r.cancel.store(true, Ordering::Release);
                true
            }
            None => false,
        }
    }

    /// Plays one line alone, streamed as it renders; a `PreviewFinished`
    /// event says when it is done and its time to first audio.
    pub fn preview(self: &Arc<Self>, segment_id: i64) -> Result<()> {
        self.spawn_preview(
            move |session| session.run_preview(segment_id),
            move |first_sound_ms, error| StudioEvent::PreviewFinished { segment_id, first_sound_ms, error },
        )
    }

    /// Plays one of a line's takes as it was rendered (at its natural rate,
    /// before any fitting); a `PreviewFinished` event says when it is done.
    pub fn audition_take(self: &Arc<Self>, segment_id: i64, take_id: i64) -> Result<()> {
        self.spawn_preview(
            move |session| session.run_audition(segment_id, take_id),
            move |first_sound_ms, error| StudioEvent::PreviewFinished { segment_id, first_sound_ms, error },
        )
    }

    /// Speaks a short sample sentence in `voice` (stock, blend or library
    /// voice), in the voice's language; a `VoicePreviewFinished` event follows.
    pub fn preview_voice(self: &Arc<Self>, voice: String) -> Result<()> {
        let asked = voice.clone();
        self.spawn_preview(
            move |session| session.run_voice_preview(&asked),
            move |first_sound_ms, error| StudioEvent::VoicePreviewFinished { voice, first_sound_ms, error },
        )
    }

    /// Plays the first [`RECORDING_PREVIEW_SECONDS`] of a library voice's
    /// own recording, to hear it beside the voice made from it; a
    /// `VoicePreviewFinished` event for `recording:<name>` follows.
    pub fn play_voice_recording(self: &Arc<Self>, name: String) -> Result<()> {
        let voice = format!("recording:{name}");
        self.spawn_preview(
            move |session| session.run_recording(&name),
            move |first_sound_ms, error| StudioEvent::VoicePreviewFinished { voice, first_sound_ms, error },
        )
    }

    fn run_recording(&self, name: &str) -> Result<Option<Duration>> {
        let path = wait(&self.runtime, self.engine.library_voice_recording(name))?;
        let recording = revoice_audio::decode::decode_file(&path)?;
        let heard = recording.samples.len().min((RECORDING_PREVIEW_SECONDS * recording.sample_rate as f64) as usize);
        let device = self.engine.config().settings.audio.output_device.clone();
        let mut live = revoice_audio::live::LivePlayback::open(&device, recording.sample_rate)?;
        live.push(&recording.samples[..heard])?;
        Ok(live.finish()?.first_sound)
    }

    fn run_voice_preview(&self, voice: &str) -> Result<Option<Duration>> {
        let speaks = wait(&self.runtime, self.engine.voice_to_speak(voice))?;
        let text = revoice_text::language::sample_sentence(speaks.language().unwrap_or("en-US"));
        let request = SpeakRequest { seed: Some(1), ..SpeakRequest::new(text, speaks) };
        // A local voice's model loads with the window told (a remote one needs none).
        let rate = match request.voice.remote() {
            Some(_) => PROGRAMME_RATE,
            None => self.speech()?.sample_rate(),
        };
        let device = self.engine.config().settings.audio.output_device.clone();
        let mut live = revoice_audio::live::LivePlayback::open(&device, rate)?;
        let never = StopSpeaking::default();
        // Streamed inside each sentence: the first sound comes a quarter
        // second of audio after the sentence's front end and sketch.
        self.engine.speak(&request, &never, &mut |piece| live.push(&piece.samples)).map_err(|e| e.context(format!("voice {voice:?}")))?;
        Ok(live.finish()?.first_sound)
    }

    /// Runs `work` (something played alone) on its own thread; the event
    /// `finished` makes from its time to first sound or error ends it.
    fn spawn_preview(
        self: &Arc<Self>,
        work: impl FnOnce(&StudioSession) -> Result<Option<Duration>> + Send + 'static,
        finished: impl FnOnce(Option<f64>, Option<String>) -> StudioEvent + Send + 'static,
    ) -> Result<()> {
        let session = self.clone();
        std::thread::Builder::new()
            .name("revoice-preview".into())
            .spawn(move || {
                let (first_sound_ms, error) = match work(&session) {
                    Ok(first) => (first.map(|d| d.as_secs_f64() * 1000.0), None),
                    Err(e) => (None, Some(e.to_string())),
                };
                (session.sink)(finished(first_sound_ms, error));
            })
            .map_err(|e| Error::Audio(format!("cannot start the preview thread: {e}")))?;
        Ok(())
    }

    fn run_preview(&self, segment_id: i64) -> Result<Option<Duration>> {
        let stack = self.speech()?;
        let device = self.engine.config().settings.audio.output_device.clone();
        let mut live = revoice_audio::live::LivePlayback::open(&device, stack.sample_rate())?;
        let never = AtomicBool::new(false);
        self.engine.stream_line(segment_id, &never, &mut |chunk| live.push(chunk))?;
        self.player.lay_again(vec![segment_id]);
        Ok(live.finish()?.first_sound)
    }

    fn run_audition(&self, segment_id: i64, take_id: i64) -> Result<Option<Duration>> {
        let store = self.engine.store();
        let take = wait(&self.runtime, store.takes(segment_id))?.into_iter().find(|t| t.id == take_id);
        let Some(take) = take else {
            return Err(Error::not_found(format!("take {take_id}"), format!("it is not a take of line {segment_id}")));
        };
        let key = revoice_speech::cache::RenderKey::from_hex(&take.synthesis_key)
            .ok_or_else(|| Error::internal(format!("take {take_id}"), "its key is unreadable"))?;
        let crate::dub::segment_store::Stored::Audio(samples) = self.engine.segments().get(&key, PROGRAMME_RATE)? else {
            return Err(Error::not_found(format!("take {take_id}"), "its audio is no longer on disk: pick it and render the line to make it again"));
        };
        let device = self.engine.config().settings.audio.output_device.clone();
        let mut live = revoice_audio::live::LivePlayback::open(&device, PROGRAMME_RATE)?;
        live.push(&samples)?;
        Ok(live.finish()?.first_sound)
    }

    /// Plays `track_id` of `project_id` from `from` seconds, looping
    /// `looping` when given; lines already rendered join from the playhead
    /// on. Errors (no output device) are returned, not only reported.
    pub fn play(&self, project_id: i64, track_id: i64, from: f64, looping: Option<(f64, f64)>) -> Result<()> {
        self.player.play(project_id, track_id, from, looping)
    }

    pub fn pause(&self) -> Result<()> {
        self.player.pause()
    }

    pub fn resume(&self) -> Result<()> {
        self.player.resume()
    }

    pub fn seek(&self, seconds: f64) -> Result<()> {
        self.player.seek(seconds)
    }

    pub fn set_loop(&self, region: Option<(f64, f64)>) -> Result<()> {
        self.player.set_loop(region)
    }

    /// How the original dialogue is heard from now on (see [`Playback::set_original_monitor`]).
    pub fn set_original_monitor(&self, monitor: OriginalMonitor) -> Result<()> {
        self.player.set_original_monitor(monitor)
    }

    /// Stops playback and closes the output.
    pub fn stop(&self) -> Result<()> {
        self.player.stop()
    }

    /// The lines the playing programme holds now, in time order; empty
    /// when nothing plays. What is heard next.
    pub fn playing_lines(&self) -> Result<Vec<ProgrammeClip>> {
        self.player.playing_lines()
    }

    pub fn playback(&self) -> PlaybackView {
        self.player.view()
    }

    /// The waveform of a line as it sits on the timeline (fitted), or
    /// `None` when it has no take on disk. Blocking: reads and fits the line.
    pub fn segment_peaks(&self, segment_id: i64) -> Result<Option<Peaks>> {
        let segment = wait(&self.runtime, self.engine.store().segment(segment_id))?;
        let lines = wait(&self.runtime, self.engine.track_lines(segment.track_id))?;
        let Some(i) = lines.index_of(segment_id) else { return Ok(None) };
        Ok(lines.fit(self.engine.segments(), i, PROGRAMME_RATE)?.map(|line| peaks(&line.audio, PROGRAMME_RATE, line.start, LINE_PEAKS_PER_SECOND)))
    }

    /// A new project heard from a recording or video (see
    /// [`Engine::new_project_from_media`]), with `MediaHeard` events as it
    /// goes; [`StudioSession::cancel_hearing`] stops it and leaves nothing.
    pub async fn new_project_from_media(&self, name: &str, path: &std::path::Path) -> Result<ProjectView> {
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut hearing = lock(&self.hearing);
            if hearing.is_some() {
                return Err(Error::conflict(format!("hearing {}", path.display()), "another recording is being heard into a project; wait or cancel it"));
            }
            *hearing = Some(cancel.clone());
        }
        let sink = self.sink.clone();
        let made = self
            .engine
            .new_project_from_media(name, path, move |seconds| {
                sink(StudioEvent::MediaHeard { seconds });
                !cancel.load(Ordering::Acquire)
            })
            .await;
        *lock(&self.hearing) = None;
        let (project, _, _) = made?;
        self.view(project.id).await
    }

    /// Stops the recording being heard into a new project; whether one was.
    pub fn cancel_hearing(&self) -> bool {
        lock(&self.hearing).as_ref().map(|c| c.store(true, Ordering::Release)).is_some()
    }

    /// Translates a track (see [`Engine::translate_track`]) with
    /// `Translating` events as batches are written; one at a time.
    /// [`StudioSession::cancel_translation`] stops it after the batch in
    /// flight (what was written stays; translating again goes on).
    pub async fn translate(&self, request: TranslateRequest) -> Result<(TranslateReport, ProjectView)> {
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut translating = lock(&self.translating);
            if translating.is_some() {
                return Err(Error::conflict(format!("translating project {}", request.project_id), "a translation is running; wait or cancel it"));
            }
            *translating = Some(cancel.clone());
        }
        let (engine, sink, project_id) = (self.engine.clone(), self.sink.clone(), request.project_id);
        let done = tokio::task::spawn_blocking(move || {
            engine.translate_track(&request, &mut |p| sink(StudioEvent::Translating { project_id, done: p.done, total: p.total }), &|| {
                cancel.load(Ordering::Acquire)
            })
        })
        .await;
        *lock(&self.translating) = None;
        let report = done.map_err(|e| Error::internal("the translation thread", e.to_string()))??;
        Ok((report, self.view(project_id).await?))
    }

    /// Stops the running translation after its batch; whether one was running.
    pub fn cancel_translation(&self) -> bool {
        lock(&self.translating).as_ref().map(|c| c.store(true, Ordering::Release)).is_some()
    }

    /// The waveform of the project's original dialogue, or `None` without one.
    pub fn original_peaks(&self, project_id: i64) -> Result<Option<Peaks>> {
        Ok(self.engine.original_dialogue(project_id)?.map(|d| peaks(&d.samples, d.sample_rate, 0.0, BED_PEAKS_PER_SECOND)))
    }

    /// The waveform of the project's bed stems together (each at its
    /// level, before ducking) from the start, or `None` without a bed.
    pub fn bed_peaks(&self, project_id: i64) -> Result<Option<Peaks>> {
        let stems = wait(&self.runtime, self.engine.store().bed_stems(project_id))?;
        if stems.is_empty() {
            return Ok(None);
        }
        let beds = crate::dub::assemble::load_beds(&stems, PROGRAMME_RATE).map_err(|e| e.context("reading the project's bed"))?;
        let mut sum = vec![0f32; beds.iter().map(|b| b.samples.len()).max().unwrap_or(0)];
        for bed in &beds {
            let level = 10f32.powf(bed.gain_db / 20.0);
            sum.iter_mut().zip(&bed.samples).for_each(|(s, b)| *s += b * level);
        }
        Ok(Some(peaks(&sum, PROGRAMME_RATE, 0.0, BED_PEAKS_PER_SECOND)))
    }

    /// Where the data folder is.
    pub fn data_dir(&self) -> PathBuf {
        self.engine.data_dir().to_path_buf()
    }
}

/// Waveform resolution for lines (fine: they are seen zoomed in) and the bed.
const LINE_PEAKS_PER_SECOND: u32 = 400;
const BED_PEAKS_PER_SECOND: u32 = 50;
