//! The editor's session: a render tells the window each line's state as it
//! goes (queued, rendering, ready) and when it has finished; one render at
//! a time; the view after it shows every line ready; a cancelled render
//! stops and says so.

use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::Duration;

use revoice_engine::studio::session::{StudioEvent, StudioSession};
use revoice_engine::studio::view::SegmentState;

use crate::Scene;

fn session(scene: &Scene) -> (Arc<StudioSession>, Receiver<StudioEvent>) {
    let (tx, events) = channel();
    let session = StudioSession::new(scene.engine.clone(), Arc::new(move |e| drop(tx.send(e)))).unwrap();
    (session, events)
}

fn until_finished(events: &Receiver<StudioEvent>) -> Vec<StudioEvent> {
    let mut seen = Vec::new();
    loop {
        let event = events.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("no renderFinished; saw {seen:?}"));
        let done = matches!(event, StudioEvent::RenderFinished { .. });
        seen.push(event);
        if done {
            return seen;
        }
    }
}

#[test]
fn a_render_reports_each_line_queued_rendering_and_ready_and_the_view_agrees() {
    let scene = Scene::new();
    let (session, events) = session(&scene);
    scene.model.hold();
    session.render(scene.project, None).unwrap();
    let refused = session.render(scene.project, None).unwrap_err();
    assert_eq!(refused.kind(), revoice_engine::ErrorKind::Conflict, "one render at a time: {refused}");
    scene.model.open();
    let seen = until_finished(&events);
    for line in scene.lines() {
        let states: Vec<SegmentState> = seen
            .iter()
            .filter_map(|e| match e {
                StudioEvent::SegmentState { segment_id, state, .. } if *segment_id == line => Some(*state),
                _ => None,
            })
            .collect();
        assert_eq!(states, vec![SegmentState::Queued, SegmentState::Rendering, SegmentState::Ready], "line {line}");
    }
    assert!(matches!(seen.last(), Some(StudioEvent::RenderFinished { rendered: 3, failed: 0, cancelled: false, error: None, .. })), "{:?}", seen.last());
    let view = scene.run(session.view(scene.project)).unwrap();
    assert!(view.tracks[0].segments.iter().all(|s| s.state == SegmentState::Ready && s.fit.is_some()));
    assert_eq!(session.rendering(), None);
}

#[test]
fn a_cancelled_render_stops_and_leaves_the_rest_stale() {
    let scene = Scene::new();
    let (session, events) = session(&scene);
    scene.model.hold();
    session.render(scene.project, None).unwrap();
    assert!(session.cancel_render());
    scene.model.open();
    let seen = until_finished(&events);
    let Some(StudioEvent::RenderFinished { cancelled, rendered, .. }) = seen.last() else { panic!("{seen:?}") };
    assert!(*cancelled && *rendered < 3, "{seen:?}");
    let view = scene.run(session.view(scene.project)).unwrap();
    assert!(view.tracks[0].segments.iter().any(|s| s.state == SegmentState::Stale), "what did not render stays stale");
}

/// Waits until the playing programme's lines pass `accept`; returns them.
fn heard_next(session: &StudioSession, what: &str, accept: impl Fn(&[(i64, f64)]) -> bool) -> Vec<(i64, f64)> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let clips: Vec<(i64, f64)> = session.playing_lines().unwrap().iter().map(|c| (c.segment_id, c.start)).collect();
        if accept(&clips) {
            return clips;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: the programme holds {clips:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn what_plays_follows_every_edit_delete_merge_insert_undo_and_redo_made_anywhere() {
    let scene = Scene::new();
    let (session, events) = session(&scene);
    session.render(scene.project, None).unwrap();
    until_finished(&events);
    let [a, b, c] = scene.lines()[..] else { panic!("three lines") };
    let ids = |clips: &[(i64, f64)]| clips.iter().map(|c| c.0).collect::<Vec<_>>();
    session.play(scene.project, scene.track, 0.0, Some((0.0, 8.0))).unwrap();
    heard_next(&session, "every line laid", |clips| ids(clips) == [a, b, c]);
    let sound_of = |id: i64| session.playing_lines().unwrap().into_iter().find(|c| c.segment_id == id).map(|c| c.fingerprint);
    let b_sound = sound_of(b).expect("b plays");

    // Edits made on the engine itself (as the CLI or the API would): no face tells playback.
    scene.run(scene.engine.delete_line(b)).unwrap();
    heard_next(&session, "the deleted line gone", |clips| ids(clips) == [a, c]);
    scene.run(scene.engine.undo(scene.project)).unwrap();
    heard_next(&session, "the line back on undo", |clips| ids(clips) == [a, b, c]);
    assert_eq!(sound_of(b).as_ref(), Some(&b_sound), "the undone delete brings back the very samples");
    scene.run(scene.engine.redo(scene.project)).unwrap();
    heard_next(&session, "gone again on redo", |clips| ids(clips) == [a, c]);
    scene.run(scene.engine.undo(scene.project)).unwrap();
    heard_next(&session, "back again", |clips| ids(clips) == [a, b, c]);

    // A slot moved: the line plays from its new place.
    scene.run(scene.engine.edit_line(c, revoice_engine::LineEdit { start: Some(6.0), end: Some(8.0), ..Default::default() })).unwrap();
    heard_next(&session, "the moved line at 6 s", |clips| clips.iter().any(|&(id, start)| id == c && (start - 6.0).abs() < 0.01));

    // Merged: the second line goes into the first (which plays its earlier take until it renders again).
    let merged = scene.run(scene.engine.merge_lines(a, c)).unwrap();
    assert_eq!(merged.id, a);
    heard_next(&session, "the merged-away line gone", |clips| ids(clips) == [a, b]);
    let before = session.playing_lines().unwrap();
    assert!(before.iter().all(|c| c.peak > 0.0 && c.fingerprint.len() == 16), "{before:?}");
    session.render(scene.project, None).unwrap();
    until_finished(&events);
    heard_next(&session, "the merged line, rendered", |clips| ids(clips) == [a, b]);
    assert_eq!(before.len(), 2);

    // Inserted: a new line has no take, so what plays is unchanged; deleting the line it played does change it.
    let inserted = scene.run(scene.engine.insert_line(scene.track, 9.0, None)).unwrap();
    scene.run(scene.engine.delete_line(b)).unwrap();
    let now = heard_next(&session, "after insert and delete", |clips| ids(clips) == [merged.id]);
    assert!(!ids(&now).contains(&inserted.id));
    session.stop().unwrap();
}
