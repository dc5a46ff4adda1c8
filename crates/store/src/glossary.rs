//! The `glossary` table: per project and target language, how a term of
//! its scripts is translated. Entries of a primary language apply to its
//! regional tags (`es` to `es-MX`); a term is once per project and
//! language, in any case.

use serde::Serialize;

use super::Store;
use revoice_core::error::{Error, Result};
use revoice_text::language;

/// One glossary entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct GlossaryEntry {
    pub id: i64,
    /// The target language tag it applies to (`es`, `pt-BR`).
    pub language: String,
    /// The term as the scripts write it.
    pub term: String,
    /// How it is translated.
    pub translation: String,
}

/// `text` with its whitespace runs made single spaces.
fn tidy(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Store {
    /// `project_id`'s glossary, by language then term; for `Some(tag)`
    /// only the entries that apply to a line translated into it: those of
    /// that tag and of its primary language (`es` entries for `es-MX`).
    pub async fn glossary(&self, project_id: i64, language: Option<&str>) -> Result<Vec<GlossaryEntry>> {
        self.project(project_id).await?;
        let (exact, primary) = match language.map(str::trim) {
            Some(tag) => (Some(tag.to_string()), Some(language::primary(tag))),
            None => (None, None),
        };
        sqlx::query_as(
            "SELECT id, language, term, translation FROM glossary
             WHERE project_id = ?1 AND (?2 IS NULL OR language = ?2 OR language = ?3)
             ORDER BY language, term_key, id",
        )
        .bind(project_id)
        .bind(exact)
        .bind(primary)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.db(e))
    }

    /// Says `term` is translated into `language` as `translation` in
    /// `project_id`'s glossary, replacing the entry of that term in any case.
    pub async fn set_glossary_term(&self, project_id: i64, language: &str, term: &str, translation: &str) -> Result<GlossaryEntry> {
        let language = language.trim();
        if language::of_tag(language).is_none() {
            return Err(Error::invalid(format!("language {language:?}"), format!("is not a language the studio knows ({})", language::accepted())));
        }
        let (term, translation) = (tidy(term), tidy(translation));
        if term.is_empty() {
            return Err(Error::invalid("glossary term", "is empty: give the word or phrase the scripts use"));
        }
        if translation.is_empty() {
            return Err(Error::invalid(format!("the translation of {term:?}"), "is empty: give how it is said in the target language"));
        }
        self.project(project_id).await?;
        // A tag in another case finds the entry and keeps its spelling.
        let (id, language): (i64, String) = sqlx::query_as(
            "INSERT INTO glossary (project_id, language, term, term_key, translation) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(project_id, language, term_key) DO UPDATE SET term = ?3, translation = ?5
             RETURNING id, language",
        )
        .bind(project_id)
        .bind(language)
        .bind(&term)
        .bind(term.to_lowercase())
        .bind(&translation)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| self.db(e))?;
        Ok(GlossaryEntry { id, language, term, translation })
    }

    /// Removes entry `id` of `project_id`'s glossary.
    pub async fn remove_glossary_term(&self, project_id: i64, id: i64) -> Result<()> {
        let removed = sqlx::query("DELETE FROM glossary WHERE project_id = ?1 AND id = ?2")
            .bind(project_id)
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(|e| self.db(e))?
            .rows_affected();
        if removed == 0 {
            self.project(project_id).await?;
            return Err(Error::not_found(format!("glossary entry {id}"), format!("project {project_id}'s glossary has no such entry")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn terms_are_set_replaced_in_any_case_looked_up_by_language_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (project, _) = store.create_project("Quay", "en-US").await.unwrap();
        let (other, _) = store.create_project("Other", "en-US").await.unwrap();

        let faro = store.set_glossary_term(project.id, "es", "  Lighthouse ", "el  Faro").await.unwrap();
        assert_eq!((faro.language.as_str(), faro.term.as_str(), faro.translation.as_str()), ("es", "Lighthouse", "el Faro"));
        let muelle = store.set_glossary_term(project.id, "es-MX", "Quay", "el muelle").await.unwrap();
        store.set_glossary_term(project.id, "fr", "Quay", "le quai").await.unwrap();
        store.set_glossary_term(other.id, "es", "Quay", "otro").await.unwrap();

        // The same term in another case replaces the entry, keeping its id.
        let again = store.set_glossary_term(project.id, "ES", "LIGHTHOUSE", "el faro").await.unwrap();
        assert_eq!((again.id, again.language.as_str(), again.term.as_str()), (faro.id, "es", "LIGHTHOUSE"));
        // Unicode case too, which SQLite alone does not fold.
        let nandu = store.set_glossary_term(project.id, "es", "Ñandú", "ñandú").await.unwrap();
        assert_eq!(store.set_glossary_term(project.id, "es", "ñANDÚ", "avestruz").await.unwrap().id, nandu.id);

        let terms = |entries: Vec<GlossaryEntry>| entries.into_iter().map(|e| format!("{}:{}={}", e.language, e.term, e.translation)).collect::<Vec<_>>();
        assert_eq!(terms(store.glossary(project.id, Some("es-MX")).await.unwrap()), ["es:LIGHTHOUSE=el faro", "es:ñANDÚ=avestruz", "es-MX:Quay=el muelle"]);
        assert_eq!(
            terms(store.glossary(project.id, Some("es")).await.unwrap()),
            ["es:LIGHTHOUSE=el faro", "es:ñANDÚ=avestruz"],
            "es-MX entries are not for es"
        );
        assert_eq!(store.glossary(project.id, None).await.unwrap().len(), 4);

        store.remove_glossary_term(project.id, muelle.id).await.unwrap();
        let err = store.remove_glossary_term(project.id, muelle.id).await.unwrap_err().to_string();
        assert!(err.contains(&format!("glossary entry {}", muelle.id)), "{err}");
        // An entry of another project is not this one's to remove.
        let foreign = store.glossary(other.id, None).await.unwrap()[0].id;
        assert!(store.remove_glossary_term(project.id, foreign).await.is_err());

        // Deleted with its project.
        store.delete_project(other.id).await.unwrap();
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM glossary WHERE project_id = ?1").bind(other.id).fetch_one(&store.pool).await.unwrap();
        assert_eq!(left, 0);
    }

    #[tokio::test]
    async fn empty_terms_and_unknown_languages_are_refused_saying_why() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (project, _) = store.create_project("Quay", "en-US").await.unwrap();
        let err = store.set_glossary_term(project.id, "es", "  ", "x").await.unwrap_err().to_string();
        assert!(err.contains("glossary term") && err.contains("empty"), "{err}");
        let err = store.set_glossary_term(project.id, "es", "Quay", " ").await.unwrap_err().to_string();
        assert!(err.contains("\"Quay\"") && err.contains("empty"), "{err}");
        let err = store.set_glossary_term(project.id, "klingon", "Quay", "x").await.unwrap_err().to_string();
        assert!(err.contains("\"klingon\"") && err.contains("not a language"), "{err}");
        let err = store.set_glossary_term(project.id + 100, "es", "Quay", "x").await.unwrap_err().to_string();
        assert!(err.contains(&format!("project {}", project.id + 100)), "{err}");
        assert!(store.glossary(project.id, None).await.unwrap().is_empty());
    }
}
