//! How a track is assembled from its takes: each placed by its strategy,
//! gain applied, nothing synthesised; a line without a take named.

use revoice_engine::dub::assemble::assemble_track;
use revoice_engine::dub::mix::MixSettings;
use revoice_engine::dub::PROGRAMME_RATE;
use revoice_engine::testing::SCRIPTED_TOKEN_SECONDS;
use revoice_engine::LineEdit;

use crate::Scene;

fn assemble(scene: &Scene) -> revoice_engine::Result<revoice_engine::dub::assemble::AssembledTrack> {
    let lines = scene.run(scene.engine.track_lines(scene.track))?;
    assemble_track(&lines, scene.engine.segments(), PROGRAMME_RATE, &MixSettings::default())
}

fn peak(samples: &[f32], from_s: f64, to_s: f64) -> f32 {
    let at = |s: f64| ((s * PROGRAMME_RATE as f64) as usize).min(samples.len());
    samples[at(from_s)..at(to_s)].iter().fold(0.0, |m, v| m.max(v.abs()))
}

#[test]
fn a_track_is_assembled_from_its_takes_at_their_slots_and_names_what_is_missing() {
    let scene = Scene::new();
    let missing = assemble(&scene).err().expect("nothing rendered yet").to_string();
    assert!(missing.contains("3 of 3 lines have no rendered audio"), "{missing}");
    scene.render();
    let track = assemble(&scene).unwrap();
    assert_eq!(track.cues.len(), 3);
    let starts: Vec<f64> = track.cues.iter().map(|c| c.start).collect();
    assert_eq!(starts, vec![0.5, 3.0, 5.5], "natural timing: each line at its slot's start");
    assert!(track.cues.iter().all(|c| c.end > c.start));
    assert_eq!(track.cues[0].speaker.as_deref(), Some("Ana"));
    assert_eq!(track.mix.voice.len() as f64 / PROGRAMME_RATE as f64, track.seconds);
    assert!(peak(&track.mix.voice, 0.0, 0.45) == 0.0, "silence before the first line");
    assert!(peak(&track.mix.voice, 0.6, 0.9) > 0.1, "the first line sounds");
}

#[test]
fn strict_slot_trims_a_long_line_to_its_slot_and_gain_re_mixes_without_synthesis() {
    let scene = Scene::new();
    let lines = scene.lines();
    // A line far longer than its 2 s slot (the scripted model speaks 40 ms a phoneme).
    scene.retype(lines[0], "The boats are in, and every one of them came back before the storm reached the harbour wall.");
    scene.render();
    let natural = assemble(&scene).unwrap();
    assert!(natural.cues[0].end - natural.cues[0].start > 2.0, "{:?}", natural.cues[0]);
    assert!(natural.overlaps.iter().any(|(id, _)| *id == lines[0]), "natural timing runs into the next line");
    scene.run(scene.engine.set_strategy(scene.project, revoice_engine::dub::timing::TimingStrategy::StrictSlot)).unwrap();
    let rows = scene.model.rows_rendered();
    assert_eq!(scene.render().rendered, 0);
    let strict = assemble(&scene).unwrap();
    assert!((strict.cues[0].end - 2.5).abs() < 1e-6, "trimmed to the slot: {:?}", strict.cues[0]);
    let loud = peak(&strict.mix.voice, 3.2, 3.6);
    scene.run(scene.engine.edit_line(lines[1], LineEdit { gain_db: Some(-12.0), ..Default::default() })).unwrap();
    assert_eq!(scene.render().rendered, 0, "gain is mixing, not synthesis");
    let quiet = peak(&assemble(&scene).unwrap().mix.voice, 3.2, 3.6);
    assert_eq!(scene.model.rows_rendered(), rows);
    assert!((quiet / loud - 0.251).abs() < 0.02, "-12 dB is a quarter: {quiet} / {loud}");
    let _ = SCRIPTED_TOKEN_SECONDS;
}
