//! The `bed_stems` table: a project's music and effects, stem by stem
//! (a file, its level in dB on top of the mix's bed level, and whether it
//! ducks under the voice), in order.

use serde::Serialize;

use super::Store;
use revoice_core::error::{Error, Result};

/// A bed stem as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "BedStem")]
pub struct BedStem {
    pub id: i64,
    pub project_id: i64,
    /// The file's absolute path.
    pub file: String,
    /// Level on top of the mix's bed level, dB.
    pub gain_db: f64,
    /// Ducks under the voice (dialogue-free music); off for effects that must stay.
    pub ducked: bool,
    pub position: i64,
}

/// The limits of a stem's level, dB.
pub const BED_GAIN_RANGE: (f64, f64) = (-60.0, 24.0);

impl Store {
    /// The project's bed stems in order.
    pub async fn bed_stems(&self, project_id: i64) -> Result<Vec<BedStem>> {
        sqlx::query_as("SELECT * FROM bed_stems WHERE project_id = ?1 ORDER BY position, id")
            .bind(project_id)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.error(e))
    }

    /// Makes `file` the project's only bed stem (or clears the bed with `None`).
    pub async fn set_bed(&self, project_id: i64, file: Option<&str>) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.error(e))?;
        sqlx::query("DELETE FROM bed_stems WHERE project_id = ?1").bind(project_id).execute(&mut *tx).await.map_err(|e| self.error(e))?;
        if let Some(file) = file {
            sqlx::query("INSERT INTO bed_stems (project_id, file, position) VALUES (?1, ?2, 0)")
                .bind(project_id)
                .bind(file)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.error(e))?;
        }
        tx.commit().await.map_err(|e| self.error(e))
    }

    /// Adds a stem after the others.
    pub async fn add_bed_stem(&self, project_id: i64, file: &str, gain_db: f64, ducked: bool) -> Result<BedStem> {
        check_gain(gain_db)?;
        sqlx::query_as(
            "INSERT INTO bed_stems (project_id, file, gain_db, ducked, position)
             VALUES (?1, ?2, ?3, ?4, (SELECT ifnull(max(position), -1) + 1 FROM bed_stems WHERE project_id = ?1)) RETURNING *",
        )
        .bind(project_id)
        .bind(file)
        .bind(gain_db)
        .bind(ducked)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| self.error(e))
    }

    /// Changes a stem's level and ducking.
    pub async fn edit_bed_stem(&self, project_id: i64, stem_id: i64, gain_db: f64, ducked: bool) -> Result<BedStem> {
        check_gain(gain_db)?;
        sqlx::query_as("UPDATE bed_stems SET gain_db = ?3, ducked = ?4 WHERE project_id = ?1 AND id = ?2 RETURNING *")
            .bind(project_id)
            .bind(stem_id)
            .bind(gain_db)
            .bind(ducked)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.error(e))?
            .ok_or_else(|| Error::not_found(format!("bed stem {stem_id}"), format!("not in project {project_id}")))
    }

    /// Removes a stem.
    pub async fn remove_bed_stem(&self, project_id: i64, stem_id: i64) -> Result<()> {
        let gone = sqlx::query("DELETE FROM bed_stems WHERE project_id = ?1 AND id = ?2")
            .bind(project_id)
            .bind(stem_id)
            .execute(&self.pool)
            .await
            .map_err(|e| self.error(e))?;
        if gone.rows_affected() == 0 {
            return Err(Error::not_found(format!("bed stem {stem_id}"), format!("not in project {project_id}")));
        }
        Ok(())
    }
}

fn check_gain(gain_db: f64) -> Result<()> {
    let (low, high) = BED_GAIN_RANGE;
    if !(low..=high).contains(&gain_db) {
        return Err(Error::invalid(format!("bed level {gain_db} dB"), format!("must be from {low} to {high} dB")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[tokio::test]
    async fn stems_keep_their_order_level_and_ducking() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (project, _) = store.create_project("Beds", "en-US").await.unwrap();
        store.set_bed(project.id, Some("/m/music.wav")).await.unwrap();
        let fx = store.add_bed_stem(project.id, "/m/effects.wav", -3.0, false).await.unwrap();
        let stems = store.bed_stems(project.id).await.unwrap();
        assert_eq!(
            stems.iter().map(|s| (s.file.as_str(), s.gain_db, s.ducked)).collect::<Vec<_>>(),
            [("/m/music.wav", 0.0, true), ("/m/effects.wav", -3.0, false)]
        );
        store.edit_bed_stem(project.id, fx.id, 2.0, true).await.unwrap();
        assert!(store.edit_bed_stem(project.id, fx.id, 99.0, true).await.unwrap_err().to_string().contains("99"));
        store.remove_bed_stem(project.id, stems[0].id).await.unwrap();
        assert_eq!(store.bed_stems(project.id).await.unwrap().len(), 1);
        store.set_bed(project.id, None).await.unwrap();
        assert!(store.bed_stems(project.id).await.unwrap().is_empty());
        assert!(store.remove_bed_stem(project.id, fx.id).await.is_err());
    }
}
