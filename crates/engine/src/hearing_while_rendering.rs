//! A render with its takes heard as it goes (an `impl Engine`): each line
//! the render finishes is queued for listening back, which runs on a
//! thread and rayon pool of its own at the lowest priority
//! ([`revoice_speech::compute_threads::background_pool`]), so it takes
//! only the CPU the render leaves idle (on 2 cores that is little: most
//! takes are heard once the render is done, and the render is as fast as
//! alone, +0.7 % in `revoice bench loop`). Takes are heard
//! several to a window once enough are waiting (or the render is over);
//! what is heard reaches the caller's `heard` on the caller's thread,
//! between the render's own progress reports. A line that fails is
//! taken again once the render is done, at normal priority.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

use crate::checking::{CheckedLine, ListenEvent, ListenRequest};
use crate::dub::pipeline::{RenderProgress, RenderScope, RenderSummary};
use crate::Engine;
use revoice_core::error::{Error, Result};

/// Takes waiting before the background listener hears them (about two
/// windows' worth of short lines: a window is Whisper's fixed cost).
const TAKES_PER_HEARING: usize = 8;

/// Keeps a verdict and hands it on, with how many of the `rendered` lines are heard.
fn pass_on(verdicts: &mut Vec<CheckedLine>, line: CheckedLine, rendered: usize, heard: &mut dyn FnMut(ListenEvent)) {
    verdicts.push(line);
    heard(ListenEvent::Checked { line: verdicts.last().expect("just pushed"), done: verdicts.len(), total: rendered.max(verdicts.len()) });
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
    /// [`Engine::render_project`]) while hearing each finished line in the
    /// background; then takes failing lines again (once each, on a fresh
    /// seed). `heard` gets every verdict as it comes, with how many of the
    /// lines rendered so far are heard. Cancelled by `cancel` (render and
    /// listening alike).
    pub fn render_and_listen(
        &self,
        project_id: i64,
        scope: &RenderScope,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(&RenderProgress),
        heard: &mut dyn FnMut(ListenEvent),
    ) -> Result<RenderHeard> {
        let pool = revoice_speech::compute_threads::background_pool("revoice-listen", rayon::current_num_threads())
            .map_err(|e| Error::Audio(format!("cannot start the listening threads: {e}")))?;
        let (finished_tx, finished_rx) = mpsc::channel::<i64>();
        let (verdict_tx, verdict_rx) = mpsc::channel::<CheckedLine>();
        let mut verdicts: Vec<CheckedLine> = Vec::new();
        let mut rendered = 0usize;
        let pool = &pool;
        let (render, listened) = std::thread::scope(|scope_threads| {
            let listener = scope_threads.spawn(move || {
                pool.install(move || {
                    let mut waiting: Vec<i64> = Vec::new();
                    let mut over = false;
                    while !over || !waiting.is_empty() {
                        match finished_rx.recv() {
                            Ok(id) => waiting.push(id),
                            Err(_) => over = true,
                        }
                        waiting.extend(finished_rx.try_iter());
                        if waiting.len() < TAKES_PER_HEARING && !over {
                            continue;
                        }
                        let request = ListenRequest { only: Some(std::mem::take(&mut waiting)), again: false, retake: false };
                        self.listen_back(project_id, &request, cancel, &mut |event| {
                            if let ListenEvent::Checked { line, .. } = event {
                                let _ = verdict_tx.send(line.clone());
                            }
                        })?;
                    }
                    Ok::<(), Error>(())
                })
            });
            let render = self.render_project(project_id, scope, cancel, &mut |p| {
                if let Some(id) = p.finished {
                    rendered += 1;
                    let _ = finished_tx.send(id);
                }
                for line in verdict_rx.try_iter() {
                    pass_on(&mut verdicts, line, rendered, heard);
                }
                progress(p);
            });
            drop(finished_tx);
            let listened = listener.join().unwrap_or_else(|_| Err(Error::Audio("the listening thread panicked".into())));
            (render, listened)
        });
        for line in verdict_rx.try_iter() {
            pass_on(&mut verdicts, line, rendered, heard);
        }
        let render = render?;
        listened?;
        // Failing lines again, now that the render is done: heard alone and taken again once.
        let failing: Vec<i64> = verdicts.iter().filter(|l| !l.passed()).map(|l| l.segment_id).collect();
        if !failing.is_empty() {
            let request = ListenRequest { only: Some(failing), again: true, retake: true };
            let done_before = verdicts.iter().filter(|l| l.passed()).count();
            let again = self.listen_back(project_id, &request, cancel, &mut |event| match event {
                ListenEvent::Checked { line, done, .. } => heard(ListenEvent::Checked { line, done: done_before + done, total: rendered }),
                other => heard(other),
            })?;
            for line in again {
                if let Some(slot) = verdicts.iter_mut().find(|l| l.segment_id == line.segment_id) {
                    *slot = line;
                }
            }
        }
        Ok(RenderHeard { render, heard: verdicts })
    }
}
