//! A project's markers in the database (`markers`, migration 0017): named
//! points in time on its timeline. Adding, renaming, moving and removing
//! one are each one transaction and one undoable step (`entity` "marker",
//! the marker before and after, absent when it did not exist).

use serde::{Deserialize, Serialize};
use sqlx::{Sqlite, Transaction};

use super::projects::record;
use super::Store;
use revoice_core::error::{Error, Result};

/// A named point in time on a project's timeline.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, Serialize, Deserialize)]
pub struct Marker {
    pub id: i64,
    pub project_id: i64,
    /// Timeline seconds.
    pub at_seconds: f64,
    pub name: String,
}

/// Writes a marker as it was (`Some`) or removes it (`None`): an edit, or its undo or redo.
pub(crate) async fn write_marker(tx: &mut Transaction<'_, Sqlite>, id: i64, marker: Option<&Marker>) -> sqlx::Result<()> {
    match marker {
        Some(m) => {
            sqlx::query(
                "INSERT INTO markers (id, project_id, at_seconds, name) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(id) DO UPDATE SET at_seconds = ?3, name = ?4",
            )
            .bind(m.id)
            .bind(m.project_id)
            .bind(m.at_seconds)
            .bind(&m.name)
            .execute(&mut **tx)
            .await?;
        }
        None => {
            sqlx::query("DELETE FROM markers WHERE id = ?1").bind(id).execute(&mut **tx).await?;
        }
    }
    Ok(())
}

impl Store {
    /// A project's markers in time order.
    pub async fn markers(&self, project_id: i64) -> Result<Vec<Marker>> {
        sqlx::query_as("SELECT * FROM markers WHERE project_id = ?1 ORDER BY at_seconds, id")
            .bind(project_id)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.db(e))
    }

    /// One marker.
    pub async fn marker(&self, id: i64) -> Result<Marker> {
        sqlx::query_as("SELECT * FROM markers WHERE id = ?1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("marker {id}"), "there is no such marker"))
    }

    /// Adds a marker (one undoable step); the caller checks the time and name.
    pub async fn add_marker(&self, project_id: i64, at_seconds: f64, name: &str) -> Result<Marker> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let marker: Marker = sqlx::query_as("INSERT INTO markers (project_id, at_seconds, name) VALUES (?1, ?2, ?3) RETURNING *")
            .bind(project_id)
            .bind(at_seconds)
            .bind(name)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.db(e))?;
        record(&mut tx, project_id, &format!("add marker {name:?}"), "marker", marker.id, &None::<Marker>, &Some(marker.clone()))
            .await
            .map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(marker)
    }

    /// Changes a marker in one undoable step: `edit` gives it after and
    /// what the history calls the edit. Nothing is recorded when it does
    /// not change.
    pub async fn edit_marker(&self, id: i64, edit: impl FnOnce(&Marker) -> (Marker, String)) -> Result<Marker> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let before = self.marker_in(&mut tx, id).await?;
        let (after, description) = edit(&before);
        let after = Marker { id, project_id: before.project_id, ..after };
        if after != before {
            write_marker(&mut tx, id, Some(&after)).await.map_err(|e| self.db(e))?;
            record(&mut tx, before.project_id, &description, "marker", id, &Some(before), &Some(after.clone())).await.map_err(|e| self.db(e))?;
        }
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(after)
    }

    /// Marker `id` as the transaction sees it; not found names it.
    async fn marker_in(&self, tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>, id: i64) -> Result<Marker> {
        sqlx::query_as("SELECT * FROM markers WHERE id = ?1")
            .bind(id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("marker {id}"), "there is no such marker"))
    }

    /// Removes a marker (one undoable step); the project it was on.
    pub async fn remove_marker(&self, id: i64) -> Result<i64> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let before = self.marker_in(&mut tx, id).await?;
        write_marker(&mut tx, id, None).await.map_err(|e| self.db(e))?;
        record(&mut tx, before.project_id, &format!("remove marker {:?}", before.name), "marker", id, &Some(before.clone()), &None::<Marker>)
            .await
            .map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(before.project_id)
    }

    /// Adds a marker as a project is made (from a project file): not an edit, so nothing to undo.
    pub async fn add_marker_quietly(&self, project_id: i64, at_seconds: f64, name: &str) -> Result<Marker> {
        sqlx::query_as("INSERT INTO markers (project_id, at_seconds, name) VALUES (?1, ?2, ?3) RETURNING *")
            .bind(project_id)
            .bind(at_seconds)
            .bind(name)
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.db(e))
    }
}
