//! Rendering a dub project on the real model: only segments whose
//! synthesis key changed are synthesised; strategy changes that do not ask
//! the model for a new length synthesise nothing; damaged audio on disk is
//! rendered again; a cancelled render stops.

use std::sync::atomic::AtomicBool;

use revoice_engine::dub::pipeline::{RenderScope, RenderSummary};
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

    // Undo brings the old text back, and with it the take made from it.
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
