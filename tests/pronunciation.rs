//! A pronunciation dictionary on the real model: an entry changes how a
//! name is spoken (its phonemes change, and so does the audio), only the
//! lines that say the name render again, and taking the entry out brings
//! their earlier takes back without a render. A cast sheet saved from one
//! episode voices the next one's speakers as its script is imported.

use std::sync::atomic::AtomicBool;

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::subtitles::parse_srt;
use revoice_engine::text::pronounce::{Pronunciations, Saying};
use revoice_engine::{Engine, EngineConfig};

const SCENE: &str = "1\n00:00:00,500 --> 00:00:02,500\n[Maya] Ysolde keeps the lamp.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Theo] The boats are in.\n\n3\n00:00:05,500 --> 00:00:07,500\n[Maya] Tell Ysolde.\n";

fn engine(rt: &tokio::runtime::Handle) -> (Engine, tempfile::TempDir) {
    let dir = revoice_tests::data::scratch_data_dir();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    (rt.block_on(Engine::open(config)).unwrap(), dir)
}

#[test]
fn a_dictionary_entry_changes_how_a_name_is_spoken_and_only_its_lines_render_again() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let (engine, _dir) = engine(rt);
    let (project, track) = rt.block_on(engine.create_project("Keepers", "en-US")).unwrap();
    rt.block_on(engine.store().import_cues(&track, &parse_srt(SCENE, "scene.srt").unwrap())).unwrap();
    let never = AtomicBool::new(false);
    let first = engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    assert_eq!(first.rendered, 3);
    let takes_before: Vec<Option<i64>> = rt.block_on(engine.store().segments(track.id)).unwrap().iter().map(|s| s.active_take_id).collect();

    // What the G2P says for the name, and what the entry says instead.
    let stack = engine.speech().unwrap();
    let request = revoice_engine::speech::SayRequest::new("Tell Ysolde.", "af_heart").unwrap();
    let plain = stack.front_end.prepare(&request).unwrap()[0].phonemes.clone();
    let (entry, using) = rt.block_on(engine.set_pronunciation(Some(project.id), "ysolde", Saying::Phonemes("/ɪzˈoʊldə/".into()))).unwrap();
    assert_eq!((entry.describe().as_str(), using), ("ysolde=/ɪzˈoʊldə/", 2));
    let dictionary = rt.block_on(engine.project_pronunciations(project.id)).unwrap();
    let said = stack.front_end.prepare_with(&request, None, &dictionary).unwrap()[0].phonemes.clone();
    assert!(said.contains("ɪzˈoʊldə") && said != plain, "{plain:?} → {said:?}");
    assert!(!plain.contains("ɪzˈoʊldə"), "{plain:?}");

    // Only the two lines that say the name are stale, and only they render.
    let lines = rt.block_on(engine.project_lines(project.id)).unwrap();
    let stale: Vec<&str> = lines[0].lines.iter().filter(|l| !l.is_current()).map(|l| l.segment.fields.text.as_str()).collect();
    assert_eq!(stale, ["Ysolde keeps the lamp.", "Tell Ysolde."]);
    let second = engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    assert_eq!((second.rendered, second.fresh), (2, 1));
    let takes_after: Vec<Option<i64>> = rt.block_on(engine.store().segments(track.id)).unwrap().iter().map(|s| s.active_take_id).collect();
    assert_eq!(takes_after[1], takes_before[1], "the line without the name keeps its take");
    assert!(takes_after[0] != takes_before[0] && takes_after[2] != takes_before[2]);
    let keys: Vec<String> =
        rt.block_on(engine.project_lines(project.id)).unwrap()[0].lines.iter().map(|l| l.take.as_ref().unwrap().synthesis_key.clone()).collect();
    let old_keys: Vec<String> = lines[0].lines.iter().map(|l| l.take.as_ref().unwrap().synthesis_key.clone()).collect();
    assert_ne!(keys[2], old_keys[2], "the audio is rendered from other phonemes");

    // A word that is not a name in any line changes nothing; removing the entry brings the old takes back.
    let (_, using) = rt.block_on(engine.set_pronunciation(None, "Zanzibar", Saying::Respelling("zan-zee-bar".into()))).unwrap();
    assert_eq!(using, 0);
    rt.block_on(engine.remove_pronunciation(Some(project.id), "Ysolde")).unwrap();
    let restored: Vec<Option<i64>> = rt.block_on(engine.store().segments(track.id)).unwrap().iter().map(|s| s.active_take_id).collect();
    assert_eq!(restored, takes_before);
    let third = engine.render_project(project.id, &RenderScope::default(), &never, &mut |_| {}).unwrap();
    assert_eq!(third.rendered, 0);
    assert!(Pronunciations::default().is_empty());
}

#[test]
fn a_second_episode_started_from_a_cast_sheet_gets_its_voices_without_a_click() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let rt = runtime.handle();
    let (engine, dir) = engine(rt);
    let (first, track) = rt.block_on(engine.create_project("Episode 1", "en-US")).unwrap();
    rt.block_on(engine.store().import_cues(&track, &parse_srt(SCENE, "scene.srt").unwrap())).unwrap();
    for (speaker, voice) in [("Maya", "af_bella"), ("Theo", "bm_george")] {
        let id = rt.block_on(engine.speaker_named(first.id, speaker)).unwrap().id;
        rt.block_on(engine.set_speaker_voice(first.id, id, voice, None)).unwrap();
    }
    let sheet = rt.block_on(engine.save_cast(first.id, "Keepers")).unwrap();
    assert_eq!(sheet.members.len(), 2);

    // The next episode: its script is imported through the same call the app and the CLI make.
    let (second, _) = rt.block_on(engine.create_project_from_cast("Episode 2", "en-US", "keepers")).unwrap();
    let script = dir.path().join("episode-2.srt");
    std::fs::write(&script, "1\n00:00:01,000 --> 00:00:03,000\n[Theo] Another night.\n\n2\n00:00:03,500 --> 00:00:05,000\n[Nell] Who is there?\n").unwrap();
    rt.block_on(engine.import_script(second.id, &script, None)).unwrap();
    let voices: Vec<(String, String)> = rt.block_on(engine.store().speakers(second.id)).unwrap().into_iter().map(|s| (s.name, s.voice)).collect();
    assert_eq!(voices, [("Nell".to_string(), "af_heart".to_string()), ("Theo".to_string(), "bm_george".to_string())]);
    // A speaker heard as "Speaker 1" and renamed to a cast member takes their voice.
    let nell = rt.block_on(engine.speaker_named(second.id, "Nell")).unwrap();
    let renamed = rt.block_on(engine.rename_speaker(second.id, nell.id, "Maya")).unwrap();
    assert_eq!(renamed.voice, "af_bella");
    // And it renders with those voices.
    let summary = engine.render_project(second.id, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert!(summary.failed.is_empty() && summary.rendered == 2, "{summary:?}");
    let err = rt.block_on(engine.create_project_from_cast("Episode 3", "en-US", "Lighthouse")).unwrap_err().to_string();
    assert!(err.contains("Lighthouse") && err.contains("Keepers"), "{err}");
}
