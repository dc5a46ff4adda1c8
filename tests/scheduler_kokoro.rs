//! The scheduler on the real Kokoro model: a row's audio depends only on
//! the row (its own seed), whatever the batch width, the mode or the
//! neighbours it is rendered with.

use std::time::Duration;

use revoice_engine::model::speech::SpeechRow;
use revoice_engine::scheduler::{Job, Scheduler, SchedulerConfig};
use revoice_engine::speech::{SayRequest, Synthesizer};

fn rows(s: &Synthesizer, text: &str, voice: &str, seed: Option<u64>) -> Vec<SpeechRow> {
    let request = SayRequest { seed, ..SayRequest::new(text, voice).unwrap() };
    s.prepare(&request).unwrap().into_iter().map(|l| l.row).collect()
}

#[test]
fn a_row_rendered_in_any_batch_equals_the_row_rendered_alone() {
    let s = Synthesizer::load(&revoice_tests::installed_data_dir()).unwrap();
    let subject = rows(&s, "Every take should sound the same.", "af_bella", Some(11)).remove(0);
    let neighbours = [rows(&s, "A neighbour with noise.", "am_adam", Some(5)).remove(0), rows(&s, "Another one, slower.", "bf_emma", None).remove(0)];
    let render = |width: usize, continuous: bool, batch: Vec<SpeechRow>| {
        let scheduler = Scheduler::start(s.shared_model(), SchedulerConfig::fixed(width, Duration::from_millis(100), 1, continuous)).unwrap();
        let audio = scheduler.submit(Job::buffered(batch)).wait().unwrap();
        (audio, scheduler.stats().widest_batch)
    };
    let (alone, _) = render(1, false, vec![subject.clone()]);
    let (batched, widest) = render(3, false, vec![neighbours[0].clone(), subject.clone(), neighbours[1].clone()]);
    assert_eq!(widest, 3, "the three rows shared one batch");
    let (continuous, _) = render(2, true, vec![neighbours[1].clone(), neighbours[0].clone(), subject.clone()]);
    assert!(!alone[0].samples.is_empty());
    assert_eq!(batched[1], alone[0], "in a batch of three");
    assert_eq!(continuous[2], alone[0], "in continuous mode");
}
