//! What the editor's view says: stale until rendered, ready and placed
//! after, stale again when edited; and what it calls stale is exactly what
//! a render then synthesises (the view and render scope read one resolved
//! track).

use std::collections::BTreeSet;

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::studio::view::{project_view, LiveStates, SegmentState};
use revoice_engine::LineEdit;

use crate::Scene;

fn view(scene: &Scene, live: &LiveStates) -> revoice_engine::studio::view::ProjectView {
    let tracks = scene.run(scene.engine.project_lines(scene.project)).unwrap();
    scene.run(project_view(scene.engine.store(), &tracks, scene.project, live)).unwrap()
}

fn stale(scene: &Scene) -> BTreeSet<i64> {
    view(scene, &LiveStates::new()).tracks[0].segments.iter().filter(|s| s.state != SegmentState::Ready).map(|s| s.id).collect()
}

#[test]
fn lines_are_stale_until_rendered_then_ready_and_placed_then_stale_when_edited() {
    let scene = Scene::new();
    let before = view(&scene, &LiveStates::new());
    assert!(before.tracks[0].segments.iter().all(|s| s.state == SegmentState::Stale && s.fit.is_none()));
    assert_eq!(before.speakers.len(), 2);
    assert!(!before.can_undo);
    scene.render();
    let after = view(&scene, &LiveStates::new());
    let lines = &after.tracks[0].segments;
    assert!(lines.iter().all(|s| s.state == SegmentState::Ready), "{lines:?}");
    let fit = lines[1].fit.as_ref().expect("placed once rendered");
    assert_eq!((fit.start, fit.rate, fit.trimmed), (3.0, 1.0, false));
    assert!(after.length >= 7.5);
    scene.retype(lines[1].id, "Light the lamp, please.");
    let edited = view(&scene, &LiveStates::new());
    let states: Vec<SegmentState> = edited.tracks[0].segments.iter().map(|s| s.state).collect();
    assert_eq!(states, vec![SegmentState::Ready, SegmentState::Stale, SegmentState::Ready]);
    assert!(edited.can_undo);
}

#[test]
fn a_running_jobs_states_show_over_the_stored_ones() {
    let scene = Scene::new();
    let lines = scene.lines();
    let live: LiveStates =
        [(lines[0], (SegmentState::Rendering, None)), (lines[2], (SegmentState::Failed, Some("the model stopped".into())))].into_iter().collect();
    let shown = view(&scene, &live);
    let segments = &shown.tracks[0].segments;
    assert_eq!(segments[0].state, SegmentState::Rendering);
    assert_eq!((segments[2].state, segments[2].error.as_deref()), (SegmentState::Failed, Some("the model stopped")));
    assert_eq!(segments[1].state, SegmentState::Stale);
}

#[test]
fn what_the_view_calls_stale_is_exactly_what_a_render_synthesises() {
    let scene = Scene::new();
    let lines = scene.lines();
    let speakers = scene.run(scene.engine.store().speakers(scene.project)).unwrap();
    type Edit<'a> = Box<dyn Fn(&Scene) + 'a>;
    let edits: Vec<Edit> =
        vec![
            Box::new(|_| {}),
            Box::new(|s: &Scene| s.retype(lines[0], "The boats are all in.")),
            Box::new(|s: &Scene| drop(s.run(s.engine.edit_line(lines[1], LineEdit { speed: Some(1.25), ..Default::default() })).unwrap())),
            Box::new(|s: &Scene| drop(s.run(s.engine.edit_line(lines[2], LineEdit { gain_db: Some(-3.0), ..Default::default() })).unwrap())),
            Box::new(|s: &Scene| drop(s.run(s.engine.set_speaker_voice(s.project, speakers[0].id, "af_bella", None)).unwrap())),
            Box::new(|s: &Scene| {
                drop(
                    s.run(s.engine.edit_line(
                        lines[1],
                        LineEdit { strategy: Some(Some(revoice_engine::dub::timing::TimingStrategy::Resynthesize)), ..Default::default() },
                    ))
                    .unwrap(),
                )
            }),
            Box::new(|s: &Scene| drop(s.run(s.engine.undo(s.project)).unwrap())),
            Box::new(|s: &Scene| drop(s.run(s.engine.edit_line(lines[0], LineEdit { start: Some(0.25), end: Some(2.25), ..Default::default() })).unwrap())),
        ];
    for (i, edit) in edits.iter().enumerate() {
        edit(&scene);
        let said = stale(&scene);
        let (summary, reports) = scene.render_scope(&RenderScope::default());
        let rendered: BTreeSet<i64> = reports[0].queued.iter().copied().collect();
        assert_eq!(said, rendered, "step {i}: the view's stale lines are the ones the render takes");
        assert_eq!(summary.rendered, rendered.len(), "step {i}");
        assert!(stale(&scene).is_empty(), "step {i}: everything ready after the render");
    }
}

#[test]
fn a_line_its_voice_cannot_read_is_flagged_naming_the_script_before_any_render() {
    use revoice_engine::dub::flags::LineFlag;
    let scene = Scene::new();
    let lines = scene.lines();
    scene.retype(lines[0], "Light the 灯塔 tonight.");
    let flags = view(&scene, &LiveStates::new()).tracks[0].segments[0].flags.clone();
    let Some(LineFlag::Unreadable { script, letters, voice }) = flags.first() else { panic!("{flags:?}") };
    assert_eq!((script.as_str(), letters.as_str()), ("Han (Chinese characters)", "灯塔"));
    assert!(voice.starts_with("af_") || voice.starts_with("am_") || voice.starts_with("bf_") || voice.starts_with("bm_"), "an English voice: {voice}");
    assert!(flags[0].describe().contains("cannot read its Han"), "{}", flags[0].describe());
    // Written in letters it reads, the flag goes.
    scene.retype(lines[0], "Light the lighthouse tonight.");
    assert!(view(&scene, &LiveStates::new()).tracks[0].segments[0].flags.is_empty());
}

#[test]
fn a_line_too_long_for_its_slot_is_flagged_before_any_render_and_never_called_ready() {
    use revoice_engine::dub::flags::LineFlag;
    let scene = Scene::new();
    scene.run(scene.engine.set_strategy(scene.project, revoice_engine::dub::timing::TimingStrategy::SmartFit)).unwrap();
    let lines = scene.lines();
    scene.retype(
        lines[1],
        "Light the lamp on the pier, then walk down to the harbour and tell every one of the boats to come in before the storm arrives tonight.",
    );
    // Not predicted yet: nothing is known or flagged.
    let unknown = view(&scene, &LiveStates::new());
    assert!(unknown.tracks[0].segments.iter().all(|s| s.spoken.is_none() && s.flags.is_empty()));

    // Predicted (no row rendered): the long line doesn't fit by what its placement overflows.
    let fits = scene.engine.project_fits(scene.project).unwrap();
    assert_eq!((scene.model.rows_rendered(), scene.model.rows_predicted() > 0), (0, true));
    let long = &fits[0].lines[1];
    let spoken = long.spoken.unwrap();
    let shortfall = long.shortfall.expect("it cannot fit");
    // Room: from the first line's end + the guard (2.6 s) to the third's start - the guard (5.4 s), at x1.25.
    assert!((shortfall - (spoken / 1.25 - 2.8)).abs() < 1e-6, "{long:?}");
    assert!(fits[0].lines[0].shortfall.is_none() && fits[0].lines[2].shortfall.is_none());
    let before = view(&scene, &LiveStates::new());
    let segments = &before.tracks[0].segments;
    assert_eq!(
        segments[1].flags,
        vec![LineFlag::DoesntFit { seconds: shortfall }, LineFlag::Overlap { seconds: segments[1].planned.as_ref().unwrap().overlap.unwrap() }]
    );
    let planned = segments[1].planned.as_ref().unwrap();
    assert!((planned.start - 2.6).abs() < 1e-9 && (planned.rate - 1.25).abs() < 1e-9 && !planned.trimmed, "{planned:?}");
    assert!(segments[0].flags.is_empty() && segments[0].planned.is_some());

    // Asked again, nothing is predicted again; rendered, it stays flagged, placed as planned and whole.
    let predicted = scene.model.rows_predicted();
    scene.engine.project_fits(scene.project).unwrap();
    assert_eq!(scene.model.rows_predicted(), predicted);
    scene.render();
    let after = view(&scene, &LiveStates::new());
    let line = &after.tracks[0].segments[1];
    assert_eq!(line.state, SegmentState::Ready);
    assert!(matches!(line.flags[0], LineFlag::DoesntFit { .. }), "{:?}", line.flags);
    let fit = line.fit.as_ref().unwrap();
    assert!((fit.start - planned.start).abs() < 1e-6 && (fit.end - planned.end).abs() < 1e-6 && !fit.trimmed, "{fit:?} against {planned:?}");
    assert_eq!(line.spoken, Some(spoken));

    // An export lists it; a strict one refuses, naming it, and writes nothing.
    let out = tempfile::tempdir().unwrap();
    let request = |refuse_flagged: bool| revoice_engine::ExportRequest {
        folder: out.path().join(if refuse_flagged { "strict" } else { "listed" }),
        format: revoice_engine::dub::export::ExportFormat::Wav,
        loudness: revoice_engine::dub::export::LoudnessSpec::parse("ebu").unwrap(),
        selection: revoice_engine::dub::export::ExportSelection { refuse_flagged, ..Default::default() },
    };
    let refused = scene.engine.export_project(scene.project, &request(true), &mut |_| {}).unwrap_err();
    assert_eq!(refused.kind(), revoice_engine::ErrorKind::InvalidInput);
    assert!(refused.to_string().contains("1 lines are flagged: line 2") && refused.to_string().contains("doesn't fit"), "{refused}");
    assert!(!out.path().join("strict").exists() || std::fs::read_dir(out.path().join("strict")).unwrap().next().is_none());
    let listed = scene.engine.export_project(scene.project, &request(false), &mut |_| {}).unwrap();
    assert_eq!(listed.flagged.iter().map(|l| (l.segment_id, l.number)).collect::<Vec<_>>(), vec![(lines[1], 2)]);
}
