//! One Kokoro pass on the real model (the test install, or
//! `REVOICE_TEST_DATA_DIR`): a medium sentence rendered in the fastest
//! precision this CPU runs and in f32, the baseline, in the same run; the
//! real-time factor follows from the audio's length, printed with the peak
//! resident memory. Without an install it says so and measures nothing.

use criterion::{criterion_group, criterion_main, Criterion};
use revoice_benches::print_memory;
use revoice_engine::model::assets;
use revoice_engine::model::kokoro::source::SourceNoise;
use revoice_engine::model::kokoro::{KokoroModel, Precision, WEIGHTS_FILE};
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

criterion_group!(model, pass);
criterion_main!(model);
