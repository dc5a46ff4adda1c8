//! The segment store: rendered lines as WAV files on disk, named by their
//! synthesis key (`<dir>/<2 hex>/<64 hex>.wav`, 32-bit float, mono). It is
//! a cache, never the only copy of anything: every read is validated (RIFF
//! header, sample format, frame count against the file's size), and a
//! truncated or corrupt file is removed and reported missing so the line
//! is rendered again, never played as silence. A file at another sample
//! rate is resampled on read. Files no take refers to are collected, and
//! the store keeps to a size budget by dropping the least recently used.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use revoice_core::error::{Error, Result};
use revoice_speech::cache::RenderKey;

/// Bytes before the samples in the files this store writes (hound's
/// header for mono 32-bit float), measured once by writing an empty file.
fn header_bytes() -> u64 {
    static BYTES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        let mut out = std::io::Cursor::new(Vec::new());
        hound::WavWriter::new(&mut out, spec(24_000)).and_then(|w| w.finalize()).expect("an empty WAV writes to memory");
        out.get_ref().len() as u64
    })
}

fn spec(sample_rate: u32) -> hound::WavSpec {
    hound::WavSpec { channels: 1, sample_rate, bits_per_sample: 32, sample_format: hound::SampleFormat::Float }
}

/// Rendered audio by synthesis key.
pub struct SegmentStore {
    dir: PathBuf,
    max_bytes: u64,
}

/// What a read found.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    /// Valid audio at the rate asked for (resampled if the file had another).
    Audio(Vec<f32>),
    /// No file: render it.
    Missing,
    /// The file was damaged (the reason) and has been removed: render it.
    Damaged(String),
}

impl SegmentStore {
    /// Opens (creating) the store in `dir` with a budget of `max_bytes`.
    pub fn open(dir: &Path, max_bytes: u64) -> Result<SegmentStore> {
        if max_bytes == 0 {
            return Err(Error::InvalidInput { input: "segment store budget".into(), reason: "must be above zero".into() });
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
        Ok(SegmentStore { dir: dir.to_path_buf(), max_bytes })
    }

    /// Where a key's file lives.
    pub fn path(&self, key: &RenderKey) -> PathBuf {
        let hex = key.to_hex();
        self.dir.join(&hex[..2]).join(format!("{hex}.wav"))
    }

    /// Writes a line's audio atomically (a crash leaves the old file or none).
    pub fn put(&self, key: &RenderKey, samples: &[f32], sample_rate: u32) -> Result<PathBuf> {
        let path = self.path(key);
        let parent = path.parent().expect("keyed paths have a folder");
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        let mut bytes = std::io::Cursor::new(Vec::with_capacity(header_bytes() as usize + 4 * samples.len()));
        {
            let mut writer = hound::WavWriter::new(&mut bytes, spec(sample_rate)).map_err(|e| wav_error(&path, e))?;
            for &s in samples {
                writer.write_sample(s).map_err(|e| wav_error(&path, e))?;
            }
            writer.finalize().map_err(|e| wav_error(&path, e))?;
        }
        revoice_core::fsutil::write_atomically(&path, bytes.get_ref())?;
        Ok(path)
    }

    /// Reads a key's audio at `sample_rate`, validating the file.
    pub fn get(&self, key: &RenderKey, sample_rate: u32) -> Result<Stored> {
        let path = self.path(key);
        let size = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Stored::Missing),
            Err(e) => return Err(Error::io("inspect", &path, e)),
        };
        match read_valid(&path, size) {
            Ok((samples, rate)) => {
                touch(&path);
                if rate == sample_rate {
                    Ok(Stored::Audio(samples))
                } else {
                    Ok(Stored::Audio(revoice_audio::resample::resample(&samples, rate, sample_rate)?))
                }
            }
            Err(reason) => {
                tracing::warn!(file = %path.display(), %reason, "damaged segment audio; it will be rendered again");
                std::fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
                Ok(Stored::Damaged(reason))
            }
        }
    }

    /// Whether a key's file is there with a sound header whose frame count
    /// matches its size (the samples are checked when read, by `get`).
    pub fn is_intact(&self, key: &RenderKey) -> bool {
        let path = self.path(key);
        let Ok(size) = std::fs::metadata(&path).map(|m| m.len()) else { return false };
        check_header(&path, size).is_ok()
    }

    /// Removes every file whose key is not in `referenced` (hex keys);
    /// returns (files, bytes) removed.
    pub fn collect_garbage(&self, referenced: &HashSet<String>) -> Result<(usize, u64)> {
        let mut removed = (0, 0);
        for (path, size, _) in self.files()? {
            let key = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            if !referenced.contains(key) {
                std::fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
                removed = (removed.0 + 1, removed.1 + size);
            }
        }
        Ok(removed)
    }

    /// Drops the least recently used files until the store fits its
    /// budget; returns (files, bytes) removed.
    pub fn enforce_budget(&self) -> Result<(usize, u64)> {
        let mut files = self.files()?;
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        files.sort_by_key(|f| f.2);
        let mut removed = (0, 0);
        for (path, size, _) in files {
            if total <= self.max_bytes {
                break;
            }
            std::fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            total -= size;
            removed = (removed.0 + 1, removed.1 + size);
        }
        Ok(removed)
    }

    /// Bytes on disk now.
    pub fn bytes(&self) -> Result<u64> {
        Ok(self.files()?.iter().map(|f| f.1).sum())
    }

    /// Every stored file with its size and last use.
    fn files(&self) -> Result<Vec<(PathBuf, u64, std::time::SystemTime)>> {
        let mut out = Vec::new();
        for shard in std::fs::read_dir(&self.dir).map_err(|e| Error::io("list", &self.dir, e))? {
            let shard = shard.map_err(|e| Error::io("list", &self.dir, e))?.path();
            if !shard.is_dir() {
                continue;
            }
            for entry in std::fs::read_dir(&shard).map_err(|e| Error::io("list", &shard, e))? {
                let path = entry.map_err(|e| Error::io("list", &shard, e))?.path();
                if path.extension().is_some_and(|e| e == "wav") {
                    let meta = std::fs::metadata(&path).map_err(|e| Error::io("inspect", &path, e))?;
                    out.push((path, meta.len(), meta.modified().unwrap_or(std::time::UNIX_EPOCH)));
                }
            }
        }
        Ok(out)
    }
}

fn wav_error(path: &Path, e: hound::Error) -> Error {
    Error::InvalidInput { input: path.display().to_string(), reason: format!("cannot write WAV: {e}") }
}

/// Marks a file as just used (its modification time orders the LRU).
fn touch(path: &Path) {
    if let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

/// The header of a file this store wrote, checked against its size.
fn check_header(path: &Path, size: u64) -> std::result::Result<hound::WavReader<std::io::BufReader<std::fs::File>>, String> {
    let reader = hound::WavReader::open(path).map_err(|e| format!("not a readable WAV file: {e}"))?;
    let spec = reader.spec();
    if spec.channels != 1 || spec.sample_format != hound::SampleFormat::Float || spec.bits_per_sample != 32 {
        return Err(format!("unexpected format: {} channels, {:?} {} bit", spec.channels, spec.sample_format, spec.bits_per_sample));
    }
    if spec.sample_rate == 0 {
        return Err("sample rate 0".into());
    }
    let frames = reader.duration() as u64;
    let expected = header_bytes() + 4 * frames;
    if size != expected {
        return Err(format!("{size} bytes on disk, the header promises {frames} frames ({expected} bytes)"));
    }
    Ok(reader)
}

/// The samples and rate of a file this store wrote, or why it is damaged.
fn read_valid(path: &Path, size: u64) -> std::result::Result<(Vec<f32>, u32), String> {
    let reader = check_header(path, size)?;
    let spec = reader.spec();
    let samples: std::result::Result<Vec<f32>, _> = reader.into_samples::<f32>().collect();
    let samples = samples.map_err(|e| format!("unreadable samples: {e}"))?;
    if samples.iter().any(|s| !s.is_finite()) {
        return Err("holds samples that are not finite".into());
    }
    Ok((samples, spec.sample_rate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use revoice_speech::cache::RenderKeyBuilder;

    fn key(n: u32) -> RenderKey {
        RenderKeyBuilder::new("test").param("n", n).build()
    }

    fn describe(s: &Stored) -> String {
        match s {
            Stored::Audio(a) => format!("{} samples", a.len()),
            other => format!("{other:?}"),
        }
    }

    fn tone(n: usize) -> Vec<f32> {
        (0..n).map(|i| (i as f32 * 0.05).sin() * 0.3).collect()
    }

    #[test]
    fn audio_reads_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let store = SegmentStore::open(dir.path(), 1 << 20).unwrap();
        assert_eq!(store.get(&key(1), 24_000).unwrap(), Stored::Missing);
        store.put(&key(1), &tone(2400), 24_000).unwrap();
        match store.get(&key(1), 24_000).unwrap() {
            Stored::Audio(samples) => assert!(samples == tone(2400), "samples differ"),
            other => panic!("expected audio, got {}", describe(&other)),
        }
    }

    #[test]
    fn a_truncated_or_corrupt_file_is_removed_and_reported_never_read_as_silence() {
        let dir = tempfile::tempdir().unwrap();
        let store = SegmentStore::open(dir.path(), 1 << 20).unwrap();
        let path = store.put(&key(1), &tone(2400), 24_000).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
        assert!(matches!(store.get(&key(1), 24_000).unwrap(), Stored::Damaged(r) if r.contains("bytes on disk")));
        assert!(!path.exists());

        let path = store.put(&key(2), &tone(2400), 24_000).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[0..4].copy_from_slice(b"JUNK");
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(store.get(&key(2), 24_000).unwrap(), Stored::Damaged(r) if r.contains("not a readable WAV")));
        assert_eq!(store.get(&key(2), 24_000).unwrap(), Stored::Missing);
    }

    #[test]
    fn a_file_at_a_foreign_rate_is_resampled_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = SegmentStore::open(dir.path(), 1 << 20).unwrap();
        store.put(&key(1), &tone(16_000), 16_000).unwrap();
        let found = store.get(&key(1), 24_000).unwrap();
        let Stored::Audio(samples) = found else { panic!("expected audio, got {}", describe(&found)) };
        assert!((samples.len() as i64 - 24_000).abs() <= 2, "{}", samples.len());
    }

    #[test]
    fn unreferenced_files_are_collected_and_the_budget_drops_the_least_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let one = (header_bytes() + 4 * 1000) as usize;
        let store = SegmentStore::open(dir.path(), (2 * one) as u64).unwrap();
        for n in 0..3 {
            store.put(&key(n), &tone(1000), 24_000).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // Reading key 0 makes it the most recently used.
        assert!(matches!(store.get(&key(0), 24_000).unwrap(), Stored::Audio(_)), "key 0 is stored");
        assert_eq!(store.enforce_budget().unwrap(), (1, one as u64));
        assert_eq!(store.get(&key(1), 24_000).unwrap(), Stored::Missing, "the least recently used went");
        let keep: HashSet<String> = [key(0).to_hex()].into();
        assert_eq!(store.collect_garbage(&keep).unwrap().0, 1);
        assert_eq!(store.bytes().unwrap(), one as u64);
    }
}
