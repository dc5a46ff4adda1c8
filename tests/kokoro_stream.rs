//! Streaming inside a sentence (`KokoroModel::stream_row`, what previews and
//! `revoice say` play) on the real weights.
//!
//! Tolerance, and why: a stream's pieces share the norm statistics of one
//! sketch of the line, so they join without seams (with a sketch that
//! covers the whole line the stream is the one pass, checked in f32 where
//! nothing else differs: measured 6e-7 of a 0.35 peak); the previews' sketch only estimates those
//! statistics, so its audio is held to 0.35 log-mel L1 of the one pass
//! (both int8). Measured on these nine lines: 0.16 to 0.27; for scale, the
//! int8 one pass is 0.14 to 0.19 from the f32 one, and two int8 renders
//! whose activations are only scaled differently are about 0.1 apart.
//! Whisper must hear the streamed lines as well as the one-pass ones.

use std::ops::ControlFlow;

use revoice_engine::audio::compare::log_mel_l1;
use revoice_engine::listening::Listener;
use revoice_engine::model::kokoro::{KokoroModel, Precision, StreamPlan};
use revoice_engine::model::speech::{SpeechModel, SpeechRow};
use revoice_engine::model::whisper::TranscriptOptions;
use revoice_engine::speech::{SayRequest, Synthesizer};
use revoice_engine::text::word_errors::word_errors;

/// Lines of 3 to 8 s in six voices.
const LINES: [(&str, &str); 9] = [
    ("af_heart", "The weather today is sunny with a light breeze from the west."),
    ("am_michael", "Please remember to bring your passport, two photographs, and the signed form to the appointment on Friday morning."),
    ("bf_emma", "Could you tell me where the nearest train station is?"),
    ("af_heart", "It was late, and the rain had not stopped for three days; nobody in the village could remember a wetter spring."),
    ("bm_george", "Ladies and gentlemen, the captain has switched off the seat belt sign."),
    ("af_bella", "She sells sea shells by the sea shore, and the shells she sells are surely seashells."),
    ("am_adam", "Get the fire extinguisher, the kitchen is full of smoke and the alarm is ringing!"),
    ("af_nicole", "I never said she stole my money, but somebody certainly did."),
    ("bf_emma", "Please remember to bring your passport, two photographs, and the signed form on Friday."),
];

const RATE: u32 = 24_000;

fn row(s: &Synthesizer, text: &str, voice: &str) -> SpeechRow {
    let mut lines = s.prepare(&SayRequest::new(text, voice).unwrap()).unwrap();
    assert_eq!(lines.len(), 1, "{text:?} is one sentence");
    lines.remove(0).row
}

fn one_pass(model: &KokoroModel, row: &SpeechRow) -> Vec<f32> {
    model.generate(std::slice::from_ref(row)).remove(0).unwrap().samples
}

/// The streamed audio and the length of each piece.
fn stream(model: &KokoroModel, row: &SpeechRow, plan: &StreamPlan) -> (Vec<f32>, Vec<usize>) {
    let mut pieces = Vec::new();
    let mut joined = Vec::new();
    let audio = model
        .stream_row(row, plan, &mut |piece| {
            pieces.push(piece.len());
            joined.extend_from_slice(piece);
            ControlFlow::Continue(())
        })
        .unwrap()
        .expect("ran to the end");
    assert_eq!(audio.samples, joined, "the row returned is the pieces joined");
    (joined, pieces)
}

#[test]
fn with_a_sketch_of_the_whole_line_the_pieces_join_into_the_one_pass() {
    let s = Synthesizer::load_in(&revoice_tests::installed_data_dir(), Precision::F32).unwrap();
    let row = row(&s, LINES[1].1, LINES[1].0);
    let whole = one_pass(s.model(), &row);
    for (first_frames, piece_frames) in [(20, 80), (8, 24), (40, 200)] {
        // One sketch span over everything after the opening piece, with the reach as its context.
        let plan = StreamPlan {
            first_frames,
            piece_frames,
            sketch_spans: 1,
            sketch_span_frames: usize::MAX,
            sketch_context_frames: StreamPlan::PREVIEW.context_frames,
            ..StreamPlan::PREVIEW
        };
        let (streamed, pieces) = stream(s.model(), &row, &plan);
        assert_eq!(streamed.len(), whole.len());
        assert_eq!(pieces[0], first_frames * 300);
        assert!(pieces[1..pieces.len() - 1].iter().all(|&p| p == piece_frames * 300), "{pieces:?}");
        let peak = whole.iter().fold(0f32, |m, v| m.max(v.abs()));
        let worst = streamed.iter().zip(&whole).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        eprintln!("pieces of {first_frames} then {piece_frames} frames: {} pieces, largest difference {worst:.2e} (peak {peak:.2})", pieces.len());
        assert!(worst < 1e-5 * peak, "pieces of {piece_frames} frames differ from the one pass by {worst:.2e}");
    }
}

#[test]
fn a_preview_stream_stays_within_its_tolerance_and_is_heard_alike() {
    let s = Synthesizer::load(&revoice_tests::installed_data_dir()).unwrap();
    let listener = Listener::new(&revoice_tests::installed_data_dir());
    let options = TranscriptOptions { language: Some("en".into()), ..Default::default() };
    let heard = |samples: &[f32]| listener.transcribe(samples, RATE, &options, &mut |_| true).unwrap().text();
    let (mut whole_errors, mut streamed_errors) = (0, 0);
    for (voice, text) in LINES {
        let row = row(&s, text, voice);
        let whole = one_pass(s.model(), &row);
        let (streamed, pieces) = stream(s.model(), &row, &StreamPlan::PREVIEW);
        assert_eq!(streamed.len(), whole.len(), "{text:?}");
        assert!(pieces.len() >= 3 && pieces[0] == 6000, "{text:?}: a quarter second first, then the rest: {pieces:?}");
        let distance = log_mel_l1(&streamed, &whole, RATE);
        let (a, b) = (word_errors(text, &heard(&whole)), word_errors(text, &heard(&streamed)));
        let e = |w: &revoice_engine::text::word_errors::WordErrors| w.substitutions + w.deletions + w.insertions;
        eprintln!(
            "{voice} {:.2} s in {} pieces: log-mel L1 {distance:.3} from the one pass; word errors {} (one pass {})",
            whole.len() as f64 / RATE as f64,
            pieces.len(),
            e(&b),
            e(&a)
        );
        assert!(distance < 0.35, "{text:?}: the stream is {distance:.3} from the one pass");
        whole_errors += e(&a);
        streamed_errors += e(&b);
    }
    assert!(streamed_errors <= whole_errors, "Whisper hears {streamed_errors} word errors in the streams, {whole_errors} in the one passes");
}

#[test]
fn a_short_line_comes_whole_and_a_stopped_stream_ends() {
    let s = Synthesizer::load(&revoice_tests::installed_data_dir()).unwrap();
    let short = row(&s, "Good morning.", "af_heart");
    let (streamed, pieces) = stream(s.model(), &short, &StreamPlan::PREVIEW);
    assert_eq!(pieces.len(), 1);
    assert_eq!(streamed, one_pass(s.model(), &short), "a line of 2 s or less is the one pass");

    let long = row(&s, LINES[3].1, LINES[3].0);
    let mut handed = 0;
    let stopped = s.model().stream_row(&long, &StreamPlan::PREVIEW, &mut |_| {
        handed += 1;
        if handed == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert!(stopped.unwrap().is_none(), "a stream its listener stopped returns nothing");
    assert_eq!(handed, 2, "no piece after the stop");
}

#[test]
fn say_plays_each_sentence_in_pieces_the_first_a_quarter_second() {
    let s = Synthesizer::load(&revoice_tests::installed_data_dir()).unwrap();
    let request = SayRequest::new(format!("{} {}", LINES[0].1, LINES[2].1), "af_heart").unwrap();
    let mut chunks = Vec::new();
    let count = s
        .say(&request, |chunk| {
            chunks.push(chunk);
            Ok(())
        })
        .unwrap();
    assert_eq!(count, chunks.len());
    assert_eq!(chunks[0].samples.len(), 6000);
    let sentences: Vec<usize> = chunks.iter().map(|c| c.sentence).collect();
    assert!(sentences.windows(2).all(|w| w[0] <= w[1]) && sentences.last() == Some(&1), "{sentences:?}");
    let first_of_second = chunks.iter().find(|c| c.sentence == 1).unwrap();
    assert_eq!(first_of_second.samples.len(), 6000);
    assert!(first_of_second.text.starts_with("Could you"));
}
