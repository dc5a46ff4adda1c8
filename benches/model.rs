//! One Kokoro pass on the real model (the test install, or
//! `REVOICE_TEST_DATA_DIR`): a medium sentence rendered in the fastest
//! precision this CPU runs and in f32, the baseline, in the same run; the
//! real-time factor follows from the audio's length, printed with the peak
//! resident memory. And the voice fit's naturalness guard: one candidate's
//! probe renders scored as the guard scores them, beside the reported
//! score's exact arithmetic on the same clip. Without an install it says
//! so and measures nothing.

use criterion::{criterion_group, criterion_main, Criterion};
use revoice_benches::print_memory;
use revoice_engine::model::assets;
use revoice_engine::model::kokoro::source::SourceNoise;
use revoice_engine::model::kokoro::{KokoroModel, Precision, WEIGHTS_FILE};
use revoice_engine::model::naturalness::NaturalnessJudge;
use revoice_engine::model::speech::SpeechModel;
use revoice_engine::speech::{FrontEnd, SayRequest};

fn data_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("REVOICE_TEST_DATA_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../target/test-data").into());
    assets::KOKORO.status(&dir).is_installed().then_some(dir)
}

fn pass(c: &mut Criterion) {
    let Some(data) = data_dir() else {
        println!("model pass skipped: Kokoro is not installed (run scripts/test, or set REVOICE_TEST_DATA_DIR)");
        return;
    };
    let dir = assets::KOKORO.dir(&data);
    let mut group = c.benchmark_group("Kokoro pass, one medium sentence");
    group.sample_size(10);
    let mut precisions = vec![Precision::F32];
    if Precision::fastest() != Precision::F32 {
        precisions.push(Precision::fastest());
    }
    for precision in precisions {
        let model = KokoroModel::load_in(&dir.join(WEIGHTS_FILE), precision).unwrap();
        let front = FrontEnd::load(&dir, model.max_phonemes()).unwrap();
        let request = SayRequest::new("The weather today is sunny with a light breeze from the west.", "af_heart").unwrap();
        let row = front.prepare(&request).unwrap().remove(0).row;
        let (audio, _) = model.synthesize(&row.tokens, &row.style, 1.0, SourceNoise::Off).unwrap();
        println!("{precision:?}: {:.2} s of audio per pass", audio.len() as f64 / 24_000.0);
        group.bench_function(format!("{precision:?}"), |b| b.iter(|| model.synthesize(&row.tokens, &row.style, 1.0, SourceNoise::Off).unwrap()));
    }
    group.finish();
    print_memory("model");
}

/// The guard's work per candidate: English's first probe set as one clip
/// (24 kHz, as rendered), scored by `score_clip` (as it is), and by
/// `score_one_window` (filled to a 9 s window, the reported score) as the
/// baseline.
fn guard(c: &mut Criterion) {
    let Some(data) = data_dir().filter(|d| assets::NATURALNESS.status(d).is_installed()) else {
        println!("naturalness guard skipped: Kokoro or the naturalness judge is not installed (run scripts/test)");
        return;
    };
    let dir = assets::KOKORO.dir(&data);
    let model = KokoroModel::load_in(&dir.join(WEIGHTS_FILE), Precision::fastest()).unwrap();
    let front = FrontEnd::load(&dir, model.max_phonemes()).unwrap();
    let mut clip = Vec::new();
    for sentence in ["Where did you put the keys?", "The train was late again, so we walked the last mile in the rain."] {
        let row = front.prepare(&SayRequest::new(sentence, "af_heart").unwrap()).unwrap().remove(0).row;
        clip.extend(model.synthesize(&row.tokens, &row.style, 1.0, SourceNoise::Off).unwrap().0);
    }
    drop(model);
    let judge = NaturalnessJudge::load(&data).unwrap();
    println!("naturalness guard: a {:.2} s clip", clip.len() as f64 / 24_000.0);
    let mut group = c.benchmark_group("naturalness of one candidate's probes");
    group.sample_size(10);
    group.bench_function("score_clip (the guard)", |b| b.iter(|| judge.score_clip(&clip, 24_000).unwrap()));
    group.bench_function("score_one_window (reported)", |b| b.iter(|| judge.score_one_window(&clip, 24_000).unwrap()));
    group.finish();
    print_memory("naturalness guard");
}

criterion_group!(model, pass, guard);
criterion_main!(model);
