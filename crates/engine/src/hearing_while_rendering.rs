//! Takes heard while a render goes on: [`Hearing`] queues each line the
//! render finishes for listening back, which runs on a thread and rayon
//! pool of its own in the idle class
//! ([`revoice_speech::compute_threads::background_pool`]), so it takes
//! only the CPU the render leaves idle (on 2 cores that is little: most
//! takes are heard once the render is done, and the render is as fast as
//! alone, +0.7 to 3.4 % in `revoice bench loop`). Takes are heard several
//! to a window once enough are waiting (or the render is over); verdicts
//! reach the caller when it asks, on its own thread. A line that fails is
//! taken again once the render is done, at normal priority.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use crate::checking::{CheckedLine, ListenEvent, ListenRequest};
use crate::dub::pipeline::{RenderProgress, RenderScope, RenderSummary};
use crate::Engine;
use revoice_core::error::{Error, Result};

/// Takes waiting before the background listener hears them (about two
/// windows' worth of short lines: a window is Whisper's fixed cost).
const TAKES_PER_HEARING: usize = 8;

/// Listening back beside a render of one project.
pub struct Hearing {
    engine: Arc<Engine>,
    project_id: i64,
    cancel: Arc<AtomicBool>,
    /// Set when the hearing is abandoned (the render failed or stopped).
    abandoned: Arc<AtomicBool>,
    finished: Option<mpsc::Sender<i64>>,
    verdicts: mpsc::Receiver<CheckedLine>,
    listener: Option<std::thread::JoinHandle<Result<()>>>,
    rendered: usize,
    heard: Vec<CheckedLine>,
}

impl Hearing {
    /// Starts the background listener for `project_id`; `cancel` stops it
    /// (and whatever else shares the flag).
    pub fn start(engine: &Arc<Engine>, project_id: i64, cancel: Arc<AtomicBool>) -> Result<Hearing> {
        let (finished, queue) = mpsc::channel::<i64>();
        let (verdict, verdicts) = mpsc::channel::<CheckedLine>();
        let abandoned = Arc::new(AtomicBool::new(false));
        let (listening, stop, until) = (engine.clone(), abandoned.clone(), cancel.clone());
        let threads = rayon::current_num_threads();
        let listener = std::thread::Builder::new()
            .name("revoice-listen".into())
            .spawn(move || -> Result<()> {
                let pool = revoice_speech::compute_threads::background_pool("revoice-listen", threads)
                    .map_err(|e| Error::Audio(format!("cannot start the listening threads: {e}")))?;
                pool.install(move || {
                    let mut waiting: Vec<i64> = Vec::new();
                    let mut over = false;
                    while !over || !waiting.is_empty() {
                        match queue.recv() {
                            Ok(id) => waiting.push(id),
                            Err(_) => over = true,
                        }
                        waiting.extend(queue.try_iter());
                        if stop.load(Ordering::Acquire) {
                            return Ok(());
                        }
                        if waiting.len() < TAKES_PER_HEARING && !over {
                            continue;
                        }
                        let request = ListenRequest { only: Some(std::mem::take(&mut waiting)), again: false, retake: false };
                        listening.listen_back(project_id, &request, &until, &mut |event| {
                            if let ListenEvent::Checked { line, .. } = event {
                                let _ = verdict.send(line.clone());
                            }
                        })?;
                    }
                    Ok(())
                })
            })
            .map_err(|e| Error::Audio(format!("cannot start the listening thread: {e}")))?;
        Ok(Hearing {
            engine: engine.clone(),
            project_id,
            cancel,
            abandoned,
            finished: Some(finished),
            verdicts,
            listener: Some(listener),
            rendered: 0,
            heard: Vec::new(),
        })
    }

    /// Queues a line the render has just finished.
    pub fn rendered(&mut self, segment_id: i64) {
        self.rendered += 1;
        if let Some(queue) = &self.finished {
            let _ = queue.send(segment_id);
        }
    }

    /// Hands `events` the verdicts that came in since the last call, each
    /// with how many of the lines rendered so far are heard.
    pub fn pass_on(&mut self, events: &mut dyn FnMut(ListenEvent)) {
        while let Ok(line) = self.verdicts.try_recv() {
            self.heard.push(line);
            let done = self.heard.len();
            events(ListenEvent::Checked { line: self.heard.last().expect("just pushed"), done, total: self.rendered.max(done) });
        }
    }

    /// The render is over: hears what is left (still in the background
    /// pool, now alone on the CPU), then takes each failing line again
    /// once. Returns every rendered line's verdict.
    pub fn finish(mut self, events: &mut dyn FnMut(ListenEvent)) -> Result<Vec<CheckedLine>> {
        self.finished = None;
        let listened = self.listener.take().map_or(Ok(()), |l| l.join().unwrap_or_else(|_| Err(Error::Audio("the listening thread panicked".into()))));
        self.pass_on(events);
        listened?;
        let failing: Vec<i64> = self.heard.iter().filter(|l| !l.passed()).map(|l| l.segment_id).collect();
        if !failing.is_empty() {
            let request = ListenRequest { only: Some(failing), again: true, retake: true };
            let (passed, total) = (self.heard.iter().filter(|l| l.passed()).count(), self.rendered.max(self.heard.len()));
            let again = self.engine.listen_back(self.project_id, &request, &self.cancel, &mut |event| match event {
                ListenEvent::Checked { line, done, .. } => events(ListenEvent::Checked { line, done: passed + done, total }),
                other => events(other),
            })?;
            for line in again {
                if let Some(slot) = self.heard.iter_mut().find(|l| l.segment_id == line.segment_id) {
                    *slot = line;
                }
            }
        }
        Ok(std::mem::take(&mut self.heard))
    }
}

impl Drop for Hearing {
    /// An unfinished hearing stops after the takes it is hearing now.
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Release);
        self.finished = None;
        if let Some(listener) = self.listener.take() {
            let _ = listener.join();
        }
    }
}

/// What a render with listening back did.
#[derive(Debug)]
pub struct RenderHeard {
    pub render: RenderSummary,
    /// Every rendered line's verdict (after its re-take, if it had one).
    pub heard: Vec<CheckedLine>,
}

impl Engine {
    /// Renders what `scope` takes in `project_id` (as
    /// [`Engine::render_project`]) with a [`Hearing`] beside it: `heard`
    /// gets every verdict as it comes. Cancelled by `cancel` (render and
    /// listening alike).
    pub fn render_and_listen(
        self: &Arc<Self>,
        project_id: i64,
        scope: &RenderScope,
        cancel: &Arc<AtomicBool>,
        progress: &mut dyn FnMut(&RenderProgress),
        heard: &mut dyn FnMut(ListenEvent),
    ) -> Result<RenderHeard> {
        let mut hearing = Hearing::start(self, project_id, cancel.clone())?;
        let render = self.render_project(project_id, scope, cancel, &mut |p| {
            if let Some(id) = p.finished {
                hearing.rendered(id);
            }
            hearing.pass_on(heard);
            progress(p);
        })?;
        let heard = hearing.finish(heard)?;
        Ok(RenderHeard { render, heard })
    }
}
