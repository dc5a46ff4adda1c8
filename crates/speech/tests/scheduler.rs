//! The scheduler's mechanics with a scripted model: batching by width and
//! settings, row order, cancellation, retries of bad takes, panics, tasks
//! between batches, and continuous mode. `scheduler_kokoro.rs` proves the
//! batch invariant on the real model.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use revoice_core::{Error, Result};
use revoice_model::speech::{RowAudio, SpeechModel, SpeechRow};
use revoice_speech::scheduler::{BatchSettings, Delivery, Job, Scheduler, SchedulerConfig};

/// A model whose rows say what to do through their first token:
/// the row's audio is `tokens[1]` as a constant level over `tokens.len()`
/// phoneme-lengths; token 0 in position 1 renders silence unless the row
/// has a seed; 997 is always silent; 998 fails; 999 panics; every batch
/// waits while the gate is shut; rows tagged 10 to 19 take (20 − tag) × 5 ms,
/// so that later rows finish first.
struct Scripted {
    batches: Mutex<Vec<Vec<u32>>>,
    gate: Arc<(Mutex<bool>, Condvar)>,
    started: AtomicUsize,
}

impl Scripted {
    fn new() -> Arc<Scripted> {
        Arc::new(Scripted { batches: Mutex::new(Vec::new()), gate: Arc::new((Mutex::new(true), Condvar::new())), started: AtomicUsize::new(0) })
    }

    fn shut_gate(&self) {
        *self.gate.0.lock().unwrap() = false;
    }

    fn open_gate(&self) {
        *self.gate.0.lock().unwrap() = true;
        self.gate.1.notify_all();
    }

    fn wait_at_gate(&self) {
        let mut open = self.gate.0.lock().unwrap();
        while !*open {
            open = self.gate.1.wait(open).unwrap();
        }
    }

    fn batch_sizes(&self) -> Vec<usize> {
        self.batches.lock().unwrap().iter().map(Vec::len).collect()
    }

    /// Waits until `n` rows have started rendering.
    fn wait_started(&self, n: usize) {
        for _ in 0..2000 {
            if self.started.load(Ordering::SeqCst) >= n {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("rows never started");
    }
}

impl SpeechModel for Scripted {
    fn id(&self) -> &str {
        "scripted"
    }
    fn sample_rate(&self) -> u32 {
        1000
    }
    fn max_phonemes(&self) -> usize {
        100
    }
    fn generate(&self, rows: &[SpeechRow]) -> Vec<Result<RowAudio>> {
        self.batches.lock().unwrap().push(rows.iter().map(|r| r.tokens[1]).collect());
        self.started.fetch_add(rows.len(), Ordering::SeqCst);
        self.wait_at_gate();
        for r in rows {
            if (10..20).contains(&r.tokens[1]) {
                std::thread::sleep(Duration::from_millis(5 * (20 - r.tokens[1] as u64)));
            }
        }
        rows.iter()
            .map(|r| {
                let level = match r.tokens[1] {
                    999 => panic!("scripted panic"),
                    998 => return Err(Error::InvalidInput { input: "row".into(), reason: "scripted failure".into() }),
                    0 if r.seed.is_none() => 0.0,
                    997 => 0.0,
                    v => v as f32 / 1000.0 + 0.01,
                };
                // 80 ms per phoneme: a plausible length.
                Ok(RowAudio { samples: vec![level; 80 * (r.tokens.len() - 2)], sample_rate: 1000, token_seconds: vec![], speed: r.speed })
            })
            .collect()
    }
}

fn row(tag: u32) -> SpeechRow {
    SpeechRow { tokens: vec![0, tag, 5, 5, 0], style: vec![], speed: 1.0, seed: None, target_seconds: None, tone: None, pitch_semitones: 0.0 }
}

fn tag(audio: &RowAudio) -> u32 {
    ((audio.samples[0] - 0.01) * 1000.0).round() as u32
}

fn start(model: &Arc<Scripted>, width: usize, window_ms: u64, continuous: bool) -> Scheduler {
    let config = SchedulerConfig::fixed(width, Duration::from_millis(window_ms), 3, continuous);
    Scheduler::start(model.clone(), config).unwrap()
}

#[test]
fn rows_from_many_threads_share_batches_up_to_the_width() {
    let model = Scripted::new();
    let scheduler = Arc::new(start(&model, 4, 300, false));
    let handles: Vec<_> = (1..=8)
        .map(|i| {
            let s = scheduler.clone();
            std::thread::spawn(move || s.submit(Job::buffered(vec![row(i)])).wait().unwrap())
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().len(), 1);
    }
    let sizes = model.batch_sizes();
    assert_eq!(sizes.iter().sum::<usize>(), 8);
    assert!(sizes.iter().all(|&n| n <= 4), "{sizes:?}");
    assert_eq!(scheduler.stats().widest_batch, 4, "{sizes:?}");
}

#[test]
fn a_job_s_first_row_streams_in_pieces_alone_and_the_rest_batch_behind_it() {
    for continuous in [false, true] {
        let model = Scripted::new();
        let scheduler = start(&model, 4, 100, continuous);
        let (sink, pieces) = std::sync::mpsc::channel();
        let job = scheduler.submit(Job::streaming_first_in_pieces(vec![row(1), row(2), row(3)], sink));
        let streamed: Vec<Vec<f32>> = pieces.iter().collect();
        assert_eq!(streamed.len(), 1, "the scripted model hands a row on whole, as one piece");
        let rows = job.wait().unwrap();
        assert_eq!(streamed[0], rows[0].samples, "the pieces are the row");
        assert_eq!(rows.iter().map(tag).collect::<Vec<_>>(), vec![1, 2, 3]);
        let batches = model.batches.lock().unwrap().clone();
        assert_eq!(batches[0], vec![1], "the streamed row renders alone (continuous: {continuous})");
        assert!(batches.iter().skip(1).all(|b| !b.contains(&1)), "{batches:?}");
    }
}

#[test]
fn a_streamed_row_whose_listener_left_is_withdrawn_like_any_other() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    model.shut_gate();
    let blocker = scheduler.submit(Job::buffered(vec![row(5)]));
    model.wait_started(1);
    let (sink, pieces) = std::sync::mpsc::channel();
    let job = scheduler.submit(Job::streaming_first_in_pieces(vec![row(6)], sink));
    drop(job);
    drop(pieces);
    model.open_gate();
    blocker.wait().unwrap();
    for _ in 0..500 {
        if scheduler.stats().rows_cancelled == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(scheduler.stats().rows_cancelled, 1);
    assert_eq!(model.batch_sizes(), vec![1], "only the blocker rendered");
}

#[test]
fn rows_with_other_batch_settings_are_held_for_a_later_batch() {
    let model = Scripted::new();
    let scheduler = start(&model, 8, 200, false);
    let with = |sampler: &str, tags: Vec<u32>| Job {
        rows: tags.into_iter().map(row).collect(),
        settings: BatchSettings { sampler: sampler.into() },
        delivery: Delivery::Buffered,
        first_row_pieces: None,
    };
    let a = scheduler.submit(with("a", vec![1, 2]));
    let b = scheduler.submit(with("b", vec![3]));
    let a2 = scheduler.submit(with("a", vec![4]));
    for h in [a, b, a2] {
        h.wait().unwrap();
    }
    let batches = model.batches.lock().unwrap().clone();
    assert_eq!(batches, vec![vec![1, 2, 4], vec![3]]);
}

#[test]
fn a_jobs_rows_come_back_in_order_even_when_they_finish_out_of_order() {
    let model = Scripted::new();
    let scheduler = start(&model, 3, 0, true);
    let tags: Vec<u32> = (10..20).collect();
    let mut handle = scheduler.submit(Job::streaming(tags.iter().map(|&t| row(t)).collect()));
    let mut got = Vec::new();
    while let Some(audio) = handle.next_row() {
        got.push(tag(&audio.unwrap()));
    }
    assert_eq!(got, tags);
}

#[test]
fn a_cancelled_job_withdraws_the_rows_that_have_not_started() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    model.shut_gate();
    let handle = scheduler.submit(Job::streaming((1..=10).map(row).collect()));
    model.wait_started(1);
    handle.cancel();
    // Let the owner see the cancellation before the first row finishes.
    std::thread::sleep(Duration::from_millis(50));
    model.open_gate();
    drop(handle);
    let done = scheduler.submit(Job::buffered(vec![row(50)])).wait().unwrap();
    assert_eq!(tag(&done[0]), 50);
    let stats = scheduler.stats();
    assert_eq!(stats.rows_cancelled, 9, "{stats:?}");
    assert_eq!(stats.rows_discarded, 1, "{stats:?}");
    assert_eq!(model.batch_sizes().len(), 2, "only the started row and the next job ran");
}

#[test]
fn a_dropped_handle_cancels_like_cancel() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    model.shut_gate();
    let handle = scheduler.submit(Job::buffered((1..=5).map(row).collect()));
    model.wait_started(1);
    drop(handle);
    std::thread::sleep(Duration::from_millis(50));
    model.open_gate();
    scheduler.submit(Job::buffered(vec![row(7)])).wait().unwrap();
    assert_eq!(scheduler.stats().rows_cancelled, 4);
}

#[test]
fn a_silent_buffered_take_is_retried_on_a_fresh_seed() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    let rows = scheduler.submit(Job::buffered(vec![row(0)])).wait().unwrap();
    assert!(rows[0].samples[0] > 0.0, "the retry (seeded) is not silent");
    assert_eq!(scheduler.stats().retries, 1);
    assert_eq!(model.batch_sizes(), vec![1, 1]);
}

#[test]
fn streaming_takes_are_never_retried() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    let rows = scheduler.submit(Job::streaming(vec![row(0)])).wait().unwrap();
    assert_eq!(rows[0].samples[0], 0.0);
    assert_eq!(scheduler.stats().retries, 0);
}

#[test]
fn when_attempts_run_out_the_last_take_is_handed_back_and_counted() {
    let model = Scripted::new();
    let config = SchedulerConfig::fixed(1, Duration::ZERO, 2, false);
    let scheduler = Scheduler::start(model.clone(), config).unwrap();
    let rows = scheduler.submit(Job::buffered(vec![row(997)])).wait().unwrap();
    assert!(rows[0].samples.iter().all(|&s| s == 0.0));
    let stats = scheduler.stats();
    assert_eq!((stats.retries, stats.bad_takes_delivered), (1, 1), "{stats:?}");
}

#[test]
fn a_failing_row_fails_alone_and_a_panicking_batch_leaves_the_scheduler_running() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    let err = scheduler.submit(Job::buffered(vec![row(998)])).wait().unwrap_err();
    assert!(err.to_string().contains("scripted failure"), "{err}");
    let err = scheduler.submit(Job::buffered(vec![row(999)])).wait().unwrap_err();
    assert!(err.to_string().contains("crashed"), "{err}");
    let ok = scheduler.submit(Job::buffered(vec![row(3)])).wait().unwrap();
    assert_eq!(tag(&ok[0]), 3);
}

#[test]
fn tasks_run_on_the_owner_between_batches() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    model.shut_gate();
    let job = scheduler.submit(Job::buffered(vec![row(1), row(2)]));
    model.wait_started(1);
    let task = scheduler.run_between_batches(|| std::thread::current().name().map(str::to_string));
    model.open_gate();
    assert_eq!(task.recv().unwrap().as_deref(), Some("revoice-scheduler"));
    job.wait().unwrap();
    assert_eq!(scheduler.stats().tasks_run, 1);
}

#[test]
fn in_continuous_mode_a_new_job_joins_a_free_slot_while_another_row_renders() {
    let model = Scripted::new();
    let scheduler = start(&model, 2, 0, true);
    model.shut_gate();
    let first = scheduler.submit(Job::buffered(vec![row(1)]));
    model.wait_started(1);
    let second = scheduler.submit(Job::buffered(vec![row(2)]));
    model.wait_started(2);
    assert_eq!(scheduler.stats().widest_batch, 2, "the second row started beside the first");
    model.open_gate();
    first.wait().unwrap();
    second.wait().unwrap();
}

#[test]
fn dropping_the_scheduler_answers_rows_still_queued() {
    let model = Scripted::new();
    let scheduler = start(&model, 1, 0, false);
    model.shut_gate();
    let mut job = scheduler.submit(Job::streaming(vec![row(1), row(2), row(3)]));
    model.wait_started(1);
    let dropper = std::thread::spawn(move || drop(scheduler));
    std::thread::sleep(Duration::from_millis(50));
    model.open_gate();
    dropper.join().unwrap();
    let replies: Vec<_> = std::iter::from_fn(|| job.next_row()).collect();
    assert_eq!(replies.len(), 3);
    assert!(replies[0].is_ok());
    assert!(replies[1].as_ref().unwrap_err().to_string().contains("stopped"));
}
