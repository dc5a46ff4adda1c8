//! Kokoro's real release files, as the README's test command installs them
//! into `target/test-data` (or `$REVOICE_TEST_DATA_DIR`). These tests never
//! skip: without the install they fail and say how to make it.

use revoice_model::assets::{self, AssetState};
use revoice_model::install::kokoro_weights::expected_weights;
use revoice_model::install::{downloads_dir, install_kokoro, InstallOutcome, NoProgress, Source};
use revoice_model::kokoro::release::{stock_voices, KokoroRelease, STYLE_DIM, VOICE_ROWS};
use revoice_model::kokoro::{VOCAB_FILE, VOICES_FILE, WEIGHTS_FILE};
use safetensors::SafeTensors;

#[test]
fn the_installed_weights_are_every_kokoro_tensor_with_its_shape() {
    let model_dir = revoice_model::testing::installed_model_dir();
    let bytes = std::fs::read(model_dir.join(WEIGHTS_FILE)).unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let expected = expected_weights();
    assert_eq!(file.len(), expected.len());
    let mut values = 0usize;
    for (name, dims) in &expected {
        let t = file.tensor(name).unwrap_or_else(|_| panic!("{name} missing"));
        assert_eq!(t.shape(), dims.as_slice(), "{name}");
        let floats: Vec<f32> = t.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert!(floats.iter().all(|v| v.is_finite()), "{name} has non-finite values");
        values += floats.len();
    }
    assert_eq!(values, 81_140_664);
    // A convolution whose zero point is shared with another layer (docs/kokoro-weights.md §2.2)
    // dequantises around zero, not around zp·scale.
    let conv = file.tensor("predictor.F0.1.conv1.weight").unwrap();
    let floats: Vec<f32> = conv.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let mean = floats.iter().sum::<f32>() / floats.len() as f32;
    let spread = floats.iter().map(|v| v.abs()).fold(0f32, f32::max);
    assert!(mean.abs() < 0.1 * spread, "mean {mean} against max |w| {spread}");
}

#[test]
fn the_installed_voices_and_vocabulary_are_complete() {
    let model_dir = revoice_model::testing::installed_model_dir();
    let bytes = std::fs::read(model_dir.join(VOICES_FILE)).unwrap();
    let voices = SafeTensors::deserialize(&bytes).unwrap();
    let catalogue = stock_voices();
    assert_eq!(voices.len(), 54);
    for v in &catalogue {
        assert_eq!(voices.tensor(&v.name).unwrap().shape(), &[VOICE_ROWS, STYLE_DIM]);
    }
    let vocab = revoice_model::install::vocab::read(&model_dir.join(VOCAB_FILE)).unwrap();
    assert_eq!(vocab.len(), 114);
    assert_eq!(vocab.get(";"), Some(&1));
    assert!(vocab.values().all(|&id| id < 178));
}

#[test]
fn installing_from_a_folder_of_release_files_matches_and_is_idempotent() {
    let source = downloads_dir(&revoice_model::testing::installed_data_dir(), &assets::KOKORO);
    let data = tempfile::tempdir().unwrap();
    let release = KokoroRelease::v1_0();
    let first = install_kokoro(data.path(), &release, &Source::Folder(source.clone()), false, &NoProgress).unwrap();
    let InstallOutcome::Installed { files, .. } = first else {
        panic!("expected a fresh install, got {first:?}");
    };
    assert_eq!(files, 3);
    let again = install_kokoro(data.path(), &release, &Source::Folder(source), false, &NoProgress).unwrap();
    assert!(matches!(again, InstallOutcome::AlreadyInstalled { .. }), "{again:?}");
    // A damaged install is detected, and --force repairs it.
    let weights = assets::KOKORO.dir(data.path()).join(WEIGHTS_FILE);
    let f = std::fs::OpenOptions::new().write(true).open(&weights).unwrap();
    f.set_len(1000).unwrap();
    assert!(matches!(assets::KOKORO.status(data.path()).state, AssetState::Damaged { .. }));
    let repaired = install_kokoro(data.path(), &release, &Source::Folder(downloads_dir(data.path(), &assets::KOKORO)), false, &NoProgress).unwrap();
    assert!(matches!(repaired, InstallOutcome::Installed { .. }));
    assert!(matches!(assets::KOKORO.status(data.path()).state, AssetState::Installed { .. }));
}
