//! Every word kept, on the real model: a two-speaker scene of tight cues,
//! with the default timing (smart fit). Each line's spoken length is known
//! before any render (Kokoro's durations) and the lines that need more room
//! than their slot, its gaps and x1.25 give are flagged then; after the
//! render they overflow whole instead of being cut, the prediction matches
//! the render, and Whisper hears every word of every exported line.

use std::sync::atomic::AtomicBool;

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::subtitles::parse_srt;
use revoice_engine::text::word_errors::word_errors;
use revoice_engine::{Engine, EngineConfig};

/// Twelve cues, two speakers, slots as tight as a fast scene's: some fit
/// as they are, some need the gap after or a little speed, and a few are
/// far too long for their slot with the next line close behind.
const SCENE: &str = "1
00:00:00,500 --> 00:00:01,700
[Maya] Is anyone here?

2
00:00:01,800 --> 00:00:02,700
[Theo] Fine. I'll check.

3
00:00:02,800 --> 00:00:04,200
[Maya] Nobody has been here in years.

4
00:00:04,300 --> 00:00:05,300
[Theo] Good morning. Is the shop open yet?

5
00:00:05,400 --> 00:00:07,400
[Maya] The door was open when we came.

6
00:00:07,500 --> 00:00:08,500
[Theo] Then somebody must have a key to the back room.

7
00:00:08,600 --> 00:00:10,600
[Maya] Look at the dust on the shelves.

8
00:00:10,700 --> 00:00:11,900
[Theo] Someone cleaned this window.

9
00:00:12,000 --> 00:00:13,000
[Maya] We should leave before the light goes and the tide comes in.

10
00:00:13,100 --> 00:00:15,000
[Theo] Not yet. I want to see the lamp.

11
00:00:15,100 --> 00:00:16,600
[Maya] It has not burned for a long time.

12
00:00:16,700 --> 00:00:19,000
[Theo] Then we will light it ourselves.
";

#[test]
fn smart_fit_keeps_every_word_flags_what_needs_more_room_before_the_render_and_overflows_instead_of_cutting() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let engine = rt.block_on(Engine::open(config)).unwrap();
    let (project, track) = rt.block_on(engine.create_project("Tight scene", "en-US")).unwrap();
    assert_eq!(project.timing_strategy, "smart_fit", "smart fit is the default");
    let cues = parse_srt(SCENE, "tight.srt").unwrap();
    rt.block_on(engine.store().import_cues(&track, &cues)).unwrap();
    for speaker in rt.block_on(engine.store().speakers(project.id)).unwrap() {
        let voice = if speaker.name == "Maya" { "af_bella" } else { "am_adam" };
        rt.block_on(engine.set_speaker_voice(project.id, speaker.id, voice, None)).unwrap();
    }

    // Before any render: every line's spoken length, and the lines that cannot fit.
    let speech = engine.speech().unwrap();
    let fits = engine.project_fits(project.id).unwrap();
    assert_eq!(speech.renderer.scheduler_stats().rows_rendered, 0, "predicting renders nothing");
    let lines = &fits[0].lines;
    assert_eq!(lines.len(), 12);
    assert!(lines.iter().all(|l| l.spoken.is_some_and(|s| s > 0.3)), "{lines:#?}");
    let flagged: Vec<usize> = lines.iter().filter(|l| l.shortfall.is_some()).map(|l| l.number).collect();
    for long in [4, 6, 9] {
        assert!(flagged.contains(&long), "line {long} needs far more room than it has: flagged {flagged:?}\n{lines:#?}");
    }
    assert!(!flagged.contains(&1) && !flagged.contains(&12), "lines with room are not flagged: {flagged:?}");
    let tracks = rt.block_on(engine.project_lines(project.id)).unwrap();
    assert!(tracks[0].lines.iter().all(|l| l.predicted.is_some()), "the lengths are kept");

    let never = AtomicBool::new(false);
    let summary = engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty(), "{:?}", summary.failed);

    // Rendered: nothing is cut; the flagged lines overflow whole; the prediction was the render's length.
    let track_lines = rt.block_on(engine.track_lines(track.id)).unwrap();
    for (line, fit) in track_lines.lines.iter().zip(lines) {
        let take = line.take.as_ref().expect("rendered");
        let predicted = fit.spoken.unwrap();
        assert!(
            (take.duration_s - predicted).abs() / take.duration_s < 0.05,
            "line {}: predicted {predicted:.3} s, rendered {:.3} s",
            fit.number,
            take.duration_s
        );
        let placed = line.placement(&track_lines.limits).unwrap();
        assert_eq!(placed.trimmed_to, None, "line {} is never cut: {placed:?}", fit.number);
        assert!((placed.length * placed.rate - take.duration_s).abs() < 1e-6, "line {} is placed whole: {placed:?}", fit.number);
        assert_eq!(placed.overflow.is_some(), fit.shortfall.is_some(), "line {}: flagged before the render as it overflows after it: {placed:?}", fit.number);
        assert!(placed.rate <= 1.25 + 1e-9, "line {}: {placed:?}", fit.number);
    }

    // Exported: the mix with its subtitles and each line as placed (the handoff's media), every
    // line heard alone by Whisper: every word of every line is there.
    let out = dir.path().join("export");
    let selection =
        revoice_engine::dub::export::ExportSelection { subtitles: true, handoff: vec![revoice_engine::dub::handoff::HandoffFormat::Edl], ..Default::default() };
    let request = revoice_engine::ExportRequest {
        folder: out.clone(),
        format: revoice_engine::dub::export::ExportFormat::Wav,
        loudness: revoice_engine::dub::export::LoudnessSpec::parse("ebu").unwrap(),
        selection,
    };
    let exported = engine.export_project(project.id, &request, &mut |_| {}).unwrap();
    let files = &exported.tracks[0].report.files;
    let srt = files.iter().find(|f| f.path.extension().is_some_and(|e| e == "srt")).expect("subtitles exported");
    assert_eq!(parse_srt(&std::fs::read_to_string(&srt.path).unwrap(), "export.srt").unwrap().len(), 12);
    let media = out.join("Tight_scene.en-US.handoff");
    let options = revoice_engine::model::whisper::TranscriptOptions { language: Some("en".into()), ..Default::default() };
    let (mut words, mut deleted) = (0, 0);
    for (i, written) in cues.iter().enumerate() {
        let speaker = written.speaker.as_deref().unwrap();
        let line = revoice_engine::audio::decode::decode_file(&media.join(format!("{:04}-{speaker}.wav", i + 1))).unwrap();
        let heard = engine.listener().transcribe(&line.samples, line.sample_rate, &options, &mut |_| true).unwrap().text();
        let errors = word_errors(&written.text, &heard);
        assert!(
            errors.missing_at_end.is_empty() && errors.missing_at_start.is_empty(),
            "line {}: {:?} exported as placed was heard as {heard:?}: {errors:?}",
            i + 1,
            written.text
        );
        words += errors.words;
        deleted += errors.deletions;
    }
    assert!(deleted * 20 <= words, "{deleted} of {words} words not heard");
}
