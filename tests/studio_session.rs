//! The editor's session on the real model and a null audio device: a new
//! project shows every line stale; a render reports each line queued,
//! rendering and ready, then the view shows them placed; the lines rendered
//! are heard back (Whisper) and the view shows what was heard; an edited
//! line is the only stale one and the only one rendered and heard again; the timeline plays
//! with a measured time to first audio; an unrendered line previews.

use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::Duration;

use revoice_engine::studio::session::{StudioEvent, StudioSession};
use revoice_engine::studio::view::SegmentState;
use revoice_engine::{Engine, EngineConfig};

fn wait_for(events: &Receiver<StudioEvent>, what: &str, mut done: impl FnMut(&StudioEvent) -> bool) -> Vec<StudioEvent> {
    let mut seen = Vec::new();
    loop {
        match events.recv_timeout(Duration::from_secs(600)) {
            Ok(event) => {
                let last = done(&event);
                seen.push(event);
                if last {
                    return seen;
                }
            }
            Err(_) => panic!("no {what}; events so far: {seen:?}"),
        }
    }
}

#[test]
fn a_session_renders_plays_and_re_renders_only_the_edited_line() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    // A fresh data folder that borrows the installed models.
    let dir = revoice_tests::data::scratch_data_dir();
    let engine = Arc::new(rt.block_on(Engine::open(EngineConfig::load(Some(dir.path().to_path_buf())).unwrap())).unwrap());
    let store = engine.store();
    let (project, track) = rt.block_on(store.create_project("Session", "en-US")).unwrap();
    let cues = revoice_engine::subtitles::parse_srt(
        "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Light the lamp.\n\n3\n00:00:05,500 --> 00:00:07,000\n[Ana] It is lit.\n",
        "scene.srt",
    )
    .unwrap();
    rt.block_on(store.import_cues(&track, &cues)).unwrap();

    let (tx, events) = channel();
    let session = StudioSession::new(engine.clone(), Arc::new(move |e| drop(tx.send(e)))).unwrap();
    let view = rt.block_on(session.view(project.id)).unwrap();
    let lines = &view.tracks[0].segments;
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|s| s.state == SegmentState::Stale && s.fit.is_none()), "{lines:?}");
    assert!(!view.can_undo && view.speakers.len() == 2);

    session.render(project.id, None).unwrap();
    assert!(session.render(project.id, None).is_err(), "one render at a time");
    let seen = wait_for(&events, "end of the render", |e| matches!(e, StudioEvent::RenderFinished { .. }));
    for line in lines {
        let states: Vec<SegmentState> = seen
            .iter()
            .filter_map(|e| match e {
                StudioEvent::SegmentState { segment_id, state, .. } if *segment_id == line.id => Some(*state),
                _ => None,
            })
            .collect();
        assert_eq!(states, [SegmentState::Queued, SegmentState::Rendering, SegmentState::Ready], "line {}", line.id);
    }
    assert!(matches!(seen.last(), Some(StudioEvent::RenderFinished { rendered: 3, failed: 0, cancelled: false, error: None, .. })), "{:?}", seen.last());
    // Then the lines just rendered are heard back, each one reported.
    let seen = wait_for(&events, "end of listening back", |e| matches!(e, StudioEvent::ListenFinished { .. }));
    assert!(matches!(seen.last(), Some(StudioEvent::ListenFinished { checked: 3, failing: 0, retaken: 0, cancelled: false, error: None, .. })), "{seen:?}");
    let heard: Vec<i64> = seen
        .iter()
        .filter_map(|e| match e {
            StudioEvent::SegmentChecked { segment_id, check, retaken: false } if check.passed => Some(*segment_id),
            _ => None,
        })
        .collect();
    assert_eq!(heard, lines.iter().map(|l| l.id).collect::<Vec<_>>());
    let view = rt.block_on(session.view(project.id)).unwrap();
    for line in &view.tracks[0].segments {
        assert_eq!(line.state, SegmentState::Ready);
        let fit = line.fit.as_ref().expect("a rendered line is placed");
        assert!(fit.start >= line.start - 1e-9 && fit.end > fit.start, "{line:?}");
        let check = line.check.as_ref().expect("a line heard back shows what was heard");
        assert!(check.passed && !check.heard.is_empty(), "{line:?}");
    }

    // Edit the second line: it alone is stale, and it alone renders again.
    let second = view.tracks[0].segments[1].id;
    rt.block_on(store.edit_segment(second, "retype", |f| f.text = "Light the lamp now.".into())).unwrap();
    let view = rt.block_on(session.view(project.id)).unwrap();
    let states: Vec<SegmentState> = view.tracks[0].segments.iter().map(|s| s.state).collect();
    assert_eq!(states, [SegmentState::Ready, SegmentState::Stale, SegmentState::Ready]);
    assert!(view.can_undo);
    session.render(project.id, None).unwrap();
    let seen = wait_for(&events, "end of the second render", |e| matches!(e, StudioEvent::RenderFinished { .. }));
    assert!(matches!(seen.last(), Some(StudioEvent::RenderFinished { rendered: 1, fresh: 2, .. })), "{:?}", seen.last());
    let rendered: Vec<i64> = seen
        .iter()
        .filter_map(|e| match e {
            StudioEvent::SegmentState { segment_id, state: SegmentState::Ready, .. } => Some(*segment_id),
            _ => None,
        })
        .collect();
    assert_eq!(rendered, [second]);
    // Only the edited line is heard again; the others keep their checks.
    let seen = wait_for(&events, "end of the second listening", |e| matches!(e, StudioEvent::ListenFinished { .. }));
    assert!(matches!(seen.last(), Some(StudioEvent::ListenFinished { checked: 1, failing: 0, .. })), "{seen:?}");
    let view = rt.block_on(session.view(project.id)).unwrap();
    assert!(view.tracks[0].segments.iter().all(|s| s.check.as_ref().is_some_and(|c| c.passed)), "{view:?}");

    // Play the timeline (looped: the null device is not paced, so one pass
    // would end at once): voice once the first line is laid.
    session.play(project.id, track.id, 0.0, Some((0.0, 7.0))).unwrap();
    let seen = wait_for(&events, "first voice", |e| matches!(e, StudioEvent::Playback(p) if p.first_voice_ms.is_some()));
    let Some(StudioEvent::Playback(state)) = seen.last() else { unreachable!() };
    assert_eq!(state.project_id, Some(project.id));
    assert!(state.first_sound_ms.is_some() && state.length >= 7.0 && state.looping == Some((0.0, 7.0)), "{state:?}");
    session.pause().unwrap();
    session.seek(5.5).unwrap();
    let seen = wait_for(&events, "a pause at 5.5 s", |e| matches!(e, StudioEvent::Playback(p) if !p.playing && (p.position - 5.5).abs() < 1e-6));
    assert!(!seen.is_empty());
    session.stop().unwrap();

    // A new line previews while it renders, and is kept as its take.
    let added = revoice_engine::subtitles::parse_srt("1\n00:00:08,000 --> 00:00:10,000\n[Ben] And now we wait.\n", "more.srt").unwrap();
    rt.block_on(store.import_cues(&track, &added)).unwrap();
    let new_line = rt.block_on(session.view(project.id)).unwrap().tracks[0].segments[3].id;
    session.preview(new_line).unwrap();
    let seen = wait_for(&events, "end of the preview", |e| matches!(e, StudioEvent::PreviewFinished { .. }));
    assert!(matches!(seen.last(), Some(StudioEvent::PreviewFinished { first_sound_ms: Some(_), error: None, .. })), "{:?}", seen.last());
    assert_eq!(rt.block_on(session.view(project.id)).unwrap().tracks[0].segments[3].state, SegmentState::Ready);
}

/// What the Voices page's play button runs: a preview of the voice saying
/// its language's sample. Every Japanese and Mandarin stock voice speaks
/// its own (they used to fail, their language unread).
#[test]
fn japanese_and_mandarin_voices_preview_their_language() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = revoice_tests::data::scratch_data_dir();
    let engine = Arc::new(runtime.block_on(Engine::open(EngineConfig::load(Some(dir.path().to_path_buf())).unwrap())).unwrap());
    let (tx, events) = channel();
    let session = StudioSession::new(engine, Arc::new(move |e| drop(tx.send(e)))).unwrap();
    for voice in ["jf_alpha", "jm_kumo", "zf_xiaobei", "zm_yunjian"] {
        session.preview_voice(voice.to_string()).unwrap();
        let seen = wait_for(&events, "the preview's end", |e| matches!(e, StudioEvent::VoicePreviewFinished { .. }));
        match seen.last() {
            Some(StudioEvent::VoicePreviewFinished { voice: v, error: None, .. }) => assert_eq!(v, voice),
            other => panic!("{voice}: {other:?}"),
        }
    }
}
