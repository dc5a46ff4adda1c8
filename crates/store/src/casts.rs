//! The `casts` and `cast_members` tables: cast sheets, each a set of
//! speakers with their voices (a default voice and voices by language),
//! saved from a project and read when a project started from the sheet
//! meets a speaker of that name (`projects.rs` adds speakers with them).

use std::collections::BTreeMap;

use serde::Serialize;

use super::Store;
use revoice_core::error::{Error, Result};

/// A cast sheet.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CastSheet {
    pub id: i64,
    pub name: String,
    /// By speaker name.
    pub members: Vec<CastMember>,
    pub updated_at: String,
}

/// A speaker on a cast sheet and the voices they speak with.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CastMember {
    pub speaker: String,
    /// The voice of their lines in any language without one of its own.
    pub voice: String,
    /// Voices by track language.
    pub language_voices: BTreeMap<String, String>,
}

#[derive(sqlx::FromRow)]
struct CastRow {
    id: i64,
    name: String,
    updated_at: String,
}

impl Store {
    /// Saves the project's speakers onto the cast sheet `name` (made when
    /// new): each speaker's voices replace their entry, other members stay.
    /// The project then takes its voices from the sheet. One transaction.
    pub async fn save_cast(&self, project_id: i64, name: &str) -> Result<CastSheet> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::invalid("cast sheet name", "is empty"));
        }
        let mut tx = self.pool.begin().await.map_err(|e| self.error(e))?;
        let cast_id: i64 = sqlx::query_scalar(
            "INSERT INTO casts (name) VALUES (?1)
             ON CONFLICT (name) DO UPDATE SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') RETURNING id",
        )
        .bind(name)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| self.error(e))?;
        let saved = sqlx::query(
            "INSERT INTO cast_members (cast_id, speaker, voice, language_voices)
             SELECT ?1, name, voice, language_voices FROM speakers WHERE project_id = ?2
             ON CONFLICT (cast_id, speaker) DO UPDATE SET voice = excluded.voice, language_voices = excluded.language_voices",
        )
        .bind(cast_id)
        .bind(project_id)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.error(e))?;
        if saved.rows_affected() == 0 {
            return Err(Error::invalid(format!("project {project_id}"), "has no speakers to put on a cast sheet: import a script with speakers first"));
        }
        sqlx::query("UPDATE projects SET cast_id = ?2 WHERE id = ?1").bind(project_id).bind(cast_id).execute(&mut *tx).await.map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))?;
        self.cast(name).await
    }

    /// Every cast sheet, by name.
    pub async fn casts(&self) -> Result<Vec<CastSheet>> {
        let rows: Vec<CastRow> =
            sqlx::query_as("SELECT id, name, updated_at FROM casts ORDER BY name").fetch_all(&self.pool).await.map_err(|e| self.error(e))?;
        let mut sheets = Vec::with_capacity(rows.len());
        for row in rows {
            sheets.push(self.sheet(row).await?);
        }
        Ok(sheets)
    }

    /// The name of cast sheet `id`, if it is still there.
    pub async fn cast_name(&self, id: i64) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT name FROM casts WHERE id = ?1").bind(id).fetch_optional(&self.pool).await.map_err(|e| self.error(e))
    }

    /// The cast sheet called `name` (any case).
    pub async fn cast(&self, name: &str) -> Result<CastSheet> {
        let row: Option<CastRow> = sqlx::query_as("SELECT id, name, updated_at FROM casts WHERE name = ?1")
            .bind(name.trim())
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.error(e))?;
        match row {
            Some(row) => self.sheet(row).await,
            None => {
                let known: Vec<String> = self.casts().await?.into_iter().map(|c| c.name).collect();
                let known =
                    if known.is_empty() { "there are none yet: save one from a project".to_string() } else { format!("there are: {}", known.join(", ")) };
                Err(Error::not_found(format!("cast sheet {name:?}"), known))
            }
        }
    }

    async fn sheet(&self, row: CastRow) -> Result<CastSheet> {
        let members: Vec<(String, String, String)> =
            sqlx::query_as("SELECT speaker, voice, language_voices FROM cast_members WHERE cast_id = ?1 ORDER BY speaker")
                .bind(row.id)
                .fetch_all(&self.pool)
                .await
                .map_err(|e| self.error(e))?;
        let members = members
            .into_iter()
            .map(|(speaker, voice, languages)| CastMember { speaker, voice, language_voices: serde_json::from_str(&languages).unwrap_or_default() })
            .collect();
        Ok(CastSheet { id: row.id, name: row.name, members, updated_at: row.updated_at })
    }

    /// Deletes a cast sheet (projects started from it keep their voices).
    pub async fn delete_cast(&self, name: &str) -> Result<()> {
        let cast = self.cast(name).await?;
        sqlx::query("DELETE FROM casts WHERE id = ?1").bind(cast.id).execute(&self.pool).await.map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Makes the project take its speakers' voices from cast sheet `cast_id` (or none).
    pub async fn set_project_cast(&self, project_id: i64, cast_id: Option<i64>) -> Result<()> {
        sqlx::query("UPDATE projects SET cast_id = ?2 WHERE id = ?1").bind(project_id).bind(cast_id).execute(&self.pool).await.map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The member of the project's cast sheet called `speaker`, if there is one.
    pub async fn cast_member_of(&self, project_id: i64, speaker: &str) -> Result<Option<CastMember>> {
        let row: Option<(String, String, String)> = sqlx::query_as(
            "SELECT m.speaker, m.voice, m.language_voices FROM projects p JOIN cast_members m ON m.cast_id = p.cast_id WHERE p.id = ?1 AND m.speaker = ?2",
        )
        .bind(project_id)
        .bind(speaker)
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| self.error(e))?;
        Ok(row.map(|(speaker, voice, languages)| CastMember { speaker, voice, language_voices: serde_json::from_str(&languages).unwrap_or_default() }))
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use revoice_text::subtitles::Cue;

    fn cue(speaker: &str, at: f64) -> Cue {
        Cue { start: at, end: at + 1.0, text: format!("{speaker} speaks."), speaker: Some(speaker.into()) }
    }

    #[tokio::test]
    async fn a_project_started_from_a_cast_gives_its_speakers_their_voices_as_they_appear() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (first, track) = store.create_project("Episode 1", "en-US").await.unwrap();
        store.import_cues(&track, &[cue("Maya", 0.0), cue("Theo", 2.0)]).await.unwrap();
        let speakers = store.speakers(first.id).await.unwrap();
        store.set_speaker_voice(speakers[0].id, "af_bella").await.unwrap();
        store.set_speaker_language_voice(speakers[1].id, "es", Some("em_alex")).await.unwrap();
        let sheet = store.save_cast(first.id, "Lighthouse").await.unwrap();
        assert_eq!(sheet.members.iter().map(|m| (m.speaker.as_str(), m.voice.as_str())).collect::<Vec<_>>(), [("Maya", "af_bella"), ("Theo", "af_heart")]);
        assert_eq!(sheet.members[1].language_voices.get("es").map(String::as_str), Some("em_alex"));

        let (second, track) = store.create_project("Episode 2", "en-US").await.unwrap();
        store.set_project_cast(second.id, Some(sheet.id)).await.unwrap();
        store.import_cues(&track, &[cue("maya", 0.0), cue("Nell", 2.0)]).await.unwrap();
        let voices: Vec<(String, String)> = store.speakers(second.id).await.unwrap().into_iter().map(|s| (s.name, s.voice)).collect();
        assert_eq!(voices, [("Nell".to_string(), "af_heart".to_string()), ("maya".to_string(), "af_bella".to_string())]);

        // Saving again updates the sheet and keeps members this project lacks.
        let second_speakers = store.speakers(second.id).await.unwrap();
        store.set_speaker_voice(second_speakers[1].id, "af_nicole").await.unwrap();
        let sheet = store.save_cast(second.id, "lighthouse").await.unwrap();
        let members: Vec<(&str, &str)> = sheet.members.iter().map(|m| (m.speaker.as_str(), m.voice.as_str())).collect();
        assert_eq!(members, [("Maya", "af_nicole"), ("Nell", "af_heart"), ("Theo", "af_heart")]);
        assert_eq!(store.casts().await.unwrap().len(), 1);
        let err = store.cast("Unknown").await.unwrap_err().to_string();
        assert!(err.contains("Unknown") && err.contains("Lighthouse"), "{err}");
        store.delete_cast("Lighthouse").await.unwrap();
        assert!(store.project(second.id).await.unwrap().cast_id.is_none());
    }
}
