//! Which model assets the engine needs and whether each one is installed
//! completely. The install manifest lists every file with its size and
//! sha256; this check compares sizes (cheap enough for every start), the
//! installer verifies hashes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A model the engine needs on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ModelAsset {
    /// Folder name under `<data dir>/models/`, including the model revision.
    pub id: &'static str,
    /// What a person calls it.
    pub name: &'static str,
    /// What the engine uses it for.
    pub purpose: &'static str,
}

/// The speech model (Kokoro-82M v1.0) with its voice packs.
pub const KOKORO: ModelAsset = ModelAsset { id: "kokoro-82m-v1.0", name: "Kokoro-82M v1.0", purpose: "speech synthesis and the 54 stock voices" };

/// The speaker encoder (Resemblyzer's GE2E) that matches reference
/// recordings to stock voices.
pub const SPEAKER_ENCODER: ModelAsset = ModelAsset {
    id: "resemblyzer-ge2e-0.1.4",
    name: "GE2E speaker encoder (Resemblyzer 0.1.4)",
    purpose: "matching reference recordings to the closest stock voices",
};

/// Whisper base, the speech recogniser that checks takes and transcribes
/// recordings.
pub const WHISPER: ModelAsset =
    ModelAsset { id: "whisper-base-1.0.0", name: "Whisper base (CTranslate2 release 1.0.0)", purpose: "transcribing recordings and checking rendered takes" };

/// The Japanese reader's dictionary: unidic-lite's compiled MeCab
/// dictionary and misaki's word list, the files Kokoro's reference front
/// end reads Japanese with.
pub const JAPANESE: ModelAsset =
    ModelAsset { id: "unidic-lite-1.0.8", name: "Japanese dictionary (unidic-lite 1.0.8)", purpose: "reading Japanese text for the Japanese voices" };

/// The naturalness judge: DNSMOS P.835's network as PyPI's speechmos
/// 0.0.1.1 ships it, which scores how natural speech sounds.
pub const NATURALNESS: ModelAsset =
    ModelAsset { id: "dnsmos-p835-0.0.1.1", name: "DNSMOS P.835 naturalness judge (speechmos 0.0.1.1)", purpose: "keeping fitted voices natural-sounding" };

/// The naturalness judge's one file, the ONNX network as shipped.
pub const NATURALNESS_FILE: &str = "sig_bak_ovr.onnx";

/// Every model asset, in the order the doctor reports them.
pub const ALL: [ModelAsset; 5] = [KOKORO, SPEAKER_ENCODER, NATURALNESS, WHISPER, JAPANESE];

/// Name of the manifest that marks a complete install.
pub const MANIFEST_FILE_NAME: &str = "manifest.json";

/// Folder holding all models inside a data directory.
pub fn models_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// A model folder's install manifest, written by the installer last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstallManifest {
    pub id: String,
    pub files: Vec<ManifestFile>,
}

/// One installed file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// Path relative to the model folder.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// Installed or not, and why not.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AssetState {
    /// Every file in the manifest is present with its recorded size.
    Installed { files: usize, bytes: u64 },
    /// No manifest: never installed, or an install was interrupted.
    Missing,
    /// The manifest is unreadable, or a file is gone or has the wrong size.
    Damaged { reason: String },
}

/// One asset's status for reports.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ModelAssetStatus {
    pub asset: ModelAsset,
    pub dir: PathBuf,
    #[serde(flatten)]
    pub state: AssetState,
}

impl ModelAssetStatus {
    /// Whether the asset is installed and whole.
    pub fn is_installed(&self) -> bool {
        matches!(self.state, AssetState::Installed { .. })
    }
}

impl ModelAsset {
    /// This model's folder inside a data directory.
    pub fn dir(&self, data_dir: &Path) -> PathBuf {
        models_dir(data_dir).join(self.id)
    }

    /// Checks the install in `data_dir` against its manifest.
    pub fn status(&self, data_dir: &Path) -> ModelAssetStatus {
        let dir = self.dir(data_dir);
        let state = check_install(&dir);
        ModelAssetStatus { asset: *self, dir, state }
    }

    /// The folder of the complete install in `data_dir`, or an error naming
    /// it that says `what` ("Whisper") is not installed and how to install it.
    pub fn installed_dir(&self, data_dir: &Path, what: &str) -> revoice_core::error::Result<PathBuf> {
        let status = self.status(data_dir);
        if !status.is_installed() {
            return Err(revoice_core::error::Error::invalid(
                status.dir.display().to_string(),
                format!("{what} is not installed (or the install is damaged): run `revoice models install`"),
            ));
        }
        Ok(status.dir)
    }
}

fn check_install(dir: &Path) -> AssetState {
    let manifest_path = dir.join(MANIFEST_FILE_NAME);
    let text = match std::fs::read_to_string(&manifest_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return AssetState::Missing,
        Err(e) => return AssetState::Damaged { reason: format!("cannot read {}: {e}", manifest_path.display()) },
    };
    let manifest: InstallManifest = match serde_json::from_str(&text) {
        Ok(m) => m,
        Err(e) => return AssetState::Damaged { reason: format!("{} is not a valid manifest: {e}", manifest_path.display()) },
    };
    let mut bytes = 0;
    for file in &manifest.files {
        let path = dir.join(&file.path);
        match std::fs::metadata(&path) {
            Ok(meta) if meta.len() == file.bytes => bytes += file.bytes,
            Ok(meta) => return AssetState::Damaged { reason: format!("{} has {} bytes, the install wrote {}", path.display(), meta.len(), file.bytes) },
            Err(_) => return AssetState::Damaged { reason: format!("{} is missing", path.display()) },
        }
    }
    AssetState::Installed { files: manifest.files.len(), bytes }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn install(dir: &Path, files: &[(&str, &[u8])]) {
        std::fs::create_dir_all(dir).unwrap();
        let mut listed = Vec::new();
        for (name, body) in files {
            std::fs::write(dir.join(name), body).unwrap();
            listed.push(ManifestFile { path: name.to_string(), bytes: body.len() as u64, sha256: String::new() });
        }
        let manifest = InstallManifest { id: "test".into(), files: listed };
        std::fs::write(dir.join(MANIFEST_FILE_NAME), serde_json::to_vec(&manifest).unwrap()).unwrap();
    }

    #[test]
    fn a_model_with_no_folder_is_missing() {
        let data = tempfile::tempdir().unwrap();
        assert_eq!(KOKORO.status(data.path()).state, AssetState::Missing);
    }

    #[test]
    fn files_without_a_manifest_are_an_interrupted_install_and_count_as_missing() {
        let data = tempfile::tempdir().unwrap();
        let dir = KOKORO.dir(data.path());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("weights.safetensors"), b"half written").unwrap();
        assert_eq!(KOKORO.status(data.path()).state, AssetState::Missing);
    }

    #[test]
    fn a_complete_install_is_installed_with_its_size() {
        let data = tempfile::tempdir().unwrap();
        install(&KOKORO.dir(data.path()), &[("a.bin", b"12345"), ("b.bin", b"678")]);
        assert_eq!(KOKORO.status(data.path()).state, AssetState::Installed { files: 2, bytes: 8 });
    }

    #[test]
    fn a_truncated_file_makes_the_install_damaged_and_names_the_file() {
        let data = tempfile::tempdir().unwrap();
        let dir = KOKORO.dir(data.path());
        install(&dir, &[("a.bin", b"12345")]);
        std::fs::write(dir.join("a.bin"), b"12").unwrap();
        match KOKORO.status(data.path()).state {
            AssetState::Damaged { reason } => assert!(reason.contains("a.bin"), "{reason}"),
            other => panic!("expected damaged, got {other:?}"),
        }
    }
}
