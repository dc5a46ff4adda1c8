//! Kokoro through the engine's `SpeechModel` interface, on the real weights.

use revoice_engine::model::speech::SpeechModel;
use revoice_engine::speech::{SayRequest, Synthesizer};

fn synth() -> Synthesizer {
    Synthesizer::load(&revoice_tests::installed_data_dir()).unwrap()
}

fn rows(s: &Synthesizer, text: &str, voice: &str, seed: Option<u64>) -> Vec<revoice_engine::model::speech::SpeechRow> {
    let request = SayRequest { seed, ..SayRequest::new(text, voice).unwrap() };
    s.prepare(&request).unwrap().into_iter().map(|l| l.row).collect()
}

#[test]
fn a_row_rendered_in_a_batch_equals_the_row_alone() {
    let s = synth();
    let mut batch = rows(&s, "Good morning.", "af_heart", Some(3));
    batch.extend(rows(&s, "See you soon.", "bm_george", None));
    let together = s.model().generate(&batch);
    let alone = s.model().generate(&batch[1..]);
    assert_eq!(together[1].as_ref().unwrap(), alone[0].as_ref().unwrap());
}

#[test]
fn a_row_with_a_target_length_is_spoken_to_fit_it() {
    let s = synth();
    let mut row = rows(&s, "Thank you for coming today.", "af_heart", None).remove(0);
    // The target times the speech, not the silence the model leaves around it.
    let speech = |samples: &[f32]| revoice_engine::audio::levels::speech_edges(samples, 24_000).unwrap().len() as f32 / 24_000.0;
    let natural = s.model().generate(std::slice::from_ref(&row)).remove(0).unwrap();
    let natural_speech = speech(&natural.samples);
    let predicted = s.model().spoken_seconds(std::slice::from_ref(&row)).remove(0).unwrap();
    assert!((predicted - natural_speech).abs() < 0.05, "predicted {predicted:.3} s of speech, heard {natural_speech:.3} s");
    let target = natural_speech * 0.8;
    row.target_seconds = Some(target);
    let fitted = s.model().generate(std::slice::from_ref(&row)).remove(0).unwrap();
    let seconds = speech(&fitted.samples);
    // Durations are whole frames of 25 ms per token, so a fit lands within a few frames.
    assert!((seconds - target).abs() < 0.06, "asked {target:.2} s, got {seconds:.2} s of speech (natural {natural_speech:.2} s)");
    assert!(fitted.speed > 1.1, "speed {}", fitted.speed);
    let token_total: f32 = fitted.token_seconds.iter().sum();
    let length = fitted.samples.len() as f32 / fitted.sample_rate as f32;
    assert!((token_total - length).abs() < 1e-3, "token durations add up to the audio");
}

#[test]
fn a_row_with_too_many_phonemes_fails_alone_and_its_neighbours_still_render() {
    let s = synth();
    let good = rows(&s, "Fine.", "af_heart", None).remove(0);
    let mut too_long = good.clone();
    too_long.tokens = std::iter::once(0).chain(std::iter::repeat_n(43, 600)).chain(std::iter::once(0)).collect();
    let out = s.model().generate(&[too_long, good]);
    assert!(out[0].as_ref().unwrap_err().to_string().contains("600 phonemes"));
    assert!(!out[1].as_ref().unwrap().samples.is_empty());
}
