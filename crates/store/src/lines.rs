//! Edits that add or remove lines, or change several at once: insert,
//! delete, split at a time, merge two neighbours, new texts for many
//! lines (find and replace). Each is one transaction and one undoable step whose
//! history holds the lines it touched before and after, with their takes,
//! so undoing a delete brings the line back with every take it had (and
//! its rendered audio, which the segment store keeps while a take refers
//! to it).

use serde::{Deserialize, Serialize};
use sqlx::{Sqlite, Transaction};

use super::projects::{check_fields, record, touch, write_segment, Segment, SegmentFields, Take};
use super::Store;
use revoice_core::error::{Error, Result};

/// A line with its takes: one side of a structural edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineState {
    pub segment: Segment,
    pub takes: Vec<Take>,
}

/// Shortest line a split may leave, seconds.
const SHORTEST_LINE_S: f64 = 0.2;

pub(crate) async fn line_state(tx: &mut Transaction<'_, Sqlite>, id: i64) -> sqlx::Result<Option<LineState>> {
    let Some(segment): Option<Segment> = sqlx::query_as("SELECT * FROM segments WHERE id = ?1").bind(id).fetch_optional(&mut **tx).await? else {
        return Ok(None);
    };
    let takes = sqlx::query_as("SELECT id, segment_id, seed, synthesis_key, duration_s, created_at, source_key FROM takes WHERE segment_id = ?1 ORDER BY id")
        .bind(id)
        .fetch_all(&mut **tx)
        .await?;
    Ok(Some(LineState { segment, takes }))
}

pub(crate) async fn project_of_track(tx: &mut Transaction<'_, Sqlite>, track_id: i64) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT project_id FROM tracks WHERE id = ?1").bind(track_id).fetch_optional(&mut **tx).await
}

/// Writes `lines` as they were (same ids, fields, takes and active take)
/// and removes the lines of `other` that are not among them.
pub(crate) async fn restore(tx: &mut Transaction<'_, Sqlite>, lines: &[LineState], other: &[LineState]) -> sqlx::Result<()> {
    for gone in other.iter().filter(|o| !lines.iter().any(|l| l.segment.id == o.segment.id)) {
        sqlx::query("DELETE FROM segments WHERE id = ?1").bind(gone.segment.id).execute(&mut **tx).await?;
    }
    for line in lines {
        let s = &line.segment;
        sqlx::query("INSERT INTO segments (id, track_id, start_s, end_s, text) VALUES (?1, ?2, ?3, ?4, '') ON CONFLICT(id) DO UPDATE SET track_id = ?2")
            .bind(s.id)
            .bind(s.track_id)
            .bind(s.fields.start_s)
            .bind(s.fields.end_s)
            .execute(&mut **tx)
            .await?;
        write_segment(tx, s.id, &s.fields).await?;
        for t in &line.takes {
            sqlx::query(
                "INSERT OR IGNORE INTO takes (id, segment_id, seed, synthesis_key, duration_s, created_at, source_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .bind(t.id)
            .bind(t.segment_id)
            .bind(t.seed)
            .bind(&t.synthesis_key)
            .bind(t.duration_s)
            .bind(&t.created_at)
            .bind(&t.source_key)
            .execute(&mut **tx)
            .await?;
        }
        sqlx::query("UPDATE segments SET active_take_id = ?2 WHERE id = ?1").bind(s.id).bind(s.active_take_id).execute(&mut **tx).await?;
    }
    Ok(())
}

/// Adds a line with `fields` to a track; its id.
pub(crate) async fn insert_line(tx: &mut Transaction<'_, Sqlite>, track_id: i64, fields: &SegmentFields) -> sqlx::Result<i64> {
    let id: i64 = sqlx::query_scalar("INSERT INTO segments (track_id, start_s, end_s, text) VALUES (?1, ?2, ?3, ?4) RETURNING id")
        .bind(track_id)
        .bind(fields.start_s)
        .bind(fields.end_s)
        .bind(&fields.text)
        .fetch_one(&mut **tx)
        .await?;
    write_segment(tx, id, fields).await?;
    Ok(id)
}

/// Splits text into two at the word nearest `share` of its length.
fn split_text(text: &str, share: f64) -> (String, String) {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() < 2 {
        return (text.trim().to_string(), String::new());
    }
    let total: usize = words.iter().map(|w| w.chars().count() + 1).sum();
    let target = share * total as f64;
    // The boundary after word i sits at the characters up to it; take the nearest.
    let mut seen = 0;
    let mut best = (f64::INFINITY, 1);
    for (i, w) in words[..words.len() - 1].iter().enumerate() {
        seen += w.chars().count() + 1;
        let distance = (seen as f64 - target).abs();
        if distance < best.0 {
            best = (distance, i + 1);
        }
    }
    let at = best.1;
    (words[..at].join(" "), words[at..].join(" "))
}

impl Store {
    /// Records a structural edit of `before` into the lines now at `after_ids` and commits.
    pub(crate) async fn finish_lines_edit(
        &self,
        mut tx: Transaction<'static, Sqlite>,
        project_id: i64,
        description: &str,
        before: Vec<LineState>,
        after_ids: &[i64],
    ) -> Result<Vec<Segment>> {
        let mut after = Vec::new();
        for &id in after_ids {
            after.extend(line_state(&mut tx, id).await.map_err(|e| self.db(e))?);
        }
        let entity_id = before.first().or(after.first()).map_or(0, |l| l.segment.id);
        record(&mut tx, project_id, description, "lines", entity_id, &before, &after).await.map_err(|e| self.db(e))?;
        touch(&mut tx, project_id).await.map_err(|e| self.db(e))?;
        tx.commit().await.map_err(|e| self.db(e))?;
        Ok(after.into_iter().map(|l| l.segment).collect())
    }

    async fn line_in(&self, tx: &mut Transaction<'static, Sqlite>, id: i64) -> Result<LineState> {
        line_state(tx, id).await.map_err(|e| self.db(e))?.ok_or_else(|| Error::not_found(format!("segment {id}"), "there is no such segment"))
    }

    /// Adds a line to a track. One undoable step.
    pub async fn insert_segment(&self, track_id: i64, fields: &SegmentFields) -> Result<Segment> {
        check_fields(0, fields)?;
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let project_id = project_of_track(&mut tx, track_id)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("track {track_id}"), "there is no such track"))?;
        let id = insert_line(&mut tx, track_id, fields).await.map_err(|e| self.db(e))?;
        let mut added = self.finish_lines_edit(tx, project_id, "insert a line", Vec::new(), &[id]).await?;
        Ok(added.remove(0))
    }

    /// Removes a line (undo brings it back with its takes).
    pub async fn delete_segment(&self, id: i64) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let line = self.line_in(&mut tx, id).await?;
        let project_id = project_of_track(&mut tx, line.segment.track_id).await.map_err(|e| self.db(e))?.unwrap_or(0);
        sqlx::query("DELETE FROM segments WHERE id = ?1").bind(id).execute(&mut *tx).await.map_err(|e| self.db(e))?;
        self.finish_lines_edit(tx, project_id, "delete a line", vec![line], &[]).await?;
        Ok(())
    }

    /// Splits a line at `at_s` into two, the text divided at the word
    /// nearest the same share of its length. Returns both lines.
    pub async fn split_segment(&self, id: i64, at_s: f64) -> Result<Vec<Segment>> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let line = self.line_in(&mut tx, id).await?;
        let f = line.segment.fields.clone();
        if !(at_s > f.start_s + SHORTEST_LINE_S && at_s < f.end_s - SHORTEST_LINE_S) {
            return Err(Error::InvalidInput {
                input: format!("segment {id}"),
                reason: format!("cannot split at {at_s:.2} s: it runs {:.2}–{:.2} s, and each part needs {SHORTEST_LINE_S} s", f.start_s, f.end_s),
            });
        }
        let (first, second) = split_text(&f.text, (at_s - f.start_s) / (f.end_s - f.start_s));
        if second.is_empty() {
            return Err(Error::InvalidInput { input: format!("segment {id}"), reason: "its text is one word; there is nothing to split".into() });
        }
        let project_id = project_of_track(&mut tx, line.segment.track_id).await.map_err(|e| self.db(e))?.unwrap_or(0);
        sqlx::query("UPDATE segments SET end_s = ?2, text = ?3 WHERE id = ?1")
            .bind(id)
            .bind(at_s)
            .bind(&first)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.db(e))?;
        let second_fields = SegmentFields { start_s: at_s, text: second, fade_in_s: 0.0, seed: None, ..f.clone() };
        let new_id = insert_line(&mut tx, line.segment.track_id, &second_fields).await.map_err(|e| self.db(e))?;
        self.finish_lines_edit(tx, project_id, "split a line", vec![line], &[id, new_id]).await
    }

    /// Gives each line of `texts` (ids on `track_id`) its new text in one
    /// undoable step called `description`; the lines as they are after.
    pub async fn set_texts(&self, track_id: i64, texts: &[(i64, String)], description: &str) -> Result<Vec<Segment>> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let project_id = project_of_track(&mut tx, track_id)
            .await
            .map_err(|e| self.db(e))?
            .ok_or_else(|| Error::not_found(format!("track {track_id}"), "there is no such track"))?;
        let mut before = Vec::with_capacity(texts.len());
        for (id, text) in texts {
            let line = self.line_in(&mut tx, *id).await?;
            if line.segment.track_id != track_id {
                return Err(Error::invalid(format!("segment {id}"), format!("is not on track {track_id}")));
            }
            sqlx::query("UPDATE segments SET text = ?2 WHERE id = ?1").bind(id).bind(text).execute(&mut *tx).await.map_err(|e| self.db(e))?;
            before.push(line);
        }
        let ids: Vec<i64> = texts.iter().map(|(id, _)| *id).collect();
        self.finish_lines_edit(tx, project_id, description, before, &ids).await
    }

    /// Joins `second` onto `first` (same track): one line from the first's
    /// start to the later end, the texts joined. Returns the joined line.
    pub async fn merge_segments(&self, first: i64, second: i64) -> Result<Segment> {
        let mut tx = self.pool.begin().await.map_err(|e| self.db(e))?;
        let a = self.line_in(&mut tx, first).await?;
        let b = self.line_in(&mut tx, second).await?;
        if a.segment.track_id != b.segment.track_id || first == second {
            return Err(Error::InvalidInput { input: format!("segments {first} and {second}"), reason: "only two lines of one track can be merged".into() });
        }
        let (fa, fb) = (&a.segment.fields, &b.segment.fields);
        let text = format!("{} {}", fa.text.trim(), fb.text.trim());
        let project_id = project_of_track(&mut tx, a.segment.track_id).await.map_err(|e| self.db(e))?.unwrap_or(0);
        sqlx::query("UPDATE segments SET start_s = ?2, end_s = ?3, text = ?4 WHERE id = ?1")
            .bind(first)
            .bind(fa.start_s.min(fb.start_s))
            .bind(fa.end_s.max(fb.end_s))
            .bind(&text)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.db(e))?;
        sqlx::query("DELETE FROM segments WHERE id = ?1").bind(second).execute(&mut *tx).await.map_err(|e| self.db(e))?;
        let mut merged = self.finish_lines_edit(tx, project_id, "merge two lines", vec![a, b], &[first]).await?;
        Ok(merged.remove(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revoice_text::subtitles::parse_srt;

    async fn demo(dir: &std::path::Path) -> (Store, i64, i64) {
        let store = Store::open(&dir.join("s.sqlite3")).await.unwrap();
        let (project, track) = store.create_project("Lines", "en-US").await.unwrap();
        let cues =
            parse_srt("1\n00:00:01,000 --> 00:00:03,000\n[Ana] One two three four.\n\n2\n00:00:04,000 --> 00:00:05,000\n[Ana] Five.\n", "s.srt").unwrap();
        store.import_cues(&track, &cues).await.unwrap();
        (store, project.id, track.id)
    }

    fn texts(lines: &[Segment]) -> Vec<(f64, f64, String)> {
        lines.iter().map(|s| (s.fields.start_s, s.fields.end_s, s.fields.text.clone())).collect()
    }

    #[tokio::test]
    async fn split_merge_insert_and_delete_each_undo_and_redo_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let original = store.segments(track).await.unwrap();
        let first = original[0].id;
        // Give the first line a take, as if rendered: a delete's undo must bring it back.
        let take = store.add_take(first, 1, "key", 2.0, Some("src")).await.unwrap();
        let original = store.segments(track).await.unwrap();

        let parts = store.split_segment(first, 2.0).await.unwrap();
        assert_eq!(texts(&parts), [(1.0, 2.0, "One two".to_string()), (2.0, 3.0, "three four.".to_string())]);
        assert_eq!(store.segments(track).await.unwrap().len(), 3);
        let merged = store.merge_segments(parts[0].id, parts[1].id).await.unwrap();
        assert_eq!(texts(&[merged]), [(1.0, 3.0, "One two three four.".to_string())]);
        let added = store.insert_segment(track, &SegmentFields { start_s: 6.0, end_s: 7.0, text: "Six.".into(), ..original[0].fields.clone() }).await.unwrap();
        store.delete_segment(first).await.unwrap();
        assert_eq!(texts(&store.segments(track).await.unwrap()), [(4.0, 5.0, "Five.".to_string()), (6.0, 7.0, "Six.".to_string())]);

        // Four undos: back to the start, takes and active take included.
        for expected in ["delete a line", "insert a line", "merge two lines", "split a line"] {
            assert_eq!(store.undo(project).await.unwrap().as_deref(), Some(expected));
        }
        assert_eq!(store.segments(track).await.unwrap(), original);
        assert_eq!(store.take_info(take).await.unwrap().map(|t| t.0), Some("key".to_string()));
        assert!(store.segment(added.id).await.is_err());
        // Four redos: forward to the end.
        for _ in 0..4 {
            store.redo(project).await.unwrap().unwrap();
        }
        assert_eq!(texts(&store.segments(track).await.unwrap()), [(4.0, 5.0, "Five.".to_string()), (6.0, 7.0, "Six.".to_string())]);
    }

    #[tokio::test]
    async fn bad_splits_and_merges_say_why_and_change_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (store, project, track) = demo(dir.path()).await;
        let lines = store.segments(track).await.unwrap();
        let err = store.split_segment(lines[0].id, 2.95).await.unwrap_err().to_string();
        assert!(err.contains("cannot split at 2.95 s"), "{err}");
        let err = store.split_segment(lines[1].id, 4.5).await.unwrap_err().to_string();
        assert!(err.contains("one word"), "{err}");
        let err = store.merge_segments(lines[0].id, lines[0].id).await.unwrap_err().to_string();
        assert!(err.contains("only two lines of one track"), "{err}");
        assert_eq!(store.segments(track).await.unwrap(), lines);
        assert_eq!(store.undo(project).await.unwrap(), None);
    }

    #[test]
    fn text_splits_at_the_word_nearest_the_time_share() {
        assert_eq!(split_text("one two three four", 0.5), ("one two".into(), "three four".into()));
        assert_eq!(split_text("one two three four", 0.01), ("one".into(), "two three four".into()));
        assert_eq!(split_text("one two three four", 0.99), ("one two three".into(), "four".into()));
        assert_eq!(split_text("single", 0.5), ("single".into(), String::new()));
    }
}
