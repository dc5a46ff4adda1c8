//! The studio's SQLite database (through sqlx): one file in the data
//! directory, WAL journaling, schema migrations embedded in the binary and
//! applied on open. Each table family gets a module of its own here as the
//! project model grows; every write of a user's work is one transaction.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use revoice_core::error::{Error, Result};

pub mod beds;
pub mod casts;
pub mod checks;
pub mod fits;
pub mod glossary;
mod history;
pub mod lanes;
pub mod lines;
pub mod markers;
pub mod projects;
pub mod pronunciations;
pub mod remote_voices;
pub mod spoken_lengths;
pub mod translations;
pub mod voices;

pub use beds::BedStem;
pub use casts::{CastMember, CastSheet};
pub use checks::TakeCheckRecord;
pub use glossary::GlossaryEntry;
pub use lanes::LaneMix;
pub use markers::Marker;
pub use projects::{Project, RenderJob, RunningJob, Segment, SegmentFields, Speaker, Take, Track};
pub use voices::{NewVoice, VoiceRecord};

/// File name of the database inside the data directory.
pub const DATABASE_FILE_NAME: &str = "studio.sqlite3";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Whether an open failed only because another connection held a lock.
fn is_locked(e: &Error) -> bool {
    let code = |source: &sqlx::Error| source.as_database_error().and_then(|d| d.code()).is_some_and(|c| c == "5" || c == "6" || c == "517");
    match e {
        Error::Database { source, .. } => source.downcast_ref::<sqlx::Error>().is_some_and(code),
        Error::Migration { source, .. } => {
            matches!(source.downcast_ref::<sqlx::migrate::MigrateError>(), Some(sqlx::migrate::MigrateError::Execute(source)) if code(source))
        }
        Error::Context { source, .. } => is_locked(source),
        _ => false,
    }
}

/// An open studio database.
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and migrates it.
    /// Another process opening the same new file at the same moment (the
    /// app and the CLI) can hold the lock that switching to WAL or
    /// migrating needs, and SQLite then answers "locked" without waiting:
    /// the open is tried again for a few seconds before that is an error.
    pub async fn open(path: &Path) -> Result<Store> {
        // One opener at a time migrates (sqlx does not lock SQLite
        // migrations): an exclusive lock on a file beside the database,
        // held from connecting to the end of the migrations.
        let lock_path = path.with_extension("sqlite3.open-lock");
        let shown = lock_path.display().to_string();
        let lock = {
            tokio::task::spawn_blocking(move || -> Result<std::fs::File> {
                if let Some(dir) = lock_path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
                }
                let file =
                    std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| Error::io("open", &lock_path, e))?;
                file.lock().map_err(|e| Error::io("lock", &lock_path, e))?;
                Ok(file)
            })
            .await
            .map_err(|e| Error::InvalidInput { input: shown, reason: format!("locking crashed: {e}") })??
        };
        let opened = Store::open_retrying(path).await;
        drop(lock);
        opened
    }

    async fn open_retrying(path: &Path) -> Result<Store> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match Store::open_once(path).await {
                Err(e) if is_locked(&e) && std::time::Instant::now() < deadline => {
                    tracing::debug!(error = %e, "the database is being opened elsewhere; trying again");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                other => return other,
            }
        }
    }

    async fn open_once(path: &Path) -> Result<Store> {
        let db_err = |source: sqlx::Error| Error::database(path, source);
        let options = SqliteConnectOptions::from_str("sqlite://")
            .map_err(db_err)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(std::time::Duration::from_secs(5));
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options).await.map_err(db_err)?;
        MIGRATOR.run(&pool).await.map_err(|source| Error::Migration { path: path.to_path_buf(), source: source.into() })?;
        let store = Store { pool, path: path.to_path_buf() };
        // Bookkeeping only: a database that cannot be written (a full disk)
        // still opens, so work can be read and exported elsewhere.
        if let Err(e) = store.record_open().await {
            tracing::warn!(error = %e, "could not record this engine version in the database");
        }
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The SQLite library version in use, e.g. `3.50.4`.
    pub async fn sqlite_version(&self) -> Result<String> {
        sqlx::query_scalar("SELECT sqlite_version()").fetch_one(&self.pool).await.map_err(|source| self.error(source))
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
        .bind(env!("CARGO_PKG_VERSION"))
        .execute(&self.pool)
        .await
        .map_err(|source| self.error(source))?;
        Ok(())
    }

    fn error(&self, source: sqlx::Error) -> Error {
        Error::database(&self.path, source)
    }
}

#[cfg(test)]
mod tests {

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn several_openers_of_one_new_database_all_get_it_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.sqlite3");
        let opens: Vec<_> = (0..6)
            .map(|_| {
                let path = path.clone();
                tokio::spawn(async move { Store::open(&path).await })
            })
            .collect();
        for open in opens {
            let store = open.await.unwrap().unwrap_or_else(|e| panic!("an opener failed: {e}"));
            assert!(store.projects().await.unwrap().is_empty());
        }
    }

    use super::*;

    #[tokio::test]
    async fn opening_creates_a_migrated_wal_database_and_records_the_engine_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DATABASE_FILE_NAME);
        let store = Store::open(&path).await.unwrap();
        let version = store.sqlite_version().await.unwrap();
        assert!(version.starts_with("3."), "{version}");
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&store.pool).await.unwrap();
        assert_eq!(mode, "wal");
        store.close().await;

        let reopened = Store::open(&path).await.unwrap();
        assert_eq!(reopened.engine_versions_seen().await.unwrap(), vec![env!("CARGO_PKG_VERSION").to_string()]);
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
