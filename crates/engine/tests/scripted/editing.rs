//! The editing rules every face shares: a voice must speak the languages
//! it will read, a new line fits before the next one, a new take gets a
//! seed no take of the line has used, tracks are picked by language.

use revoice_engine::ErrorKind;

use crate::Scene;

#[test]
fn a_voice_that_speaks_another_language_is_refused_for_a_track_in_this_one() {
    let scene = Scene::new();
    let ana = scene.run(scene.engine.speaker_named(scene.project, "ana")).unwrap();
    let refused = scene.run(scene.engine.set_speaker_voice(scene.project, ana.id, "ef_dora", None)).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidInput);
    assert!(refused.to_string().contains("ef_dora speaks es, not en-US"), "{refused}");
    // A Spanish track: Dora may read Ana's Spanish lines, not her English ones.
    let spanish = scene.run(scene.engine.track_for(scene.project, Some("es"))).unwrap();
    assert_eq!(spanish.language, "es");
    scene.run(scene.engine.set_speaker_voice(scene.project, ana.id, "ef_dora", Some("es"))).unwrap();
    scene.run(scene.engine.set_speaker_voice(scene.project, ana.id, "af_bella", None)).unwrap();
    let ana = scene.run(scene.engine.speaker_named(scene.project, "Ana")).unwrap();
    assert_eq!((ana.voice_for("en-US"), ana.voice_for("es")), ("af_bella".to_string(), "ef_dora".to_string()));
    let unknown = scene.run(scene.engine.set_speaker_voice(scene.project, ana.id, "zz_nobody", None)).unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::NotFound, "{unknown}");
    let klingon = scene.run(scene.engine.track_for(scene.project, Some("tlh"))).unwrap_err();
    assert_eq!(klingon.kind(), ErrorKind::InvalidInput, "{klingon}");
}

#[test]
fn a_new_line_fits_before_the_next_and_a_new_take_gets_an_unused_seed() {
    let scene = Scene::new();
    let near = scene.run(scene.engine.insert_line(scene.track, 2.0, None)).unwrap();
    assert_eq!((near.fields.start_s, near.fields.end_s), (2.0, 3.0), "up to the next line at 3 s");
    let far = scene.run(scene.engine.insert_line(scene.track, 8.0, None)).unwrap();
    assert_eq!((far.fields.start_s, far.fields.end_s), (8.0, 10.0), "two seconds when there is room");
    scene.render();
    let line = scene.lines()[0];
    let before = scene.run(scene.engine.store().segment(line)).unwrap().seed();
    let retaken = scene.run(scene.engine.new_take_seed(line)).unwrap();
    assert_ne!(retaken.seed(), before);
    assert_eq!(scene.render().rendered, 1, "the new take renders that line");
    let seeds: Vec<i64> = scene.run(scene.engine.store().takes(line)).unwrap().iter().map(|t| t.seed).collect();
    assert_eq!(seeds.len(), 2);
    assert_ne!(seeds[0], seeds[1]);
}
