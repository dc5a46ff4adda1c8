//! The timeline's own edits: a lane's mix (solo, mute, level) heard in the
//! exported mix and in playback's programme without any synthesis, markers
//! carried into the handoff files, find and replace as one edit, and a
//! line's slot, the project's strategy and its timecode rate on the same undo history.

use revoice_engine::dub::assemble::assemble_track;
use revoice_engine::dub::mix::MixSettings;
use revoice_engine::dub::player::empty_programme;
use revoice_engine::dub::programme::{Cursor, OriginalMonitor, Programme};
use revoice_engine::dub::PROGRAMME_RATE;
use revoice_engine::studio::view::{project_view, LiveStates, ProjectView};
use revoice_engine::{ErrorKind, LaneMixEdit, LineEdit, ReplaceOptions};

use crate::Scene;

fn peak(samples: &[f32], from_s: f64, to_s: f64) -> f32 {
    let at = |s: f64| ((s * PROGRAMME_RATE as f64) as usize).min(samples.len());
    samples[at(from_s)..at(to_s)].iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// The exported mix's voice, and the voice playback hears, as the project stands.
fn voices(scene: &Scene) -> (Vec<f32>, Vec<f32>, usize) {
    let lines = scene.run(scene.engine.track_lines(scene.track)).unwrap();
    let assembled = assemble_track(&lines, scene.engine.segments(), PROGRAMME_RATE, &MixSettings::default()).unwrap();
    let mut programme = empty_programme(&lines.project, &lines, &MixSettings::default(), OriginalMonitor::Off).unwrap();
    for i in 0..lines.lines.len() {
        let line = lines.fit(scene.engine.segments(), i, PROGRAMME_RATE).unwrap().unwrap();
        programme.set_clip(line.segment_id, line.lane, line.start, line.audio);
    }
    (assembled.mix.voice, played(&programme), assembled.cues.len())
}

fn played(programme: &Programme) -> Vec<f32> {
    let mut cursor = Cursor::new(programme);
    let (mut mixed, mut voice) = (vec![0f32; programme.len()], vec![0f32; programme.len()]);
    let n = cursor.render(programme, &mut mixed, &mut voice);
    voice.truncate(n);
    voice
}

fn view(scene: &Scene) -> ProjectView {
    let tracks = scene.run(scene.engine.project_lines(scene.project)).unwrap();
    scene.run(project_view(scene.engine.store(), &tracks, scene.project, &LiveStates::new())).unwrap()
}

/// Ana speaks at 0.5–2.5 s and 5.5–7.5 s, Ben at 3–5 s.
const ANA: (f64, f64) = (0.6, 0.9);
const BEN: (f64, f64) = (3.1, 3.4);

#[test]
fn a_soloed_lane_alone_sounds_a_muted_one_never_and_a_level_scales_it_in_export_and_playback_and_undo_restores() {
    let scene = Scene::new();
    scene.render();
    let rows = scene.model.rows_rendered();
    let ana = scene.run(scene.engine.speaker_named(scene.project, "Ana")).unwrap().id;
    let ben = scene.run(scene.engine.speaker_named(scene.project, "Ben")).unwrap().id;
    let (exported, heard, cues) = voices(&scene);
    assert_eq!(cues, 3);
    let (ana_peak, ben_peak) = (peak(&exported, ANA.0, ANA.1), peak(&exported, BEN.0, BEN.1));
    assert!(ana_peak > 0.05 && ben_peak > 0.05, "{ana_peak} {ben_peak}");
    assert!(exported.iter().zip(&heard).all(|(a, b)| (a - b).abs() < 1e-6), "playback hears the export's voice");

    let lane = |speaker: Option<i64>, edit: LaneMixEdit| scene.run(scene.engine.set_lane_mix(scene.project, speaker, edit)).unwrap();
    lane(Some(ana), LaneMixEdit { solo: Some(true), ..Default::default() });
    let (exported, heard, cues) = voices(&scene);
    for voice in [&exported, &heard] {
        assert_eq!(peak(voice, ANA.0, ANA.1), ana_peak, "the soloed lane as it was");
        assert_eq!(peak(voice, BEN.0, BEN.1), 0.0, "only the soloed lane sounds");
    }
    assert_eq!(cues, 2, "the silent lane's line is not in the subtitles");
    let v = view(&scene);
    let (ana_view, ben_view) = (v.speakers.iter().find(|s| s.id == ana).unwrap(), v.speakers.iter().find(|s| s.id == ben).unwrap());
    assert!(ana_view.solo && ana_view.audible && !ben_view.audible && !v.no_speaker_lane.audible);

    lane(Some(ana), LaneMixEdit { solo: Some(false), ..Default::default() });
    lane(Some(ben), LaneMixEdit { muted: Some(true), ..Default::default() });
    lane(Some(ana), LaneMixEdit { level_db: Some(-6.0), ..Default::default() });
    let (exported, heard, _) = voices(&scene);
    for voice in [&exported, &heard] {
        assert_eq!(peak(voice, BEN.0, BEN.1), 0.0, "muted");
        let ratio = peak(voice, ANA.0, ANA.1) / ana_peak;
        assert!((ratio - 0.501).abs() < 0.002, "-6 dB halves the amplitude: {ratio}");
    }
    assert_eq!(scene.model.rows_rendered(), rows, "a lane is mixing, not synthesis");
    assert_eq!(scene.render().rendered, 0, "no line went stale");

    // A level out of range is refused by name and changes nothing.
    let refused = scene.run(scene.engine.set_lane_mix(scene.project, Some(ana), LaneMixEdit { level_db: Some(13.0), ..Default::default() })).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidInput);
    assert!(refused.to_string().contains("levelDb") && refused.to_string().contains("-60"), "{refused}");

    // Playback that is running hears the lanes as they are now (what the session does on a change).
    let lines = scene.run(scene.engine.track_lines(scene.track)).unwrap();
    let mut programme = empty_programme(&lines.project, &lines, &MixSettings::default(), OriginalMonitor::Off).unwrap();
    for i in 0..lines.lines.len() {
        let line = lines.fit(scene.engine.segments(), i, PROGRAMME_RATE).unwrap().unwrap();
        programme.set_clip(line.segment_id, line.lane, line.start, line.audio);
    }
    for expected in ["level -6.0 dB lane Ana", "mute lane Ben", "unsolo lane Ana", "solo lane Ana"] {
        assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some(expected));
    }
    programme.set_lanes(scene.run(scene.engine.track_lines(scene.track)).unwrap().lanes);
    let (exported, _, cues) = voices(&scene);
    assert_eq!((peak(&exported, ANA.0, ANA.1), peak(&exported, BEN.0, BEN.1), cues), (ana_peak, ben_peak, 3), "undone: every lane as it was");
    let heard = played(&programme);
    assert_eq!((peak(&heard, ANA.0, ANA.1), peak(&heard, BEN.0, BEN.1)), (ana_peak, ben_peak));
    scene.run(scene.engine.redo(scene.project)).unwrap();
    assert!(view(&scene).speakers.iter().find(|s| s.id == ana).unwrap().solo, "redone");
}

#[test]
fn markers_are_added_renamed_moved_and_removed_as_undoable_edits_and_reach_the_handoff_files() {
    let scene = Scene::new();
    let add = |at: f64, name: &str| scene.run(scene.engine.add_marker(scene.project, at, name)).unwrap();
    let storm = add(6.0, "Storm");
    let arrival = add(1.0, "  Arrival ");
    assert_eq!(arrival.name, "Arrival", "trimmed");
    let listed = |scene: &Scene| view(scene).markers.iter().map(|m| (m.at, m.name.clone())).collect::<Vec<_>>();
    assert_eq!(listed(&scene), [(1.0, "Arrival".to_string()), (6.0, "Storm".to_string())], "in time order");
    scene.run(scene.engine.rename_marker(storm.id, "The storm")).unwrap();
    scene.run(scene.engine.move_marker(storm.id, 0.5)).unwrap();
    assert_eq!(listed(&scene), [(0.5, "The storm".to_string()), (1.0, "Arrival".to_string())]);
    scene.run(scene.engine.remove_marker(arrival.id)).unwrap();
    assert_eq!(listed(&scene).len(), 1);
    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("remove marker \"Arrival\""));
    assert_eq!(listed(&scene), [(0.5, "The storm".to_string()), (1.0, "Arrival".to_string())], "undo brings it back");
    scene.run(scene.engine.undo(scene.project)).unwrap();
    scene.run(scene.engine.undo(scene.project)).unwrap();
    assert_eq!(listed(&scene), [(1.0, "Arrival".to_string()), (6.0, "Storm".to_string())], "moved and renamed back");
    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("add marker \"Arrival\""));
    assert_eq!(listed(&scene), [(6.0, "Storm".to_string())], "undoing an add removes it");
    scene.run(scene.engine.redo(scene.project)).unwrap();
    assert_eq!(listed(&scene).len(), 2);

    for (at, name) in [(-1.0, "Early"), (f64::NAN, "Never"), (1.0, "  ")] {
        let refused = scene.run(scene.engine.add_marker(scene.project, at, name)).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::InvalidInput, "{refused}");
        assert!(refused.to_string().contains("marker"), "{refused}");
    }

    scene.render();
    let out = tempfile::tempdir().unwrap();
    let request = revoice_engine::ExportRequest {
        folder: out.path().to_path_buf(),
        format: revoice_engine::dub::export::ExportFormat::Wav,
        loudness: revoice_engine::dub::export::LoudnessSpec::parse("ebu").unwrap(),
        selection: revoice_engine::dub::export::ExportSelection { handoff: revoice_engine::dub::handoff::HandoffFormat::ALL.to_vec(), ..Default::default() },
    };
    scene.engine.export_project(scene.project, &request, &mut |_| {}).unwrap();
    let read = |ext: &str| std::fs::read_to_string(out.path().join(format!("Harbour.en-US.{ext}"))).unwrap();
    let rpp = read("rpp");
    assert!(rpp.contains("MARKER 1 1.0000000000 Arrival 0") && rpp.contains("MARKER 2 6.0000000000 Storm 0"), "{rpp}");
    let otio: serde_json::Value = serde_json::from_str(&read("otio")).unwrap();
    let markers: Vec<(String, f64)> = otio["tracks"]["markers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap().to_string(), m["marked_range"]["start_time"]["value"].as_f64().unwrap()))
        .collect();
    assert_eq!(markers, [("Arrival".to_string(), 48_000.0), ("Storm".to_string(), 288_000.0)], "at the delivery's 48 kHz");
    let edl = read("edl");
    assert!(edl.contains("* LOC: 00:00:01:00 RED Arrival") && edl.contains("* LOC: 00:00:06:00 RED Storm"), "{edl}");
}

#[test]
fn find_and_replace_is_one_edit_that_makes_the_lines_it_changed_stale_and_undoes_at_once() {
    let scene = Scene::new();
    scene.render();
    let lines = scene.lines();
    let replace = |find: &str, with: &str, options: ReplaceOptions| scene.run(scene.engine.replace_text(scene.track, find, with, &options));
    let (count, changed) = replace("the", "a", ReplaceOptions { whole_word: true, ..Default::default() }).unwrap();
    assert_eq!((count, changed.iter().map(|s| s.id).collect::<Vec<_>>()), (2, lines[..2].to_vec()), "\"The boats\" and \"the lamp\": whole words, any case");
    let (count, changed) = replace("IS", "was", ReplaceOptions { match_case: true, ..Default::default() }).unwrap();
    assert_eq!((count, changed.len()), (0, 0), "matching case, nothing matches");
    let (count, _) = replace("is", "was", ReplaceOptions::default()).unwrap();
    assert_eq!(count, 1);
    let texts = |scene: &Scene| scene.run(scene.engine.store().segments(scene.track)).unwrap().into_iter().map(|s| s.fields.text).collect::<Vec<_>>();
    let after = texts(&scene);
    assert_eq!(after, ["a boats are in.", "Light a lamp.", "It was lit."]);
    let stale: Vec<_> = view(&scene).tracks[0].segments.iter().filter(|s| s.state == revoice_engine::studio::view::SegmentState::Stale).map(|s| s.id).collect();
    assert_eq!(stale, lines, "every line it changed goes stale");

    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("Replaced \"is\" with \"was\" in 1 line"));
    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("Replaced \"the\" with \"a\" in 2 lines"));
    assert_eq!(texts(&scene), ["The boats are in.", "Light the lamp.", "It is lit."], "one undo step each");
    assert_eq!(scene.render().rendered, 0, "undone, each line has its take again");

    // Limited to some lines; an empty find or a stray line is refused and changes nothing.
    let (count, _) = replace("the", "a", ReplaceOptions { only: Some(vec![lines[1]]), ..Default::default() }).unwrap();
    assert_eq!(count, 1);
    assert_eq!(texts(&scene)[0], "The boats are in.");
    let empty = replace("", "x", ReplaceOptions::default()).unwrap_err();
    assert!(empty.kind() == ErrorKind::InvalidInput && empty.to_string().contains("find"), "{empty}");
    let stray = replace("a", "b", ReplaceOptions { only: Some(vec![9999]), ..Default::default() }).unwrap_err();
    assert!(stray.to_string().contains("segment 9999"), "{stray}");
    let emptied = replace("It is lit.", " ", ReplaceOptions::default()).unwrap_err();
    assert!(emptied.to_string().contains("without text"), "{emptied}");
}

#[test]
fn a_lines_slot_and_the_projects_strategy_undo_on_one_history_in_order() {
    let scene = Scene::new();
    let line = scene.lines()[1];
    scene.run(scene.engine.edit_line(line, LineEdit { start: Some(3.2), end: Some(5.4), ..Default::default() })).unwrap();
    scene.run(scene.engine.set_strategy(scene.project, revoice_engine::dub::timing::TimingStrategy::StrictSlot)).unwrap();
    let slot = |scene: &Scene| {
        let f = scene.run(scene.engine.store().segment(line)).unwrap().fields;
        (f.start_s, f.end_s)
    };
    let strategy = |scene: &Scene| scene.run(scene.engine.store().project(scene.project)).unwrap().timing_strategy;
    assert_eq!((slot(&scene), strategy(&scene).as_str()), ((3.2, 5.4), "strict_slot"));
    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("timing strict slot"));
    assert_eq!((slot(&scene), strategy(&scene).as_str()), ((3.2, 5.4), "natural"));
    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("edit line (timing)"));
    assert_eq!(slot(&scene), (3.0, 5.0));
    scene.run(scene.engine.redo(scene.project)).unwrap();
    scene.run(scene.engine.redo(scene.project)).unwrap();
    assert_eq!((slot(&scene), strategy(&scene).as_str()), ((3.2, 5.4), "strict_slot"));
}

#[test]
fn the_projects_timecode_rate_is_an_edit_that_undoes_and_redoes() {
    let scene = Scene::new();
    let rate = |scene: &Scene| scene.run(scene.engine.frame_rate(scene.project)).unwrap().name().to_string();
    assert_eq!(rate(&scene), "25");
    scene.run(scene.engine.set_frame_rate(scene.project, "29.97df")).unwrap();
    assert_eq!(rate(&scene), "29.97df");
    assert_eq!(scene.run(scene.engine.undo(scene.project)).unwrap().as_deref(), Some("timecode at 29.97df"));
    assert_eq!(rate(&scene), "25");
    scene.run(scene.engine.redo(scene.project)).unwrap();
    assert_eq!(rate(&scene), "29.97df");
    let refused = scene.run(scene.engine.set_frame_rate(scene.project, "31")).unwrap_err();
    assert!(refused.to_string().contains("31"), "{refused}");
    assert_eq!(rate(&scene), "29.97df");
}
