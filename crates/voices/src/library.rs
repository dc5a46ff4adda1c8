//! The voice library: voices registered from reference recordings, kept in
//! the database (metadata, consent, the matched-voice artifact) with a copy
//! of each recording under `<data>/voices/library/`, named by its SHA-256.
//! Registering a name again overwrites it (its version rises); deleting it
//! removes the record, the recording when nothing else uses it, and the
//! cached artifact. Artifacts are served through a byte-bounded cache keyed
//! by name and version, so a changed voice is never served stale.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::reference::MatchedVoice;
use revoice_core::error::{Error, Result};
use revoice_speech::cache::VoiceArtifactCache;
use revoice_store::voices::check_voice_name;
use revoice_store::{NewVoice, Store, VoiceRecord};

/// What a person says about a voice when registering it.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceDetails {
    pub name: String,
    pub description: String,
    /// What is said in the recording, if known.
    pub reference_text: String,
    /// Who consented to this voice being used, and how. Required.
    pub consent: String,
}

impl VoiceDetails {
    /// Rejects a bad name or missing consent before any work is done.
    pub fn check(&self) -> Result<()> {
        check_voice_name(&self.name)?;
        if self.consent.trim().is_empty() {
            return Err(Error::InvalidInput {
                input: format!("voice {:?}", self.name),
                reason: "say who consented to this voice being used (--consent)".into(),
            });
        }
        Ok(())
    }
}

/// Where recordings are kept.
pub fn library_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("voices").join("library")
}

fn mime_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("wav") => "audio/wav",
        Some("mp3") => "audio/mpeg",
        Some("flac") => "audio/flac",
        Some("ogg" | "oga" | "opus") => "audio/ogg",
        Some("m4a" | "mp4" | "aac") => "audio/mp4",
        Some("webm") => "audio/webm",
        _ => "application/octet-stream",
    }
}

/// Registers (or overwrites) a voice from `recording` and the artifact
/// matched from it. The recording is copied first, the record written in
/// one transaction after, so a failure leaves the library as it was.
/// Registering the same recording again under its name keeps the fits made
/// of it for other languages (they are added to `matched`); a new
/// recording starts without fits.
pub async fn register(
    store: &Store,
    data_dir: &Path,
    cache: &VoiceArtifactCache<MatchedVoice>,
    recording: &Path,
    details: &VoiceDetails,
    matched: &mut MatchedVoice,
) -> Result<VoiceRecord> {
    details.check()?;
    // The recording is read, hashed and copied on a blocking thread, off the async executor.
    let (source, dir) = (recording.to_path_buf(), data_dir.to_path_buf());
    let (sha, relative, size) = tokio::task::spawn_blocking(move || -> Result<(String, PathBuf, usize)> {
        let bytes = std::fs::read(&source).map_err(|e| Error::io("read", &source, e))?;
        let sha = hex::encode(Sha256::digest(&bytes));
        let ext = source.extension().and_then(|e| e.to_str()).unwrap_or("audio").to_ascii_lowercase();
        let relative = PathBuf::from("voices").join("library").join(format!("{sha}.{ext}"));
        let stored = dir.join(&relative);
        std::fs::create_dir_all(library_dir(&dir)).map_err(|e| Error::io("create", library_dir(&dir), e))?;
        if !stored.is_file() {
            revoice_core::fsutil::write_atomically(&stored, &bytes)?;
        }
        Ok((sha, relative, bytes.len()))
    })
    .await
    .map_err(|e| Error::internal("copying a voice's recording", e.to_string()))??;
    let previous = store.voice(&details.name).await?;
    if let Some(old) = previous.as_ref().filter(|old| old.voice.reference_sha256 == sha) {
        if let Ok(old) = serde_json::from_str::<MatchedVoice>(&old.voice.artifact_json) {
            for (language, fitted) in old.fits {
                if matched.fitted_in(&language).is_none() {
                    matched.fits.insert(language, fitted);
                }
            }
        }
    }
    let record = store
        .save_voice(&NewVoice {
            name: details.name.clone(),
            description: details.description.clone(),
            reference_text: details.reference_text.clone(),
            consent: details.consent.clone(),
            reference_file: relative.to_string_lossy().into_owned(),
            reference_sha256: sha,
            file_size: size as i64,
            mime_type: mime_type(recording).to_string(),
            artifact_json: serde_json::to_string(matched).expect("artifact serialises"),
        })
        .await?;
    if let Some(old) = previous {
        cache.voice_overwritten(&details.name);
        remove_if_unused(store, data_dir, &old.voice.reference_file).await?;
    }
    Ok(record)
}

/// Deletes a voice; its record, or `None` if there was no such voice.
pub async fn delete(store: &Store, data_dir: &Path, cache: &VoiceArtifactCache<MatchedVoice>, name: &str) -> Result<Option<VoiceRecord>> {
    let Some(record) = store.delete_voice(name).await? else {
        return Ok(None);
    };
    cache.voice_deleted(name);
    remove_if_unused(store, data_dir, &record.voice.reference_file).await?;
    Ok(Some(record))
}

/// A registered voice's artifact, from the cache or the database.
pub async fn artifact(store: &Store, cache: &VoiceArtifactCache<MatchedVoice>, name: &str) -> Result<Option<Arc<MatchedVoice>>> {
    let Some(record) = store.voice(name).await? else {
        return Ok(None);
    };
    let version = record.version as u64;
    if let Some(hit) = cache.get(name, version) {
        return Ok(Some(hit));
    }
    let matched: MatchedVoice = serde_json::from_str(&record.voice.artifact_json)
        .map_err(|e| Error::InvalidInput { input: format!("voice {name:?}"), reason: format!("its stored artifact is unreadable ({e}): register it again") })?;
    let bytes = record.voice.artifact_json.len();
    Ok(Some(cache.insert(name, version, matched, bytes)))
}

async fn remove_if_unused(store: &Store, data_dir: &Path, relative: &str) -> Result<()> {
    let still_used = store.voices().await?.iter().any(|v| v.voice.reference_file == relative);
    if !still_used {
        let path = data_dir.join(relative);
        if let Err(e) = tokio::fs::remove_file(&path).await {
            if e.kind() != std::io::ErrorKind::NotFound {
                return Err(Error::io("remove", &path, e));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quality::QualityReport;

    fn matched(source: &str) -> MatchedVoice {
        MatchedVoice {
            source: source.into(),
            quality: QualityReport {
                seconds: 3.0,
                speech_seconds: 2.5,
                peak_dbfs: -3.0,
                rms_dbfs: -20.0,
                clipped_fraction: 0.0,
                noise_floor_dbfs: -60.0,
                snr_db: 40.0,
                warnings: vec![],
            },
            encoder: "enc".into(),
            stock_key: "k".into(),
            embedding: vec![0.5; 4],
            matches: vec![],
            language: "en-US".into(),
            blend: vec![],
            fits: Default::default(),
        }
    }

    fn details(name: &str) -> VoiceDetails {
        VoiceDetails { name: name.into(), description: "d".into(), reference_text: String::new(), consent: "Ana, signed form".into() }
    }

    #[tokio::test]
    async fn register_overwrite_and_delete_keep_files_records_and_cache_in_step() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let cache = VoiceArtifactCache::new(1 << 20).unwrap();
        let (a, b) = (dir.path().join("a.wav"), dir.path().join("b.wav"));
        std::fs::write(&a, b"first recording").unwrap();
        std::fs::write(&b, b"second recording").unwrap();

        let first = register(&store, dir.path(), &cache, &a, &details("Ana"), &mut matched("a")).await.unwrap();
        let first_file = dir.path().join(&first.voice.reference_file);
        assert!(first_file.is_file());
        assert_eq!(first.voice.mime_type, "audio/wav");
        assert_eq!(artifact(&store, &cache, "Ana").await.unwrap().unwrap().source, "a");
        assert_eq!(artifact(&store, &cache, "Ana").await.unwrap().unwrap().source, "a");
        assert_eq!(cache.stats().hit_count, 1);

        let second = register(&store, dir.path(), &cache, &b, &details("Ana"), &mut matched("b")).await.unwrap();
        assert_eq!(second.version, 2);
        assert!(!first_file.exists(), "the replaced recording is removed");
        assert_eq!(artifact(&store, &cache, "Ana").await.unwrap().unwrap().source, "b", "never the stale artifact");

        delete(&store, dir.path(), &cache, "Ana").await.unwrap().unwrap();
        assert!(!dir.path().join(&second.voice.reference_file).exists());
        assert!(artifact(&store, &cache, "Ana").await.unwrap().is_none());
        assert!(cache.stats().delete_invalidation_counter >= 1);
        assert!(delete(&store, dir.path(), &cache, "Ana").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn the_same_recording_registered_again_keeps_its_fits_and_a_new_one_drops_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let cache = VoiceArtifactCache::new(1 << 20).unwrap();
        let (a, b) = (dir.path().join("a.wav"), dir.path().join("b.wav"));
        std::fs::write(&a, b"first recording").unwrap();
        std::fs::write(&b, b"second recording").unwrap();
        let mut fitted_voice = matched("a");
        fitted_voice.add_fit(crate::fit::FittedVoice::example("es", "ef_dora"));
        register(&store, dir.path(), &cache, &a, &details("Ana"), &mut fitted_voice).await.unwrap();

        // Made again from the same recording for English: the Spanish fit stays.
        let mut again = matched("a");
        register(&store, dir.path(), &cache, &a, &details("Ana"), &mut again).await.unwrap();
        assert!(again.fitted_in("es").is_some());
        assert!(artifact(&store, &cache, "Ana").await.unwrap().unwrap().fitted_in("es").is_some());

        // Another recording: the fit was of the old one, and goes.
        register(&store, dir.path(), &cache, &b, &details("Ana"), &mut matched("b")).await.unwrap();
        assert!(artifact(&store, &cache, "Ana").await.unwrap().unwrap().fits.is_empty());
    }

    #[tokio::test]
    async fn missing_consent_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let cache = VoiceArtifactCache::new(1 << 20).unwrap();
        let a = dir.path().join("a.wav");
        std::fs::write(&a, b"x").unwrap();
        let err = register(&store, dir.path(), &cache, &a, &VoiceDetails { consent: " ".into(), ..details("Ana") }, &mut matched("a")).await.unwrap_err();
        assert!(err.to_string().contains("consent"), "{err}");
        assert!(!library_dir(dir.path()).exists());
    }
}
