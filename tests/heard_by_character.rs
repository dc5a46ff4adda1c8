//! Mandarin and Japanese read by the studio's own G2P: a track in each
//! language rendered with its default voice and heard back by Whisper,
//! compared character by character as the studio's checks compare them
//! (these languages have no spaces between words).

use std::sync::atomic::AtomicBool;

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::dub::segment_store::Stored;
use revoice_engine::model::whisper::TranscriptOptions;
use revoice_engine::subtitles::Cue;
use revoice_engine::text::word_errors::word_errors_in;
use revoice_engine::{Engine, EngineConfig};

const MANDARIN: [&str; 5] = [
    "你今天晚上有空吗？我们一起去吃饭吧。",
    "这本书一共三百二十页，我已经看了一半。",
    "火车早上八点半从北京出发。",
    "别担心，一切都会好起来的。",
    "他说明天不一定能来。",
];

const JAPANESE: [&str; 5] = [
    "今日はとても暑いですね。",
    "駅まで歩いて十分くらいかかります。",
    "明日の会議は午後三時からです。",
    "ちょっと待って、すぐ行くから。",
    "このケーキ、本当においしい！",
];

/// Renders `lines` as a track in `language` and hears each take back;
/// returns the characters heard wrong and the characters written.
fn heard(language: &str, lines: &[&str]) -> (usize, usize) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let engine = rt.block_on(Engine::open(EngineConfig::load_from(dir.path().to_path_buf()).unwrap())).unwrap();
    let (project, track) = rt.block_on(engine.create_project("Heard", language)).unwrap();
    let cues: Vec<Cue> =
        lines.iter().enumerate().map(|(i, text)| Cue { start: 8.0 * i as f64, end: 8.0 * i as f64 + 7.0, text: text.to_string(), speaker: None }).collect();
    rt.block_on(engine.store().import_cues(&track, &cues)).unwrap();
    let summary = engine.render_project(project.id, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty() && summary.rendered == lines.len(), "{summary:?}");

    let lines = rt.block_on(engine.project_lines(project.id)).unwrap().remove(0);
    let rate = engine.speech().unwrap().sample_rate();
    let options = TranscriptOptions {
        language: Some(language.into()),
        initial_prompt: revoice_engine::language::transcription_prompt(language).map(str::to_string),
        ..Default::default()
    };
    let (mut wrong, mut total) = (0, 0);
    for line in &lines.lines {
        let Stored::Audio(audio) = engine.segments().get(&line.take_key().unwrap(), rate).unwrap() else { panic!("the take is on disk") };
        let heard: String = engine.listener().transcribe(&audio, rate, &options, &mut |_| true).unwrap().segments.iter().map(|s| s.text.as_str()).collect();
        let errors = word_errors_in(&line.segment.fields.text, &heard, language);
        assert!(errors.by_characters);
        let edits = errors.substitutions + errors.deletions + errors.insertions;
        eprintln!("{} | heard {heard} | {edits} of {} characters wrong", line.segment.fields.text, errors.words);
        assert!(errors.rate() <= 0.25, "{:?} heard as {heard:?}", line.segment.fields.text);
        wrong += edits;
        total += errors.words;
    }
    eprintln!("{language}: character error rate {:.1} % over {total} characters", 100.0 * wrong as f64 / total as f64);
    (wrong, total)
}

#[test]
fn a_mandarin_track_is_spoken_in_mandarin_and_heard_back_character_for_character() {
    let (wrong, total) = heard("zh", &MANDARIN);
    assert!(wrong * 10 <= total, "{wrong} of {total} characters heard wrong");
}

#[test]
fn a_japanese_track_is_spoken_in_japanese_and_heard_back_character_for_character() {
    let (wrong, total) = heard("ja", &JAPANESE);
    assert!(wrong * 10 <= total, "{wrong} of {total} characters heard wrong");
}
