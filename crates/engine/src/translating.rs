//! Translating a track: a project's lines sent in batches, with their
//! neighbours, speakers, the names to keep and the user's notes, to a
//! translation engine (`[[translators]]`), and written to the track in the
//! target language as lines in the same slots, linked to their sources.
//! Each batch is written in one transaction, so a stopped or killed job
//! leaves no line half-written and the same request later translates only
//! the lines still missing. A line translated before is translated again
//! only when asked, and one edited by hand since only when that is said too.
//!
//! Each batch goes with the project's glossary for the target language;
//! a line translated now whose source uses a term the translation leaves
//! out is reported. A batch the translator cannot answer (its reply is
//! unusable, its request refused, it timed out once) is reported line by
//! line, nothing of it is written, and the job goes on; a fault that every
//! batch would meet (the server unreachable or failing, the key refused, a
//! second timeout in a row) stops the job.
//!
//! Then each line translated is sized to its slot: its spoken length is
//! predicted at its voice and speed (the model's durations, no audio), and
//! a line that would need more than [`MAX_RATE`] to fit is sent back once
//! with a target length; the shorter rendering is kept only if it fits.

use std::collections::HashMap;

use revoice_core::blocking::wait;
use revoice_core::config::EngineConfig;
use revoice_core::error::{Error, Result};
use revoice_model::speech::SpeechRow;
use revoice_speech::{SayRequest, SpeechStack};
use revoice_store::glossary::GlossaryEntry;
use revoice_store::translations::{TranslatedLine, Translation};
use revoice_store::Segment;
use revoice_translate::fault::{fault_of, Fault};
use revoice_translate::glossary::dropped_terms;
use revoice_translate::{Batch, BatchLine, GlossaryTerm, Shorten, Translator};

use crate::dub::lines::Line;
use crate::Engine;

/// Lines before and after a batch sent with it as context.
const CONTEXT_LINES: usize = 2;
/// The most a translated line may need to speed up to fit its own slot;
/// one that needs more is asked for shorter.
pub const MAX_RATE: f64 = 1.25;

/// What to translate.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct TranslateRequest {
    pub project_id: i64,
    /// The language of the track to translate (the project's first track when `None`).
    pub from: Option<String>,
    /// The language to translate into: its track is made when the project has none.
    pub to: String,
    /// The translator's name (the first configured when `None`).
    pub translator: Option<String>,
    /// Source lines to translate again although they were translated before.
    pub again: Vec<i64>,
    /// Whether lines edited by hand since their translation may be translated again.
    pub overwrite_edited: bool,
    /// What the translator should keep in mind (register, audience, terms).
    pub notes: String,
}

/// How far a translation has come.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslateProgress {
    /// Lines whose batch has been answered (translated) or given up on (failed).
    pub done: usize,
    pub total: usize,
}

/// A glossary term a line translated now leaves out.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DroppedTerm {
    /// The translated line (on the target track).
    pub segment_id: i64,
    pub term: String,
    /// The translation the glossary gives it, which the line lacks.
    pub translation: String,
}

/// A source line left untranslated because the translator could not answer its batch.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FailedLine {
    pub source_segment_id: i64,
    /// Why its batch failed.
    pub reason: String,
}

/// What a translation did.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TranslateReport {
    /// The translator and its model, as each line records it.
    pub translator: String,
    /// Where the lines went (`127.0.0.1:8080`), and whether that is this machine.
    pub host: String,
    pub local: bool,
    pub from: String,
    pub track_id: i64,
    /// Lines translated now.
    pub translated: usize,
    /// Lines translated before and left as they were.
    pub already: usize,
    /// Of those, lines whose source was edited after they were translated.
    pub source_changed: Vec<i64>,
    /// Source lines asked for again whose translation was edited by hand, left as they were.
    pub kept_edited: Vec<i64>,
    /// Of the lines translated now (with a local voice), how many fit
    /// their slots at no more than [`MAX_RATE`] as first translated, and
    /// after the long ones were asked for shorter.
    pub fit_before: usize,
    pub fit_after: usize,
    /// Lines translated now whose predicted length is known.
    pub sized: usize,
    /// Lines said shorter to fit.
    pub shortened: Vec<i64>,
    /// Lines (on the translated track) still too long for their slots.
    pub too_long: Vec<i64>,
    /// Why the lines were not sized to their slots (the speech model could not load).
    pub not_sized: Option<String>,
    /// Glossary terms the lines translated now leave out (as they stand after sizing).
    pub glossary_dropped: Vec<DroppedTerm>,
    /// Source lines whose batch the translator could not answer: nothing of
    /// it was written, and the same request later translates them.
    pub failed: Vec<FailedLine>,
}

/// The glossary terms that apply to lines translated into `to`: an entry
/// of that very tag over one of its primary language for the same term.
pub(crate) fn glossary_terms(entries: &[GlossaryEntry], to: &str) -> Vec<GlossaryTerm> {
    let mut terms: Vec<GlossaryTerm> = Vec::new();
    let exact_first = entries.iter().filter(|e| e.language.eq_ignore_ascii_case(to)).chain(entries.iter().filter(|e| !e.language.eq_ignore_ascii_case(to)));
    for entry in exact_first {
        if !terms.iter().any(|t| t.term.to_lowercase() == entry.term.to_lowercase()) {
            terms.push(GlossaryTerm { term: entry.term.clone(), translation: entry.translation.clone() });
        }
    }
    terms
}

/// A source line to translate, and the line of the target it replaces.
struct Todo {
    source: Segment,
    target: Option<i64>,
}

/// The lines translated now: each target line's source and text, in the order written.
#[derive(Default)]
struct Written {
    order: Vec<i64>,
    lines: HashMap<i64, (Segment, String)>,
}

impl Written {
    /// Notes target line `id` as translated from `source` into `text` (a later note replaces its text).
    fn add(&mut self, id: i64, source: Segment, text: String) {
        if self.lines.insert(id, (source, text)).is_none() {
            self.order.push(id);
        }
    }
}

impl Engine {
    /// Translates a track (blocking: run it off the async executor), calling
    /// `progress` after each batch written and stopping before the next
    /// batch once `cancelled` says so (the lines written stay).
    pub fn translate_track(
        &self,
        request: &TranslateRequest,
        progress: &mut dyn FnMut(&TranslateProgress),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<TranslateReport> {
        let settings = self.saved_config()?.translator(request.translator.as_deref())?.clone();
        revoice_text::language::of_tag(&request.to).ok_or_else(|| {
            Error::invalid(format!("language {:?}", request.to), format!("is not a language the studio knows ({})", revoice_text::language::accepted()))
        })?;
        let runtime = self.runtime();
        let store = self.store();
        let source_track = wait(runtime, self.existing_track(request.project_id, request.from.as_deref()))?;
        if source_track.language.eq_ignore_ascii_case(&request.to) {
            return Err(Error::invalid(format!("language {:?}", request.to), format!("is the language of the track to translate ({})", source_track.language)));
        }
        let target = wait(runtime, self.track_for(request.project_id, Some(&request.to)))?;
        wait(runtime, store.set_track_source(target.id, source_track.id))?;
        let sources = wait(runtime, store.segments(source_track.id))?;
        let translations: HashMap<i64, Translation> = wait(runtime, store.translations(target.id))?.into_iter().map(|t| (t.source_segment_id, t)).collect();
        let glossary = glossary_terms(&wait(runtime, store.glossary(request.project_id, Some(&request.to)))?, &request.to);
        let targets: HashMap<i64, Segment> = wait(runtime, store.segments(target.id))?.into_iter().map(|s| (s.id, s)).collect();
        let speakers: HashMap<i64, String> = wait(runtime, store.speakers(request.project_id))?.into_iter().map(|s| (s.id, s.name)).collect();

        let translator = Translator::new(settings.clone());
        let label = format!("{} ({})", translator.name(), translator.model());
        let mut report = TranslateReport {
            translator: label.clone(),
            host: settings.host().to_string(),
            local: settings.is_local(),
            from: source_track.language.clone(),
            track_id: target.id,
            translated: 0,
            already: 0,
            source_changed: Vec::new(),
            kept_edited: Vec::new(),
            fit_before: 0,
            fit_after: 0,
            sized: 0,
            shortened: Vec::new(),
            too_long: Vec::new(),
            not_sized: None,
            glossary_dropped: Vec::new(),
            failed: Vec::new(),
        };
        let mut todo = Vec::new();
        for source in &sources {
            match translations.get(&source.id) {
                None => todo.push(Todo { source: source.clone(), target: None }),
                Some(done) => {
                    let edited = targets.get(&done.segment_id).is_some_and(|t| t.fields.text != done.translated_text);
                    if request.again.contains(&source.id) {
                        if edited && !request.overwrite_edited {
                            report.kept_edited.push(source.id);
                        } else {
                            todo.push(Todo { source: source.clone(), target: Some(done.segment_id) });
                        }
                        continue;
                    }
                    report.already += 1;
                    if done.source_text != source.fields.text {
                        report.source_changed.push(source.id);
                    }
                }
            }
        }

        // Names stay as written: the speakers' and the dictionary's words.
        let mut keep: Vec<String> = speakers.values().cloned().collect();
        keep.extend(wait(runtime, store.pronunciations(Some(request.project_id)))?.into_iter().map(|p| p.word));
        keep.sort();
        keep.dedup();
        let line = |s: &Segment| BatchLine {
            id: s.id,
            speaker: s.fields.speaker_id.and_then(|id| speakers.get(&id).cloned()),
            text: s.fields.text.clone(),
            seconds: s.fields.end_s - s.fields.start_s,
        };
        let total = todo.len();
        let position: HashMap<i64, usize> = sources.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let mut written = Written::default();
        let mut timed_out_before = false;
        progress(&TranslateProgress { done: 0, total });
        for chunk in todo.chunks(settings.batch_lines()) {
            if cancelled() {
                return Err(Error::Cancelled(format!(
                    "translation into {} stopped after {} of {total} lines: the same request goes on from there",
                    request.to, report.translated
                )));
            }
            let first = position.get(&chunk[0].source.id).copied().unwrap_or(0);
            let last = position.get(&chunk[chunk.len() - 1].source.id).copied().unwrap_or(first);
            let batch = Batch {
                from: source_track.language.clone(),
                to: request.to.clone(),
                lines: chunk.iter().map(|t| line(&t.source)).collect(),
                before: sources[first.saturating_sub(CONTEXT_LINES)..first].iter().map(line).collect(),
                after: sources[(last + 1).min(sources.len())..(last + 1 + CONTEXT_LINES).min(sources.len())].iter().map(line).collect(),
                glossary: glossary.clone(),
                keep: keep.clone(),
                notes: request.notes.clone(),
            };
            let texts = match translator.translate(&batch) {
                Ok(texts) => texts,
                Err(e) => {
                    let fault = fault_of(&e);
                    if fault == Fault::Every || (fault == Fault::TimedOut && timed_out_before) {
                        return Err(e);
                    }
                    tracing::warn!(lines = chunk.len(), error = %e, "a batch the translator could not answer; going on with the next");
                    timed_out_before = fault == Fault::TimedOut;
                    report.failed.extend(chunk.iter().map(|t| FailedLine { source_segment_id: t.source.id, reason: e.to_string() }));
                    progress(&TranslateProgress { done: report.translated + report.failed.len(), total });
                    continue;
                }
            };
            timed_out_before = false;
            let lines: Vec<TranslatedLine> =
                chunk.iter().zip(texts).map(|(t, text)| TranslatedLine { source: t.source.clone(), target: t.target, text }).collect();
            let lines_now = wait(runtime, store.write_translations(target.id, &label, &lines))?;
            for (line, t) in lines_now.iter().zip(&lines) {
                written.add(line.id, t.source.clone(), line.fields.text.clone());
            }
            report.translated += lines.len();
            progress(&TranslateProgress { done: report.translated + report.failed.len(), total });
        }
        // Sizing needs the speech model; the translation stands without it.
        let model = match written.order.is_empty() {
            true => None,
            false => self.speech().map_err(|e| report.not_sized = Some(e.to_string())).ok(),
        };
        if let Some(speech) = model {
            let sizing = Sizing {
                translator: &translator,
                label: &label,
                from: &source_track.language,
                to: &request.to,
                glossary: &glossary,
                keep: &keep,
                notes: &request.notes,
            };
            self.size_to_slots(request.project_id, target.id, &mut written, &sizing, &speech, &mut report)?;
        }
        for id in &written.order {
            let (source, text) = &written.lines[id];
            report.glossary_dropped.extend(dropped_terms(&source.fields.text, text, &glossary).into_iter().map(|t| DroppedTerm {
                segment_id: *id,
                term: t.term,
                translation: t.translation,
            }));
        }
        Ok(report)
    }

    /// Predicts each line just translated at its voice and asks once for
    /// a shorter rendering of each one that would need more than
    /// [`MAX_RATE`] to fit its slot, keeping it (in `written` too) only if it fits.
    fn size_to_slots(
        &self,
        project_id: i64,
        track_id: i64,
        written: &mut Written,
        sizing: &Sizing,
        speech: &SpeechStack,
        report: &mut TranslateReport,
    ) -> Result<()> {
        let tracks = self.predict_lengths(project_id)?;
        let Some(track) = tracks.iter().find(|t| t.track.id == track_id) else { return Ok(()) };
        let fits = |spoken: f64, slot: f64| slot > 0.0 && spoken / slot <= MAX_RATE;
        let now: Vec<&Line> = track.lines.iter().filter(|l| written.lines.contains_key(&l.segment.id)).collect();
        for line in now {
            let Some(spoken) = line.natural_seconds() else { continue };
            let slot = line.slot.length();
            report.sized += 1;
            if fits(spoken, slot) {
                report.fit_before += 1;
                report.fit_after += 1;
                continue;
            }
            let source = written.lines[&line.segment.id].0.clone();
            let current = line.segment.fields.text.clone();
            let target_syllables = ((syllables(&current) as f64) * slot * MAX_RATE / spoken).floor().max(1.0) as usize;
            let request = Shorten {
                from: sizing.from.to_string(),
                to: sizing.to.to_string(),
                line: BatchLine { id: source.id, speaker: None, text: source.fields.text.clone(), seconds: slot },
                current,
                current_seconds: spoken,
                target_syllables,
                glossary: sizing.glossary.to_vec(),
                keep: sizing.keep.to_vec(),
                notes: sizing.notes.to_string(),
            };
            let shorter = match sizing.translator.shorten(&request) {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!(line = line.segment.id, error = %e, "a translated line could not be said shorter");
                    report.too_long.push(line.segment.id);
                    continue;
                }
            };
            match spoken_seconds(speech, line, &shorter)? {
                Some(seconds) if fits(seconds, slot) => {
                    let kept = TranslatedLine { source: source.clone(), target: Some(line.segment.id), text: shorter.clone() };
                    wait(self.runtime(), self.store().write_translations(track_id, sizing.label, &[kept]))?;
                    written.add(line.segment.id, source, shorter);
                    report.fit_after += 1;
                    report.shortened.push(line.segment.id);
                }
                _ => report.too_long.push(line.segment.id),
            }
        }
        Ok(())
    }
}

/// A translator as the settings show it: where its lines go.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TranslatorView {
    pub name: String,
    pub url: String,
    /// The model asked for (empty: the server's default).
    pub model: String,
    /// Where the lines go (`127.0.0.1:8080`).
    pub host: String,
    /// Whether that is this machine.
    pub local: bool,
    pub has_api_key: bool,
}

impl TranslatorView {
    pub fn of(settings: &revoice_core::translators::TranslatorSettings) -> TranslatorView {
        TranslatorView {
            name: settings.name.clone(),
            url: settings.url.clone(),
            model: settings.model.clone(),
            host: settings.host().to_string(),
            local: settings.is_local(),
            has_api_key: !settings.api_key.is_empty(),
        }
    }
}

/// What a translator answered when checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TranslatorCheck {
    /// The models it lists (empty when it lists none).
    pub models: Vec<String>,
    /// What "Good morning." became in Spanish.
    pub answered: String,
    pub seconds: f64,
}

impl Engine {
    /// The config as saved now: a translator added in the settings or by
    /// the CLI while the studio runs is there at once.
    fn saved_config(&self) -> Result<EngineConfig> {
        EngineConfig::load_from(self.data_dir().to_path_buf())
    }

    /// The translators as saved in `config.toml` now (blocking).
    pub fn translators(&self) -> Result<Vec<revoice_core::translators::TranslatorSettings>> {
        Ok(self.saved_config()?.settings.translators)
    }

    /// Asks the translator `name` for its models and a one-line
    /// translation (blocking: a small model may take a while).
    pub fn check_translator(&self, name: &str) -> Result<TranslatorCheck> {
        let report = Translator::new(self.saved_config()?.translator(Some(name))?.clone()).check()?;
        Ok(TranslatorCheck { models: report.models, answered: report.answered, seconds: report.seconds })
    }
}

/// What asking for a shorter line needs besides the line.
struct Sizing<'a> {
    translator: &'a Translator,
    label: &'a str,
    from: &'a str,
    to: &'a str,
    glossary: &'a [GlossaryTerm],
    keep: &'a [String],
    notes: &'a str,
}

/// How long `line`'s take would last saying `text` at its voice and speed
/// (the model's durations, shaped as a take is); `None` when its voice
/// cannot say it.
fn spoken_seconds(speech: &SpeechStack, line: &Line, text: &str) -> Result<Option<f64>> {
    let Ok(voice) = line.voice.clone() else { return Ok(None) };
    let request = SayRequest { text: text.to_string(), voice, speed: line.segment.fields.speed as f32, seed: None };
    let Ok(prepared) = speech.front_end.prepare_with(&request, None, &line.dictionary) else { return Ok(None) };
    let rows: Vec<SpeechRow> = prepared.into_iter().map(|p| p.row).collect();
    let spoken: Vec<f64> = speech.renderer.spoken_seconds(&rows)?.into_iter().map(f64::from).collect();
    Ok(Some(crate::dub::take_shape::take_seconds(&spoken)))
}

/// Syllables in `text`, roughly: groups of vowels in each word, at least
/// one a word; a character a syllable in scripts without Latin vowels.
fn syllables(text: &str) -> usize {
    const VOWELS: &str = "aeiouyáéíóúàèìòùâêîôûãõäëïöüœæ";
    text.split_whitespace()
        .map(|word| {
            let lower = word.to_lowercase();
            let letters: Vec<char> = lower.chars().filter(|c| c.is_alphabetic()).collect();
            if letters.is_empty() {
                return 0;
            }
            if !letters.iter().any(|c| c.is_ascii_alphabetic() || VOWELS.contains(*c)) {
                return letters.len();
            }
            let mut groups = 0;
            let mut in_vowel = false;
            for c in &letters {
                let vowel = VOWELS.contains(*c);
                if vowel && !in_vowel {
                    groups += 1;
                }
                in_vowel = vowel;
            }
            groups.max(1)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::syllables;

    #[test]
    fn syllables_are_counted_roughly_as_vowel_groups() {
        // "ea" and "ia" count once: a hint for the translator, not a phonology.
        assert_eq!(syllables("La marea está cambiando."), 8);
        assert_eq!(syllables("Then we go."), 3);
        assert_eq!(syllables("— 42 —"), 0);
        assert!((3..=6).contains(&syllables("नमस्ते")), "a letter a syllable where there are no Latin vowels");
    }
}
