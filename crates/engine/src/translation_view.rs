//! A translated track as the editor shows it beside its source (an `impl
//! Engine`): for each translated line, the source line's text now and the
//! text it was translated from, whether the source changed since, whether
//! the line was edited by hand since, who translated it and when, and the
//! glossary terms it leaves out; and the project's glossary, read and edited.

use std::collections::HashMap;

use crate::translating::glossary_terms;
use crate::Engine;
use revoice_core::error::Result;
use revoice_store::glossary::GlossaryEntry;
use revoice_translate::glossary::dropped_terms;

/// A track's translated lines.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TrackTranslations {
    pub track_id: i64,
    /// The track it translates (`None`: it was not made by translation).
    pub source_track_id: Option<i64>,
    pub source_language: Option<String>,
    /// Its translated lines, in the track's order.
    pub lines: Vec<LineTranslation>,
}

/// One translated line.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LineTranslation {
    pub segment_id: i64,
    pub source_segment_id: i64,
    /// The source line's text now (empty when the source line was deleted since).
    pub source_text: String,
    /// The source text the translation was made from.
    pub translated_from: String,
    /// Whether the source line's text differs from what was translated (or it is gone).
    pub source_changed: bool,
    /// Whether the line's text differs from what the translator wrote.
    pub edited: bool,
    /// The translator and its model (`llama (gemma3)`).
    pub translator: String,
    /// When it was translated (`2025-01-31T12:00:00.000Z`).
    pub translated_at: String,
    /// Glossary terms of the source it was made from that the line's text now leaves out.
    pub dropped_terms: Vec<String>,
}

impl Engine {
    /// The translated lines of `track_id`, with the glossary of its language checked against each.
    pub async fn track_translations(&self, track_id: i64) -> Result<TrackTranslations> {
        let store = self.store();
        let track = store.track(track_id).await?;
        let source_track_id = store.track_source(track_id).await?;
        let (source_language, sources) = match source_track_id {
            Some(id) => {
                let source = store.track(id).await?;
                let lines: HashMap<i64, String> = store.segments(id).await?.into_iter().map(|s| (s.id, s.fields.text)).collect();
                (Some(source.language), lines)
            }
            None => (None, HashMap::new()),
        };
        let texts: HashMap<i64, String> = store.segments(track_id).await?.into_iter().map(|s| (s.id, s.fields.text)).collect();
        let glossary = glossary_terms(&store.glossary(track.project_id, Some(&track.language)).await?, &track.language);
        let mut lines = Vec::new();
        for t in store.translations(track_id).await? {
            let source_text = match sources.get(&t.source_segment_id) {
                Some(text) => text.clone(),
                // A source line moved to another track, or deleted since.
                None => store.segment(t.source_segment_id).await.map(|s| s.fields.text).unwrap_or_default(),
            };
            let text = texts.get(&t.segment_id).map_or("", String::as_str);
            lines.push(LineTranslation {
                segment_id: t.segment_id,
                source_segment_id: t.source_segment_id,
                source_changed: source_text != t.source_text,
                edited: text != t.translated_text,
                dropped_terms: dropped_terms(&t.source_text, text, &glossary).into_iter().map(|d| d.term).collect(),
                source_text,
                translated_from: t.source_text,
                translator: t.translator,
                translated_at: t.created_at,
            });
        }
        Ok(TrackTranslations { track_id, source_track_id, source_language, lines })
    }

    /// `project_id`'s glossary; for `Some(tag)`, the entries that apply to
    /// lines translated into it (its own and its primary language's).
    pub async fn glossary(&self, project_id: i64, language: Option<&str>) -> Result<Vec<GlossaryEntry>> {
        self.store().glossary(project_id, language).await
    }

    /// Says `term` is translated into `language` as `translation` in
    /// `project_id`'s glossary, replacing that term's entry in any case.
    pub async fn set_glossary_term(&self, project_id: i64, language: &str, term: &str, translation: &str) -> Result<GlossaryEntry> {
        self.store().set_glossary_term(project_id, language, term, translation).await
    }

    /// Removes entry `id` of `project_id`'s glossary.
    pub async fn remove_glossary_term(&self, project_id: i64, id: i64) -> Result<()> {
        self.store().remove_glossary_term(project_id, id).await
    }
}
