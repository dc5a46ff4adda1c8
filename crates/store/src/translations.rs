//! Tracks made by translation: which track a track translates, and for
//! each translated line its source line, the source text and the text the
//! engine wrote, and who wrote it. A batch of translated lines is written
//! in one transaction and one undoable step that holds the lines and their
//! translation records before and after, so a stopped job never leaves a
//! line half-written, the next run picks up the lines it lacks, and undoing
//! a line translated again brings back the translation it had with its text.

use serde::{Deserialize, Serialize};
use sqlx::{Row, Sqlite, Transaction};

use super::lines::{insert_line, line_state, project_of_track, restore, LineState};
use super::projects::{record, touch, Segment, SegmentFields};
use super::Store;
use revoice_core::error::{Error, Result};

/// A translated line as kept: see the `translations` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Translation {
    pub segment_id: i64,
    pub source_segment_id: i64,
    pub source_text: String,
    pub translated_text: String,
    pub translator: String,
    /// When it was written (`2025-01-31T12:00:00.000Z`).
    pub created_at: String,
}

/// One line of a batch to write: its source line, the target line it
/// replaces (`None`: a new line in the source's slot) and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslatedLine {
    pub source: Segment,
    pub target: Option<i64>,
    pub text: String,
}

/// A line with its takes and its translation record: one side of a
/// translation's undoable step (history kind `translated_lines`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TranslatedState {
    line: LineState,
    translation: Option<Translation>,
}

fn translation_of(r: &sqlx::sqlite::SqliteRow) -> sqlx::Result<Translation> {
    Ok(Translation {
        segment_id: r.try_get(0)?,
        source_segment_id: r.try_get(1)?,
        source_text: r.try_get(2)?,
        translated_text: r.try_get(3)?,
        translator: r.try_get(4)?,
        created_at: r.try_get(5)?,
    })
}

async fn translated_state(tx: &mut Transaction<'_, Sqlite>, id: i64) -> sqlx::Result<Option<TranslatedState>> {
    let Some(line) = line_state(tx, id).await? else { return Ok(None) };
    let row = sqlx::query("SELECT segment_id, source_segment_id, source_text, translated_text, translator, created_at FROM translations WHERE segment_id = ?1")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(Some(TranslatedState { line, translation: row.as_ref().map(translation_of).transpose()? }))
}

/// Writes `lines` as they were, each with its translation record (none
/// when it had none), and removes the lines of `other` that are not among
/// them with their records: one side of a translation step, undone or redone.
pub(crate) async fn restore_translated(tx: &mut Transaction<'_, Sqlite>, lines: &[TranslatedState], other: &[TranslatedState]) -> sqlx::Result<()> {
    let plain = |states: &[TranslatedState]| states.iter().map(|s| s.line.clone()).collect::<Vec<_>>();
    restore(tx, &plain(lines), &plain(other)).await?;
    for gone in other.iter().filter(|o| !lines.iter().any(|l| l.line.segment.id == o.line.segment.id)) {
        sqlx::query("DELETE FROM translations WHERE segment_id = ?1").bind(gone.line.segment.id).execute(&mut **tx).await?;
    }
    for state in lines {
        match &state.translation {
            Some(t) => {
                sqlx::query(
                    "INSERT OR REPLACE INTO translations (segment_id, source_segment_id, source_text, translated_text, translator, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .bind(t.segment_id)
                .bind(t.source_segment_id)
                .bind(&t.source_text)
                .bind(&t.translated_text)
                .bind(&t.translator)
                .bind(&t.created_at)
                .execute(&mut **tx)
                .await?
            }
            None => sqlx::query("DELETE FROM translations WHERE segment_id = ?1").bind(state.line.segment.id).execute(&mut **tx).await?,
        };
    }
    Ok(())
}

impl Store {
    /// The track `track_id` translates, if it was made by translation.
    pub async fn track_source(&self, track_id: i64) -> Result<Option<i64>> {
        let row = sqlx::query("SELECT source_track_id FROM tracks WHERE id = ?1").bind(track_id).fetch_optional(&self.pool).await.map_err(|e| self.db(e))?;
        let row = row.ok_or_else(|| Error::not_found(format!("track {track_id}"), "there is no such track"))?;
        row.try_get::<Option<i64>, _>(0).map_err(|e| self.db(e))
    }

    /// Notes that `track_id` translates `source_track_id`.
    pub async fn set_track_source(&self, track_id: i64, source_track_id: i64) -> Result<()> {
        sqlx::query("UPDATE tracks SET source_track_id = ?2 WHERE id = ?1")
            .bind(track_id)
            .bind(source_track_id)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?;
        Ok(())
    }

    /// The translations of the lines on `track_id` (lines that exist now).
    pub async fn translations(&self, track_id: i64) -> Result<Vec<Translation>> {
        let rows = sqlx::query(
            "SELECT t.segment_id, t.source_segment_id, t.source_text, t.translated_text, t.translator, t.created_at
             FROM translations t JOIN segments s ON s.id = t.segment_id WHERE s.track_id = ?1 ORDER BY s.start_s, s.id",
        )
        .bind(track_id)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))?;
        rows.iter().map(translation_of).collect::<sqlx::Result<Vec<_>>>().map_err(|e| self.db(e))
    }

    /// Writes a batch of translations onto `track_id` as one undoable step
    /// ("translated N lines"): a new line takes its source's slot, speaker
    /// and speed; a line translated again gets the new text. The lines as
    /// they are after, in the batch's order.
    pub async fn write_translations(&self, track_id: i64, translator: &str, lines: &[TranslatedLine]) -> Result<Vec<Segment>> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let project_id = project_of_track(&mut tx, track_id)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("track {track_id}"), "there is no such track"))?;
        let mut before: Vec<TranslatedState> = Vec::new();
        let mut ids = Vec::with_capacity(lines.len());
        for line in lines {
            let text = line.text.trim();
            if text.is_empty() {
                return Err(Error::invalid(format!("the translation of line {}", line.source.id), "is empty"));
            }
            let id = match line.target {
                Some(id) => {
                    let old = translated_state(&mut tx, id)
                        .await
                        .map_err(|e| self.db(e))?
                        .ok_or_else(|| Error::not_found(format!("segment {id}"), "there is no such segment"))?;
                    if old.line.segment.track_id != track_id {
                        return Err(Error::invalid(format!("segment {id}"), format!("is not on track {track_id}")));
                    }
                    sqlx::query("UPDATE segments SET text = ?2 WHERE id = ?1").bind(id).bind(text).execute(&mut *tx).await.map_err(|e| self.db(e))?;
                    before.push(old);
                    id
                }
                None => {
                    let s = &line.source.fields;
                    let fields = SegmentFields { speed: s.speed, ..SegmentFields::new_line(s.start_s, s.end_s, text.to_string(), s.speaker_id) };
                    insert_line(&mut tx, track_id, &fields).await.map_err(|e| self.db(e))?
                }
            };
            sqlx::query(
                "INSERT INTO translations (segment_id, source_segment_id, source_text, translated_text, translator) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(segment_id) DO UPDATE SET source_segment_id = ?2, source_text = ?3, translated_text = ?4, translator = ?5,
                 created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
            )
            .bind(id)
            .bind(line.source.id)
            .bind(&line.source.fields.text)
            .bind(text)
            .bind(translator)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.db(e))?;
            ids.push(id);
        }
        let description = format!("translated {} line{}", lines.len(), if lines.len() == 1 { "" } else { "s" });
        let mut after = Vec::with_capacity(ids.len());
        for &id in &ids {
            after.extend(translated_state(&mut tx, id).await.map_err(|e| self.db(e))?);
        }
        let entity_id = before.first().or(after.first()).map_or(0, |l| l.line.segment.id);
        record(&mut tx, project_id, &description, "translated_lines", entity_id, &before, &after).await.map_err(|e| self.db(e))?;
        touch(&mut tx, project_id).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(after.into_iter().map(|s| s.line.segment).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revoice_text::subtitles::Cue;

    #[tokio::test]
    async fn a_batch_of_translations_is_one_undoable_step_that_keeps_its_links_through_undo_and_redo() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (project, english) = store.create_project("Quay", "en-US").await.unwrap();
        let cue = |start: f64, text: &str, speaker: &str| Cue { start, end: start + 2.0, text: text.into(), speaker: Some(speaker.into()) };
        store.import_cues(&english, &[cue(0.5, "The tide is turning.", "Ana"), cue(3.0, "Then we go.", "Ben")]).await.unwrap();
        let source = store.segments(english.id).await.unwrap();
        let spanish = store.track_for_language(project.id, "es").await.unwrap();
        store.set_track_source(spanish.id, english.id).await.unwrap();
        assert_eq!(store.track_source(spanish.id).await.unwrap(), Some(english.id));
        assert_eq!(store.track_source(english.id).await.unwrap(), None);

        let batch: Vec<TranslatedLine> = source
            .iter()
            .zip(["La marea está cambiando.", "Entonces nos vamos."])
            .map(|(s, t)| TranslatedLine { source: s.clone(), target: None, text: t.into() })
            .collect();
        let written = store.write_translations(spanish.id, "llama (gemma)", &batch).await.unwrap();
        assert_eq!(written.len(), 2);
        for (line, source) in written.iter().zip(&source) {
            assert_eq!(
                (line.fields.start_s, line.fields.end_s, line.fields.speaker_id),
                (source.fields.start_s, source.fields.end_s, source.fields.speaker_id)
            );
        }
        let kept = store.translations(spanish.id).await.unwrap();
        assert_eq!(kept.iter().map(|t| t.source_segment_id).collect::<Vec<_>>(), source.iter().map(|s| s.id).collect::<Vec<_>>());
        assert_eq!(kept[0].source_text, "The tide is turning.");
        assert_eq!(kept[1].translator, "llama (gemma)");

        // Undone: the lines go, and with them what is known as translated; redone: both come back.
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some("translated 2 lines"));
        assert!(store.segments(spanish.id).await.unwrap().is_empty());
        assert!(store.translations(spanish.id).await.unwrap().is_empty());
        store.redo(project.id).await.unwrap();
        assert_eq!(store.translations(spanish.id).await.unwrap(), kept);

        // Translated again: the same line gets the new text, one step.
        let again = TranslatedLine { source: source[1].clone(), target: Some(written[1].id), text: "Pues nos vamos.".into() };
        let rewritten = store.write_translations(spanish.id, "llama (gemma)", &[again]).await.unwrap();
        assert_eq!((rewritten[0].id, rewritten[0].fields.text.as_str()), (written[1].id, "Pues nos vamos."));
        assert_eq!(store.translations(spanish.id).await.unwrap()[1].translated_text, "Pues nos vamos.");
        let retranslated = store.translations(spanish.id).await.unwrap();
        // Undone: the line's old text and the translation it was written
        // as come back together, so it does not read as edited by hand.
        assert_eq!(store.undo(project.id).await.unwrap().as_deref(), Some("translated 1 line"));
        assert_eq!(store.segments(spanish.id).await.unwrap()[1].fields.text, "Entonces nos vamos.");
        assert_eq!(store.translations(spanish.id).await.unwrap(), kept);
        // Redone: the new text with its new translation.
        store.redo(project.id).await.unwrap();
        assert_eq!(store.segments(spanish.id).await.unwrap()[1].fields.text, "Pues nos vamos.");
        assert_eq!(store.translations(spanish.id).await.unwrap(), retranslated);
        store.undo(project.id).await.unwrap();

        // An empty translation is refused, and nothing of its batch is written.
        let empty = [TranslatedLine { source: source[0].clone(), target: None, text: " ".into() }];
        assert!(store.write_translations(spanish.id, "x", &empty).await.unwrap_err().to_string().contains("empty"));
        assert_eq!(store.segments(spanish.id).await.unwrap().len(), 2);
    }
}
