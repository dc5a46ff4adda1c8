//! Reference voices on the real assets (Kokoro and the speaker encoder, as
//! the README's test command installs them into `target/test-data` or
//! `$REVOICE_TEST_DATA_DIR`; these tests fail, never skip, without them):
//! the encoder against Resemblyzer's own numbers, a rendered stock voice
//! found again among the 54, and the errors a person sees for bad
//! recordings. The stock voices' embeddings are the shipped ones; one test
//! renders a few voices afresh and checks them against the shipped file.
//! The listener (Whisper) hears a recording, lets go when idle, and hears
//! short clips several to a window as it hears each alone.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use revoice_engine::model::assets::{self, AssetState};
use revoice_engine::model::speaker::{cosine_similarity, preprocess, SpeakerEncoder};
use revoice_engine::speech::{SayRequest, Synthesizer};
use revoice_engine::voice::VoiceMatcher;

fn data_dir() -> PathBuf {
    let dir = revoice_tests::installed_data_dir();
    let state = assets::SPEAKER_ENCODER.status(&dir).state;
    assert!(
        matches!(state, AssetState::Installed { .. }),
        "the speaker encoder is not installed in {} ({state:?}): run scripts/test, or \
         `cargo run --bin revoice -- --data-dir {} models install`",
        dir.display(),
        dir.display()
    );
    dir
}

fn matcher() -> &'static VoiceMatcher {
    static MATCHER: OnceLock<VoiceMatcher> = OnceLock::new();
    MATCHER.get_or_init(|| {
        VoiceMatcher::open(&data_dir(), &|done, total, voice| {
            if !voice.is_empty() {
                eprintln!("stock voice embeddings: {done}/{total} {voice}");
            }
        })
        .unwrap()
    })
}

/// Renders `text` with a stock voice; returns 24 kHz samples.
fn render(voice: &str, text: &str) -> (Vec<f32>, u32) {
    let synth = Synthesizer::load(&data_dir()).unwrap();
    let mut samples = Vec::new();
    let request = SayRequest::new(text, voice).unwrap();
    synth
        .say(&request, |chunk| {
            samples.extend_from_slice(&chunk.samples);
            Ok(())
        })
        .unwrap();
    (samples, synth.sample_rate())
}

fn write_wav(path: &Path, samples: &[f32], rate: u32) {
    revoice_engine::audio::wav::write_pcm16(path, samples, rate).unwrap();
}

/// The clip of `tests/fixtures/ge2e/synthetic.safetensors` (see scripts/dev/ge2e_reference.py).
fn synthetic_clip() -> Vec<f32> {
    (0..32_000)
        .map(|n| {
            let t = n as f64 / 16_000.0;
            let tau = 2.0 * std::f64::consts::PI;
            let phase = tau * 140.0 * t + (30.0 / 0.7) * (1.0 - (tau * 0.7 * t).cos());
            let voice: f64 = (1..=12).map(|k| (k as f64 * phase + 0.3 * k as f64).sin() / k as f64).sum();
            ((0.55 - 0.45 * (tau * 3.0 * t).cos()) * 0.02 * voice) as f32
        })
        .collect()
}

fn fixture(name: &str) -> Vec<f32> {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/ge2e/synthetic.safetensors")).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    file.tensor(name).unwrap().data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn the_encoder_matches_resemblyzer_in_torch_within_2e_5() {
    let encoder = SpeakerEncoder::load(&data_dir()).unwrap();
    let mut wav = synthetic_clip();
    preprocess::normalize_volume(&mut wav);
    let ours = encoder.embed_prepared(&wav).unwrap();
    let partials = fixture("partials");
    let embedding = fixture("embedding");
    assert_eq!(ours.partials.len(), 2);
    let flat: Vec<f32> = ours.partials.concat();
    let worst_partial = flat.iter().zip(&partials).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    let worst = ours.embedding.iter().zip(&embedding).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    eprintln!("largest difference from torch: partials {worst_partial:e}, embedding {worst:e}");
    // Unit vectors of 256 values: f32 LSTMs over 160 steps in different libraries agree to ~1e-6.
    assert!(worst_partial < 2e-5 && worst < 2e-5, "partials differ by {worst_partial}, the embedding by {worst}");
    assert!(cosine_similarity(&ours.embedding, &embedding) > 0.99999);
}

#[test]
fn a_rendered_stock_voice_is_matched_back_to_itself_first() {
    let (samples, rate) = render(
        "af_bella",
        "The river was quiet that morning, and the fishermen waited for the fog to lift. \
         Nobody spoke until the first boat pushed away from the pier.",
    );
    let voice = matcher().match_samples(&samples, rate, "af_bella render").unwrap();
    let top: Vec<String> = voice.matches.iter().take(5).map(|m| format!("{} {:.4}", m.voice, m.similarity)).collect();
    eprintln!("top matches: {top:?}; blend {}", voice.blend_spec());
    assert_eq!(voice.matches.len(), 54);
    assert_eq!(voice.matches[0].voice, "af_bella", "{top:?}");
    assert!(voice.matches[0].similarity > 0.9, "{top:?}");
    assert_eq!(voice.blend[0].voice, "af_bella");
    assert!((voice.blend.iter().map(|p| p.weight).sum::<f32>() - 1.0).abs() < 1e-5);
    assert!(voice.quality.speech_seconds > 4.0 && voice.quality.warnings.is_empty(), "{:?}", voice.quality);
    // The artifact's blend is a voice the synthesizer takes.
    let synth = Synthesizer::load(&data_dir()).unwrap();
    synth.resolve_voice(&revoice_engine::voice::VoiceSpec::parse_stock(&voice.blend_spec()).unwrap()).unwrap();
}

/// The shipped embeddings are what the engine computes here: four voices of
/// four languages rendered and encoded afresh agree with them. (CPUs with
/// and without the int8 path render a hair apart, hence not bit-exact.)
#[test]
fn the_shipped_stock_embeddings_match_a_fresh_render() {
    use revoice_engine::voice::stock_embeddings::StockEmbeddings;
    let shipped = StockEmbeddings::shipped().expect("the shipped stock embeddings are current");
    let synth = Synthesizer::load(&data_dir()).unwrap();
    let encoder = SpeakerEncoder::load(&data_dir()).unwrap();
    let names = ["af_heart", "bm_george", "ef_dora", "jm_kumo"];
    let fresh = StockEmbeddings::compute_voices(&synth, &encoder, &names, &|_, _, _| {}).unwrap();
    for (name, embedding) in &fresh.voices {
        let (_, kept) = shipped.voices.iter().find(|(n, _)| n == name).unwrap();
        let similarity = cosine_similarity(embedding, kept);
        assert!(similarity > 0.98, "{name}: fresh vs shipped {similarity}");
    }
}

/// Browsers record Opus (in WebM), phones and messengers in Ogg: both match like WAV.
#[test]
fn an_opus_recording_in_ogg_or_webm_is_matched_like_any_other() {
    for name in ["bella-speech.opus", "bella-speech.webm"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/audio").join(name);
        let voice = matcher().match_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let top: Vec<String> = voice.matches.iter().take(3).map(|m| format!("{} {:.4}", m.voice, m.similarity)).collect();
        eprintln!("{name}: {top:?}");
        assert_eq!(voice.matches[0].voice, "af_bella", "{name}: {top:?}");
        assert!((voice.quality.seconds - 8.13).abs() < 0.05, "{name}: {:?}", voice.quality);
    }
}

#[test]
fn a_file_named_wav_that_is_not_audio_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("interview.wav");
    std::fs::write(&path, "WEBVTT\n\n00:00.000 --> 00:02.000\nhello\n").unwrap();
    let err = matcher().match_file(&path).unwrap_err().to_string();
    assert!(err.contains("interview.wav") && err.contains("not audio") && err.contains("text"), "{err}");
}

#[test]
fn a_truncated_recording_is_refused_as_truncated() {
    let (samples, rate) = render("am_michael", "This recording will be cut off in the middle of its data.");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.wav");
    write_wav(&path, &samples, rate);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = matcher().match_file(&path).unwrap_err().to_string();
    assert!(err.contains("cut.wav") && err.contains("truncated"), "{err}");
}

#[test]
fn a_reference_with_little_speech_or_none_is_matched_with_warnings_that_say_so() {
    let (samples, rate) = render("af_bella", "Hi.");
    let dir = tempfile::tempdir().unwrap();
    let short = dir.path().join("short.wav");
    write_wav(&short, &samples, rate);
    let matched = matcher().match_file(&short).unwrap();
    assert!(matched.quality.warnings.iter().any(|w| w.contains("of speech") && w.contains("1.5 s")), "{:?}", matched.quality.warnings);
    assert!(!matched.blend.is_empty());

    let silent = dir.path().join("silence.flac.wav");
    write_wav(&silent, &vec![0.0; 5 * 24_000], 24_000);
    let matched = matcher().match_file(&silent).unwrap();
    assert!(matched.quality.warnings.iter().any(|w| w.starts_with("silent")), "{:?}", matched.quality.warnings);
    assert!(matched.embedding.iter().all(|v| v.is_finite()) && !matched.blend.is_empty(), "a silent reference still speaks: {:?}", matched.blend);

    let empty = dir.path().join("empty.wav");
    write_wav(&empty, &[], 24_000);
    let err = matcher().match_file(&empty).unwrap_err().to_string();
    assert!(err.contains("empty.wav"), "{err}");
}

#[test]
fn eight_requests_for_one_reference_run_one_encode_on_the_scheduler_between_batches() {
    use revoice_engine::cache::{ReferenceEncodeConfig, ReferenceInput};
    use revoice_engine::scheduler::{Scheduler, SchedulerConfig};
    use revoice_engine::voice::encoding::MatcherHooks;
    use std::sync::Arc;
    use std::time::Duration;

    matcher();
    let synth = Synthesizer::load(&data_dir()).unwrap();
    let scheduler = Scheduler::start(synth.shared_model(), SchedulerConfig::fixed(1, Duration::ZERO, 1, false)).unwrap();
    let config = ReferenceEncodeConfig { max_bytes: 1 << 20, follower_timeout: Duration::from_secs(300) };
    let service = Arc::new(MatcherHooks::service(&data_dir(), Some(scheduler.tasks()), config).unwrap());
    let (samples, rate) = render("am_adam", "Keep the engine running, we leave in five minutes, whatever the weather.");
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("adam.wav");
    write_wav(&wav, &samples, rate);
    let bytes: Arc<[u8]> = std::fs::read(&wav).unwrap().into();

    let barrier = Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (service, bytes, barrier) = (service.clone(), bytes.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                service.encode(ReferenceInput::Bytes { name: "adam.wav".into(), bytes })
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap().unwrap().matches[0].voice, "am_adam");
    }
    let stats = service.stats();
    assert_eq!(stats.misses, 1, "{stats:?}");
    assert_eq!(stats.merged + stats.hits, 7, "{stats:?}");
    assert_eq!(scheduler.stats().tasks_run, 1, "the one encode ran on the scheduler's owner thread");
    // The same recording as a file on disk has the same identity: a hit.
    assert_eq!(service.encode(ReferenceInput::LocalFile(wav)).unwrap().matches[0].voice, "am_adam");
    assert_eq!(service.stats().hits, stats.hits + 1);
}

#[test]
fn the_listener_hears_a_recording_then_lets_whisper_go_when_idle() {
    use revoice_engine::listening::Listener;
    use revoice_engine::model::whisper::TranscriptOptions;
    let dir = revoice_engine::model::testing::installed_whisper_data_dir();
    let listener = Listener::with_idle_unload(&dir, std::time::Duration::from_millis(200));
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/whisper/george.flac");
    let options = TranscriptOptions { language: Some("en".into()), ..Default::default() };
    let heard = listener.transcribe_file(&clip, &options, &mut |_| true).unwrap();
    let errors = revoice_engine::text::word_errors::word_errors(
        "Check the ropes twice before you leave. If the wind turns, we sail back at once, no arguments.",
        &heard.text(),
    );
    assert_eq!(errors.rate(), 0.0, "{errors:?}: {}", heard.text());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while listener.is_loaded() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!listener.is_loaded(), "Whisper is let go after its idle time");
    // Asked again, it loads again; a file that is not audio is refused by name.
    let not_audio = tempfile::NamedTempFile::with_suffix(".wav").unwrap();
    std::fs::write(not_audio.path(), b"just some text, not audio").unwrap();
    let err = listener.transcribe_file(not_audio.path(), &options, &mut |_| true).unwrap_err().to_string();
    assert!(err.contains(&not_audio.path().display().to_string()), "{err}");
    assert!(listener.transcribe_file(&clip, &options, &mut |_| true).is_ok());
}

#[test]
fn short_clips_heard_several_to_a_window_are_heard_as_each_is_alone() {
    use revoice_engine::listening::Listener;
    use revoice_engine::model::whisper::TranscriptOptions;
    use revoice_engine::text::word_errors::normalised_words;
    let listener = Listener::new(&revoice_engine::model::testing::installed_whisper_data_dir());
    // alsa-utils' recorded phrases (real speech; scripts/test installs alsa-utils) and a
    // Kokoro-free fixture of several sentences.
    let sounds = Path::new("/usr/share/sounds/alsa");
    let mut clips = Vec::new();
    for name in ["Front_Center", "Front_Left", "Rear_Right", "Side_Left"] {
        clips.push(revoice_engine::audio::decode::decode_file(&sounds.join(format!("{name}.wav"))).unwrap());
    }
    clips.push(revoice_engine::audio::decode::decode_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/whisper/george.flac")).unwrap());
    let rate = 16_000;
    let at_rate: Vec<Vec<f32>> = clips.iter().map(|c| revoice_engine::audio::resample::resample(&c.samples, c.sample_rate, rate).unwrap()).collect();
    let clips: Vec<&[f32]> = at_rate.iter().map(Vec::as_slice).collect();
    let together = listener.hear_clips(&clips, rate, Some("en"), &mut || true).unwrap();
    let options = TranscriptOptions { language: Some("en".into()), ..Default::default() };
    for (clip, heard) in at_rate.iter().zip(&together) {
        let alone = listener.transcribe(clip, rate, &options, &mut |_| true).unwrap().text();
        assert_eq!(normalised_words(heard), normalised_words(&alone), "heard together {heard:?}, alone {alone:?}");
    }
    assert_eq!(
        revoice_engine::listening::pack_clips(&at_rate.iter().map(|c| c.len() as f64 / rate as f64).collect::<Vec<_>>()).len(),
        1,
        "one window for all five"
    );
    // Asked to stop, it stops before the next window.
    assert!(listener.hear_clips(&clips, rate, Some("en"), &mut || false).is_err());
}

#[test]
fn a_voice_uploaded_without_its_text_is_answered_at_once_and_gets_the_text_heard_later() {
    use revoice_engine::voice::library::VoiceDetails;
    use revoice_engine::{Engine, EngineConfig, NewLibraryVoice};
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = revoice_tests::data::scratch_data_dir();
    let engine = std::sync::Arc::new(runtime.block_on(Engine::open(EngineConfig::load_from(dir.path().to_path_buf()).unwrap())).unwrap());
    let said = "Keep the engine running, we leave in five minutes, whatever the weather.";
    let (samples, rate) = render("am_adam", said);
    let wav = dir.path().join("adam.wav");
    write_wav(&wav, &samples, rate);
    let details =
        VoiceDetails { name: "Adam".into(), description: String::new(), reference_text: String::new(), consent: "a stock voice, for the test".into() };
    let voice = NewLibraryVoice { details, recording: &wav, max_voices: None, fitted: None, language: None, recording_language: None, hear_text_later: true };
    let (record, _, _) = runtime.block_on(engine.add_library_voice(voice)).unwrap();
    assert_eq!(record.voice.reference_text, "", "answered before Whisper heard it");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let heard = loop {
        let text = runtime.block_on(engine.store().voice("Adam")).unwrap().unwrap().voice.reference_text;
        if !text.is_empty() || std::time::Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let errors = revoice_engine::text::word_errors::word_errors(said, &heard);
    assert!(errors.rate() <= 0.1, "{errors:?}: heard {heard:?}");
}
