//! A two-language dub on the real model: an English original and a
//! Japanese track, each line rendered by a voice of its track's language
//! (Japanese through the studio's own Japanese G2P), heard back by Whisper
//! (Japanese compared character by character), and exported with the
//! picture: each dub muxed in with its language tag, and the subtitles of
//! each language in their own script.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use revoice_engine::checking::ListenRequest;
use revoice_engine::dub::export::{ExportFormat, ExportSelection, LoudnessSpec};
use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::subtitles::{parse_srt, Cue};
use revoice_engine::{Engine, EngineConfig, ExportRequest};

const ENGLISH: [&str; 3] = ["Where were you last night?", "At the harbour, waiting for the boats.", "Then come inside, it is cold."];
const JAPANESE: [&str; 3] = ["昨日の夜はどこにいたの？", "港で船を待っていました。", "じゃあ中に入って、寒いから。"];

fn cues(lines: &[&str]) -> Vec<Cue> {
    lines.iter().enumerate().map(|(i, text)| Cue { start: 1.0 + 4.0 * i as f64, end: 4.0 + 4.0 * i as f64, text: text.to_string(), speaker: None }).collect()
}

fn streams(file: &Path) -> Vec<serde_json::Value> {
    let out = Command::new("ffprobe").args(["-v", "error", "-print_format", "json", "-show_streams"]).arg(file).output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["streams"].as_array().unwrap().clone()
}

#[test]
fn an_english_original_with_a_japanese_dub_is_rendered_heard_and_exported_with_its_language_tags() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let engine = rt.block_on(Engine::open(EngineConfig::load_from(dir.path().to_path_buf()).unwrap())).unwrap();
    let (project, english) = rt.block_on(engine.create_project("Harbour", "en-US")).unwrap();
    rt.block_on(engine.store().import_cues(&english, &cues(&ENGLISH))).unwrap();
    let japanese = rt.block_on(engine.track_for(project.id, Some("ja"))).unwrap();
    rt.block_on(engine.store().import_cues(&japanese, &cues(&JAPANESE))).unwrap();

    let summary = engine.render_project(project.id, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty() && summary.rendered == 6, "{summary:?}");

    // Heard back: each Japanese line by characters, as written.
    let checked = engine.listen_back(project.id, &ListenRequest::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!(checked.len(), 6);
    for line in &checked {
        eprintln!("{} | {} | heard {} | {:.0} % wrong", line.language, line.text, line.heard, 100.0 * line.word_error_rate);
        assert!(line.passed(), "{} heard as {:?}: {:?}", line.text, line.heard, line.problems);
    }
    assert!(checked.iter().filter(|l| l.language == "ja").all(|l| !l.heard.is_empty() && !l.heard.is_ascii()), "{checked:?}");

    // Exported with the picture: the dubs muxed in, tagged English then Japanese.
    let out = tempfile::tempdir().unwrap();
    let video = revoice_tests::media::scene_video(out.path(), 13);
    rt.block_on(engine.attach_video(project.id, &video, false, Some("en"))).unwrap();
    let request = ExportRequest {
        folder: out.path().join("delivery"),
        format: ExportFormat::Wav,
        loudness: LoudnessSpec::parse("ebu").unwrap(),
        selection: ExportSelection { with_video: true, ..Default::default() },
    };
    let export = engine.export_project(project.id, &request, &mut |_| {}).unwrap();
    let muxed = export.video.expect("a muxed picture");
    let streams = streams(&muxed);
    let tagged: Vec<(String, String)> = streams
        .iter()
        .filter(|s| s["codec_type"] != "video")
        .map(|s| (s["codec_type"].as_str().unwrap().to_string(), s["tags"]["language"].as_str().unwrap_or("").to_string()))
        .collect();
    let audio: Vec<&str> = tagged.iter().filter(|(kind, _)| kind == "audio").map(|(_, l)| l.as_str()).collect();
    let subtitles: Vec<&str> = tagged.iter().filter(|(kind, _)| kind == "subtitle").map(|(_, l)| l.as_str()).collect();
    assert_eq!(&audio[..2], ["eng", "jpn"], "{tagged:?}");
    assert_eq!(subtitles, ["eng", "jpn"], "{tagged:?}");

    // The Japanese subtitles are the Japanese lines, in UTF-8, at their times.
    let track = export.tracks.iter().find(|t| t.language == "ja").expect("a Japanese track export");
    let srt_path = track.report.files.iter().map(|f| &f.path).find(|p| p.extension().is_some_and(|e| e == "srt")).expect("an SRT");
    let read = parse_srt(&std::fs::read_to_string(srt_path).unwrap(), "ja.srt").unwrap();
    let texts: Vec<&str> = read.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, JAPANESE);
}
