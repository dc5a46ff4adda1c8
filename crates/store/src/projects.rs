//! Dub projects in the database: projects, their tracks (one per target
//! language), timed segments, speakers with their voices, takes, render
//! jobs, and the undo/redo history. Every edit is one transaction that also
//! records the edited row's state before and after, so undo and redo work
//! across restarts and a crash loses at most the edit in flight.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::{Sqlite, Transaction};

use super::Store;
use revoice_core::error::{Error, Result};
use revoice_text::subtitles::Cue;

/// A project.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Project {
    pub id: i64,
    pub name: String,
    /// The project's default timing strategy (snake_case name).
    pub timing_strategy: String,
    pub created_at: String,
    pub updated_at: String,
    /// The recording or video holding the original dialogue, if any.
    pub original_media: Option<String>,
    /// The picture the dub is made against, if any.
    pub video_file: Option<String>,
    /// The original dialogue's language tag, when known.
    pub original_language: Option<String>,
    /// The cast sheet its speakers take their voices from, if any.
    pub cast_id: Option<i64>,
    /// Its timecode's frame rate by name (`dub::timecode::FrameRate`); `None` is 25.
    pub frame_rate: Option<String>,
}

/// A track: the dub of a project into one language.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Track {
    pub id: i64,
    pub project_id: i64,
    pub language: String,
}

/// A speaker and the voice their lines are spoken with.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, Serialize, Deserialize)]
pub struct Speaker {
    pub id: i64,
    pub project_id: i64,
    pub name: String,
    /// The voice of their lines in any language without one of its own.
    pub voice: String,
    /// Voices by track language, as a JSON object (see [`Speaker::language_voices`]).
    #[serde(default = "no_language_voices")]
    pub language_voices: String,
}

fn no_language_voices() -> String {
    "{}".into()
}

impl Speaker {
    /// The speaker's own voice for each language that has one.
    pub fn language_voices(&self) -> BTreeMap<String, String> {
        serde_json::from_str(&self.language_voices).unwrap_or_default()
    }

    /// The voice of the speaker's lines on a track in `language`.
    pub fn voice_for(&self, language: &str) -> String {
        self.language_voices().into_iter().find(|(l, _)| l.eq_ignore_ascii_case(language)).map_or_else(|| self.voice.clone(), |(_, v)| v)
    }
}

/// What a user edits on a segment.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, Serialize, Deserialize)]
pub struct SegmentFields {
    pub start_s: f64,
    pub end_s: f64,
    pub text: String,
    pub speaker_id: Option<i64>,
    pub speed: f64,
    pub gain_db: f64,
    pub fade_in_s: f64,
    pub fade_out_s: f64,
    /// Overrides the project's strategy when set.
    pub timing_strategy: Option<String>,
    pub locked: bool,
    /// The seed the line renders with; `None` renders with the segment's id.
    #[serde(default)]
    pub seed: Option<i64>,
}

/// A timed line on a track.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, Serialize, Deserialize)]
pub struct Segment {
    pub id: i64,
    pub track_id: i64,
    #[sqlx(flatten)]
    pub fields: SegmentFields,
    pub active_take_id: Option<i64>,
}

impl Segment {
    /// The seed the line renders with: its own, or its id.
    pub fn seed(&self) -> i64 {
        self.fields.seed.unwrap_or(self.id)
    }
}

/// One synthesis of a segment, kept so the user can go back to it (and
/// put back with its line when a deletion is undone).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, Serialize, Deserialize)]
pub struct Take {
    pub id: i64,
    pub segment_id: i64,
    pub seed: i64,
    pub synthesis_key: String,
    pub duration_s: f64,
    pub created_at: String,
    pub source_key: Option<String>,
}

/// A render job this process is running: its id, and the lock that tells
/// other processes it is alive (released when dropped, or when the process
/// dies however it dies).
#[derive(Debug)]
pub struct RunningJob {
    pub id: i64,
    _lock: std::fs::File,
}

/// A render job's state as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct RenderJob {
    pub id: i64,
    pub project_id: i64,
    pub state: String,
    pub total: i64,
    pub done: i64,
    pub error: Option<String>,
}

impl SegmentFields {
    /// A new line's fields: the slot, the text and the speaker, everything
    /// else at its default (normal speed, no gain, no fades, the project's
    /// strategy, unlocked, the segment's own seed).
    pub fn new_line(start_s: f64, end_s: f64, text: String, speaker_id: Option<i64>) -> SegmentFields {
        SegmentFields {
            start_s,
            end_s,
            text,
            speaker_id,
            speed: 1.0,
            gain_db: 0.0,
            fade_in_s: 0.0,
            fade_out_s: 0.0,
            timing_strategy: None,
            locked: false,
            seed: None,
        }
    }
}

pub(crate) fn check_fields(id: i64, f: &SegmentFields) -> Result<()> {
    let bad = |reason: String| Err(Error::InvalidInput { input: format!("segment {id}"), reason });
    if !(f.start_s.is_finite() && f.end_s.is_finite()) || f.start_s < 0.0 || f.end_s <= f.start_s {
        return bad(format!("ends ({:.3} s) before it starts ({:.3} s), or has no valid time", f.end_s, f.start_s));
    }
    if !(0.25..=4.0).contains(&f.speed) {
        return bad(format!("speed {} is outside 0.25 to 4.0", f.speed));
    }
    if f.fade_in_s < 0.0 || f.fade_out_s < 0.0 {
        return bad("fades cannot be negative".into());
    }
    Ok(())
}

impl Store {
    pub(crate) fn db(&self, e: sqlx::Error) -> Error {
        self.error(e)
    }

    /// Creates a project with one (empty) track in `language`.
    pub async fn create_project(&self, name: &str, language: &str) -> Result<(Project, Track)> {
        if name.trim().is_empty() {
            return Err(Error::InvalidInput { input: "project name".into(), reason: "cannot be empty".into() });
        }
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let id: i64 =
            sqlx::query_scalar("INSERT INTO projects (name) VALUES (?1) RETURNING id").bind(name.trim()).fetch_one(&mut *tx).await.map_err(|e| self.db(e))?;
        let track = sqlx::query_as("INSERT INTO tracks (project_id, language) VALUES (?1, ?2) RETURNING *")
            .bind(id)
            .bind(language)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok((self.project(id).await?, track))
    }

    /// The one row `sql` (with `?1` bound to `id`) finds, or an error
    /// saying there is no such `what`.
    async fn one<T>(&self, sql: &'static str, id: i64, what: &str) -> Result<T>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> + Send + Unpin,
    {
        sqlx::query_as(sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("{what} {id}"), format!("there is no such {what}")))
    }

    /// A project by id.
    pub async fn project(&self, id: i64) -> Result<Project> {
        self.one("SELECT * FROM projects WHERE id = ?1", id, "project").await
    }

    /// Every project, newest first.
    pub async fn projects(&self) -> Result<Vec<Project>> {
        sqlx::query_as("SELECT * FROM projects ORDER BY id DESC").fetch_all(&self.pool).await.map_err(|e| self.db(e))
    }

    /// Renames a project.
    pub async fn rename_project(&self, id: i64, name: &str) -> Result<Project> {
        if name.trim().is_empty() {
            return Err(Error::InvalidInput { input: format!("project {id}"), reason: "a name cannot be empty".into() });
        }
        self.project(id).await?;
        sqlx::query_as("UPDATE projects SET name = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1 RETURNING *")
            .bind(id)
            .bind(name.trim())
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.db(e))
    }

    /// Deletes a project with its tracks, lines, takes, speakers and
    /// history (their rendered audio is collected with the segment store's
    /// garbage).
    pub async fn delete_project(&self, id: i64) -> Result<()> {
        let deleted = sqlx::query("DELETE FROM projects WHERE id = ?1").bind(id).execute(&self.pool).await.map_err(|e| self.db(e))?;
        if deleted.rows_affected() == 0 {
            return Err(Error::not_found(format!("project {id}"), "there is no such project"));
        }
        Ok(())
    }

    /// One track.
    pub async fn track(&self, id: i64) -> Result<Track> {
        self.one("SELECT * FROM tracks WHERE id = ?1", id, "track").await
    }

    /// A project's tracks.
    pub async fn tracks(&self, project_id: i64) -> Result<Vec<Track>> {
        sqlx::query_as("SELECT * FROM tracks WHERE project_id = ?1 ORDER BY id").bind(project_id).fetch_all(&self.pool).await.map_err(|e| self.db(e))
    }

    /// Adds cues to a track in one transaction; speakers named in them are
    /// created (with the default voice) when new. Returns the segments added.
    pub async fn import_cues(&self, track: &Track, cues: &[Cue]) -> Result<usize> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        for (i, cue) in cues.iter().enumerate() {
            let speaker_id = match &cue.speaker {
                Some(name) => Some(self.speaker_id(&mut tx, track.project_id, name).await?),
                None => None,
            };
            let fields = SegmentFields::new_line(cue.start, cue.end, cue.text.clone(), speaker_id);
            check_fields(i as i64 + 1, &fields).map_err(|e| e.context(format!("cue {}", i + 1)))?;
            sqlx::query("INSERT INTO segments (track_id, start_s, end_s, text, speaker_id) VALUES (?1, ?2, ?3, ?4, ?5)")
                .bind(track.id)
                .bind(fields.start_s)
                .bind(fields.end_s)
                .bind(&fields.text)
                .bind(fields.speaker_id)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.db(e))?;
        }
        touch(&mut tx, track.project_id).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(cues.len())
    }

    /// A speaker of the project by name, added when new: with the voices
    /// of the project's cast sheet for that name, if it has one.
    async fn speaker_id(&self, tx: &mut Transaction<'_, Sqlite>, project_id: i64, name: &str) -> Result<i64> {
        sqlx::query_scalar(
            "INSERT INTO speakers (project_id, name, voice, language_voices)
             SELECT p.id, ?2, COALESCE(m.voice, 'af_heart'), COALESCE(m.language_voices, '{}')
             FROM projects p LEFT JOIN cast_members m ON m.cast_id = p.cast_id AND m.speaker = ?2
             WHERE p.id = ?1
             ON CONFLICT(project_id, name) DO UPDATE SET name = name RETURNING id",
        )
        .bind(project_id)
        .bind(name)
        .fetch_one(&mut **tx)
        .await
        .map_err(|e| self.db(e))
    }

    /// A track's segments in time order.
    pub async fn segments(&self, track_id: i64) -> Result<Vec<Segment>> {
        sqlx::query_as("SELECT * FROM segments WHERE track_id = ?1 ORDER BY start_s, id").bind(track_id).fetch_all(&self.pool).await.map_err(|e| self.db(e))
    }

    /// A track's segments in time order, each with its active take (one query).
    pub async fn track_lines(&self, track_id: i64) -> Result<Vec<(Segment, Option<Take>)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            segment: Segment,
            take_id: Option<i64>,
            take_seed: Option<i64>,
            take_key: Option<String>,
            take_seconds: Option<f64>,
            take_created: Option<String>,
            take_source: Option<String>,
        }
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT s.*, t.id AS take_id, t.seed AS take_seed, t.synthesis_key AS take_key, t.duration_s AS take_seconds, \
             t.created_at AS take_created, t.source_key AS take_source \
             FROM segments s LEFT JOIN takes t ON t.id = s.active_take_id WHERE s.track_id = ?1 ORDER BY s.start_s, s.id",
        )
        .bind(track_id)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let take = match (r.take_id, r.take_seed, r.take_key, r.take_seconds, r.take_created) {
                    (Some(id), Some(seed), Some(synthesis_key), Some(duration_s), Some(created_at)) => {
                        Some(Take { id, segment_id: r.segment.id, seed, synthesis_key, duration_s, created_at, source_key: r.take_source })
                    }
                    _ => None,
                };
                (r.segment, take)
            })
            .collect())
    }

    /// Every take of every line on a track, oldest first.
    pub async fn track_takes(&self, track_id: i64) -> Result<Vec<Take>> {
        sqlx::query_as(
            "SELECT t.id, t.segment_id, t.seed, t.synthesis_key, t.duration_s, t.created_at, t.source_key FROM takes t JOIN segments s ON s.id = t.segment_id WHERE s.track_id = ?1 ORDER BY t.id",
        )
        .bind(track_id)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))
    }

    /// Renames a speaker of a project; a name another speaker has is a conflict.
    pub async fn rename_speaker(&self, project_id: i64, speaker_id: i64, name: &str) -> Result<Speaker> {
        let taken: Option<i64> = sqlx::query_scalar("SELECT id FROM speakers WHERE project_id = ?1 AND name = ?2 AND id != ?3")
            .bind(project_id)
            .bind(name)
            .bind(speaker_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        if taken.is_some() {
            return Err(Error::conflict(format!("speaker name {name:?}"), format!("another speaker of project {project_id} has it")));
        }
        sqlx::query_as("UPDATE speakers SET name = ?3 WHERE project_id = ?1 AND id = ?2 RETURNING *")
            .bind(project_id)
            .bind(speaker_id)
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("speaker {speaker_id}"), format!("not in project {project_id}")))
    }

    /// A project's speakers by name.
    pub async fn speakers(&self, project_id: i64) -> Result<Vec<Speaker>> {
        sqlx::query_as("SELECT * FROM speakers WHERE project_id = ?1 ORDER BY name").bind(project_id).fetch_all(&self.pool).await.map_err(|e| self.db(e))
    }

    /// Edits one segment in one transaction, recording the edit for undo
    /// (and dropping whatever could have been redone).
    pub async fn edit_segment(&self, id: i64, description: &str, edit: impl FnOnce(&mut SegmentFields)) -> Result<Segment> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let (project_id, before): (i64, SegmentFields) = {
            let segment: Segment = sqlx::query_as("SELECT * FROM segments WHERE id = ?1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.db(e))?
                .ok_or_else(|| Error::not_found(format!("segment {id}"), "there is no such segment"))?;
            let project: i64 =
                sqlx::query_scalar("SELECT project_id FROM tracks WHERE id = ?1").bind(segment.track_id).fetch_one(&mut *tx).await.map_err(|e| self.db(e))?;
            (project, segment.fields)
        };
        let mut after = before.clone();
        edit(&mut after);
        check_fields(id, &after)?;
        write_segment(&mut tx, id, &after).await.map_err(|e| self.db(e))?;
        record(&mut tx, project_id, description, "segment", id, &before, &after).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        self.segment(id).await
    }

    /// Sets the voice a speaker's lines use (undoable).
    pub async fn set_speaker_voice(&self, speaker_id: i64, voice: &str) -> Result<Speaker> {
        self.edit_speaker(speaker_id, |before| (Speaker { voice: voice.to_string(), ..before.clone() }, format!("voice of {} → {voice}", before.name))).await
    }

    /// Gives a speaker `voice` for lines in `language`, or (with `None`)
    /// goes back to their default voice there. One undoable edit.
    pub async fn set_speaker_language_voice(&self, speaker_id: i64, language: &str, voice: Option<&str>) -> Result<Speaker> {
        self.edit_speaker(speaker_id, |before| {
            let mut voices = before.language_voices();
            voices.retain(|l, _| !l.eq_ignore_ascii_case(language));
            if let Some(voice) = voice {
                voices.insert(language.to_string(), voice.to_string());
            }
            let after = Speaker { language_voices: serde_json::to_string(&voices).expect("a map of strings serialises"), ..before.clone() };
            let description = match voice {
                Some(voice) => format!("{} voice of {} → {voice}", language, before.name),
                None => format!("{} voice of {} → default", language, before.name),
            };
            (after, description)
        })
        .await
    }

    /// Changes a speaker in one transaction, recorded for undo: `edit`
    /// gives the speaker after and what the history calls the edit.
    async fn edit_speaker(&self, speaker_id: i64, edit: impl FnOnce(&Speaker) -> (Speaker, String)) -> Result<Speaker> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let before: Speaker = sqlx::query_as("SELECT * FROM speakers WHERE id = ?1")
            .bind(speaker_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("speaker {speaker_id}"), "there is no such speaker"))?;
        let (after, description) = edit(&before);
        write_speaker(&mut tx, &after).await.map_err(|e| self.db(e))?;
        record(&mut tx, before.project_id, &description, "speaker", speaker_id, &before, &after).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(after)
    }

    /// The track of `project_id` in `language`, created if it has none.
    pub async fn track_for_language(&self, project_id: i64, language: &str) -> Result<Track> {
        let existing = self.tracks(project_id).await?.into_iter().find(|t| t.language.eq_ignore_ascii_case(language));
        match existing {
            Some(track) => Ok(track),
            None => self.add_track(project_id, language).await,
        }
    }

    /// One segment.
    pub async fn segment(&self, id: i64) -> Result<Segment> {
        self.one("SELECT * FROM segments WHERE id = ?1", id, "segment").await
    }

    /// Records a take of a segment and makes it the active one.
    pub async fn add_take(&self, segment_id: i64, seed: i64, synthesis_key: &str, duration_s: f64, source_key: Option<&str>) -> Result<i64> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let id: i64 =
            sqlx::query_scalar("INSERT INTO takes (segment_id, seed, synthesis_key, duration_s, source_key) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id")
                .bind(segment_id)
                .bind(seed)
                .bind(synthesis_key)
                .bind(duration_s)
                .bind(source_key)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| self.db(e))?;
        sqlx::query("UPDATE segments SET active_take_id = ?2 WHERE id = ?1").bind(segment_id).bind(id).execute(&mut *tx).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(id)
    }

    /// A segment's takes, oldest first.
    pub async fn takes(&self, segment_id: i64) -> Result<Vec<Take>> {
        sqlx::query_as("SELECT id, segment_id, seed, synthesis_key, duration_s, created_at, source_key FROM takes WHERE segment_id = ?1 ORDER BY id")
            .bind(segment_id)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.db(e))
    }

    /// Makes `take_id` the segment's active take and its seed the segment's
    /// seed, in one undoable step (undo restores the seed; the next render
    /// then brings back the take that matches it).
    pub async fn pick_take(&self, segment_id: i64, take_id: i64) -> Result<Segment> {
        let take: Option<(i64, i64)> =
            sqlx::query_as("SELECT segment_id, seed FROM takes WHERE id = ?1").bind(take_id).fetch_optional(&self.pool).await.map_err(|e| self.db(e))?;
        let seed = match take {
            Some((owner, seed)) if owner == segment_id => seed,
            _ => return Err(Error::not_found(format!("take {take_id}"), format!("it is not a take of line {segment_id}"))),
        };
        self.edit_segment(segment_id, &format!("pick take {take_id}"), |f| f.seed = Some(seed)).await?;
        self.set_active_take(segment_id, take_id).await?;
        self.segment(segment_id).await
    }

    /// Points a segment at one of its takes (no undo step: which take is
    /// active follows from the segment's fields).
    pub async fn set_active_take(&self, segment_id: i64, take_id: i64) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let changed = sqlx::query("UPDATE segments SET active_take_id = ?2 WHERE id = ?1 AND EXISTS (SELECT 1 FROM takes WHERE id = ?2 AND segment_id = ?1)")
            .bind(segment_id)
            .bind(take_id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.db(e))?;
        if changed.rows_affected() > 0 {
            // What plays follows the project's time of change (see `edited_at`).
            sqlx::query("UPDATE projects SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = (SELECT t.project_id FROM segments s JOIN tracks t ON t.id = s.track_id WHERE s.id = ?1)")
                .bind(segment_id)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.db(e))?;
        }
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(())
    }

    /// When the project last changed (every edit, undo, redo and take
    /// touches it), to the millisecond; playback polls it to stay in step.
    pub async fn edited_at(&self, project_id: i64) -> Result<String> {
        sqlx::query_scalar("SELECT updated_at FROM projects WHERE id = ?1")
            .bind(project_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("project {project_id}"), "it does not exist"))
    }

    /// Adds a track in another language.
    pub async fn add_track(&self, project_id: i64, language: &str) -> Result<Track> {
        sqlx::query_as("INSERT INTO tracks (project_id, language) VALUES (?1, ?2) RETURNING *")
            .bind(project_id)
            .bind(language)
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.db(e))
    }

    /// Writes a segment's fields without an undo step (for imports).
    pub async fn set_segment_fields(&self, id: i64, fields: &SegmentFields) -> Result<()> {
        check_fields(id, fields)?;
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        write_segment(&mut tx, id, fields).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))
    }

    /// Sets a speaker's voices without an undo step (for imports).
    pub async fn set_speaker_voice_quietly(&self, speaker_id: i64, voice: &str, language_voices: &BTreeMap<String, String>) -> Result<()> {
        sqlx::query("UPDATE speakers SET voice = ?2, language_voices = ?3 WHERE id = ?1")
            .bind(speaker_id)
            .bind(voice)
            .bind(serde_json::to_string(language_voices).expect("a map of strings serialises"))
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// The active take of every segment of a track that has one: segment
    /// id → (synthesis key, source key, length in seconds).
    pub async fn active_takes(&self, track_id: i64) -> Result<std::collections::HashMap<i64, (String, Option<String>, f64)>> {
        let rows: Vec<(i64, String, Option<String>, f64)> = sqlx::query_as(
            "SELECT s.id, t.synthesis_key, t.source_key, t.duration_s FROM segments s JOIN takes t ON t.id = s.active_take_id WHERE s.track_id = ?1",
        )
        .bind(track_id)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))?;
        Ok(rows.into_iter().map(|(id, key, source, seconds)| (id, (key, source, seconds))).collect())
    }

    /// Whether the project has an edit to undo, and one to redo.
    pub async fn history_state(&self, project_id: i64) -> Result<(bool, bool)> {
        let (undo, redo): (i64, i64) = sqlx::query_as("SELECT coalesce(sum(undone = 0), 0), coalesce(sum(undone = 1), 0) FROM history WHERE project_id = ?1")
            .bind(project_id)
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok((undo > 0, redo > 0))
    }

    /// A take's synthesis key, source key (if recorded) and length in seconds.
    pub async fn take_info(&self, take_id: i64) -> Result<Option<(String, Option<String>, f64)>> {
        sqlx::query_as("SELECT synthesis_key, source_key, duration_s FROM takes WHERE id = ?1")
            .bind(take_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))
    }

    /// The synthesis key of a take, if the take exists.
    pub async fn take_key(&self, take_id: i64) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT synthesis_key FROM takes WHERE id = ?1").bind(take_id).fetch_optional(&self.pool).await.map_err(|e| self.db(e))
    }

    /// Every take's synthesis key in the database (what the segment store must keep).
    pub async fn take_keys(&self) -> Result<Vec<String>> {
        sqlx::query_scalar("SELECT DISTINCT synthesis_key FROM takes").fetch_all(&self.pool).await.map_err(|e| self.db(e))
    }

    /// Sets a project's timing strategy as it is made (from a project
    /// file): not an edit, so nothing to undo.
    pub async fn set_initial_timing_strategy(&self, project_id: i64, strategy: &str) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        write_project_strategy(&mut tx, project_id, strategy).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Sets the project's default timing strategy (a snake_case name,
    /// checked by the caller), as an edit undo and redo step through.
    pub async fn set_timing_strategy(&self, project_id: i64, strategy: &str) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let before: Option<String> =
            sqlx::query_scalar("SELECT timing_strategy FROM projects WHERE id = ?1").bind(project_id).fetch_optional(&mut *tx).await.map_err(|e| self.db(e))?;
        let Some(before) = before else { return Err(Error::not_found(format!("project {project_id}"), "it does not exist")) };
        if before != strategy {
            write_project_strategy(&mut tx, project_id, strategy).await.map_err(|e| self.db(e))?;
            record(&mut tx, project_id, &format!("timing {}", strategy.replace('_', " ")), "project_strategy", project_id, &before, &strategy.to_string())
                .await
                .map_err(|e| self.db(e))?;
        }
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Sets (or clears) the project's original dialogue: the recording or video its lines are from.
    pub async fn set_original_media(&self, project_id: i64, media: Option<&str>) -> Result<()> {
        sqlx::query("UPDATE projects SET original_media = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
            .bind(project_id)
            .bind(media)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Sets (or clears) the project's picture.
    pub async fn set_video(&self, project_id: i64, video: Option<&str>) -> Result<()> {
        sqlx::query("UPDATE projects SET video_file = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
            .bind(project_id)
            .bind(video)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Sets the rate the project's timecode runs at (a `FrameRate` name).
    /// Sets the project's timecode rate as an edit undo and redo step through
    /// (the rate a person chose; a picture's rate is set by `set_frame_rate`).
    pub async fn change_frame_rate(&self, project_id: i64, rate: &str) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let before: Option<Option<String>> =
            sqlx::query_scalar("SELECT frame_rate FROM projects WHERE id = ?1").bind(project_id).fetch_optional(&mut *tx).await.map_err(|e| self.db(e))?;
        let Some(before) = before else { return Err(Error::not_found(format!("project {project_id}"), "it does not exist")) };
        if before.as_deref() != Some(rate) {
            write_frame_rate(&mut tx, project_id, Some(rate)).await.map_err(|e| self.db(e))?;
            record(&mut tx, project_id, &format!("timecode at {rate}"), "project_frame_rate", project_id, &before, &Some(rate.to_string()))
                .await
                .map_err(|e| self.db(e))?;
        }
        touch(&mut tx, project_id).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Sets the project's timecode rate, outside the history (a picture's rate as it is attached, a project file's).
    pub async fn set_frame_rate(&self, project_id: i64, rate: &str) -> Result<()> {
        sqlx::query("UPDATE projects SET frame_rate = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
            .bind(project_id)
            .bind(rate)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Sets (or clears) the language of the project's original dialogue.
    pub async fn set_original_language(&self, project_id: i64, language: Option<&str>) -> Result<()> {
        sqlx::query("UPDATE projects SET original_language = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
            .bind(project_id)
            .bind(language)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Starts a render job of `total` segments.
    pub async fn start_render_job(&self, project_id: i64, total: i64) -> Result<RunningJob> {
        let id: i64 = sqlx::query_scalar("INSERT INTO render_jobs (project_id, state, total) VALUES (?1, 'running', ?2) RETURNING id")
            .bind(project_id)
            .bind(total)
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        let path = self.job_lock_path(id);
        // File work on a blocking thread, off the async executor.
        let lock = tokio::task::spawn_blocking(move || -> Result<std::fs::File> {
            let open = || -> std::io::Result<std::fs::File> {
                std::fs::create_dir_all(path.parent().expect("lock files live in a folder"))?;
                let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path)?;
                file.lock()?;
                Ok(file)
            };
            open().map_err(|e| Error::io("lock", &path, e))
        })
        .await
        .map_err(|e| Error::internal("locking a render job", e.to_string()))??;
        Ok(RunningJob { id, _lock: lock })
    }

    /// The file a running job's process holds locked while it lives.
    fn job_lock_path(&self, job_id: i64) -> std::path::PathBuf {
        self.path().with_file_name("render-locks").join(format!("{job_id}.lock"))
    }

    /// Records how many segments a job has done.
    pub async fn render_job_progress(&self, job_id: i64, done: i64) -> Result<()> {
        sqlx::query("UPDATE render_jobs SET done = ?2 WHERE id = ?1").bind(job_id).bind(done).execute(&self.pool).await.map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Ends a job as `done`, `failed` or `cancelled`.
    pub async fn finish_render_job(&self, job_id: i64, state: &str, error: Option<&str>) -> Result<()> {
        sqlx::query("UPDATE render_jobs SET state = ?2, error = ?3, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
            .bind(job_id)
            .bind(state)
            .bind(error)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// Interrupted jobs that no later render of their project has taken
    /// up: what is still waiting to be resumed, oldest first.
    pub async fn unresumed_render_jobs(&self) -> Result<Vec<RenderJob>> {
        sqlx::query_as(
            "SELECT id, project_id, state, total, done, error FROM render_jobs j WHERE state = 'interrupted'
               AND NOT EXISTS (SELECT 1 FROM render_jobs k WHERE k.project_id = j.project_id AND k.id > j.id) ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))
    }

    /// Marks jobs left `running` by a previous process (it was killed or
    /// crashed) as `interrupted`, and returns them so they can be resumed.
    pub async fn interrupted_render_jobs(&self) -> Result<Vec<RenderJob>> {
        // Look before writing: opening a database should not write to it
        // when nothing was left running (a read-only use, a full disk).
        let running: i64 =
            sqlx::query_scalar("SELECT count(*) FROM render_jobs WHERE state = 'running'").fetch_one(&self.pool).await.map_err(|e| self.db(e))?;
        if running == 0 {
            return Ok(Vec::new());
        }
        let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM render_jobs WHERE state = 'running'").fetch_all(&self.pool).await.map_err(|e| self.db(e))?;
        let mut interrupted = Vec::new();
        for id in ids {
            // A live render holds its lock file; one we can lock lost its process.
            let path = self.job_lock_path(id);
            let probed = path.clone();
            let alive = tokio::task::spawn_blocking(move || match std::fs::OpenOptions::new().write(true).open(&probed) {
                Ok(file) => matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock)),
                Err(_) => false,
            })
            .await
            .unwrap_or(false);
            if alive {
                continue;
            }
            let job: Option<RenderJob> = sqlx::query_as(
                "UPDATE render_jobs SET state = 'interrupted' WHERE id = ?1 AND state = 'running' RETURNING id, project_id, state, total, done, error",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
            let _ = tokio::fs::remove_file(&path).await;
            interrupted.extend(job);
        }
        Ok(interrupted)
    }
}

pub(crate) async fn touch(tx: &mut Transaction<'_, Sqlite>, project_id: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE projects SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1").bind(project_id).execute(&mut **tx).await?;
    Ok(())
}

pub(crate) async fn write_segment(tx: &mut Transaction<'_, Sqlite>, id: i64, f: &SegmentFields) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE segments SET start_s = ?2, end_s = ?3, text = ?4, speaker_id = ?5, speed = ?6, gain_db = ?7,
             fade_in_s = ?8, fade_out_s = ?9, timing_strategy = ?10, locked = ?11, seed = ?12 WHERE id = ?1",
    )
    .bind(id)
    .bind(f.start_s)
    .bind(f.end_s)
    .bind(&f.text)
    .bind(f.speaker_id)
    .bind(f.speed)
    .bind(f.gain_db)
    .bind(f.fade_in_s)
    .bind(f.fade_out_s)
    .bind(&f.timing_strategy)
    .bind(f.locked)
    .bind(f.seed)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub(crate) async fn write_speaker(tx: &mut Transaction<'_, Sqlite>, s: &Speaker) -> sqlx::Result<()> {
    sqlx::query("UPDATE speakers SET voice = ?2, language_voices = ?3 WHERE id = ?1")
        .bind(s.id)
        .bind(&s.voice)
        .bind(&s.language_voices)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Writes a project's timing strategy (an edit, or its undo or redo).
pub(crate) async fn write_project_strategy(tx: &mut Transaction<'_, Sqlite>, project_id: i64, strategy: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE projects SET timing_strategy = ?2 WHERE id = ?1").bind(project_id).bind(strategy).execute(&mut **tx).await?;
    Ok(())
}

/// Writes a project's timecode rate (NULL: the default), an edit or its undo or redo.
pub(crate) async fn write_frame_rate(tx: &mut Transaction<'_, Sqlite>, project_id: i64, rate: Option<&str>) -> sqlx::Result<()> {
    sqlx::query("UPDATE projects SET frame_rate = ?2 WHERE id = ?1").bind(project_id).bind(rate).execute(&mut **tx).await?;
    Ok(())
}

/// Appends an edit to the history, dropping the redo branch.
pub(crate) async fn record<T: Serialize>(
    tx: &mut Transaction<'_, Sqlite>,
    project_id: i64,
    description: &str,
    entity: &str,
    entity_id: i64,
    before: &T,
    after: &T,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM history WHERE project_id = ?1 AND undone = 1").bind(project_id).execute(&mut **tx).await?;
    sqlx::query("INSERT INTO history (project_id, description, entity, entity_id, before_json, after_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind(project_id)
        .bind(description)
        .bind(entity)
        .bind(entity_id)
        .bind(serde_json::to_string(before).expect("state serialises"))
        .bind(serde_json::to_string(after).expect("state serialises"))
        .execute(&mut **tx)
        .await?;
    touch(tx, project_id).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use revoice_text::subtitles::parse_srt;

    async fn demo(dir: &std::path::Path) -> (Store, Project, Track) {
        let store = Store::open(&dir.join("s.sqlite3")).await.unwrap();
        let (project, track) = store.create_project("Lighthouse", "en-US").await.unwrap();
        let cues = parse_srt(include_str!("../../../assets/demo/lighthouse.srt"), "lighthouse.srt").unwrap();
        store.import_cues(&track, &cues).await.unwrap();
        (store, project, track)
    }

    #[tokio::test]
    async fn an_imported_script_becomes_segments_with_speakers() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let segments = store.segments(track.id).await.unwrap();
        assert_eq!(segments.len(), 32);
        let speakers = store.speakers(project.id).await.unwrap();
        assert_eq!(speakers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Maya", "Theo"]);
        assert_eq!(segments[0].fields.speaker_id, Some(speakers[0].id));
        assert_eq!(segments[0].fields.text, "Thanks for coming in on such short notice.");
    }

    #[tokio::test]
    async fn a_timing_strategy_change_is_an_edit_undo_and_redo_step_through() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let line = store.segments(track.id).await.unwrap()[0].id;
        store.edit_segment(line, "retype", |f| f.text = "Thanks for coming.".into()).await.unwrap();
        store.set_timing_strategy(project.id, "strict_slot").await.unwrap();
        store.set_timing_strategy(project.id, "strict_slot").await.unwrap();
        let strategy = |store: &Store| {
            let store = store.clone();
            async move { store.project(project.id).await.unwrap().timing_strategy }
        };
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some("timing strict slot"), "the strategy, not the edit before it");
        assert_eq!(strategy(&store).await, "smart_fit");
        assert_eq!(store.segment(line).await.unwrap().fields.text, "Thanks for coming.");
        assert_eq!(store.redo(project.id).await.unwrap().as_deref(), Some("timing strict slot"));
        assert_eq!(strategy(&store).await, "strict_slot");
        // Setting it as a project is made (from a project file) is not an edit.
        let (fresh, _) = store.create_project("Loaded", "en-US").await.unwrap();
        store.set_initial_timing_strategy(fresh.id, "natural").await.unwrap();
        assert_eq!(store.history_state(fresh.id).await.unwrap(), (false, false));
    }

    #[tokio::test]
    async fn a_speaker_speaks_each_language_with_its_own_voice_and_the_edit_undoes() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, _) = demo(dir.path()).await;
        let spanish = store.track_for_language(project.id, "es").await.unwrap();
        assert_eq!(store.track_for_language(project.id, "ES").await.unwrap(), spanish, "found, not added twice");
        assert_eq!(store.tracks(project.id).await.unwrap().len(), 2);
        let maya = store.speakers(project.id).await.unwrap()[0].clone();
        store.set_speaker_voice(maya.id, "af_bella").await.unwrap();
        let maya = store.set_speaker_language_voice(maya.id, "es", Some("ef_dora")).await.unwrap();
        assert_eq!(maya.voice_for("es"), "ef_dora");
        assert_eq!(maya.voice_for("en-US"), "af_bella");
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some("es voice of Maya → ef_dora"));
        let maya = store.speakers(project.id).await.unwrap()[0].clone();
        assert_eq!(maya.voice_for("es"), "af_bella", "undone: the default voice again");
        store.redo(project.id).await.unwrap();
        assert_eq!(store.speakers(project.id).await.unwrap()[0].voice_for("es"), "ef_dora");
    }

    #[tokio::test]
    async fn picking_an_earlier_take_brings_back_its_seed_and_undoes() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let lines = store.segments(track.id).await.unwrap();
        let (line, other) = (&lines[0], &lines[1]);
        assert_eq!(line.seed(), line.id, "a line renders with its id until a take is chosen");
        let first = store.add_take(line.id, line.seed(), "key-a", 1.5, Some("source-a")).await.unwrap();
        store.edit_segment(line.id, "new take", |f| f.seed = Some(987_654)).await.unwrap();
        let second = store.add_take(line.id, 987_654, "key-b", 1.6, Some("source-b")).await.unwrap();
        let takes = store.takes(line.id).await.unwrap();
        assert_eq!(takes.iter().map(|t| (t.id, t.seed)).collect::<Vec<_>>(), [(first, line.id), (second, 987_654)]);

        let picked = store.pick_take(line.id, first).await.unwrap();
        assert_eq!((picked.seed(), picked.active_take_id), (line.id, Some(first)));
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some(format!("pick take {first}").as_str()));
        assert_eq!(store.segment(line.id).await.unwrap().seed(), 987_654);

        let err = store.pick_take(other.id, first).await.unwrap_err().to_string();
        assert!(err.contains(&format!("take {first}")) && err.contains(&format!("not a take of line {}", other.id)), "{err}");
    }

    #[tokio::test]
    async fn undo_and_redo_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let first = store.segments(track.id).await.unwrap()[0].clone();
        store.edit_segment(first.id, "retype line 1", |f| f.text = "Thanks for coming.".into()).await.unwrap();
        store.edit_segment(first.id, "slow line 1", |f| f.speed = 0.9).await.unwrap();
        store.close().await;

        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some("slow line 1"));
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some("retype line 1"));
        assert_eq!(store.segment(first.id).await.unwrap().fields, first.fields);
        assert_eq!(store.undo(project.id).await.unwrap(), None);
        store.close().await;

        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        assert_eq!(store.redo(project.id).await.unwrap().as_deref(), Some("retype line 1"));
        assert_eq!(store.segment(first.id).await.unwrap().fields.text, "Thanks for coming.");
        // A new edit drops what could have been redone.
        store.edit_segment(first.id, "louder", |f| f.gain_db = 3.0).await.unwrap();
        assert_eq!(store.redo(project.id).await.unwrap(), None);
        let now = store.segment(first.id).await.unwrap().fields;
        assert_eq!((now.text.as_str(), now.speed, now.gain_db), ("Thanks for coming.", 1.0, 3.0));
    }

    #[tokio::test]
    async fn a_speakers_voice_change_is_undoable() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, _) = demo(dir.path()).await;
        let maya = store.speakers(project.id).await.unwrap().remove(0);
        store.set_speaker_voice(maya.id, "bf_emma").await.unwrap();
        assert_eq!(store.speakers(project.id).await.unwrap()[0].voice, "bf_emma");
        store.undo(project.id).await.unwrap();
        assert_eq!(store.speakers(project.id).await.unwrap()[0].voice, maya.voice);
    }

    #[tokio::test]
    async fn an_invalid_edit_is_rejected_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let first = store.segments(track.id).await.unwrap()[0].clone();
        let err = store.edit_segment(first.id, "bad", |f| f.end_s = f.start_s - 1.0).await.unwrap_err();
        assert!(err.to_string().contains(&format!("segment {}", first.id)), "{err}");
        let err = store.edit_segment(first.id, "bad", |f| f.speed = 9.0).await.unwrap_err();
        assert!(err.to_string().contains("speed"), "{err}");
        assert_eq!(store.segment(first.id).await.unwrap(), first);
        assert_eq!(store.undo(project.id).await.unwrap(), None, "nothing was recorded");
    }

    #[tokio::test]
    async fn a_job_left_running_is_found_interrupted_on_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, _) = demo(dir.path()).await;
        let running = store.start_render_job(project.id, 32).await.unwrap();
        let job = running.id;
        store.render_job_progress(job, 12).await.unwrap();
        assert!(store.interrupted_render_jobs().await.unwrap().is_empty(), "a job whose process lives is not interrupted");
        drop(running); // as when its process dies
        let finished = store.start_render_job(project.id, 1).await.unwrap();
        store.finish_render_job(finished.id, "done", None).await.unwrap();
        store.close().await;
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let interrupted = store.interrupted_render_jobs().await.unwrap();
        assert_eq!(interrupted.len(), 1);
        assert_eq!((interrupted[0].id, interrupted[0].done, interrupted[0].state.as_str()), (job, 12, "interrupted"));
        assert!(store.interrupted_render_jobs().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_interrupted_job_waits_to_be_resumed_across_starts_until_a_render_takes_it_up() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, _) = demo(dir.path()).await;
        let job = store.start_render_job(project.id, 32).await.unwrap().id;
        store.close().await;
        for _ in 0..2 {
            // Every start sees it, not only the first one.
            let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
            store.interrupted_render_jobs().await.unwrap();
            let waiting = store.unresumed_render_jobs().await.unwrap();
            assert_eq!(waiting.iter().map(|j| j.id).collect::<Vec<_>>(), [job]);
            store.close().await;
        }
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let resumed = store.start_render_job(project.id, 32).await.unwrap();
        assert!(store.unresumed_render_jobs().await.unwrap().is_empty());
        store.finish_render_job(resumed.id, "done", None).await.unwrap();
    }

    #[tokio::test]
    async fn a_project_is_renamed_and_deleted_with_everything_in_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        assert_eq!(store.rename_project(project.id, "  Harbour  ").await.unwrap().name, "Harbour");
        assert!(store.rename_project(project.id, " ").await.unwrap_err().to_string().contains("empty"));
        store.delete_project(project.id).await.unwrap();
        assert!(store.project(project.id).await.is_err());
        assert!(store.segments(track.id).await.unwrap().is_empty(), "lines go with it");
        assert!(store.delete_project(project.id).await.unwrap_err().to_string().contains("no such project"));
    }

    #[tokio::test]
    async fn a_take_becomes_the_active_one() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _, track) = demo(dir.path()).await;
        let seg = store.segments(track.id).await.unwrap()[3].clone();
        let take = store.add_take(seg.id, 7, "abc", 2.5, None).await.unwrap();
        assert_eq!(store.segment(seg.id).await.unwrap().active_take_id, Some(take));
    }
}
