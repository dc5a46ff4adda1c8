//! Shared by the tests that need Kokoro's real files.

#![allow(dead_code)]

use std::path::PathBuf;

use revoice::model::assets::{self, AssetState};

/// The data folder the README's test command installs Kokoro into. Fails
/// (never skips) when the install is missing, saying how to make it.
pub fn test_data_dir() -> PathBuf {
    let dir = std::env::var_os("REVOICE_TEST_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-data"));
    let state = assets::KOKORO.status(&dir).state;
    assert!(
        matches!(state, AssetState::Installed { .. }),
        "Kokoro is not installed in {} ({state:?}): run scripts/test, or \
         `cargo run --bin revoice -- --data-dir {} models install`",
        dir.display(),
        dir.display()
    );
    dir
}

/// The installed model folder.
pub fn model_dir() -> PathBuf {
    assets::KOKORO.dir(&test_data_dir())
}
