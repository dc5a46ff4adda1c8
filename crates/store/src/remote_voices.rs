//! The `remote_voices` table: which server holds a reference recording
//! (by content hash) under which name, uploaded for which engine.

use super::Store;
use revoice_core::error::Result;

/// A recording uploaded to one server.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct RemoteUpload {
    pub engine: String,
    pub server: String,
    pub reference_sha256: String,
    pub remote_name: String,
}

impl Store {
    /// The name `server` holds the recording under, if uploaded.
    pub async fn remote_upload(&self, server: &str, reference_sha256: &str) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT remote_name FROM remote_voices WHERE server = ?1 AND reference_sha256 = ?2")
            .bind(server)
            .bind(reference_sha256)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.error(e))
    }

    /// Records an upload (replacing an earlier one to the same server).
    pub async fn save_remote_upload(&self, upload: &RemoteUpload) -> Result<()> {
        sqlx::query("INSERT OR REPLACE INTO remote_voices (engine, server, reference_sha256, remote_name) VALUES (?1, ?2, ?3, ?4)")
            .bind(&upload.engine)
            .bind(&upload.server)
            .bind(&upload.reference_sha256)
            .bind(&upload.remote_name)
            .execute(&self.pool)
            .await
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Forgets a recording's uploads (the server lost it, or the voice was
    /// deleted); returns what was forgotten.
    pub async fn forget_remote_uploads(&self, reference_sha256: &str, server: Option<&str>) -> Result<Vec<RemoteUpload>> {
        sqlx::query_as("DELETE FROM remote_voices WHERE reference_sha256 = ?1 AND (?2 IS NULL OR server = ?2) RETURNING *")
            .bind(reference_sha256)
            .bind(server)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.error(e))
    }
}
