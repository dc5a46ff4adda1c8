//! Predicted spoken lengths in the database: seconds by length key (see
//! `dub::spoken_length`), written once per key and read per track.

use std::collections::HashMap;

use super::Store;
use revoice_core::error::Result;

impl Store {
    /// The lengths known for `keys`, by key (keys never predicted are absent).
    pub async fn spoken_lengths(&self, keys: &[String]) -> Result<HashMap<String, f64>> {
        let mut found = HashMap::new();
        // SQLite takes at most 32,766 bound values; 500 keys a query stays well inside it.
        for chunk in keys.chunks(500) {
            let mut query = sqlx::QueryBuilder::new("SELECT length_key, seconds FROM spoken_lengths WHERE length_key IN (");
            let mut each = query.separated(", ");
            for key in chunk {
                each.push_bind(key);
            }
            query.push(")");
            found.extend(query.build_query_as::<(String, f64)>().fetch_all(&self.pool).await.map_err(|e| self.db(e))?);
        }
        Ok(found)
    }

    /// Keeps predicted lengths (one transaction).
    pub async fn save_spoken_lengths(&self, lengths: &[(String, f64)]) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        for (key, seconds) in lengths {
            sqlx::query("INSERT INTO spoken_lengths (length_key, seconds) VALUES (?1, ?2) ON CONFLICT(length_key) DO UPDATE SET seconds = ?2")
                .bind(key)
                .bind(seconds)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.db(e))?;
        }
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(())
    }
}
