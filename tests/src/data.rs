//! A scratch data folder for one test: its own config, database and
//! segments, with the test install's models linked in. (The stock voices'
//! speaker embeddings ship with the engine, so nothing else is needed.)

use revoice_engine::model::testing::installed_data_dir;

/// A new data folder linking the installed models.
pub fn scratch_data_dir() -> tempfile::TempDir {
    let install = installed_data_dir();
    let dir = tempfile::tempdir().expect("a scratch folder");
    std::os::unix::fs::symlink(install.join("models"), dir.path().join("models")).expect("link the models");
    dir
}
