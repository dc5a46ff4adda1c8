//! The owner thread: the only code that calls the speech model. Callers
//! send jobs over a channel; the owner blocks on it, takes the first row,
//! keeps draining until the batch window expires or the batch is full, and
//! runs the group through one `SpeechModel::generate`. Rows whose batch
//! settings differ from the batch's first row stay queued in arrival order
//! (the held rows) and open a later batch. Tasks such as reference encodes
//! run on the owner between batches.
//!
//! Continuous mode keeps one batch open instead: each row is a step (Kokoro
//! is not autoregressive, so a row's whole pass is its one step), started
//! on the rayon pool as soon as one of the `width` slots frees, and new
//! jobs join free slots without waiting for the batch to drain.
//!
//! Replies go back per job, in row order. A cancelled or dropped handle
//! withdraws its rows before their next chance to start.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::config::SchedulerConfig;
use super::job::{BatchSettings, Delivery, Job, JobCanceller, JobHandle, RowReply};
use super::takes::{fresh_seed, judge};
use revoice_core::error::{Error, Result};
use revoice_model::speech::{SpeechModel, SpeechRow};

/// How long the owner waits idle before freed memory goes back to the kernel
/// (see [`crate::allocator`]): long enough that lines previewed one after
/// another keep reusing it.
const RELEASE_AFTER_IDLE: Duration = Duration::from_secs(2);

/// What the scheduler has done since it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedulerStats {
    /// Batches run (in continuous mode: rows started).
    pub batches: u64,
    /// Rows the model rendered, retries included.
    pub rows_rendered: u64,
    /// The most rows one `generate` call (or the open batch) held.
    pub widest_batch: usize,
    /// Renders repeated because a take was bad.
    pub retries: u64,
    /// Bad takes handed back because attempts ran out.
    pub bad_takes_delivered: u64,
    /// Rows withdrawn before they started.
    pub rows_cancelled: u64,
    /// Rows rendered for a job that was cancelled meanwhile.
    pub rows_discarded: u64,
    /// Between-batch tasks run (counted as each starts).
    pub tasks_run: u64,
}

type Task = Box<dyn FnOnce() + Send>;

enum Message {
    Job {
        id: u64,
        job: Job,
        replies: mpsc::Sender<RowReply>,
        cancelled: Arc<AtomicBool>,
    },
    Task(Task),
    /// A row finished on a continuous-mode slot.
    Done {
        ticket: Ticket,
        reply: RowReply,
    },
    /// Something changed (a cancellation): look again.
    Wake,
    Shutdown,
}

/// One row waiting or rendering.
struct Ticket {
    job: u64,
    index: usize,
    row: SpeechRow,
    attempt: u32,
    settings: BatchSettings,
    /// Where its audio goes in pieces as it renders (it then renders alone).
    pieces: Option<mpsc::Sender<Vec<f32>>>,
}

struct JobState {
    replies: mpsc::Sender<RowReply>,
    cancelled: Arc<AtomicBool>,
    delivery: Delivery,
    rows: usize,
    /// The next row index to hand back.
    next: usize,
    /// Finished rows waiting for an earlier one.
    done: BTreeMap<usize, RowReply>,
}

/// The running scheduler. Dropping it stops the owner thread after the
/// batch in progress; rows still queued are answered with an error.
pub struct Scheduler {
    inbox: mpsc::Sender<Message>,
    thread: Option<JoinHandle<()>>,
    stats: Arc<Mutex<SchedulerStats>>,
    next_job: AtomicU64,
    config: SchedulerConfig,
}

impl Scheduler {
    /// Starts the owner thread for `model`.
    pub fn start(model: Arc<dyn SpeechModel>, config: SchedulerConfig) -> Result<Scheduler> {
        config.validate()?;
        let (inbox, messages) = mpsc::channel();
        let stats = Arc::new(Mutex::new(SchedulerStats::default()));
        let owner = Owner {
            model,
            config: config.clone(),
            messages,
            outbox: inbox.clone(),
            jobs: HashMap::new(),
            queue: VecDeque::new(),
            tasks: VecDeque::new(),
            in_flight: 0,
            open_settings: None,
            stats: stats.clone(),
            stopping: false,
            worked_since_release: false,
        };
        let thread = std::thread::Builder::new()
            .name("revoice-scheduler".into())
            .spawn(move || {
                crate::compute_threads::enter_compute_thread();
                owner.run()
            })
            .map_err(|e| Error::InvalidInput { input: "scheduler".into(), reason: format!("cannot start its thread: {e}") })?;
        Ok(Scheduler { inbox, thread: Some(thread), stats, next_job: AtomicU64::new(1), config })
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }

    /// Queues a job; its rows come back through the handle, in order.
    pub fn submit(&self, job: Job) -> JobHandle {
        let id = self.next_job.fetch_add(1, Ordering::Relaxed);
        let (replies, receiver) = mpsc::channel();
        let cancelled = Arc::new(AtomicBool::new(false));
        let rows = job.rows.len();
        let _ = self.inbox.send(Message::Job { id, job, replies, cancelled: cancelled.clone() });
        let wake = self.inbox.clone();
        let canceller = JobCanceller {
            cancelled,
            wake: Arc::new(move || {
                let _ = wake.send(Message::Wake);
            }),
        };
        JobHandle { replies: receiver, canceller, rows, received: 0 }
    }

    /// Runs `task` on the owner thread between batches (reference encodes
    /// use the model's cores too, so they take turns with synthesis).
    pub fn run_between_batches<T: Send + 'static>(&self, task: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
        self.tasks().run_between_batches(task)
    }

    /// A cloneable handle for queueing between-batch tasks from elsewhere.
    pub fn tasks(&self) -> TaskQueue {
        TaskQueue { inbox: self.inbox.clone() }
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> SchedulerStats {
        self.stats.lock().expect("stats lock").clone()
    }
}

/// Queues tasks onto a scheduler's owner thread, between batches.
#[derive(Clone)]
pub struct TaskQueue {
    inbox: mpsc::Sender<Message>,
}

impl TaskQueue {
    /// Runs `task` on the owner thread between batches; the receiver gets
    /// its result (or disconnects if the scheduler has stopped).
    pub fn run_between_batches<T: Send + 'static>(&self, task: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
        let (tx, rx) = mpsc::channel();
        let _ = self.inbox.send(Message::Task(Box::new(move || {
            let _ = tx.send(task());
        })));
        rx
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        let _ = self.inbox.send(Message::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Owner {
    model: Arc<dyn SpeechModel>,
    config: SchedulerConfig,
    messages: mpsc::Receiver<Message>,
    /// For continuous-mode slots to report back.
    outbox: mpsc::Sender<Message>,
    jobs: HashMap<u64, JobState>,
    /// Rows not started, in arrival order (held rows included).
    queue: VecDeque<Ticket>,
    tasks: VecDeque<Task>,
    in_flight: usize,
    /// The settings of the open batch (continuous mode).
    open_settings: Option<BatchSettings>,
    stats: Arc<Mutex<SchedulerStats>>,
    stopping: bool,
    /// Jobs or tasks came in since freed memory last went back to the kernel.
    worked_since_release: bool,
}

impl Owner {
    fn run(mut self) {
        while !self.stopping {
            let idle = self.queue.is_empty() && self.tasks.is_empty();
            let blocked = self.config.continuous && (self.in_flight == self.config.width || self.queue.is_empty());
            if idle || (blocked && self.tasks.is_empty()) {
                match self.wait_for_message(idle && self.in_flight == 0) {
                    Ok(m) => self.handle(m),
                    Err(_) => break,
                }
            }
            self.drain_messages();
            self.run_tasks();
            self.withdraw_cancelled();
            if self.stopping {
                break;
            }
            if self.config.continuous {
                self.fill_slots();
            } else if !self.queue.is_empty() {
                self.run_batch();
            }
        }
        self.shut_down();
    }

    /// The next message. Once the engine has been idle (`idle`) for
    /// [`RELEASE_AFTER_IDLE`] since it last worked, the memory its passes
    /// freed goes back to the kernel before it waits on.
    fn wait_for_message(&mut self, idle: bool) -> std::result::Result<Message, mpsc::RecvError> {
        if idle && self.worked_since_release {
            match self.messages.recv_timeout(RELEASE_AFTER_IDLE) {
                Ok(m) => return Ok(m),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(mpsc::RecvError),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    crate::allocator::release_freed_memory();
                    self.worked_since_release = false;
                }
            }
        }
        self.messages.recv()
    }

    fn handle(&mut self, message: Message) {
        match message {
            Message::Job { id, mut job, replies, cancelled } => {
                if job.rows.is_empty() {
                    return;
                }
                let mut pieces = job.first_row_pieces.take();
                self.worked_since_release = true;
                self.jobs.insert(id, JobState { replies, cancelled, delivery: job.delivery, rows: job.rows.len(), next: 0, done: BTreeMap::new() });
                for (index, row) in job.rows.into_iter().enumerate() {
                    self.queue.push_back(Ticket { job: id, index, row, attempt: 1, settings: job.settings.clone(), pieces: pieces.take() });
                }
            }
            Message::Task(task) => {
                self.worked_since_release = true;
                self.tasks.push_back(task);
            }
            Message::Done { ticket, reply } => {
                self.in_flight -= 1;
                if self.in_flight == 0 {
                    self.open_settings = None;
                }
                self.finish(ticket, reply);
            }
            Message::Wake => {}
            Message::Shutdown => self.stopping = true,
        }
    }

    fn drain_messages(&mut self) {
        while let Ok(m) = self.messages.try_recv() {
            self.handle(m);
        }
    }

    fn run_tasks(&mut self) {
        while let Some(task) = self.tasks.pop_front() {
            // Counted before it runs: a task's result reaches its caller
            // from inside it, and the caller may read the stats at once.
            self.stats.lock().expect("stats lock").tasks_run += 1;
            if std::panic::catch_unwind(AssertUnwindSafe(task)).is_err() {
                tracing::error!("a between-batch task panicked");
            }
        }
    }

    /// Drops the queued rows of cancelled jobs (and of jobs whose handle is gone).
    fn withdraw_cancelled(&mut self) {
        let cancelled: Vec<u64> = self.jobs.iter().filter(|(_, j)| j.cancelled.load(Ordering::Acquire)).map(|(&id, _)| id).collect();
        if cancelled.is_empty() {
            return;
        }
        let before = self.queue.len();
        self.queue.retain(|t| !cancelled.contains(&t.job));
        let withdrawn = (before - self.queue.len()) as u64;
        for id in cancelled {
            self.jobs.remove(&id);
        }
        self.stats.lock().expect("stats lock").rows_cancelled += withdrawn;
    }

    /// Takes up to `width` queued rows that share the first row's settings;
    /// a row streamed in pieces only alone.
    fn take_batch(&mut self, settings: &BatchSettings, room: usize) -> Vec<Ticket> {
        let mut batch: Vec<Ticket> = Vec::new();
        let mut held = VecDeque::new();
        while let Some(t) = self.queue.pop_front() {
            let alone = batch.first().is_some_and(|b| b.pieces.is_some());
            if batch.len() < room && t.settings == *settings && !alone && (t.pieces.is_none() || batch.is_empty()) {
                batch.push(t);
            } else {
                held.push_back(t);
            }
        }
        self.queue = held;
        batch
    }

    fn compatible_rows(&self, settings: &BatchSettings) -> usize {
        self.queue.iter().filter(|t| t.settings == *settings).count()
    }

    /// Batch mode: wait out the window (or until full), then render one batch.
    fn run_batch(&mut self) {
        let settings = self.queue[0].settings.clone();
        let deadline = Instant::now() + self.config.window;
        while self.compatible_rows(&settings) < self.config.width && !self.stopping {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            match self.messages.recv_timeout(deadline - now) {
                Ok(m) => self.handle(m),
                Err(_) => break,
            }
        }
        self.withdraw_cancelled();
        let batch = self.take_batch(&settings, self.config.width);
        if batch.is_empty() {
            return;
        }
        let rows: Vec<SpeechRow> = batch.iter().map(|t| t.row.clone()).collect();
        let mut batch = batch;
        let replies = match batch[0].pieces.take() {
            Some(pieces) => vec![generate_in_pieces(self.model.as_ref(), &rows[0], pieces)],
            None => generate(self.model.as_ref(), &rows),
        };
        {
            let mut stats = self.stats.lock().expect("stats lock");
            stats.batches += 1;
            stats.rows_rendered += rows.len() as u64;
            stats.widest_batch = stats.widest_batch.max(rows.len());
        }
        for (ticket, reply) in batch.into_iter().zip(replies) {
            self.finish(ticket, reply);
        }
    }

    /// Continuous mode: start queued rows in free slots of the open batch.
    fn fill_slots(&mut self) {
        while self.in_flight < self.config.width {
            let settings = match &self.open_settings {
                Some(s) => s.clone(),
                None => match self.queue.front() {
                    Some(t) => t.settings.clone(),
                    None => return,
                },
            };
            let Some(ticket) = self.take_batch(&settings, 1).pop() else { return };
            self.open_settings = Some(settings);
            self.in_flight += 1;
            {
                let mut stats = self.stats.lock().expect("stats lock");
                stats.batches += 1;
                stats.rows_rendered += 1;
                stats.widest_batch = stats.widest_batch.max(self.in_flight);
            }
            let model = self.model.clone();
            let outbox = self.outbox.clone();
            rayon::spawn(move || {
                let mut ticket = ticket;
                let reply = match ticket.pieces.take() {
                    Some(pieces) => generate_in_pieces(model.as_ref(), &ticket.row, pieces),
                    None => generate(model.as_ref(), std::slice::from_ref(&ticket.row)).pop().expect("one row in, one out"),
                };
                let _ = outbox.send(Message::Done { ticket, reply });
            });
        }
    }

    /// Retries a bad buffered take, or hands the row back in order.
    fn finish(&mut self, mut ticket: Ticket, reply: RowReply) {
        let Some(job) = self.jobs.get_mut(&ticket.job) else {
            self.stats.lock().expect("stats lock").rows_discarded += 1;
            return;
        };
        if job.cancelled.load(Ordering::Acquire) {
            self.stats.lock().expect("stats lock").rows_discarded += 1;
            return;
        }
        if let (Ok(audio), Delivery::Buffered) = (&reply, job.delivery) {
            if let Some(bad) = judge(&ticket.row, audio) {
                if ticket.attempt < self.config.max_attempts {
                    tracing::info!(?bad, attempt = ticket.attempt, "bad take, retrying on a fresh seed");
                    ticket.row.seed = Some(fresh_seed(ticket.row.seed, ticket.attempt));
                    ticket.attempt += 1;
                    self.stats.lock().expect("stats lock").retries += 1;
                    self.queue.push_front(ticket);
                    return;
                }
                tracing::warn!(?bad, attempts = ticket.attempt, "bad take kept: attempts ran out");
                self.stats.lock().expect("stats lock").bad_takes_delivered += 1;
            }
        }
        job.done.insert(ticket.index, reply);
        while let Some(reply) = job.done.remove(&job.next) {
            if job.replies.send(reply).is_err() {
                job.cancelled.store(true, Ordering::Release);
                break;
            }
            job.next += 1;
        }
        if job.next == job.rows {
            self.jobs.remove(&ticket.job);
        }
    }

    /// Answers every row still queued: the scheduler is stopping.
    fn shut_down(&mut self) {
        for ticket in std::mem::take(&mut self.queue) {
            if let Some(job) = self.jobs.get(&ticket.job) {
                let _ = job
                    .replies
                    .send(Err(Error::InvalidInput { input: "synthesis job".into(), reason: "the scheduler stopped before this row was rendered".into() }));
            }
        }
    }
}

/// One row rendered in pieces ([`SpeechRow::render_in_pieces`]), sent to
/// `pieces` (dropped when done, which tells the listener the pieces are
/// over), with a panic turned into an error.
fn generate_in_pieces(model: &dyn SpeechModel, row: &SpeechRow, pieces: mpsc::Sender<Vec<f32>>) -> RowReply {
    let rendered = std::panic::catch_unwind(AssertUnwindSafe(|| {
        row.render_in_pieces(model, &mut |piece| match pieces.send(piece.to_vec()) {
            Ok(()) => std::ops::ControlFlow::Continue(()),
            Err(_) => std::ops::ControlFlow::Break(()),
        })
    }));
    match rendered {
        Ok(Ok(Some(audio))) => Ok(audio),
        Ok(Ok(None)) => Err(Error::InvalidInput { input: "a streamed row".into(), reason: "its listener stopped before the end".into() }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(Error::InvalidInput { input: model.id().into(), reason: "crashed while rendering this row".into() }),
    }
}

/// The model's `generate`, with a panic turned into an error for every row
/// (one bad row must not take down the owner thread and everyone's jobs),
/// and each row's tone match applied to its audio.
fn generate(model: &dyn SpeechModel, rows: &[SpeechRow]) -> Vec<RowReply> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| model.generate(rows))) {
        Ok(replies) if replies.len() == rows.len() => replies.into_iter().zip(rows).map(|(reply, row)| reply.map(|audio| row.finish(audio))).collect(),
        Ok(replies) => rows
            .iter()
            .map(|_| Err(Error::InvalidInput { input: model.id().into(), reason: format!("returned {} rows for {}", replies.len(), rows.len()) }))
            .collect(),
        Err(_) => rows.iter().map(|_| Err(Error::InvalidInput { input: model.id().into(), reason: "crashed while rendering this batch".into() })).collect(),
    }
}
