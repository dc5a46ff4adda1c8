//! A scratch data folder for one test: its own config, database and
//! segments, with the test install's models and the stock voices'
//! speaker embeddings linked in (computed once into the install on first
//! need, since every voice match needs them).

use std::path::PathBuf;

use revoice_engine::model::testing::installed_data_dir;

/// The stock voices' embeddings in the test install, computed on first need.
pub fn stock_embeddings() -> PathBuf {
    let install = installed_data_dir();
    let stock = install.join("voices/stock-embeddings.safetensors");
    if !stock.exists() {
        revoice_engine::voice::VoiceMatcher::open(&install, &|_, _, _| {}).expect("the stock voices' embeddings");
    }
    stock
}

/// A new data folder linking the installed models and stock embeddings.
pub fn scratch_data_dir() -> tempfile::TempDir {
    let install = installed_data_dir();
    let stock = stock_embeddings();
    let dir = tempfile::tempdir().expect("a scratch folder");
    std::os::unix::fs::symlink(install.join("models"), dir.path().join("models")).expect("link the models");
    std::fs::create_dir_all(dir.path().join("voices")).expect("a voices folder");
    std::os::unix::fs::symlink(&stock, dir.path().join("voices/stock-embeddings.safetensors")).expect("link the stock embeddings");
    dir
}
