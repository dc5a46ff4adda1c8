//! What a render takes: every stale line once, nothing that is current,
//! the lines it is asked for, in playhead order when asked, and a failing
//! line alone.

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::testing::{token_of, ScriptedModel};

use crate::Scene;

#[test]
fn a_render_synthesises_every_stale_line_once_and_then_nothing() {
    let scene = Scene::new();
    let first = scene.render();
    assert_eq!((first.segments, first.rendered, first.fresh), (3, 3, 0), "{first:?}");
    let rows = scene.model.rows_rendered();
    assert!(rows >= 3);
    let again = scene.render();
    assert_eq!((again.rendered, again.fresh, scene.model.rows_rendered()), (0, 3, rows), "nothing changed, nothing synthesised");
}

#[test]
fn editing_one_line_re_renders_that_line_alone_and_undo_renders_nothing() {
    let scene = Scene::new();
    scene.render();
    let lines = scene.lines();
    scene.retype(lines[1], "Light the other lamp.");
    let rows = scene.model.rows_rendered();
    let (summary, reports) = scene.render_scope(&RenderScope::default());
    assert_eq!(summary.rendered, 1);
    assert_eq!(reports[0].queued, vec![lines[1]], "only the edited line is queued");
    assert_eq!(scene.model.rows_rendered(), rows + 1);
    scene.run(scene.engine.undo(scene.project)).unwrap();
    let rows = scene.model.rows_rendered();
    assert_eq!((scene.render().rendered, scene.model.rows_rendered()), (0, rows), "the earlier take comes back");
}

#[test]
fn a_scope_takes_only_its_lines_and_from_a_time_the_playhead_reaches_them_first() {
    let scene = Scene::new();
    let lines = scene.lines();
    let (only, _) = scene.render_scope(&RenderScope { only: Some(vec![lines[2]]), from_s: None });
    assert_eq!((only.segments, only.rendered), (1, 1));
    for line in &lines {
        scene.retype(*line, "Changed, so it renders again.");
    }
    let (_, reports) = scene.render_scope(&RenderScope { only: None, from_s: Some(4.0) });
    assert_eq!(reports[0].queued, vec![lines[2], lines[0], lines[1]], "from 4 s: the line at 5.5 s, then the earlier ones in time order");
}

#[test]
fn a_placement_change_renders_nothing_but_fit_by_resynthesis_renders_every_line() {
    let scene = Scene::new();
    scene.render();
    scene.run(scene.engine.set_strategy(scene.project, revoice_engine::dub::timing::TimingStrategy::SmartFit)).unwrap();
    assert_eq!(scene.render().rendered, 0, "smart fit only places takes");
    scene.run(scene.engine.set_strategy(scene.project, revoice_engine::dub::timing::TimingStrategy::Resynthesize)).unwrap();
    assert_eq!(scene.render().rendered, 3, "the model is asked for each slot's length");
}

#[test]
fn a_line_the_model_fails_on_is_reported_and_the_others_still_render() {
    // "Measure" is the only line with the phoneme ʒ.
    let scene = Scene::with_model(ScriptedModel::new().failing_on(token_of('ʒ')));
    let lines = scene.lines();
    scene.retype(lines[0], "Measure it.");
    let summary = scene.render();
    assert_eq!(summary.rendered, 2);
    assert_eq!(summary.failed.len(), 1, "{summary:?}");
    assert_eq!(summary.failed[0].0, lines[0]);
    assert!(summary.failed[0].1.contains("token"), "{summary:?}");
}

#[test]
fn a_project_renders_once_at_a_time() {
    let scene = Scene::new();
    scene.model.hold();
    let engine = scene.engine.clone();
    let project = scene.project;
    let first = std::thread::spawn(move || engine.render_project(project, &RenderScope::default(), &std::sync::atomic::AtomicBool::new(false), &mut |_| {}));
    while !scene.engine.is_rendering(project) {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let refused = scene.engine.render_project(project, &RenderScope::default(), &std::sync::atomic::AtomicBool::new(false), &mut |_| {}).unwrap_err();
    assert_eq!(refused.kind(), revoice_engine::ErrorKind::Conflict, "{refused}");
    let deleting = scene.run(scene.engine.delete_project(project)).unwrap_err();
    assert_eq!(deleting.kind(), revoice_engine::ErrorKind::Conflict, "{deleting}");
    scene.model.open();
    assert_eq!(first.join().unwrap().unwrap().rendered, 3);
    assert!(!scene.engine.is_rendering(project));
}

#[test]
fn fit_by_resynthesis_speaks_no_faster_than_its_cap_and_places_what_is_left_whole() {
    let scene = Scene::new();
    scene.run(scene.engine.set_strategy(scene.project, revoice_engine::dub::timing::TimingStrategy::Resynthesize)).unwrap();
    let lines = scene.lines();
    // The second slot is 2 s; this line takes about 5 s at its own speed.
    scene.retype(
        lines[1],
        "Light the lamp on the pier, then walk down to the harbour and tell every one of the boats to come in before the storm arrives tonight.",
    );
    let natural = scene.engine.project_fits(scene.project).unwrap()[0].lines[1].spoken.unwrap();
    scene.render();
    let track = scene.run(scene.engine.track_lines(scene.track)).unwrap();
    let long = &track.lines[1];
    let take = long.take.as_ref().unwrap().duration_s;
    // The cap holds for the speech; the lead-in and the tail are not sped up.
    use revoice_engine::dub::take_shape::{LEAD_IN, TAIL};
    let fastest = (natural - LEAD_IN - TAIL) / 1.25 + LEAD_IN + TAIL;
    assert!((take - fastest).abs() < 0.01, "asked for no more than x1.25: {take:.3} s from {natural:.3} s");
    let placed = long.placement(&track.limits).unwrap();
    assert_eq!((placed.rate, placed.trimmed_to), (1.0, None), "{placed:?}");
    assert!(placed.overflow.is_some(), "what is still too long runs past its room, flagged: {placed:?}");
    // A line that fits at x1.25 or less is rendered to its slot.
    let short = &track.lines[0];
    assert!((short.take.as_ref().unwrap().duration_s - (short.slot.end - short.slot.start)).abs() < 0.01);
}
