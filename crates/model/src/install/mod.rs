//! `revoice models install`: gets each model's release files (Kokoro's,
//! then the speaker encoder's, [`speaker`], the naturalness judge's,
//! [`naturalness`], Whisper's, [`whisper`], and the Japanese dictionary's,
//! [`japanese`]) from a source, verifies every one by sha256, converts them
//! once into the engine's own files where the engine needs that, and
//! publishes the result atomically.
//!
//! Flow: source → `<data>/downloads/<model>/` (verified raw files, kept so an
//! interrupted install resumes) → `<data>/models/.<model>.partial/` (engine
//! files, manifest written last) → renamed to `<data>/models/<model>/`.
//! A killed install leaves either the old complete install or none; the
//! doctor never sees half a model.

pub mod ctranslate2;
pub mod http;
pub mod japanese;
pub mod kokoro_convert;
pub mod kokoro_weights;
pub mod naturalness;
pub mod packages;
pub mod sources;
pub mod speaker;
#[cfg(test)]
pub(crate) mod test_server;
pub mod torch_checkpoint;
pub mod vocab;
pub mod wheel_file;
pub mod whisper;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use safetensors::tensor::TensorView;
use sha2::{Digest, Sha256};

use crate::assets::{self, InstallManifest, ManifestFile, ModelAsset};
use crate::kokoro::KokoroRelease;
use revoice_core::error::{Error, Result};

pub use japanese::install_japanese;
pub use naturalness::install_naturalness;
pub use sources::Source;
pub use speaker::{install_speaker_encoder, EncoderRelease};
pub use wheel_file::WheelFile;
pub use whisper::{install_whisper, WhisperRelease};

/// Reports install progress to whoever shows it (a terminal bar, a UI).
pub trait InstallProgress: Sync {
    /// A new step; `total` bytes when known.
    fn begin(&self, step: &str, total: Option<u64>);
    /// `bytes` more of the current step are done.
    fn advance(&self, bytes: u64);
    /// The current step is done.
    fn end(&self);
}

/// Progress that goes nowhere (tests, quiet runs).
pub struct NoProgress;

impl InstallProgress for NoProgress {
    fn begin(&self, _: &str, _: Option<u64>) {}
    fn advance(&self, _: u64) {}
    fn end(&self) {}
}

/// What an install did.
#[derive(Debug, Clone, PartialEq)]
pub enum InstallOutcome {
    /// The model was already installed and complete; nothing was done.
    AlreadyInstalled { dir: PathBuf },
    /// The model was installed (or reinstalled).
    Installed { dir: PathBuf, files: usize, bytes: u64 },
}

/// Hex sha256 of a file, streamed.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io("open", path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| Error::io("read", path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Errors out unless `path` hashes to `expected`.
pub fn verify_sha256(path: &Path, expected: &str) -> Result<()> {
    let actual = sha256_file(path)?;
    if actual == expected {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            input: path.display().to_string(),
            reason: format!("sha256 is {actual}, expected {expected}: the file is corrupt or not the pinned release"),
        })
    }
}

/// Folder for raw downloads of a model inside a data directory.
pub fn downloads_dir(data_dir: &Path, asset: &ModelAsset) -> PathBuf {
    data_dir.join("downloads").join(asset.id)
}

/// Installs Kokoro into `data_dir` from `source`. With `force`, a complete
/// install is rebuilt; without it, a complete install is left alone.
pub fn install_kokoro(data_dir: &Path, release: &KokoroRelease, source: &Source, force: bool, progress: &dyn InstallProgress) -> Result<InstallOutcome> {
    let asset = assets::KOKORO;
    let final_dir = asset.dir(data_dir);
    if !force {
        if let assets::AssetState::Installed { .. } = asset.status(data_dir).state {
            return Ok(InstallOutcome::AlreadyInstalled { dir: final_dir });
        }
    }
    let raw = sources::collect(source, release, &downloads_dir(data_dir, &asset), progress)?;
    stage_and_publish(data_dir, &asset, |staging| kokoro_convert::write_engine_files(&raw, staging, progress))
}

/// Writes an asset's engine files into a fresh staging folder with
/// `write_files` (which returns their names), records them in the
/// manifest (written last), and publishes the folder atomically.
pub(crate) fn stage_and_publish(data_dir: &Path, asset: &ModelAsset, write_files: impl FnOnce(&Path) -> Result<Vec<String>>) -> Result<InstallOutcome> {
    let final_dir = asset.dir(data_dir);
    let models_dir = assets::models_dir(data_dir);
    let staging = models_dir.join(format!(".{}.partial", asset.id));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(|e| Error::io("remove the leftover", &staging, e))?;
    }
    std::fs::create_dir_all(&staging).map_err(|e| Error::io("create", &staging, e))?;

    let mut written = write_files(&staging)?;
    written.sort();
    let mut files = Vec::new();
    for name in &written {
        let path = staging.join(name);
        let bytes = std::fs::metadata(&path).map_err(|e| Error::io("read", &path, e))?.len();
        files.push(ManifestFile { path: name.clone(), bytes, sha256: sha256_file(&path)? });
    }
    let manifest = InstallManifest { id: asset.id.to_string(), files };
    let total: u64 = manifest.files.iter().map(|f| f.bytes).sum();
    let count = manifest.files.len();
    revoice_core::fsutil::write_atomically(&staging.join(assets::MANIFEST_FILE_NAME), &serde_json::to_vec_pretty(&manifest).expect("manifest serialises"))?;
    publish(&staging, &final_dir)?;
    Ok(InstallOutcome::Installed { dir: final_dir, files: count, bytes: total })
}

/// Replaces `final_dir` with `staging` using renames only.
fn publish(staging: &Path, final_dir: &Path) -> Result<()> {
    let name = final_dir.file_name().unwrap_or_default().to_string_lossy();
    let old = final_dir.with_file_name(format!(".{name}.old"));
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| Error::io("remove", &old, e))?;
    }
    if final_dir.exists() {
        std::fs::rename(final_dir, &old).map_err(|e| Error::io("move aside", final_dir, e))?;
    }
    std::fs::rename(staging, final_dir).map_err(|e| Error::io("publish", final_dir, e))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| Error::io("remove", &old, e))?;
    }
    Ok(())
}

/// Writes named tensors as a safetensors file, streaming to a temporary
/// file beside `out` and renaming it into place.
pub(crate) fn write_safetensors(out: &Path, views: HashMap<String, TensorView>) -> Result<()> {
    let dir = out.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io("create a temporary file in", dir, e))?;
    safetensors::tensor::serialize_to_file(views, None, tmp.path())
        .map_err(|e| Error::InvalidInput { input: out.display().to_string(), reason: format!("cannot write tensors: {e}") })?;
    revoice_core::fsutil::persist(tmp, out)
}
