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
