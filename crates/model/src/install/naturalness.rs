//! Installs the naturalness judge: DNSMOS P.835's `sig_bak_ovr.onnx` out
//! of speechmos 0.0.1.1's wheel from PyPI (`pip download --no-deps
//! speechmos==0.0.1.1`) or from a `--from` folder (the wheel, or the
//! `.onnx`), wheel and file sha256-checked ([`super::wheel_file`]), kept in
//! `<data>/downloads/dnsmos-p835-0.0.1.1/`, and published as it is (no
//! conversion: the runtime reads its initializers) as
//! `<data>/models/dnsmos-p835-0.0.1.1/sig_bak_ovr.onnx`, checked again.
//! There is no hub source: `--hub` installs this asset from PyPI too.

use std::path::Path;

use super::sources::copy_file;
use super::wheel_file::WheelFile;
use super::{downloads_dir, stage_and_publish, verify_sha256, InstallOutcome, InstallProgress, Source};
use crate::assets::{self, NATURALNESS_FILE};
use revoice_core::error::Result;

/// What needs the network, for errors.
const NEEDED_BY: &str = "the naturalness judge";

/// speechmos 0.0.1.1 (PyPI, July 2023): DNSMOS P.835's non-personalised
/// network.
pub fn speechmos_0_0_1_1() -> WheelFile {
    WheelFile {
        package: "speechmos".into(),
        version: "0.0.1.1".into(),
        wheel_sha256: "31c4c9d3234f6ee10102edff74333014c50006a3f389daf7ecacae34e68ebbf7".into(),
        member: format!("speechmos/dnsmos_models/{NATURALNESS_FILE}"),
        sha256: "269fbebdb513aa23cddfbb593542ecc540284a91849ac50516870e1ac78f6edd".into(),
    }
}

/// Installs the judge `release` into `data_dir` from `source` (see the
/// module doc). With `force`, a complete install is redone.
pub fn install_naturalness(data_dir: &Path, release: &WheelFile, source: &Source, force: bool, progress: &dyn InstallProgress) -> Result<InstallOutcome> {
    let asset = assets::NATURALNESS;
    if !force {
        if let assets::AssetState::Installed { .. } = asset.status(data_dir).state {
            return Ok(InstallOutcome::AlreadyInstalled { dir: asset.dir(data_dir) });
        }
    }
    let onnx = release.collect(NEEDED_BY, source, &downloads_dir(data_dir, &asset), progress)?;
    stage_and_publish(data_dir, &asset, |staging| {
        let out = staging.join(NATURALNESS_FILE);
        copy_file(&onnx, &out)?;
        verify_sha256(&out, &release.sha256).map_err(|e| e.context("checking the naturalness judge's copy against the verified download"))?;
        Ok(vec![NATURALNESS_FILE.to_string()])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::make_wheel;
    use crate::install::packages::tests::sha;
    use crate::install::NoProgress;

    const FAKE_ONNX: &[u8] = b"not really onnx, but pinned";

    /// The pinned release with a small stand-in network, in a wheel in `folder`.
    fn release_in(folder: &Path) -> WheelFile {
        let mut release = speechmos_0_0_1_1();
        let wheel = folder.join(release.wheel_file_name());
        make_wheel(&wheel, &[(release.member.as_str(), FAKE_ONNX), ("speechmos/dnsmos_models/sig.onnx", b"another network")]);
        release.wheel_sha256 = sha(&std::fs::read(&wheel).unwrap());
        release.sha256 = sha(FAKE_ONNX);
        release
    }

    #[test]
    fn the_release_is_speechmos_wheel_and_its_p835_network() {
        let release = speechmos_0_0_1_1();
        assert_eq!(release.wheel_file_name(), "speechmos-0.0.1.1-py3-none-any.whl");
        assert_eq!(release.file_name(), NATURALNESS_FILE);
    }

    #[test]
    fn the_network_comes_out_of_the_wheel_and_is_published_as_it_is() {
        let pkgs = tempfile::tempdir().unwrap();
        let release = release_in(pkgs.path());
        let data = tempfile::tempdir().unwrap();
        let outcome = install_naturalness(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap();
        let dir = assets::NATURALNESS.dir(data.path());
        assert_eq!(outcome, InstallOutcome::Installed { dir: dir.clone(), files: 1, bytes: FAKE_ONNX.len() as u64 });
        assert_eq!(std::fs::read(dir.join(NATURALNESS_FILE)).unwrap(), FAKE_ONNX);
        assert_eq!(std::fs::read(downloads_dir(data.path(), &assets::NATURALNESS).join(NATURALNESS_FILE)).unwrap(), FAKE_ONNX);
        // Installed is installed, with or without the wheel; --force redoes it from the kept download.
        std::fs::remove_file(pkgs.path().join(release.wheel_file_name())).unwrap();
        let again = install_naturalness(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap();
        assert_eq!(again, InstallOutcome::AlreadyInstalled { dir: dir.clone() });
        let forced = install_naturalness(data.path(), &release, &Source::Folder(pkgs.path().into()), true, &NoProgress).unwrap();
        assert!(matches!(forced, InstallOutcome::Installed { files: 1, .. }), "{forced:?}");
    }

    #[test]
    fn a_tampered_wheel_is_rejected_by_name_and_nothing_is_published() {
        let pkgs = tempfile::tempdir().unwrap();
        let mut release = release_in(pkgs.path());
        release.wheel_sha256 = "0".repeat(64);
        let data = tempfile::tempdir().unwrap();
        let err = install_naturalness(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("speechmos-0.0.1.1-py3-none-any.whl") && err.contains("sha256"), "{err}");
        assert_eq!(assets::NATURALNESS.status(data.path()).state, assets::AssetState::Missing);
    }

    #[test]
    fn a_folder_with_the_plain_onnx_installs_it_and_a_wrong_one_is_named() {
        let folder = tempfile::tempdir().unwrap();
        let mut release = speechmos_0_0_1_1();
        release.sha256 = sha(FAKE_ONNX);
        std::fs::write(folder.path().join(NATURALNESS_FILE), b"some other network").unwrap();
        let data = tempfile::tempdir().unwrap();
        let err = install_naturalness(data.path(), &release, &Source::Folder(folder.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains(NATURALNESS_FILE) && err.contains("sha256"), "{err}");
        assert_eq!(assets::NATURALNESS.status(data.path()).state, assets::AssetState::Missing);

        std::fs::write(folder.path().join(NATURALNESS_FILE), FAKE_ONNX).unwrap();
        // `--from` may name the file itself.
        let source = Source::Folder(folder.path().join(NATURALNESS_FILE));
        install_naturalness(data.path(), &release, &source, false, &NoProgress).unwrap();
        assert_eq!(assets::NATURALNESS.status(data.path()).state, assets::AssetState::Installed { files: 1, bytes: FAKE_ONNX.len() as u64 });
    }

    #[test]
    fn a_folder_without_the_judge_says_what_to_put_there() {
        let empty = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let err = install_naturalness(data.path(), &speechmos_0_0_1_1(), &Source::Folder(empty.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("the naturalness judge needs speechmos-0.0.1.1-py3-none-any.whl"), "{err}");
        assert!(err.contains("pip download --no-deps speechmos==0.0.1.1") && err.contains(NATURALNESS_FILE), "{err}");
    }
}
