//! Take checks in the database: what Whisper heard in a take, placed as the
//! programme places it, and the problems found (see `dub::qc`). One row per
//! take, replaced when the take is checked again.

use std::collections::HashMap;

use serde::Serialize;

use super::Store;
use revoice_core::error::Result;

/// A stored check of one take.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct TakeCheckRecord {
    pub take_id: i64,
    /// The fit the check heard (rate and cut), so a changed fit is heard again.
    pub placement: String,
    pub heard: String,
    pub word_error_rate: f64,
    /// Each problem, a sentence (JSON array).
    pub problems_json: String,
    pub passed: bool,
    pub checked_at: String,
}

impl TakeCheckRecord {
    /// The problems, as sentences.
    pub fn problems(&self) -> Vec<String> {
        serde_json::from_str(&self.problems_json).unwrap_or_default()
    }
}

impl Store {
    /// Saves (or replaces) a take's check.
    pub async fn save_take_check(&self, take_id: i64, placement: &str, heard: &str, word_error_rate: f64, problems: &[String], passed: bool) -> Result<()> {
        sqlx::query(
            "INSERT INTO take_checks (take_id, placement, heard, word_error_rate, problems_json, passed) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(take_id) DO UPDATE SET placement = ?2, heard = ?3, word_error_rate = ?4, problems_json = ?5, passed = ?6,
             checked_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
        )
        .bind(take_id)
        .bind(placement)
        .bind(heard)
        .bind(word_error_rate)
        .bind(serde_json::to_string(problems).expect("problems serialise"))
        .bind(passed)
        .execute(&self.pool)
        .await
        .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// The checks of every take of a project, by take id (one query).
    pub async fn project_take_checks(&self, project_id: i64) -> Result<HashMap<i64, TakeCheckRecord>> {
        let rows: Vec<TakeCheckRecord> = sqlx::query_as(
            "SELECT c.* FROM take_checks c JOIN takes k ON k.id = c.take_id JOIN segments s ON s.id = k.segment_id
             JOIN tracks t ON t.id = s.track_id WHERE t.project_id = ?1",
        )
        .bind(project_id)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))?;
        Ok(rows.into_iter().map(|r| (r.take_id, r)).collect())
    }
}
