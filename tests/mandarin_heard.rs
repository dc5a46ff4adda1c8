//! Mandarin read by the studio's own G2P: a track in `zh` rendered with a
//! Mandarin voice and heard back by Whisper, character for character
//! (Mandarin is compared by characters: it has no spaces between words).

use std::sync::atomic::AtomicBool;

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::dub::segment_store::Stored;
use revoice_engine::model::whisper::TranscriptOptions;
use revoice_engine::subtitles::Cue;
use revoice_engine::{Engine, EngineConfig};

const LINES: [&str; 5] = [
    "你今天晚上有空吗？我们一起去吃饭吧。",
    "这本书一共三百二十页，我已经看了一半。",
    "火车早上八点半从北京出发。",
    "别担心，一切都会好起来的。",
    "他说明天不一定能来。",
];

/// The characters of `text` with figures written out in characters (Whisper
/// writes 三百二十 as 320), punctuation and spaces left out.
fn characters(text: &str) -> Vec<char> {
    revoice_engine::text::mandarin::write_out_numbers(text).chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Edits (insertions, deletions, substitutions) from `a` to `b`.
fn edits(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[test]
fn a_mandarin_track_is_spoken_in_mandarin_and_heard_back_character_for_character() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let engine = rt.block_on(Engine::open(EngineConfig::load_from(dir.path().to_path_buf()).unwrap())).unwrap();
    let (project, track) = rt.block_on(engine.create_project("普通话", "zh")).unwrap();
    let cues: Vec<Cue> =
        LINES.iter().enumerate().map(|(i, text)| Cue { start: 8.0 * i as f64, end: 8.0 * i as f64 + 7.0, text: text.to_string(), speaker: None }).collect();
    rt.block_on(engine.store().import_cues(&track, &cues)).unwrap();
    let summary = engine.render_project(project.id, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty() && summary.rendered == LINES.len(), "{summary:?}");

    let lines = rt.block_on(engine.project_lines(project.id)).unwrap().remove(0);
    let rate = engine.speech().unwrap().sample_rate();
    // The prompt asks for simplified characters, as the script is written.
    let options = TranscriptOptions { language: Some("zh".into()), initial_prompt: Some("以下是普通话的句子。".into()), ..Default::default() };
    let (mut wrong, mut total) = (0, 0);
    for line in &lines.lines {
        let Stored::Audio(audio) = engine.segments().get(&line.take_key().unwrap(), rate).unwrap() else { panic!("the take is on disk") };
        let heard: String = engine.listener().transcribe(&audio, rate, &options, &mut |_| true).unwrap().segments.iter().map(|s| s.text.as_str()).collect();
        let (said, heard_chars) = (characters(&line.segment.fields.text), characters(&heard));
        let line_edits = edits(&said, &heard_chars);
        eprintln!("{} | heard {heard} | {line_edits} of {} characters wrong", line.segment.fields.text, said.len());
        assert!(line_edits * 4 <= said.len(), "{:?} heard as {heard:?}", line.segment.fields.text);
        wrong += line_edits;
        total += said.len();
    }
    let cer = wrong as f64 / total as f64;
    eprintln!("character error rate {:.1} % over {total} characters", 100.0 * cer);
    assert!(cer <= 0.1, "{:.1} % of the characters heard wrong", 100.0 * cer);
}
