//! All-or-nothing exports: every file (and folder) of an export is written
//! into a hidden folder inside the export folder first, and moved into
//! place only once all of it is written and checked, so a failed export
//! (a full disk, a bad stem, a muxer that stops) leaves an earlier export
//! whole. What is not committed is removed with the hidden folder.

use std::path::{Path, PathBuf};

use revoice_core::error::{Error, Result};

/// A hidden folder in the export folder that files are staged in.
pub struct Staging {
    dir: tempfile::TempDir,
}

impl Staging {
    /// A staging folder inside `out_dir` (created if missing).
    pub fn new(out_dir: &Path) -> Result<Staging> {
        std::fs::create_dir_all(out_dir).map_err(|e| Error::io("create the export folder", out_dir, e))?;
        let dir = tempfile::Builder::new().prefix(".revoice-export-").tempdir_in(out_dir).map_err(|e| Error::io("create a temporary folder in", out_dir, e))?;
        Ok(Staging { dir })
    }

    /// Where the file or folder that will be `destination` is written meanwhile.
    pub fn path(&self, destination: &Path) -> PathBuf {
        self.dir.path().join(destination.file_name().expect("export paths name a file"))
    }

    /// Moves every staged `destinations` into place. A folder that is
    /// there already is replaced whole (the old one goes with the staging
    /// folder).
    pub fn commit(self, destinations: &[PathBuf]) -> Result<()> {
        for (i, destination) in destinations.iter().enumerate() {
            let staged = self.path(destination);
            if staged.is_dir() && destination.is_dir() {
                let old = self.dir.path().join(format!(".replaced-{i}"));
                std::fs::rename(destination, &old).map_err(|e| Error::io("move aside", destination, e))?;
            }
            std::fs::rename(&staged, destination).map_err(|e| Error::io("move into place", destination, e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_files_and_folders_appear_only_on_commit_and_replace_what_was_there() {
        let out = tempfile::tempdir().unwrap();
        let folder = out.path().join("show.handoff");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("stale.wav"), b"old").unwrap();
        let staging = Staging::new(out.path()).unwrap();
        std::fs::create_dir_all(staging.path(&folder)).unwrap();
        std::fs::write(staging.path(&folder).join("fresh.wav"), b"new").unwrap();
        let file = out.path().join("show.rpp");
        std::fs::write(staging.path(&file), b"<REAPER_PROJECT\n>").unwrap();
        assert!(!file.exists() && folder.join("stale.wav").exists());
        staging.commit(&[folder.clone(), file.clone()]).unwrap();
        assert!(file.is_file() && folder.join("fresh.wav").is_file() && !folder.join("stale.wav").exists());
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 2, "the staging folder is gone");
    }

    #[test]
    fn nothing_staged_is_left_when_an_export_is_dropped() {
        let out = tempfile::tempdir().unwrap();
        let staging = Staging::new(out.path()).unwrap();
        std::fs::write(staging.path(&out.path().join("half.wav")), b"x").unwrap();
        drop(staging);
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
    }
}
