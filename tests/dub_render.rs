//! Rendering a dub project on the real model: only segments whose
//! synthesis key changed are synthesised; strategy changes that do not ask
//! the model for a new length synthesise nothing; damaged audio on disk is
//! rendered again; a cancelled render stops. A two-speaker video becomes
//! a project (Whisper and GE2E) that keeps the video as its original
//! dialogue, cuts each speaker's lines from it, renders and exports. Takes are heard
//! back: a line strict slot must cut is cut at a pause and flagged, taken
//! again once; silent, truncated and wrong takes are flagged and taken
//! again; an edited line is heard again; takes heard while the render goes
//! on are stored, and a failing one is taken again after it.

use std::sync::atomic::AtomicBool;

use revoice_engine::audio::levels::FrameLevels;
use revoice_engine::checking::{ListenEvent, ListenRequest};
use revoice_engine::dub::pipeline::{RenderScope, RenderSummary};
use revoice_engine::dub::segment_store::Stored;
use revoice_engine::dub::timing::cut_span;
use revoice_engine::dub::PROGRAMME_RATE;
use revoice_engine::subtitles::parse_srt;
use revoice_engine::{Engine, EngineConfig};

#[test]
fn a_project_renders_only_what_changed() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let mut config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    config.settings.scheduler = revoice_engine::config::SchedulerSettings { batch_width: 2, batch_window_ms: 10, max_attempts: 1, continuous: false };
    let engine = rt.block_on(Engine::open(config)).unwrap();
    let store = engine.store();
    let (project, track) = rt.block_on(engine.create_project("Lighthouse", "en-US")).unwrap();
    let cues = parse_srt(include_str!("../assets/demo/lighthouse.srt"), "lighthouse.srt").unwrap();
    rt.block_on(store.import_cues(&track, &cues[..5])).unwrap();
    rt.block_on(store.set_timing_strategy(project.id, "natural")).unwrap();
    for speaker in rt.block_on(store.speakers(project.id)).unwrap() {
        let voice = if speaker.name == "Maya" { "af_bella" } else { "am_adam" };
        rt.block_on(engine.set_speaker_voice(project.id, speaker.id, voice, None)).unwrap();
    }
    let speech = engine.speech().unwrap();
    let never = AtomicBool::new(false);
    let render = || -> RenderSummary {
        let mut last = None;
        let summary = engine.render_project(project.id, &RenderScope::default(), &never, &mut |p| last = Some(p.clone())).unwrap();
        let last = last.expect("progress was reported");
        assert_eq!((last.done, last.total), (5, 5));
        assert!(summary.failed.is_empty(), "{:?}", summary.failed);
        summary
    };
    let rows = || speech.renderer.scheduler_stats().rows_rendered;

    assert_eq!(render().rendered, 5);
    let after_first = rows();
    assert_eq!((render().rendered, rows()), (0, after_first), "nothing changed, nothing synthesised");

    let lines = rt.block_on(store.segments(track.id)).unwrap();
    rt.block_on(store.edit_segment(lines[2].id, "retype", |f| f.text = "I was sure that book burned.".into())).unwrap();
    assert_eq!((render().rendered, rows()), (1, after_first + 1), "one line edited, one line synthesised");

    rt.block_on(store.set_timing_strategy(project.id, "smart_fit")).unwrap();
    assert_eq!((render().rendered, rows()), (1 - 1, after_first + 1), "a placement change synthesises nothing");

    // Undo takes the strategy back, then the old text, and with it the take made from it.
    assert_eq!(rt.block_on(store.undo(project.id)).unwrap().as_deref(), Some("timing smart fit"));
    rt.block_on(store.undo(project.id)).unwrap();
    let before_undo = rows();
    assert_eq!((render().rendered, rows()), (0, before_undo), "the old take is current again: nothing rendered");

    // Another take (a fresh seed) renders that line alone, into a new take;
    // picking the first one back, and undoing the pick, synthesise nothing.
    let line = lines[1].id;
    let take = |id: i64| rt.block_on(store.segment(id)).unwrap().active_take_id.unwrap();
    let first_take = take(line);
    rt.block_on(store.edit_segment(line, "new take", |f| f.seed = Some(424_242))).unwrap();
    assert_eq!(render().rendered, 1, "a new take renders one line");
    let after_new_take = rows();
    assert!(after_new_take > before_undo, "with the model");
    let second_take = take(line);
    assert_ne!(rt.block_on(store.take_key(first_take)).unwrap(), rt.block_on(store.take_key(second_take)).unwrap(), "another seed, other audio");
    rt.block_on(store.pick_take(line, first_take)).unwrap();
    assert_eq!((render().rendered, rows(), take(line)), (0, after_new_take, first_take), "the picked take is current as it is");
    rt.block_on(store.undo(project.id)).unwrap();
    assert_eq!((render().rendered, rows(), take(line)), (0, after_new_take, second_take), "undoing the pick brings the new take back");

    // A damaged file on disk is rendered again, never played as silence.
    let take = rt.block_on(store.segment(lines[0].id)).unwrap().active_take_id.unwrap();
    let key = rt.block_on(store.take_key(take)).unwrap().unwrap();
    let path = dir.path().join("segments").join(&key[..2]).join(format!("{key}.wav"));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(render().rendered, 1);

    // Fit by re-synthesis asks the model for new lengths: all five render.
    rt.block_on(store.set_timing_strategy(project.id, "resynthesize")).unwrap();
    assert_eq!(render().rendered, 5);

    // A cancelled render stops before synthesising.
    rt.block_on(store.edit_segment(lines[4].id, "retype", |f| f.text = "Have you read any of it?".into())).unwrap();
    let cancel = AtomicBool::new(true);
    let summary = engine.render_project(project.id, &RenderScope::default(), &cancel, &mut |_| {}).unwrap();
    assert!(summary.cancelled && summary.rendered == 0, "{summary:?}");
}

/// Two stock voices say alternating lines, 0.8 s apart, muxed with a black
/// picture into an MP4 (AAC audio) by ffmpeg.
fn two_speaker_video(dir: &std::path::Path, lines: &[(&str, &str)]) -> std::path::PathBuf {
    use revoice_engine::speech::{SayRequest, Synthesizer};
    let synth = Synthesizer::load(&revoice_engine::model::testing::installed_data_dir()).unwrap();
    let rate = synth.sample_rate();
    let mut dialogue = Vec::new();
    for (voice, text) in lines {
        dialogue.extend(std::iter::repeat_n(0.0f32, (0.8 * rate as f32) as usize));
        synth
            .say(&SayRequest::new(*text, voice).unwrap(), |chunk| {
                dialogue.extend(chunk.samples);
                Ok(())
            })
            .unwrap();
    }
    dialogue.extend(std::iter::repeat_n(0.0f32, rate as usize));
    let wav = dir.join("dialogue.wav");
    revoice_engine::audio::wav::write_pcm16(&wav, &dialogue, rate).unwrap();
    let video = dir.join("scene.mp4");
    let out = std::process::Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=black:s=160x90:r=10", "-i"])
        .arg(&wav)
        .args(["-shortest", "-c:v", "mpeg4", "-c:a", "aac", "-b:a", "128k"])
        .arg(&video)
        .output()
        .expect("ffmpeg runs (scripts/test installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    video
}

#[test]
fn a_two_speaker_video_becomes_timed_lines_with_two_speakers_that_render_and_export() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let engine = std::sync::Arc::new(rt.block_on(Engine::open(config)).unwrap());
    let lines = [
        ("af_heart", "The boats are back in the harbour."),
        ("bm_george", "Then light the lamp on the pier."),
        ("af_heart", "It is already burning."),
        ("bm_george", "Good. We wait for the last one."),
    ];
    let video = two_speaker_video(dir.path(), &lines);
    let mut heard_seconds = Vec::new();
    let (sender, progress) = std::sync::mpsc::channel();
    let (project, track, heard) = rt
        .block_on(engine.new_project_from_media("Harbour scene", &video, move |done| {
            let _ = sender.send(done);
            true
        }))
        .unwrap();
    heard_seconds.extend(progress.try_iter());
    assert!(!heard_seconds.is_empty(), "progress was reported");
    assert_eq!(track.language, "en-US");
    let said: Vec<String> = heard.cues.iter().map(|c| c.text.clone()).collect();
    assert_eq!(heard.cues.len(), 4, "one line per spoken line: {said:?}");
    for (cue, (_, text)) in heard.cues.iter().zip(&lines) {
        let errors = revoice_engine::text::word_errors::word_errors(text, &cue.text);
        assert!(errors.rate() <= 0.15, "{text:?} heard as {:?}", cue.text);
    }
    assert!(
        heard.cues.windows(2).all(|w| w[0].end <= w[1].start + 1e-9) && heard.cues[0].start >= 0.5,
        "lines in time order after the lead-in: {:?}",
        heard.cues
    );
    let speakers: Vec<&str> = heard.cues.iter().map(|c| c.speaker.as_deref().unwrap()).collect();
    assert_eq!(speakers, ["Speaker 1", "Speaker 2", "Speaker 1", "Speaker 2"]);
    assert_eq!(heard.speakers, 2);

    // The video stays as the original dialogue; each speaker's own lines
    // are cut from it into their voice reference, with what they say.
    assert_eq!(project.original_media.as_deref().map(std::path::Path::new), Some(video.canonicalize().unwrap().as_path()));
    assert_eq!(project.video_file, project.original_media, "a video heard into a project is its picture too");
    assert_eq!(project.original_language.as_deref(), Some("en-US"));
    let clips = engine.original_speaker_clips(project.id).unwrap();
    assert_eq!(clips.len(), 2, "{clips:?}");
    let speakers = rt.block_on(engine.store().speakers(project.id)).unwrap();
    for clip in &clips {
        let name = &speakers.iter().find(|s| s.id == clip.speaker_id).unwrap().name;
        let own: Vec<&revoice_engine::subtitles::Cue> = heard.cues.iter().filter(|c| c.speaker.as_deref() == Some(name.as_str())).collect();
        let cut = revoice_engine::audio::decode::decode_file(&clip.recording).unwrap();
        let spoken: f64 = own.iter().map(|c| c.end - c.start).sum();
        assert!((cut.seconds() - spoken - 0.25 * (own.len() - 1) as f64).abs() < 0.05, "{} s cut for {spoken} s of lines", cut.seconds());
        let text: Vec<&str> = own.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(clip.text.as_deref(), Some(text.join(" ").as_str()));
    }

    // Rename, give voices, render, export.
    let first = rt.block_on(engine.speaker_named(project.id, "Speaker 1")).unwrap();
    rt.block_on(engine.rename_speaker(project.id, first.id, "Ana")).unwrap();
    let second = rt.block_on(engine.speaker_named(project.id, "Speaker 2")).unwrap();
    let clash = rt.block_on(engine.rename_speaker(project.id, second.id, "Ana")).unwrap_err();
    assert!(clash.to_string().contains("another speaker"), "{clash}");
    rt.block_on(engine.set_speaker_voice(project.id, first.id, "af_bella", None)).unwrap();
    rt.block_on(engine.set_speaker_voice(project.id, second.id, "am_adam", None)).unwrap();
    let never = AtomicBool::new(false);
    let summary = engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty(), "{:?}", summary.failed);
    let out = dir.path().join("export");
    let request = revoice_engine::ExportRequest {
        folder: out.clone(),
        format: revoice_engine::dub::export::ExportFormat::Wav,
        loudness: revoice_engine::dub::export::LoudnessSpec::parse("ebu").unwrap(),
        selection: Default::default(),
    };
    let tracks = engine.export_project(project.id, &request, &mut |_| {}).unwrap().tracks;
    assert_eq!(tracks.len(), 1);
    let mix = &tracks[0].report.files[0];
    assert!(mix.path.is_file() && mix.path.extension().is_some_and(|e| e == "wav"), "{:?}", tracks[0].report.files);
    assert!(tracks[0].report.duration_s > 12.0, "the programme holds the four lines");
}

#[test]
fn takes_are_checked_by_ear_a_cut_or_silent_take_is_flagged_and_an_edited_line_is_heard_again() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let engine = rt.block_on(Engine::open(config)).unwrap();
    let (project, track) = rt.block_on(engine.create_project("Tight", "en-US")).unwrap();
    // The second slot is far too short for its line, and strict slot (picked knowingly: only it
    // cuts words) must cut it where its slot ends, inside a word.
    let srt = "1\n00:00:00,500 --> 00:00:03,000\nThe boats are in.\n\n2\n00:00:03,200 --> 00:00:05,040\nFine. I'll check the lamps along the whole pier tonight.\n\n3\n00:00:05,090 --> 00:00:07,500\nThen we are done.\n";
    let cues = parse_srt(srt, "tight.srt").unwrap();
    rt.block_on(engine.store().import_cues(&track, &cues)).unwrap();
    rt.block_on(engine.store().set_timing_strategy(project.id, "strict_slot")).unwrap();
    let never = AtomicBool::new(false);
    let summary = engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty(), "{:?}", summary.failed);

    let heard_only = |again: bool| ListenRequest { only: None, again, retake: false };
    let mut seen = Vec::new();
    let checked = engine
        .listen_back(project.id, &heard_only(false), &never, &mut |event| {
            if let ListenEvent::Checked { done, total, .. } = event {
                seen.push((done, total));
            }
        })
        .unwrap();
    assert_eq!(seen.last(), Some(&(3, 3)));
    assert_eq!(checked.len(), 3);
    assert!(checked[0].passed() && checked[2].passed(), "{checked:#?}");
    let cut = &checked[1];
    assert!(!cut.passed(), "a line cut to a fraction of itself fails: {cut:?}");
    assert!(cut.problems.iter().any(|p| p.contains("lost its last words") && p.contains("the fit's cut")), "{:?}", cut.problems);
    // The cut was planned inside a word; it fell back to the last pause before it.
    let tight = rt.block_on(engine.track_lines(track.id)).unwrap();
    let planned = tight.lines[1].placement(&tight.limits).unwrap();
    let fitted = tight.fit(engine.segments(), 1, PROGRAMME_RATE).unwrap().unwrap();
    let Stored::Audio(rendered) = engine.segments().get(&tight.lines[1].take_key().unwrap(), PROGRAMME_RATE).unwrap() else { panic!("the take is on disk") };
    let levels = FrameLevels::of(&rendered, PROGRAMME_RATE);
    let (from, to) = cut_span(&planned).unwrap();
    assert!(!levels.is_silent_between(from, to), "the room runs out inside a word: {planned:?}");
    assert!(fitted.placement.trimmed_to.unwrap() < planned.trimmed_to.unwrap(), "cut moved back: {:?} vs {planned:?}", fitted.placement);
    let (from, to) = cut_span(&fitted.placement).unwrap();
    assert!(levels.is_silent_between(from, to), "the cut's fade is in a pause: {:?}", fitted.placement);
    assert_eq!(fitted.audio.len(), (planned.length * PROGRAMME_RATE as f64).round() as usize, "the line keeps its place on the timeline");
    let heard_words = revoice_engine::text::word_errors::word_errors("Fine. I'll check the lamps along the whole pier tonight.", &cut.heard);
    assert_eq!((heard_words.substitutions, heard_words.insertions), (0, 0), "only whole words, the first ones, are heard: {:?}", cut.heard);
    // Stored: asked again, nothing is heard again and the same verdicts come back.
    let again = engine.listen_back(project.id, &heard_only(false), &never, &mut |_| {}).unwrap();
    assert!(again.iter().all(|l| !l.fresh));
    assert_eq!(again.iter().map(|l| l.passed()).collect::<Vec<_>>(), vec![true, false, true]);
    let failing = rt.block_on(engine.failing_checks(project.id)).unwrap();
    assert_eq!(failing.len(), 1);
    assert_eq!(failing[0].0, cut.segment_id);

    // A failing line heard afresh is taken again once on a fresh seed; it
    // still cannot fit, so it stays flagged, with the better take in use.
    let retaken = engine.listen_back(project.id, &ListenRequest { only: Some(vec![cut.segment_id]), again: true, retake: true }, &never, &mut |_| {}).unwrap();
    assert_eq!(retaken.len(), 1);
    assert!(retaken[0].retaken && !retaken[0].passed(), "{retaken:?}");
    let takes = rt.block_on(engine.store().takes(cut.segment_id)).unwrap();
    assert_eq!(takes.len(), 2, "the re-take is kept beside the first take");
    let active = rt.block_on(engine.store().segment(cut.segment_id)).unwrap().active_take_id;
    assert_eq!(active, Some(retaken[0].take_id));
    assert_eq!(rt.block_on(engine.failing_checks(project.id)).unwrap().len(), 1);

    // A take whose audio went silent on disk fails as silent when heard again.
    let lines = rt.block_on(engine.track_lines(track.id)).unwrap();
    let first = &lines.lines[0];
    let key = first.take_key().unwrap();
    let rate = engine.speech().unwrap().sample_rate();
    let Stored::Audio(first_audio) = engine.segments().get(&key, rate).unwrap() else { panic!("the first take is on disk") };
    engine.segments().put(&key, &vec![0.0; rate as usize * 2], rate).unwrap();
    let silent = engine.listen_back(project.id, &heard_only(true), &never, &mut |_| {}).unwrap();
    assert!(silent[0].problems.iter().any(|p| p.starts_with("silent")), "{:?}", silent[0]);

    // Corrupted takes are flagged and taken again: the first still silent, the last holding
    // the first 40 % of another line's words (truncated, and the wrong text). Fresh takes pass.
    let last = &lines.lines[2];
    engine.segments().put(&last.take_key().unwrap(), &first_audio[..first_audio.len() * 2 / 5], rate).unwrap();
    let corrupted = Some(vec![first.segment.id, last.segment.id]);
    let mut retaking = Vec::new();
    let mended = engine
        .listen_back(project.id, &ListenRequest { only: corrupted, again: true, retake: true }, &never, &mut |event| {
            if let ListenEvent::Retaking { segment_id } = event {
                retaking.push(segment_id);
            }
        })
        .unwrap();
    assert_eq!(retaking, [first.segment.id, last.segment.id]);
    assert!(mended.iter().all(|l| l.retaken && l.passed() && l.fresh), "{mended:#?}");
    for line in [first, last] {
        assert_eq!(rt.block_on(engine.store().takes(line.segment.id)).unwrap().len(), 2, "the corrupted take stays beside the new one");
    }

    // The line edited and rendered again: its new take is heard and passes.
    rt.block_on(engine.edit_line(first.segment.id, revoice_engine::LineEdit { text: Some("The boats are in at last.".into()), ..Default::default() })).unwrap();
    engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    let after = engine.listen_back(project.id, &heard_only(false), &never, &mut |_| {}).unwrap();
    assert!(after[0].fresh && after[0].passed(), "{:?}", after[0]);
    assert!(!after[2].fresh);
}

#[test]
fn takes_heard_while_the_render_goes_on_are_stored_and_a_failing_one_is_taken_again_after_it() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let dir = revoice_tests::data::scratch_data_dir();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let engine = std::sync::Arc::new(rt.block_on(Engine::open(config)).unwrap());
    let (project, track) = rt.block_on(engine.create_project("Heard as rendered", "en-US")).unwrap();
    // As above: strict slot cuts the second line inside its words, so it fails however often it is taken.
    let srt = "1\n00:00:00,500 --> 00:00:03,000\nThe boats are in.\n\n2\n00:00:03,200 --> 00:00:05,040\nFine. I'll check the lamps along the whole pier tonight.\n\n3\n00:00:05,090 --> 00:00:07,500\nThen we are done.\n";
    rt.block_on(engine.store().import_cues(&track, &parse_srt(srt, "tight.srt").unwrap())).unwrap();
    rt.block_on(engine.store().set_timing_strategy(project.id, "strict_slot")).unwrap();
    let never = std::sync::Arc::new(AtomicBool::new(false));
    let (mut finished, mut verdicts, mut retaking) = (Vec::new(), Vec::new(), Vec::new());
    let outcome = engine
        .render_and_listen(project.id, &RenderScope::default(), &never, &mut |p| finished.extend(p.finished), &mut |event| match event {
            ListenEvent::Checked { line, .. } => verdicts.push(line.segment_id),
            ListenEvent::Retaking { segment_id } => retaking.push(segment_id),
        })
        .unwrap();
    assert_eq!(outcome.render.rendered, 3);
    assert_eq!(finished.len(), 3);
    let lines = rt.block_on(engine.store().segments(track.id)).unwrap();
    let passed: Vec<(i64, bool)> =
        lines.iter().map(|l| (l.id, outcome.heard.iter().find(|h| h.segment_id == l.id).expect("every line heard").passed())).collect();
    assert_eq!(passed.iter().map(|p| p.1).collect::<Vec<_>>(), vec![true, false, true], "{:#?}", outcome.heard);
    assert_eq!(retaking, vec![lines[1].id], "the failing line, and only it, is taken again once the render is done");
    assert!(outcome.heard.iter().any(|h| h.segment_id == lines[1].id && h.retaken));
    assert!(verdicts.len() >= 3 && lines.iter().all(|l| verdicts.contains(&l.id)), "every verdict reached the caller: {verdicts:?}");
    // The verdicts are stored: listening back again hears nothing.
    let again = engine.listen_back(project.id, &ListenRequest { only: None, again: false, retake: false }, &never, &mut |_| {}).unwrap();
    assert!(again.iter().all(|l| !l.fresh), "{again:#?}");
}
