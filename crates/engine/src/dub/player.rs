//! Playing a project's track on the timeline, for every face: [`Playback`]
//! owns a player thread that owns the audio output (cpal streams stay on
//! the thread that made them). A play request starts a [`Transport`] at
//! once over the bed and lays the rendered lines on it in the order the
//! playhead reaches them; while it plays the programme follows every edit,
//! undo, redo and take from any face. Asked to, it also renders the lines
//! that are missing or out of date, in playhead order, each heard as soon
//! as it is ready.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::assemble::{load_bed, load_beds};
use super::lines::{Line, TrackLines};
use super::mix::MixSettings;
use super::pipeline::{RenderProgress, RenderScope, RenderSummary};
use super::programme::{Clip, OriginalMonitor, Programme};
use super::segment_store::SegmentStore;
use super::transport::{Transport, TransportState};
use super::PROGRAMME_RATE;
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};
use revoice_store::{Project, Store};

/// An empty programme for `track`: its length, the project's bed stems
/// and how its lanes are heard, no lines yet; the original dialogue in it when `monitor` hears it.
pub fn empty_programme(project: &Project, lines: &TrackLines, settings: &MixSettings, monitor: OriginalMonitor) -> Result<Programme> {
    let beds = load_beds(&lines.beds, PROGRAMME_RATE)?;
    let seconds = lines.programme_seconds(std::iter::empty());
    let mut programme = Programme::new(PROGRAMME_RATE, seconds, beds, settings.bed_gain_db, settings.ducking);
    programme.set_lanes(lines.lanes.clone());
    if monitor != OriginalMonitor::Off {
        if let Some(media) = &project.original_media {
            programme.set_original(Some(load_bed(Path::new(media), PROGRAMME_RATE).map_err(|e| e.context("reading the original dialogue"))?), monitor);
        }
    }
    Ok(programme)
}

/// Line indices in the order the playhead reaches them from `from_s`:
/// the lines not yet over, by start, then the ones before it.
pub fn playhead_order(lines: &TrackLines, from_s: f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lines.lines.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| {
            let slot = &lines.lines[i].slot;
            (slot.end <= from_s, slot.start)
        };
        key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
    order
}

/// What playback reads a project from and renders its missing lines with:
/// the engine (which `dub` does not name; it implements this).
pub trait PlaybackSource: Send + Sync + 'static {
    fn runtime(&self) -> &tokio::runtime::Handle;
    fn store(&self) -> &Store;
    fn segments(&self) -> &SegmentStore;
    /// The output device to play through unless told another (`host:device`, or the default when empty).
    fn output_device(&self) -> String;
    /// A track's lines, resolved (blocking).
    fn read_track(&self, track_id: i64) -> Result<TrackLines>;
    /// Renders what is stale in `project_id` that `scope` takes, as any
    /// render does (refused while the project renders elsewhere).
    fn render(&self, project_id: i64, scope: &RenderScope, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary>;
}

/// One line in the playing programme: what is heard next, down to its
/// samples (a fingerprint of them, so a test or a face can tell that an
/// undone delete brought back the very audio that was there).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProgrammeClip {
    pub segment_id: i64,
    /// Where it starts on the timeline, seconds.
    pub start: f64,
    pub seconds: f64,
    /// Its loudest sample, as laid (after fitting, before the lane's gain).
    pub peak: f32,
    /// SHA-256 of its samples as laid, first 16 hex digits.
    pub fingerprint: String,
}

impl ProgrammeClip {
    fn of(clip: &Clip, rate: f64) -> ProgrammeClip {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for s in clip.audio.iter() {
            hash.update(s.to_le_bytes());
        }
        ProgrammeClip {
            segment_id: clip.segment_id,
            start: clip.start as f64 / rate,
            seconds: clip.audio.len() as f64 / rate,
            peak: clip.audio.iter().fold(0f32, |m, s| m.max(s.abs())),
            fingerprint: hex::encode(&hash.finalize()[..8]),
        }
    }
}

/// Where playback stands, for a face.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PlaybackView {
    pub project_id: Option<i64>,
    pub track_id: Option<i64>,
    pub playing: bool,
    pub position: f64,
    pub length: f64,
    pub looping: Option<(f64, f64)>,
    pub ended: bool,
    /// From the last play request to the first audible sample, and voice sample.
    pub first_sound_ms: Option<f64>,
    pub first_voice_ms: Option<f64>,
    /// Why the last play request failed.
    pub error: Option<String>,
}

impl PlaybackView {
    fn from_transport(project_id: i64, track_id: i64, s: &TransportState) -> PlaybackView {
        let ms = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1000.0);
        PlaybackView {
            project_id: Some(project_id),
            track_id: Some(track_id),
            playing: s.playing,
            position: s.position_s,
            length: s.length_s,
            looping: s.looping,
            ended: s.ended,
            first_sound_ms: ms(s.first_sound),
            first_voice_ms: ms(s.first_voice),
            error: None,
        }
    }
}

/// What rendering the missing lines while playing has done.
#[derive(Debug)]
pub enum RenderNote {
    /// The lines rendered before were laid from the store; `missing` had no take to lay.
    Laid { from_store: usize, missing: usize },
    /// A line rendered and laid in the playing programme: `done` of `total` lines current.
    LineRendered { segment_id: i64, done: usize, total: usize },
    /// Rendering ended (finished, cancelled by a stop or a new play request, or failed).
    Ended(Result<RenderSummary>),
}

/// Hears each [`PlaybackView`] that differs from the last (on the player thread).
pub type ViewSink = Arc<dyn Fn(&PlaybackView) + Send + Sync>;

/// The player: one per face that plays (the editor's session, the CLI).
pub struct Playback {
    commands: Sender<PlayerCommand>,
    view: Arc<Mutex<PlaybackView>>,
    source: Arc<dyn PlaybackSource>,
    /// The output device asked for, instead of the source's.
    device: Mutex<Option<String>>,
    /// The render of missing lines running beside playback, if one is.
    rendering: Mutex<Option<MissingRender>>,
}

struct MissingRender {
    cancel: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Playback {
    /// Starts the player thread on `source`; each new view goes to `on_view`.
    pub fn start(source: Arc<dyn PlaybackSource>, on_view: ViewSink) -> Result<Playback> {
        let view = Arc::new(Mutex::new(PlaybackView::default()));
        let (commands, rx) = channel();
        let player = Player { source: source.clone(), on_view, view: view.clone(), monitor: OriginalMonitor::Off };
        std::thread::Builder::new()
            .name("revoice-player".into())
            .spawn(move || player.run(rx))
            .map_err(|e| Error::Audio(format!("cannot start the player thread: {e}")))?;
        Ok(Playback { commands, view, source, device: Mutex::new(None), rendering: Mutex::new(None) })
    }

    fn command(&self, command: PlayerCommand) -> Result<()> {
        self.commands.send(command).map_err(|_| Error::Audio("the player thread has stopped".into()))
    }

    /// Plays `track_id` of `project_id` from `from` seconds, looping
    /// `looping` when given; the lines already rendered join from the
    /// playhead on. Errors (no output device) are returned, not only reported.
    pub fn play(&self, project_id: i64, track_id: i64, from: f64, looping: Option<(f64, f64)>) -> Result<()> {
        self.stop_rendering();
        self.open(project_id, track_id, from, looping, None)
    }

    /// Plays as [`Playback::play`] does, then, once the rendered lines are
    /// laid, renders the track's missing and out-of-date lines in playhead
    /// order on a thread of its own, each laid as it finishes; `notes` hears
    /// how it goes. A stop or a new play request cancels it.
    pub fn play_rendering_missing(
        &self,
        project_id: i64,
        track_id: i64,
        from: f64,
        looping: Option<(f64, f64)>,
        notes: impl FnMut(RenderNote) + Send + 'static,
    ) -> Result<()> {
        self.stop_rendering();
        let (laid, laid_rx) = channel();
        self.open(project_id, track_id, from, looping, Some(laid))?;
        let cancel = Arc::new(AtomicBool::new(false));
        let render = MissingLines { source: self.source.clone(), commands: self.commands.clone(), project_id, from, cancel: cancel.clone() };
        let thread = std::thread::Builder::new()
            .name("revoice-play-render".into())
            .spawn(move || render.run(laid_rx, notes))
            .map_err(|e| Error::Audio(format!("cannot start the render thread: {e}")))?;
        *lock(&self.rendering) = Some(MissingRender { cancel, thread });
        Ok(())
    }

    /// Plays through `device` (`host:device`, or the default when empty)
    /// from the next play request on, whatever the source names.
    pub fn use_device(&self, device: &str) {
        *lock(&self.device) = Some(device.to_string());
    }

    fn open(&self, project_id: i64, track_id: i64, from: f64, looping: Option<(f64, f64)>, laid: Option<Sender<Laid>>) -> Result<()> {
        let device = lock(&self.device).clone().unwrap_or_else(|| self.source.output_device());
        let (reply, answer) = channel();
        self.command(PlayerCommand::Play { project_id, track_id, from, looping, device, laid, reply })?;
        answer.recv().map_err(|_| Error::Audio("the player thread has stopped".into()))?
    }

    /// Cancels the render of missing lines, if one runs, and waits for it
    /// (it stops after the line in the model).
    fn stop_rendering(&self) {
        if let Some(thread) = self.cancel_rendering() {
            let _ = thread.join();
        }
    }

    fn cancel_rendering(&self) -> Option<JoinHandle<()>> {
        let running = lock(&self.rendering).take()?;
        running.cancel.store(true, Ordering::Release);
        Some(running.thread)
    }

    pub fn pause(&self) -> Result<()> {
        self.command(PlayerCommand::Pause)
    }

    pub fn resume(&self) -> Result<()> {
        self.command(PlayerCommand::Resume)
    }

    pub fn seek(&self, seconds: f64) -> Result<()> {
        self.command(PlayerCommand::Seek(seconds))
    }

    pub fn set_loop(&self, region: Option<(f64, f64)>) -> Result<()> {
        self.command(PlayerCommand::Loop(region))
    }

    /// How the original dialogue is heard from now on: off, under the dub
    /// at a level, or alone (in what plays now and what plays next).
    pub fn set_original_monitor(&self, monitor: OriginalMonitor) -> Result<()> {
        if let OriginalMonitor::Under { gain_db } = monitor {
            if !(-60.0..=12.0).contains(&gain_db) {
                return Err(Error::invalid(format!("original dialogue level {gain_db} dB"), "must be from -60 to 12 dB"));
            }
        }
        self.command(PlayerCommand::Monitor(monitor))
    }

    /// Stops playback and closes the output; a render of missing lines
    /// stops too (after the line in the model) before this returns.
    pub fn stop(&self) -> Result<()> {
        let rendering = self.cancel_rendering();
        let stopped = self.command(PlayerCommand::Stop);
        if let Some(thread) = rendering {
            let _ = thread.join();
        }
        stopped
    }

    /// Lays these lines again in what plays (a take just made, whatever made it).
    pub fn lay_again(&self, segment_ids: Vec<i64>) {
        let _ = self.command(PlayerCommand::Refit(segment_ids, None));
    }

    /// The lines the playing programme holds now, in time order; empty
    /// when nothing plays. What is heard next.
    pub fn playing_lines(&self) -> Result<Vec<ProgrammeClip>> {
        let (reply, answer) = channel();
        self.command(PlayerCommand::Clips(reply))?;
        answer.recv_timeout(Duration::from_secs(5)).map_err(|_| Error::Audio("the player did not answer".into()))
    }

    /// Where playback stood when last reported (every 50 ms while it plays).
    pub fn view(&self) -> PlaybackView {
        lock(&self.view).clone()
    }

    /// Where playback stands now, after every command sent before.
    pub fn view_now(&self) -> Result<PlaybackView> {
        let (reply, answer) = channel();
        self.command(PlayerCommand::View(reply))?;
        answer.recv_timeout(Duration::from_secs(5)).map_err(|_| Error::Audio("the player did not answer".into()))
    }
}

impl Drop for Playback {
    fn drop(&mut self) {
        // The player thread ends with the last sender, the render's included.
        if let Some(r) = lock(&self.rendering).as_ref() {
            r.cancel.store(true, Ordering::Release);
        }
    }
}

/// The rendered lines laid: how many from the store, how many had no take,
/// and the track's lines (to render what is missing of them).
struct Laid {
    from_store: usize,
    missing: usize,
    lines: Vec<i64>,
}

/// Renders a playing track's missing lines, laying each as it finishes.
struct MissingLines {
    source: Arc<dyn PlaybackSource>,
    commands: Sender<PlayerCommand>,
    project_id: i64,
    from: f64,
    cancel: Arc<AtomicBool>,
}

impl MissingLines {
    fn run(self, laid: Receiver<Laid>, mut notes: impl FnMut(RenderNote)) {
        revoice_speech::compute_threads::enter_compute_thread();
        // Playback stopped before the rendered lines were all laid: nothing to render for.
        let Ok(Laid { from_store, missing, lines }) = laid.recv() else { return };
        notes(RenderNote::Laid { from_store, missing });
        if self.cancel.load(Ordering::Acquire) {
            return;
        }
        // Lines edited since their take play their old take until the render replaces it.
        let scope = RenderScope { only: Some(lines), from_s: Some(self.from) };
        let mut failure = None;
        let rendered = self.source.render(self.project_id, &scope, &self.cancel, &mut |p| {
            let Some(id) = p.finished else { return };
            let (reply, answer) = channel();
            if self.commands.send(PlayerCommand::Refit(vec![id], Some(reply))).is_err() {
                return;
            }
            match answer.recv() {
                Ok(Ok(())) if !self.cancel.load(Ordering::Acquire) => notes(RenderNote::LineRendered { segment_id: id, done: p.done, total: p.total }),
                Ok(Err(e)) => {
                    failure.get_or_insert(e);
                }
                _ => {}
            }
        });
        notes(RenderNote::Ended(match failure {
            Some(e) => Err(e),
            None => rendered,
        }));
    }
}

enum PlayerCommand {
    Play {
        project_id: i64,
        track_id: i64,
        from: f64,
        looping: Option<(f64, f64)>,
        device: String,
        /// Told when the rendered lines are laid, if anyone waits for that.
        laid: Option<Sender<Laid>>,
        reply: Sender<Result<()>>,
    },
    Pause,
    Resume,
    Seek(f64),
    Loop(Option<(f64, f64)>),
    Stop,
    /// Segments whose audio or placement may have changed; the reply says they are laid.
    Refit(Vec<i64>, Option<Sender<Result<()>>>),
    Clips(Sender<Vec<ProgrammeClip>>),
    View(Sender<PlaybackView>),
    Monitor(OriginalMonitor),
}

/// The player thread's own state.
struct Player {
    source: Arc<dyn PlaybackSource>,
    on_view: ViewSink,
    view: Arc<Mutex<PlaybackView>>,
    /// How the original dialogue is heard.
    monitor: OriginalMonitor,
}

struct Playing {
    project_id: i64,
    track_id: i64,
    transport: Transport,
    lines: TrackLines,
    /// Lines still to lay from the store, in playhead order.
    pending: VecDeque<usize>,
    /// Lines laid from the store, and lines found without a take, so far.
    from_store: usize,
    missing: usize,
    laid: Option<Sender<Laid>>,
    /// The project's time of change when `lines` were read, and when it
    /// was last asked: any edit since is laid into what plays.
    edited_at: String,
    asked_at: Instant,
}

/// How often a playing transport reports its position.
const REPORT_EVERY: Duration = Duration::from_millis(50);
/// How often playback asks whether the project changed (any edit, undo,
/// redo or take, from any face): the change is heard this soon after.
const EDITS_EVERY: Duration = Duration::from_millis(150);

impl Player {
    fn run(mut self, commands: Receiver<PlayerCommand>) {
        let mut playing: Option<Playing> = None;
        let mut last_report = Instant::now();
        loop {
            let busy = playing.as_ref().is_some_and(|p| !p.pending.is_empty());
            let command = if busy {
                commands.try_recv().map_err(|e| match e {
                    std::sync::mpsc::TryRecvError::Empty => RecvTimeoutError::Timeout,
                    std::sync::mpsc::TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                })
            } else {
                commands.recv_timeout(REPORT_EVERY)
            };
            match command {
                Ok(PlayerCommand::Play { project_id, track_id, from, looping, device, laid, reply }) => {
                    playing = None;
                    let answer = match self.open(project_id, track_id, from, looping, &device, laid) {
                        Ok(p) => {
                            playing = Some(p);
                            Ok(())
                        }
                        Err(e) => {
                            lock(&self.view).error = Some(e.to_string());
                            Err(e)
                        }
                    };
                    let _ = reply.send(answer);
                }
                Ok(PlayerCommand::Pause) => playing.iter().for_each(|p| p.transport.pause()),
                Ok(PlayerCommand::Resume) => playing.iter().for_each(|p| p.transport.play()),
                Ok(PlayerCommand::Seek(s)) => playing.iter().for_each(|p| p.transport.seek(s)),
                Ok(PlayerCommand::Loop(region)) => playing.iter().for_each(|p| p.transport.set_loop(region)),
                Ok(PlayerCommand::Stop) => {
                    playing = None;
                    let view = {
                        let mut view = lock(&self.view);
                        view.playing = false;
                        view.clone()
                    };
                    (self.on_view)(&view);
                }
                Ok(PlayerCommand::Monitor(monitor)) => {
                    self.monitor = monitor;
                    if let Some(p) = playing.as_ref() {
                        if let Err(e) = self.apply_monitor(p) {
                            tracing::warn!(error = %e, "the original dialogue cannot be heard");
                        }
                    }
                }
                Ok(PlayerCommand::Refit(ids, reply)) => {
                    let refitted = playing.as_mut().map_or(Ok(()), |p| self.refit(p, &ids));
                    if let Err(e) = &refitted {
                        tracing::warn!(error = %e, "could not lay edited lines in the playing programme");
                    }
                    if let Some(reply) = reply {
                        let _ = reply.send(refitted);
                    }
                }
                Ok(PlayerCommand::Clips(reply)) => {
                    let clips = playing.as_ref().map(|p| {
                        let programme = p.transport.programme();
                        let rate = programme.sample_rate() as f64;
                        programme.clips().iter().map(|c| ProgrammeClip::of(c, rate)).collect()
                    });
                    let _ = reply.send(clips.unwrap_or_default());
                }
                Ok(PlayerCommand::View(reply)) => {
                    let now = playing.as_ref().map(|p| PlaybackView::from_transport(p.project_id, p.track_id, &p.transport.state()));
                    let _ = reply.send(now.unwrap_or_else(|| lock(&self.view).clone()));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if let Some(p) = playing.as_mut() {
                self.lay_next(p);
                if p.asked_at.elapsed() >= EDITS_EVERY {
                    if let Err(e) = self.follow_edits(p) {
                        tracing::warn!(error = %e, "could not lay the project's edits in the playing programme");
                    }
                }
                if last_report.elapsed() >= REPORT_EVERY {
                    last_report = Instant::now();
                    let view = PlaybackView::from_transport(p.project_id, p.track_id, &p.transport.state());
                    let changed = *lock(&self.view) != view;
                    if changed {
                        *lock(&self.view) = view.clone();
                        (self.on_view)(&view);
                    }
                }
            }
        }
    }

    fn open(&self, project_id: i64, track_id: i64, from: f64, looping: Option<(f64, f64)>, device: &str, laid: Option<Sender<Laid>>) -> Result<Playing> {
        let edited_at = wait(self.source.runtime(), self.source.store().edited_at(project_id))?;
        let lines = self.source.read_track(track_id)?;
        if lines.track.project_id != project_id {
            return Err(Error::not_found(format!("track {track_id}"), format!("is not in project {project_id}")));
        }
        let programme = empty_programme(&lines.project, &lines, &MixSettings::default(), self.monitor)?;
        let transport = Transport::open(device, programme)?;
        transport.seek(from);
        if looping.is_some() {
            transport.set_loop(looping);
        }
        transport.play();
        let pending = playhead_order(&lines, from).into();
        Ok(Playing { project_id, track_id, transport, lines, pending, from_store: 0, missing: 0, laid, edited_at, asked_at: Instant::now() })
    }

    /// Lays the next line from the store, if any is left; once none is,
    /// tells whoever waits for that.
    fn lay_next(&self, p: &mut Playing) {
        if let Some(i) = p.pending.pop_front() {
            match p.lines.fit(self.source.segments(), i, PROGRAMME_RATE) {
                Ok(Some(line)) => {
                    p.transport.edit(|programme| programme.set_clip(line.segment_id, line.lane, line.start, line.audio));
                    p.from_store += 1;
                }
                Ok(None) => p.missing += 1,
                Err(e) => tracing::warn!(error = %e, "a line could not be laid for playback"),
            }
        }
        if p.pending.is_empty() {
            if let Some(laid) = p.laid.take() {
                let lines = p.lines.lines.iter().map(|l| l.segment.id).collect();
                let _ = laid.send(Laid { from_store: p.from_store, missing: p.missing, lines });
            }
        }
    }

    /// Hears the original dialogue in what plays as `self.monitor` says
    /// (decoding it the first time it is heard).
    fn apply_monitor(&self, p: &Playing) -> Result<()> {
        let monitor = self.monitor;
        if monitor == OriginalMonitor::Off || p.transport.programme().has_original() {
            p.transport.edit(|programme| programme.set_monitor(monitor));
            return Ok(());
        }
        let Some(media) = &p.lines.project.original_media else {
            return Err(Error::invalid(format!("project {}", p.project_id), "has no original dialogue to hear"));
        };
        let original = load_bed(Path::new(media), PROGRAMME_RATE).map_err(|e| e.context("reading the original dialogue"))?;
        p.transport.edit(|programme| programme.set_original(Some(original), monitor));
        Ok(())
    }

    /// Lays the project's edits into what plays when it changed since the
    /// track was read (the engine decides, whatever face made the edit).
    fn follow_edits(&self, p: &mut Playing) -> Result<()> {
        p.asked_at = Instant::now();
        let edited_at = wait(self.source.runtime(), self.source.store().edited_at(p.project_id))?;
        if edited_at == p.edited_at {
            return Ok(());
        }
        p.edited_at = edited_at;
        self.refit(p, &[])
    }

    /// Reads the track again, hears its lanes as they are now, and brings
    /// the programme in step with it: a line gone (deleted, merged away)
    /// leaves, a line new or changed in any way (text, slot, neighbours,
    /// take, strategy, speaker) is laid where it now belongs, and so is
    /// each line of `ids` (a take just rendered).
    fn refit(&self, p: &mut Playing, ids: &[i64]) -> Result<()> {
        let now = self.source.read_track(p.track_id)?;
        let before = std::mem::replace(&mut p.lines, now);
        let pending: Vec<i64> = p.pending.iter().filter_map(|&i| before.lines.get(i).map(|l| l.segment.id)).collect();
        let lanes = p.lines.lanes.clone();
        p.transport.edit(|programme| programme.set_lanes(lanes));
        for gone in before.lines.iter().filter(|l| p.lines.index_of(l.segment.id).is_none()) {
            p.transport.edit(|programme| {
                programme.remove_clip(gone.segment.id);
            });
        }
        let was: HashMap<i64, &Line> = before.lines.iter().map(|l| (l.segment.id, l)).collect();
        for (i, line) in p.lines.lines.iter().enumerate() {
            let id = line.segment.id;
            if !ids.contains(&id) && was.get(&id).is_some_and(|old| *old == line) {
                continue;
            }
            match p.lines.fit(self.source.segments(), i, PROGRAMME_RATE)? {
                Some(fitted) => p.transport.edit(|programme| programme.set_clip(fitted.segment_id, fitted.lane, fitted.start, fitted.audio)),
                None => p.transport.edit(|programme| {
                    programme.remove_clip(id);
                }),
            };
        }
        // Lines not laid yet keep their turn, found again in the track as it is now.
        p.pending = pending.iter().filter_map(|&id| p.lines.index_of(id)).collect();
        Ok(())
    }
}
