//! The studio's SQLite database (through sqlx): one file in the data
//! directory, WAL journaling, schema migrations embedded in the binary and
//! applied on open. Each table family gets a module of its own here as the
//! project model grows; every write of a user's work is one transaction.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use crate::error::{Error, Result};

pub mod lines;
pub mod projects;
pub mod voices;

pub use projects::{Project, RenderJob, Segment, SegmentFields, Speaker, Track};
pub use voices::{NewVoice, VoiceRecord};

/// File name of the database inside the data directory.
pub const DATABASE_FILE_NAME: &str = "studio.sqlite3";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// An open studio database.
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and migrates it.
    pub async fn open(path: &Path) -> Result<Store> {
        let db_err = |source| Error::Database {
            path: path.to_path_buf(),
            source,
        };
        let options = SqliteConnectOptions::from_str("sqlite://")
            .map_err(db_err)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(std::time::Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(db_err)?;
        MIGRATOR.run(&pool).await.map_err(|source| Error::Migration {
            path: path.to_path_buf(),
            source,
        })?;
        let store = Store {
            pool,
            path: path.to_path_buf(),
        };
        store.record_open().await?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The SQLite library version in use, e.g. `3.50.4`.
    pub async fn sqlite_version(&self) -> Result<String> {
        sqlx::query_scalar("SELECT sqlite_version()")
            .fetch_one(&self.pool)
            .await
            .map_err(|source| self.error(source))
    }

    /// Engine versions that have opened this database, oldest first.
    pub async fn engine_versions_seen(&self) -> Result<Vec<String>> {
        sqlx::query_scalar("SELECT engine_version FROM engine_meta ORDER BY first_opened_at, engine_version")
            .fetch_all(&self.pool)
            .await
            .map_err(|source| self.error(source))
    }

    /// Closes the pool, checkpointing the WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn record_open(&self) -> Result<()> {
        sqlx::query(
            "INSERT INTO engine_meta (engine_version) VALUES (?1)
             ON CONFLICT(engine_version) DO UPDATE
             SET last_opened_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
        )
        .bind(crate::ENGINE_VERSION)
        .execute(&self.pool)
        .await
        .map_err(|source| self.error(source))?;
        Ok(())
    }

    fn error(&self, source: sqlx::Error) -> Error {
        Error::Database {
            path: self.path.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opening_creates_a_migrated_wal_database_and_records_the_engine_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DATABASE_FILE_NAME);
        let store = Store::open(&path).await.unwrap();
        let version = store.sqlite_version().await.unwrap();
        assert!(version.starts_with("3."), "{version}");
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(mode, "wal");
        store.close().await;

        let reopened = Store::open(&path).await.unwrap();
        assert_eq!(
            reopened.engine_versions_seen().await.unwrap(),
            vec![crate::ENGINE_VERSION.to_string()]
        );
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_database_is_an_error_naming_it_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DATABASE_FILE_NAME);
        let garbage = b"this is not a database, it is a shopping list\n".repeat(200);
        std::fs::write(&path, &garbage).unwrap();
        let err = Store::open(&path).await.err().expect("garbage must not open");
        assert!(err.to_string().contains(DATABASE_FILE_NAME), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), garbage);
    }
}
