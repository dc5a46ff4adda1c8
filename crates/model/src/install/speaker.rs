//! Installs the speaker encoder: Resemblyzer 0.1.4's wheel from PyPI
//! (`pip download --no-deps Resemblyzer==0.1.4`) or from a `--from` folder
//! (the wheel, or its `resemblyzer/pretrained.pt`), sha256-checked, the
//! checkpoint extracted ([`super::wheel_file`]) into
//! `<data>/downloads/resemblyzer-ge2e-0.1.4/` and converted
//! ([`super::torch_checkpoint`]) into
//! `<data>/models/resemblyzer-ge2e-0.1.4/encoder.safetensors`, whose sha256 is
//! pinned too. There is no hub source: `--hub` installs this asset from PyPI.

use std::path::Path;

use super::torch_checkpoint as checkpoint;
use super::wheel_file::WheelFile;
use super::{downloads_dir, stage_and_publish, verify_sha256, InstallOutcome, InstallProgress, Source};
use crate::assets;
use crate::speaker::ENCODER_FILE;
use revoice_core::error::Result;

/// The pinned encoder release.
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderRelease {
    /// The checkpoint (`pretrained.pt`) in its wheel.
    pub checkpoint: WheelFile,
    /// sha256 of the converted `encoder.safetensors`.
    pub converted_sha256: String,
}

impl EncoderRelease {
    /// Resemblyzer 0.1.4 (PyPI, May 2023).
    pub fn resemblyzer_0_1_4() -> EncoderRelease {
        EncoderRelease {
            checkpoint: WheelFile {
                package: "Resemblyzer".into(),
                version: "0.1.4".into(),
                wheel_sha256: "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f".into(),
                member: "resemblyzer/pretrained.pt".into(),
                sha256: "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e".into(),
            },
            converted_sha256: CONVERTED_SHA256.into(),
        }
    }
}

/// The conversion is deterministic (tensors in name order, f32, no metadata).
const CONVERTED_SHA256: &str = "a5d4776b403b69593e4a10212aeacf7d35b56e9d0a2022058c6d4f888202e069";

/// What needs the checkpoint, for errors.
const NEEDED_BY: &str = "the speaker encoder";

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
    let checkpoint = release.checkpoint.collect(NEEDED_BY, source, &downloads_dir(data_dir, &asset), progress)?;
    stage_and_publish(data_dir, &asset, |staging| {
        progress.begin("converting the speaker encoder", None);
        let out = staging.join(ENCODER_FILE);
        checkpoint::convert_checkpoint(&checkpoint, &out)?;
        verify_sha256(&out, &release.converted_sha256).map_err(|e| e.context("checking the converted speaker encoder against the verified conversion"))?;
        progress.end();
        Ok(vec![ENCODER_FILE.to_string()])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::make_wheel;
    use crate::install::packages::tests::sha;
    use crate::install::NoProgress;

    const LEGACY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/ge2e/legacy-checkpoint.pt");

    /// A release whose "checkpoint" is the small legacy fixture, in a wheel.
    fn release_in(folder: &Path) -> EncoderRelease {
        let pt = std::fs::read(LEGACY).unwrap();
        let mut release = EncoderRelease::resemblyzer_0_1_4();
        let file = &mut release.checkpoint;
        let wheel = folder.join(file.wheel_file_name());
        make_wheel(&wheel, &[(file.member.as_str(), pt.as_slice())]);
        file.wheel_sha256 = sha(&std::fs::read(&wheel).unwrap());
        file.sha256 = sha(&pt);
        release
    }

    #[test]
    fn the_checkpoint_comes_out_of_a_wheel_in_a_folder_verified() {
        let pkgs = tempfile::tempdir().unwrap();
        let release = release_in(pkgs.path());
        let raw = tempfile::tempdir().unwrap();
        let pt = release.checkpoint.collect(NEEDED_BY, &Source::Folder(pkgs.path().into()), raw.path(), &NoProgress).unwrap();
        assert_eq!(std::fs::read(&pt).unwrap(), std::fs::read(LEGACY).unwrap());
        // Once extracted and verified, the wheel is no longer needed.
        std::fs::remove_file(pkgs.path().join(release.checkpoint.wheel_file_name())).unwrap();
        assert_eq!(release.checkpoint.collect(NEEDED_BY, &Source::Folder(pkgs.path().into()), raw.path(), &NoProgress).unwrap(), pt);
    }

    #[test]
    fn a_tampered_wheel_is_rejected_by_name() {
        let pkgs = tempfile::tempdir().unwrap();
        let mut release = release_in(pkgs.path());
        release.checkpoint.wheel_sha256 = "0".repeat(64);
        let raw = tempfile::tempdir().unwrap();
        let err = release.checkpoint.collect(NEEDED_BY, &Source::Folder(pkgs.path().into()), raw.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("Resemblyzer-0.1.4-py3-none-any.whl") && err.contains("sha256"), "{err}");
    }

    #[test]
    fn a_folder_without_the_encoder_says_what_to_put_there() {
        let empty = tempfile::tempdir().unwrap();
        let raw = tempfile::tempdir().unwrap();
        let release = EncoderRelease::resemblyzer_0_1_4();
        let err = release.checkpoint.collect(NEEDED_BY, &Source::Folder(empty.path().into()), raw.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("the speaker encoder needs Resemblyzer-0.1.4-py3-none-any.whl"), "{err}");
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
