//! Undo and redo: stepping a project's history back or forward applies
//! the recorded state of what the edit changed (a line's fields, a
//! speaker's voices, a track's lines after a split, merge, insert,
//! delete or find and replace, a batch of translated lines with their
//! translation records, the project's timing strategy, a lane's mix, or a
//! marker) in one transaction. Edits record themselves as they are made
//! (`projects::record`); this module only walks the record.

use super::lanes::{write_lane, LaneState};
use super::lines::{restore, LineState};
use super::markers::{write_marker, Marker};
use super::projects::{touch, write_frame_rate, write_project_strategy, write_segment, write_speaker};
use super::translations::{restore_translated, TranslatedState};
use super::Store;
use revoice_core::error::{Error, Result};

impl Store {
    /// Undoes the project's latest edit; its description, or `None` when
    /// there is nothing to undo.
    pub async fn undo(&self, project_id: i64) -> Result<Option<String>> {
        self.step_history(project_id, true).await
    }

    /// Redoes the most recently undone edit; its description, or `None`.
    pub async fn redo(&self, project_id: i64) -> Result<Option<String>> {
        self.step_history(project_id, false).await
    }

    async fn step_history(&self, project_id: i64, undo: bool) -> Result<Option<String>> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let sql = if undo {
            "SELECT id, description, entity, entity_id, before_json, after_json FROM history WHERE project_id = ?1 AND undone = 0 ORDER BY id DESC LIMIT 1"
        } else {
            "SELECT id, description, entity, entity_id, after_json, before_json FROM history WHERE project_id = ?1 AND undone = 1 ORDER BY id ASC LIMIT 1"
        };
        let Some((id, description, entity, entity_id, state, other)): Option<(i64, String, String, i64, String, String)> =
            sqlx::query_as(sql).bind(project_id).fetch_optional(&mut *tx).await.map_err(|e| self.db(e))?
        else {
            return Ok(None);
        };
        let corrupt = |e: serde_json::Error| Error::InvalidInput { input: format!("history entry {id}"), reason: format!("unreadable: {e}") };
        match entity.as_str() {
            "segment" => write_segment(&mut tx, entity_id, &serde_json::from_str(&state).map_err(corrupt)?).await,
            "speaker" => write_speaker(&mut tx, &serde_json::from_str(&state).map_err(corrupt)?).await,
            "lane" => write_lane(&mut tx, project_id, &serde_json::from_str::<LaneState>(&state).map_err(corrupt)?).await,
            "marker" => write_marker(&mut tx, entity_id, serde_json::from_str::<Option<Marker>>(&state).map_err(corrupt)?.as_ref()).await,
            "project_frame_rate" => write_frame_rate(&mut tx, entity_id, serde_json::from_str::<Option<String>>(&state).map_err(corrupt)?.as_deref()).await,
            "project_strategy" => write_project_strategy(&mut tx, entity_id, &serde_json::from_str::<String>(&state).map_err(corrupt)?).await,
            "lines" => {
                let (lines, others): (Vec<LineState>, Vec<LineState>) =
                    (serde_json::from_str(&state).map_err(corrupt)?, serde_json::from_str(&other).map_err(corrupt)?);
                restore(&mut tx, &lines, &others).await
            }
            "translated_lines" => {
                let (lines, others): (Vec<TranslatedState>, Vec<TranslatedState>) =
                    (serde_json::from_str(&state).map_err(corrupt)?, serde_json::from_str(&other).map_err(corrupt)?);
                restore_translated(&mut tx, &lines, &others).await
            }
            other => return Err(Error::InvalidInput { input: format!("history entry {id}"), reason: format!("unknown kind {other:?}") }),
        }
        .map_err(|e| self.db(e))?;
        sqlx::query("UPDATE history SET undone = ?2 WHERE id = ?1").bind(id).bind(undo).execute(&mut *tx).await.map_err(|e| self.db(e))?;
        touch(&mut tx, project_id).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(Some(description))
    }
}
