//! Voice fits through the engine, on the real speaker encoder (from the
//! test install) and the scripted speech model, so a fit takes seconds and
//! every row it renders is counted: concurrent requests for one recording
//! run one fit, a stopped fit (searching or refining) resumes from its checkpoint to the same
//! voice a straight run finds, and the fitted voice speaks where a library
//! voice does, through its tone match. The fit's quality on Kokoro is measured by
//! `revoice bench voicefit`, not asserted here.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use revoice_engine::cache::ReferenceInput;
use revoice_engine::model::testing::ScriptedModel;
use revoice_engine::speech::SayRequest;
use revoice_engine::testing::scripted_loader;
use revoice_engine::text::pronounce::Pronunciations;
use revoice_engine::voice::fit::{FitProgress, FitSettings, FittedVoice, StyleRecipe};
use revoice_engine::voice::library::VoiceDetails;
use revoice_engine::voice_spec::VoiceSpec;
use revoice_engine::{Engine, EngineConfig, ErrorKind, FitRequest, NewLibraryVoice};

fn reference() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/audio/bella-speech.opus")
}

fn request(generations: u64) -> FitRequest {
    FitRequest {
        recording: ReferenceInput::LocalFile(reference()),
        settings: FitSettings { population: 6, max_generations: Some(generations), minutes: 30.0, ..Default::default() },
        language: "en-US".into(),
    }
}

async fn engine(model: &Arc<ScriptedModel>) -> (Arc<Engine>, tempfile::TempDir) {
    let dir = revoice_tests::data::scratch_data_dir();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    (Arc::new(Engine::open_with(config, scripted_loader(model.clone(), None)).await.unwrap()), dir)
}

fn quiet() -> Arc<dyn Fn(&FitProgress) + Send + Sync> {
    Arc::new(|_| {})
}

/// What a straight fit of `request` finds, and the rows it renders.
async fn straight(request: FitRequest) -> (FittedVoice, usize) {
    let model = Arc::new(ScriptedModel::new());
    let (engine, _dir) = engine(&model).await;
    let (_, fitted) = engine.fit_voice(request, quiet()).await.unwrap();
    (fitted, model.rows_rendered())
}

fn same_voice(a: &FittedVoice, b: &FittedVoice) {
    assert_eq!(a.recipe, b.recipe);
    assert_eq!((a.generations, a.candidates, &a.started_from), (b.generations, b.candidates, &b.started_from));
    assert_eq!(a.held_out, b.held_out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_concurrent_requests_for_one_recording_run_one_fit() {
    let (alone, rows_of_one_fit) = straight(request(2)).await;
    let model = Arc::new(ScriptedModel::new());
    let (engine, _dir) = engine(&model).await;
    let fits: Vec<_> = (0..8)
        .map(|_| {
            let engine = engine.clone();
            tokio::spawn(async move { engine.fit_voice(request(2), quiet()).await })
        })
        .collect();
    for fit in fits {
        let (matched, fitted) = fit.await.unwrap().unwrap();
        same_voice(&fitted, &alone);
        assert_eq!(matched.language, "en-US");
    }
    assert_eq!(model.rows_rendered(), rows_of_one_fit, "eight requests, one fit's rows");
    // Fitted once, never again: a later request is answered from the store.
    let (_, again) = engine.fit_voice(request(2), quiet()).await.unwrap();
    same_voice(&again, &alone);
    assert_eq!(model.rows_rendered(), rows_of_one_fit);
    assert!(engine.fitted_before(&request(2)).await.unwrap().is_some());
}

/// A fit of `request(3)` cancelled when it reports `generation`: the
/// engine (its data folder kept) and the checkpoint it saved.
async fn fit_stopped_at(generation: u64) -> (Arc<Engine>, tempfile::TempDir, serde_json::Value) {
    let model = Arc::new(ScriptedModel::new());
    let (engine, dir) = engine(&model).await;
    let key = engine.fit_key(&request(3)).unwrap();
    let stopper = engine.clone();
    let stop_key = key.clone();
    let stop: Arc<dyn Fn(&FitProgress) + Send + Sync> = Arc::new(move |p: &FitProgress| {
        if p.generation == generation {
            stopper.cancel_fit(&stop_key);
        }
    });
    let err = engine.fit_voice(request(3), stop).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err}");
    let saved = engine.store().voice_fit(&key).await.unwrap().expect("a checkpoint");
    assert!(saved.fitted_json.is_none());
    (engine, dir, serde_json::from_str(&saved.checkpoint_json).unwrap())
}

/// `request(3)` run again on `engine`: the voice, and the generations it reported.
async fn resumed(engine: &Arc<Engine>) -> (FittedVoice, Vec<u64>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let (_, fitted) = engine.fit_voice(request(3), Arc::new(move |p: &FitProgress| record.lock().unwrap().push(p.generation))).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    (fitted, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stopped_fit_resumes_from_its_checkpoint_to_the_voice_a_straight_fit_finds() {
    let (alone, _) = straight(request(3)).await;
    let (engine, _dir, checkpoint) = fit_stopped_at(1).await;
    let stopped_at = checkpoint["search"]["generation"].as_u64().unwrap();
    assert!((1..3).contains(&stopped_at), "stopped at generation {stopped_at}");
    // The search listened for naturalness: its starting voices were heard by the guard.
    let naturalness = checkpoint["origin_verdict"]["naturalness"].as_f64();
    assert!(naturalness.is_some_and(|n| (1.0..=5.0).contains(&n)), "{:?}", checkpoint["origin_verdict"]);
    let (voice, seen) = resumed(&engine).await;
    same_voice(&voice, &alone);
    assert!(seen.iter().all(|g| *g > stopped_at), "resumed after generation {stopped_at}, saw {seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fit_stopped_while_refining_resumes_there_to_the_voice_a_straight_fit_finds() {
    let (alone, _) = straight(request(3)).await;
    assert_eq!(alone.generations, 6, "three generations of search, three of refinement");
    let (engine, _dir, checkpoint) = fit_stopped_at(4).await;
    assert_eq!(checkpoint["search"]["generation"].as_u64(), Some(3));
    let refined = checkpoint["refinement"]["generation"].as_u64().expect("a refinement in the checkpoint");
    assert!((1..3).contains(&refined), "stopped at refinement generation {refined}");
    let (voice, seen) = resumed(&engine).await;
    same_voice(&voice, &alone);
    assert!(!seen.is_empty() && seen.iter().all(|g| *g > 3 + refined), "resumed after refinement generation {refined}, saw {seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fitted_library_voice_speaks_as_its_recipe_and_its_record_says_so() {
    let model = Arc::new(ScriptedModel::new());
    let (engine, _dir) = engine(&model).await;
    // Naturalness unweighed in the tone choice, so the voice keeps its full
    // match whatever the judge hears (the choice has unit tests of its own).
    let mut unweighed = request(1);
    unweighed.settings.naturalness_weight = 0.0;
    let (_, fitted) = engine.fit_voice(unweighed, quiet()).await.unwrap();
    let details = VoiceDetails { name: "Bella fitted".into(), description: String::new(), reference_text: String::new(), consent: "test fixture".into() };
    let (record, matched, _) = engine
        .add_library_voice(NewLibraryVoice {
            details,
            recording: &reference(),
            max_voices: None,
            fitted: Some(fitted.clone()),
            language: None,
            recording_language: None,
            hear_text_later: false,
        })
        .await
        .unwrap();
    assert_eq!(matched.kind(), "fitted");
    let stored: revoice_engine::voice::MatchedVoice = serde_json::from_str(&record.voice.artifact_json).unwrap();
    assert_eq!(stored.fitted_in("en-US").unwrap().held_out, fitted.held_out);

    let spec = engine.voice_spec("Bella fitted").await.unwrap();
    let speaks = engine.resolve_voice(&spec).await.unwrap();
    assert!(speaks.to_string().starts_with("fitted:"), "{speaks}");
    assert_eq!(speaks.language(), Some("en-US"));
    assert!(speaks.check_speaks("es").is_err(), "a voice fitted for English does not read Spanish");
    let stack = engine.speech().unwrap();
    let (pack, _) = stack.front_end.voice_pack(&speaks).unwrap();
    assert_eq!(pack, fitted.recipe.pack(stack.front_end.stock_voices()).unwrap());

    // It speaks through its tone match: its style's audio, through the curve.
    let tone = fitted.recipe.tone.clone().expect("a fit that does not weigh naturalness keeps its whole tone match");
    assert!(tone.largest_db() <= FitSettings::default().tone_match_db);
    assert!(fitted.held_out.style_only_similarity.is_some(), "the record says what the style alone scores");
    // The fit listened for naturalness: the record says how natural the voice and the stock voice sound.
    for naturalness in [fitted.held_out.fitted_naturalness, fitted.held_out.best_stock_naturalness] {
        assert!(naturalness.is_some_and(|n| (1.0..=5.0).contains(&n)), "{:?}", fitted.held_out);
    }
    let style_only = StyleRecipe { tone: None, ..fitted.recipe.clone() };
    let style_only = VoiceSpec::from_fitted(&style_only, "af_bella");
    let say = |voice: VoiceSpec| {
        let request = SayRequest { text: "Where did you put the keys?".into(), voice, speed: 1.0, seed: Some(1) };
        engine.say_pronounced(&request, &Pronunciations::default()).unwrap().1
    };
    let (toned, plain) = (say(speaks.clone()), say(style_only));
    assert_ne!(toned, plain);
    assert_eq!(toned, tone.apply(&plain, stack.sample_rate()));
}

/// An English recording fitted to speak Spanish: the fit reads the Spanish
/// sentences with a Spanish voice, starts from the recording's closest
/// Spanish voices, and the fitted voice reads Spanish and not English. A
/// language without fit sentences is refused, naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_recording_is_fitted_to_speak_spanish_on_spanish_sentences() {
    let model = Arc::new(ScriptedModel::new());
    let (engine, _dir) = engine(&model).await;
    let spanish = FitRequest { language: "es".into(), ..request(1) };
    let (_, fitted) = engine.fit_voice(spanish, quiet()).await.unwrap();
    let stock: Vec<_> = revoice_engine::model::kokoro::release::stock_voices();
    let language_of = |name: &str| stock.iter().find(|v| v.name == name).map(|v| v.language).unwrap_or("?");
    assert_eq!(language_of(&fitted.held_out.best_stock), "es", "started from a Spanish voice: {}", fitted.held_out.best_stock);
    let voice = VoiceSpec::from_fitted(&fitted.recipe, &fitted.held_out.best_stock);
    assert!(voice.check_speaks("es").is_ok() && voice.check_speaks("en-US").is_err());
    let stack = engine.speech().unwrap();
    let heard = stack.front_end.prepare(&SayRequest { text: "¿Dónde dejaste las llaves?".into(), voice, speed: 1.0, seed: None }).unwrap();
    assert!(!heard.is_empty() && heard[0].phonemes.contains('ð'), "read as Spanish: {}", heard[0].phonemes);

    // Korean has no Kokoro voices and no fit sentences: refused, named.
    let korean = FitRequest { language: "ko".into(), ..request(1) };
    let refused = engine.fit_voice(korean, quiet()).await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidInput, "{refused}");
    assert!(refused.to_string().contains("\"ko\""), "{refused}");
}

/// "Voice every speaker": each clip becomes its speaker's library voice on
/// the track, with a fit queued; a bad clip leaves the others voiced, and a
/// request naming a speaker the project lacks writes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn voicing_every_speaker_gives_each_a_voice_from_its_clip_and_queues_its_fit() {
    use revoice_engine::SpeakerClip;
    let model = Arc::new(ScriptedModel::new());
    let (engine, dir) = engine(&model).await;
    let (project, _) = engine.create_project("Lighthouse", "en-US").await.unwrap();
    let script = dir.path().join("scene.txt");
    std::fs::write(&script, "[Keeper] The lamp is lit.\n[Anna] Then we wait for the boat.\n").unwrap();
    engine.import_script(project.id, &script, None).await.unwrap();
    let speakers = engine.store().speakers(project.id).await.unwrap();
    let id = |name: &str| speakers.iter().find(|s| s.name == name).unwrap().id;
    let not_audio = dir.path().join("anna.wav");
    std::fs::write(&not_audio, "not a recording").unwrap();

    let unknown = [SpeakerClip { speaker_id: 9999, recording: reference(), text: None }];
    let err = engine.voice_speakers(project.id, None, &unknown, "test fixture").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    let clips = [
        SpeakerClip { speaker_id: id("Keeper"), recording: reference(), text: None },
        SpeakerClip { speaker_id: id("Anna"), recording: not_audio, text: None },
    ];
    let err = engine.voice_speakers(project.id, None, &clips, " ").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(engine.store().voices().await.unwrap().is_empty(), "a refused request writes nothing");

    let cast = engine.voice_speakers(project.id, Some("en-US"), &clips, "test fixture").await.unwrap();
    assert_eq!(cast[0].voice.as_deref(), Some("Lighthouse - Keeper"));
    assert!(cast[0].fitting && cast[0].note.is_none(), "{:?}", cast[0]);
    assert_eq!(cast[1].voice, None);
    assert!(cast[1].note.as_deref().unwrap_or_default().contains("anna.wav"), "{:?}", cast[1]);

    let keeper = engine.store().speakers(project.id).await.unwrap().into_iter().find(|s| s.name == "Keeper").unwrap();
    assert_eq!(keeper.language_voices().get("en-US").map(String::as_str), Some("Lighthouse - Keeper"));
    let record = engine.store().voice("Lighthouse - Keeper").await.unwrap().unwrap();
    let matched: revoice_engine::voice::MatchedVoice = serde_json::from_str(&record.voice.artifact_json).unwrap();
    assert_eq!(matched.language, "en-US");
    let fitting = engine.library_voice_fitting("Lighthouse - Keeper");
    assert_eq!(fitting.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["en-US"], "its fit is queued or running");
    assert!(engine.cancel_library_voice_fit("Lighthouse - Keeper"));
}

/// Waits for a library voice's background fits to end (a scripted fit
/// takes seconds).
async fn fits_done(engine: &Engine, voice: &str) {
    for _ in 0..600 {
        if engine.library_voice_fitting(voice).is_empty() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("the fits of {voice:?} did not end: {:?}", engine.library_voice_fitting(voice));
}

/// The dubbing case: a speaker voiced from one clip on the English track and
/// then on the Spanish one gets a fit per language of one library voice;
/// each track's lines speak its own language's fit, and the second casting
/// keeps the first fit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_recording_voiced_on_two_tracks_speaks_each_language_as_its_own_fit() {
    use revoice_engine::SpeakerClip;
    let model = Arc::new(ScriptedModel::new());
    let dir = revoice_tests::data::scratch_data_dir();
    std::fs::write(dir.path().join("config.toml"), "[voices]\nfit_minutes = 0.1\n").unwrap();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let engine = Arc::new(Engine::open_with(config, scripted_loader(model.clone(), None)).await.unwrap());
    assert_eq!(engine.background_fit_settings().minutes, 0.1, "the budget is a setting");
    let (project, _) = engine.create_project("Lighthouse", "en-US").await.unwrap();
    let (english, spanish) = (dir.path().join("scene.txt"), dir.path().join("escena.txt"));
    std::fs::write(&english, "[Keeper] The lamp is lit.\n").unwrap();
    std::fs::write(&spanish, "[Keeper] La lámpara está encendida.\n").unwrap();
    engine.import_script(project.id, &english, None).await.unwrap();
    engine.import_script(project.id, &spanish, Some("es")).await.unwrap();
    let keeper = engine.store().speakers(project.id).await.unwrap()[0].id;
    let clip = [SpeakerClip { speaker_id: keeper, recording: reference(), text: Some("Where did you put the keys?".into()) }];
    let voice = "Lighthouse - Keeper";

    engine.voice_speakers(project.id, Some("en-US"), &clip, "test fixture").await.unwrap();
    fits_done(&engine, voice).await;
    let cast = engine.voice_speakers(project.id, Some("es"), &clip, "test fixture").await.unwrap();
    assert!(cast[0].fitting, "{:?}", cast[0]);
    assert_eq!(engine.library_voice_fitting(voice).iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["es"]);
    fits_done(&engine, voice).await;

    let record = engine.store().voice(voice).await.unwrap().unwrap();
    let matched: revoice_engine::voice::MatchedVoice = serde_json::from_str(&record.voice.artifact_json).unwrap();
    assert_eq!(matched.fits.keys().collect::<Vec<_>>(), ["en-US", "es"], "one recording, a fit per language");
    let tracks = engine.store().tracks(project.id).await.unwrap();
    let mut spoken = Vec::new();
    for track in &tracks {
        let lines = engine.track_lines(track.id).await.unwrap();
        let speaks = lines.lines[0].voice.clone().unwrap();
        assert!(speaks.fitted().is_some(), "{}: {speaks}", track.language);
        assert!(speaks.check_speaks(&track.language).is_ok(), "{}: {speaks}", track.language);
        assert_eq!(speaks, matched.speaking_voice_in(&track.language).unwrap());
        spoken.push(speaks);
    }
    assert_ne!(spoken[0], spoken[1], "each track speaks its own language's fit");
}
