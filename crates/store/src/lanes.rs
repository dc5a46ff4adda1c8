//! A project's lane mixes in the database (`lane_mixes`, migration 0017):
//! per timeline lane (a speaker, or the lines without one) whether it is
//! muted or soloed and its level. A lane at its defaults has no row. Each
//! change is one transaction and one undoable step (`entity` "lane"); the
//! rule of what sounds is `dub::lanes`.

use serde::{Deserialize, Serialize};
use sqlx::{Sqlite, Transaction};

use super::projects::record;
use super::Store;
use revoice_core::error::{Error, Result};

/// How one lane is heard.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneMix {
    /// Never heard.
    #[serde(default)]
    pub muted: bool,
    /// While any lane is soloed, only soloed lanes are heard.
    #[serde(default)]
    pub solo: bool,
    /// A gain on every line of the lane, dB (-60 to +12).
    #[serde(default)]
    pub level_db: f32,
}

/// The quietest and loudest a lane's level may be, dB.
pub const LANE_LEVEL_RANGE: (f32, f32) = (-60.0, 12.0);

/// A lane's mix as history keeps it: which lane, and its mix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct LaneState {
    pub speaker_id: Option<i64>,
    pub mix: LaneMix,
}

/// Writes a lane's mix (no row when it is at its defaults).
pub(crate) async fn write_lane(tx: &mut Transaction<'_, Sqlite>, project_id: i64, lane: &LaneState) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM lane_mixes WHERE project_id = ?1 AND coalesce(speaker_id, 0) = coalesce(?2, 0)")
        .bind(project_id)
        .bind(lane.speaker_id)
        .execute(&mut **tx)
        .await?;
    if lane.mix != LaneMix::default() {
        sqlx::query("INSERT INTO lane_mixes (project_id, speaker_id, muted, solo, level_db) VALUES (?1, ?2, ?3, ?4, ?5)")
            .bind(project_id)
            .bind(lane.speaker_id)
            .bind(lane.mix.muted)
            .bind(lane.mix.solo)
            .bind(lane.mix.level_db)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

impl Store {
    /// Every lane of the project that is not at its defaults, by speaker
    /// (`None`: the lines without a speaker).
    pub async fn lane_mixes(&self, project_id: i64) -> Result<Vec<(Option<i64>, LaneMix)>> {
        let rows: Vec<(Option<i64>, bool, bool, f64)> =
            sqlx::query_as("SELECT speaker_id, muted, solo, level_db FROM lane_mixes WHERE project_id = ?1 ORDER BY coalesce(speaker_id, 0)")
                .bind(project_id)
                .fetch_all(&self.pool)
                .await
                .map_err(|e| self.db(e))?;
        Ok(rows.into_iter().map(|(speaker, muted, solo, level)| (speaker, LaneMix { muted, solo, level_db: level as f32 })).collect())
    }

    /// Sets a lane's mix in one undoable step called `description`
    /// (nothing is recorded when it does not change). The speaker, when
    /// given, must be the project's; the caller checks the level.
    pub async fn set_lane_mix(&self, project_id: i64, speaker_id: Option<i64>, description: &str, mix: LaneMix) -> Result<LaneMix> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        if let Some(id) = speaker_id {
            let owner: Option<i64> =
                sqlx::query_scalar("SELECT project_id FROM speakers WHERE id = ?1").bind(id).fetch_optional(&mut *tx).await.map_err(|e| self.db(e))?;
            if owner != Some(project_id) {
                return Err(Error::not_found(format!("speaker {id}"), format!("not in project {project_id}")));
            }
        }
        let before: Option<(bool, bool, f64)> =
            sqlx::query_as("SELECT muted, solo, level_db FROM lane_mixes WHERE project_id = ?1 AND coalesce(speaker_id, 0) = coalesce(?2, 0)")
                .bind(project_id)
                .bind(speaker_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.db(e))?;
        let before =
            LaneState { speaker_id, mix: before.map_or_else(LaneMix::default, |(muted, solo, level)| LaneMix { muted, solo, level_db: level as f32 }) };
        let after = LaneState { speaker_id, mix };
        if before != after {
            write_lane(&mut tx, project_id, &after).await.map_err(|e| self.db(e))?;
            record(&mut tx, project_id, description, "lane", speaker_id.unwrap_or(0), &before, &after).await.map_err(|e| self.db(e))?;
        }
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(mix)
    }

    /// Sets a lane's mix as a project is made (from a project file): not an edit, so nothing to undo.
    pub async fn set_lane_mix_quietly(&self, project_id: i64, speaker_id: Option<i64>, mix: LaneMix) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        write_lane(&mut tx, project_id, &LaneState { speaker_id, mix }).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))
    }
}
