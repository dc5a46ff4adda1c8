//! The `pronunciations` table: a project's dictionary and the global one
//! (`project_id` NULL), an entry per word (any case).

use super::Store;
use revoice_core::error::{Error, Result};
use revoice_text::pronounce::{Pronunciation, Saying};

impl Store {
    /// The dictionary of `project_id`, or the global one for `None`, by word.
    pub async fn pronunciations(&self, project_id: Option<i64>) -> Result<Vec<Pronunciation>> {
        let rows: Vec<(String, Option<String>, Option<String>)> =
            sqlx::query_as("SELECT word, phonemes, respelling FROM pronunciations WHERE project_id IS ?1 ORDER BY word")
                .bind(project_id)
                .fetch_all(&self.pool)
                .await
                .map_err(|e| self.error(e))?;
        Ok(rows
            .into_iter()
            .map(|(word, phonemes, respelling)| Pronunciation {
                word,
                saying: match phonemes {
                    Some(p) => Saying::Phonemes(p),
                    None => Saying::Respelling(respelling.unwrap_or_default()),
                },
                global: project_id.is_none(),
            })
            .collect())
    }

    /// Adds or replaces the entry for its word in `project_id`'s dictionary (or the global one).
    pub async fn set_pronunciation(&self, project_id: Option<i64>, entry: &Pronunciation) -> Result<()> {
        let (phonemes, respelling) = match &entry.saying {
            Saying::Phonemes(p) => (Some(p.as_str()), None),
            Saying::Respelling(r) => (None, Some(r.as_str())),
        };
        let mut tx = self.pool.begin().await.map_err(|e| self.error(e))?;
        sqlx::query("DELETE FROM pronunciations WHERE project_id IS ?1 AND word = ?2")
            .bind(project_id)
            .bind(&entry.word)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.error(e))?;
        sqlx::query("INSERT INTO pronunciations (project_id, word, phonemes, respelling) VALUES (?1, ?2, ?3, ?4)")
            .bind(project_id)
            .bind(&entry.word)
            .bind(phonemes)
            .bind(respelling)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))
    }

    /// Removes the entry for `word`; refused by name when there is none.
    pub async fn remove_pronunciation(&self, project_id: Option<i64>, word: &str) -> Result<()> {
        let word = word.split_whitespace().collect::<Vec<_>>().join(" ");
        let removed = sqlx::query("DELETE FROM pronunciations WHERE project_id IS ?1 AND word = ?2")
            .bind(project_id)
            .bind(&word)
            .execute(&self.pool)
            .await
            .map_err(|e| self.error(e))?;
        if removed.rows_affected() == 0 {
            let whose = project_id.map_or("the global dictionary".to_string(), |p| format!("project {p}'s dictionary"));
            return Err(Error::not_found(format!("dictionary word {word:?}"), format!("not in {whose}")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn entries_are_kept_per_project_and_globally_one_per_word() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (project, _) = store.create_project("Dict", "en-US").await.unwrap();
        let ysolde = Pronunciation::new("Ysolde", Saying::Phonemes("ɪzˈoʊldə".into()), false).unwrap();
        store.set_pronunciation(Some(project.id), &ysolde).await.unwrap();
        let again = Pronunciation::new("ysolde", Saying::Respelling("Ee-zold-uh".into()), false).unwrap();
        store.set_pronunciation(Some(project.id), &again).await.unwrap();
        let global = Pronunciation::new("Ysolde", Saying::Phonemes("iːsˈɔld".into()), true).unwrap();
        store.set_pronunciation(None, &global).await.unwrap();
        assert_eq!(store.pronunciations(Some(project.id)).await.unwrap(), [again]);
        assert_eq!(store.pronunciations(None).await.unwrap(), [global]);
        store.remove_pronunciation(Some(project.id), "YSOLDE").await.unwrap();
        assert!(store.pronunciations(Some(project.id)).await.unwrap().is_empty());
        let err = store.remove_pronunciation(Some(project.id), "Ysolde").await.unwrap_err().to_string();
        assert!(err.contains("Ysolde") && err.contains("dictionary"), "{err}");
    }
}
