//! The `voice_fits` table: each voice fit's latest checkpoint and, once it
//! finishes, the fitted voice, keyed by the fit's cache key (recording
//! content, fit settings, model and encoder).

use super::Store;
use revoice_core::error::Result;

/// A fit as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FitRecord {
    pub fit_key: String,
    pub checkpoint_json: String,
    /// The fitted voice, once the fit has finished.
    pub fitted_json: Option<String>,
    pub updated_at: String,
}

impl Store {
    /// The fit under `key`, if one was started.
    pub async fn voice_fit(&self, key: &str) -> Result<Option<FitRecord>> {
        sqlx::query_as("SELECT * FROM voice_fits WHERE fit_key = ?1").bind(key).fetch_optional(&self.pool).await.map_err(|e| self.error(e))
    }

    /// Saves a fit's checkpoint (a running fit).
    pub async fn save_fit_checkpoint(&self, key: &str, checkpoint_json: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO voice_fits (fit_key, checkpoint_json) VALUES (?1, ?2)
             ON CONFLICT (fit_key) DO UPDATE SET checkpoint_json = excluded.checkpoint_json, fitted_json = NULL,
             updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
        )
        .bind(key)
        .bind(checkpoint_json)
        .execute(&self.pool)
        .await
        .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Records a fit as finished with its fitted voice.
    pub async fn finish_fit(&self, key: &str, checkpoint_json: &str, fitted_json: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO voice_fits (fit_key, checkpoint_json, fitted_json) VALUES (?1, ?2, ?3)
             ON CONFLICT (fit_key) DO UPDATE SET checkpoint_json = excluded.checkpoint_json, fitted_json = excluded.fitted_json,
             updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
        )
        .bind(key)
        .bind(checkpoint_json)
        .bind(fitted_json)
        .execute(&self.pool)
        .await
        .map_err(|e| self.error(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_checkpoint_is_replaced_and_a_finished_fit_keeps_its_voice() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        assert!(store.voice_fit("k").await.unwrap().is_none());
        store.save_fit_checkpoint("k", "{\"g\":1}").await.unwrap();
        store.save_fit_checkpoint("k", "{\"g\":2}").await.unwrap();
        let running = store.voice_fit("k").await.unwrap().unwrap();
        assert_eq!((running.checkpoint_json.as_str(), running.fitted_json), ("{\"g\":2}", None));
        store.finish_fit("k", "{\"g\":3}", "{\"voice\":1}").await.unwrap();
        assert_eq!(store.voice_fit("k").await.unwrap().unwrap().fitted_json.as_deref(), Some("{\"voice\":1}"));
    }
}
