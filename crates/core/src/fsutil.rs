//! Small file-system helpers shared by everything that writes a user's files.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so a crash leaves either the old file or the new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io("create a temporary file in", dir, e))?;
    tmp.write_all(bytes).and_then(|_| tmp.as_file().sync_all()).map_err(|e| Error::io("write", tmp.path(), e))?;
    persist(tmp, path)
}

/// Moves a finished temporary file to `path` with ordinary permissions
/// (temporary files are created owner-only).
pub fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644)).map_err(|e| Error::io("set permissions on", tmp.path(), e))?;
    }
    tmp.persist(path).map_err(|e| Error::io("replace", path, e.error))?;
    Ok(())
}

/// Free bytes on the file system that holds `path`, if the OS tells.
pub fn free_space(path: &Path) -> Option<u64> {
    fs4::available_space(path).ok()
}
