//! The `voices` table: registered voices with their reference recording's
//! identity, metadata and voice artifact (JSON). Overwriting a name keeps
//! its `created_at` and bumps its `version`; callers use (name, version) as
//! the cache key, so an overwrite or delete is never served stale.

use super::Store;
use revoice_core::error::{Error, Result};

/// One registered voice as stored: what was registered, plus the version
/// and timestamps the database keeps.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct VoiceRecord {
    #[sqlx(flatten)]
    pub voice: NewVoice,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// What a caller supplies to register (or overwrite) a voice.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct NewVoice {
    pub name: String,
    pub description: String,
    pub reference_text: String,
    /// Who consented to this voice being used, and how.
    pub consent: String,
    /// The stored copy of the recording, relative to the data directory.
    pub reference_file: String,
    pub reference_sha256: String,
    pub file_size: i64,
    pub mime_type: String,
    /// The voice artifact (embedding, matches, blend) as JSON.
    pub artifact_json: String,
}

/// Rejects names that cannot be a voice name: empty, over 64 characters,
/// or with characters other than letters, digits, `-`, `_`, `.` and spaces.
pub fn check_voice_name(name: &str) -> Result<()> {
    let ok = !name.trim().is_empty()
        && name.chars().count() <= 64
        && name == name.trim()
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' '));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput {
            input: format!("voice name {name:?}"),
            reason: "use 1 to 64 letters, digits, spaces, '-', '_' or '.', without leading or trailing spaces".into(),
        })
    }
}

impl Store {
    /// Registers `voice`, or overwrites the voice of that name (its version
    /// rises by one). Returns the stored record.
    pub async fn save_voice(&self, voice: &NewVoice) -> Result<VoiceRecord> {
        check_voice_name(&voice.name)?;
        if voice.consent.trim().is_empty() {
            return Err(Error::InvalidInput {
                input: format!("voice {:?}", voice.name),
                reason: "say who consented to this voice being used (consent is required)".into(),
            });
        }
        sqlx::query(
            "INSERT INTO voices (name, description, reference_text, consent, reference_file, reference_sha256,
                                 file_size, mime_type, artifact_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT(name) DO UPDATE SET
                 version = version + 1, description = ?2, reference_text = ?3, consent = ?4,
                 reference_file = ?5, reference_sha256 = ?6, file_size = ?7, mime_type = ?8, artifact_json = ?9,
                 updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
        )
        .bind(&voice.name)
        .bind(&voice.description)
        .bind(&voice.reference_text)
        .bind(&voice.consent)
        .bind(&voice.reference_file)
        .bind(&voice.reference_sha256)
        .bind(voice.file_size)
        .bind(&voice.mime_type)
        .bind(&voice.artifact_json)
        .execute(&self.pool)
        .await
        .map_err(|e| self.error(e))?;
        self.voice(&voice.name)
            .await?
            .ok_or_else(|| Error::InvalidInput { input: format!("voice {:?}", voice.name), reason: "vanished right after it was saved".into() })
    }

    /// The voice of that name, if registered.
    pub async fn voice(&self, name: &str) -> Result<Option<VoiceRecord>> {
        sqlx::query_as("SELECT * FROM voices WHERE name = ?1").bind(name).fetch_optional(&self.pool).await.map_err(|e| self.error(e))
    }

    /// Every registered voice, by name.
    pub async fn voices(&self) -> Result<Vec<VoiceRecord>> {
        sqlx::query_as("SELECT * FROM voices ORDER BY name").fetch_all(&self.pool).await.map_err(|e| self.error(e))
    }

    /// Renames a voice, and every speaker that uses it follows (in every
    /// language), in one transaction. Refused when `new` is taken or bad.
    /// Gives a voice the text heard in its recording, when it still has
    /// that recording (`reference_sha256`) and no text: a voice replaced or
    /// given a text meanwhile keeps what it has. Whether it was filled.
    pub async fn fill_voice_reference_text(&self, name: &str, reference_sha256: &str, text: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE voices SET reference_text = ?3 WHERE name = ?1 AND reference_sha256 = ?2 AND trim(reference_text) = ''")
            .bind(name)
            .bind(reference_sha256)
            .bind(text)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn rename_voice(&self, old: &str, new: &str) -> Result<VoiceRecord> {
        check_voice_name(new)?;
        let mut tx = self.pool.begin().await.map_err(|e| self.error(e))?;
        let taken: Option<String> =
            sqlx::query_scalar("SELECT name FROM voices WHERE name = ?1").bind(new).fetch_optional(&mut *tx).await.map_err(|e| self.error(e))?;
        if taken.is_some() && old != new {
            return Err(Error::conflict(format!("voice {old:?}"), format!("cannot be renamed to {new:?}: a voice has that name")));
        }
        let renamed: Option<VoiceRecord> = sqlx::query_as(
            "UPDATE voices SET name = ?2, version = version + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE name = ?1 RETURNING *",
        )
        .bind(old)
        .bind(new)
        .fetch_optional(&mut *tx)
        .await
        .map_err(|e| self.error(e))?;
        let renamed = renamed.ok_or_else(|| Error::not_found(format!("voice {old:?}"), "is not in the library"))?;
        sqlx::query("UPDATE speakers SET voice = ?2 WHERE voice = ?1").bind(old).bind(new).execute(&mut *tx).await.map_err(|e| self.error(e))?;
        let by_language: Vec<(i64, String)> =
            sqlx::query_as("SELECT id, language_voices FROM speakers").fetch_all(&mut *tx).await.map_err(|e| self.error(e))?;
        for (id, json) in by_language {
            let mut voices: std::collections::BTreeMap<String, String> = serde_json::from_str(&json).unwrap_or_default();
            if voices.values().any(|v| v == old) {
                voices.values_mut().filter(|v| *v == old).for_each(|v| *v = new.to_string());
                let json = serde_json::to_string(&voices).expect("a map of strings serialises");
                sqlx::query("UPDATE speakers SET language_voices = ?2 WHERE id = ?1").bind(id).bind(json).execute(&mut *tx).await.map_err(|e| self.error(e))?;
            }
        }
        tx.commit().await.map_err(|e| self.error(e))?;
        Ok(renamed)
    }

    /// Deletes a voice; the deleted record, or `None` if there was none.
    pub async fn delete_voice(&self, name: &str) -> Result<Option<VoiceRecord>> {
        sqlx::query_as("DELETE FROM voices WHERE name = ?1 RETURNING *").bind(name).fetch_optional(&self.pool).await.map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voice(name: &str, artifact: &str) -> NewVoice {
        NewVoice {
            name: name.into(),
            description: "warm narrator".into(),
            reference_text: "Hello there.".into(),
            consent: "recorded by Ana, who agreed on 2026-11-01".into(),
            reference_file: format!("voices/{name}.wav"),
            reference_sha256: "ab".repeat(32),
            file_size: 1234,
            mime_type: "audio/wav".into(),
            artifact_json: artifact.into(),
        }
    }

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn a_saved_voice_reads_back_and_an_overwrite_bumps_its_version() {
        let (_dir, store) = store().await;
        let first = store.save_voice(&voice("Ana", "{\"v\":1}")).await.unwrap();
        assert_eq!((first.version, first.voice.artifact_json.as_str()), (1, "{\"v\":1}"));
        let second = store.save_voice(&voice("Ana", "{\"v\":2}")).await.unwrap();
        assert_eq!((second.version, second.voice.artifact_json.as_str()), (2, "{\"v\":2}"));
        assert_eq!(second.created_at, first.created_at);
        assert_eq!(store.voices().await.unwrap(), vec![second]);
    }

    #[tokio::test]
    async fn deleting_returns_the_record_once() {
        let (_dir, store) = store().await;
        store.save_voice(&voice("Ben", "{}")).await.unwrap();
        assert_eq!(store.delete_voice("Ben").await.unwrap().unwrap().voice.name, "Ben");
        assert_eq!(store.delete_voice("Ben").await.unwrap(), None);
        assert_eq!(store.voice("Ben").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_renamed_voice_takes_its_speakers_along_and_a_taken_name_is_refused() {
        let (_dir, store) = store().await;
        store.save_voice(&voice("Ana", "{}")).await.unwrap();
        store.save_voice(&voice("Ben", "{}")).await.unwrap();
        let (project, _) = store.create_project("Rename", "en-US").await.unwrap();
        let track = store.tracks(project.id).await.unwrap().remove(0);
        let cues = vec![revoice_text::subtitles::Cue { start: 0.0, end: 1.0, text: "Hi.".into(), speaker: Some("Maya".into()) }];
        store.import_cues(&track, &cues).await.unwrap();
        let maya = store.speakers(project.id).await.unwrap().remove(0);
        store.set_speaker_voice(maya.id, "Ana").await.unwrap();
        store.set_speaker_language_voice(maya.id, "es", Some("Ana")).await.unwrap();

        let err = store.rename_voice("Ana", "Ben").await.unwrap_err().to_string();
        assert!(err.contains("\"Ana\"") && err.contains("a voice has that name"), "{err}");
        let renamed = store.rename_voice("Ana", "Ana Narrator").await.unwrap();
        assert_eq!((renamed.voice.name.as_str(), renamed.version), ("Ana Narrator", 2));
        assert_eq!(store.voice("Ana").await.unwrap(), None);
        let maya = store.speakers(project.id).await.unwrap().remove(0);
        assert_eq!((maya.voice.as_str(), maya.voice_for("es")), ("Ana Narrator", "Ana Narrator".to_string()));
        assert!(store.rename_voice("Nobody", "Somebody").await.unwrap_err().to_string().contains("not in the library"));
    }

    #[tokio::test]
    async fn bad_names_and_missing_consent_are_rejected_and_nothing_is_saved() {
        let (_dir, store) = store().await;
        for name in ["", " Ana", "a/b", &"x".repeat(65)] {
            let err = store.save_voice(&voice(name, "{}")).await.unwrap_err();
            assert!(err.to_string().contains("voice name"), "{err}");
        }
        let mut no_consent = voice("Cleo", "{}");
        no_consent.consent = "  ".into();
        let err = store.save_voice(&no_consent).await.unwrap_err();
        assert!(err.to_string().contains("consent"), "{err}");
        assert!(store.voices().await.unwrap().is_empty());
    }
}
