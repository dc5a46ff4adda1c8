//! Listening back to a project's takes, for every face (an `impl Engine`):
//! each line's active take, placed as the programme places it, is heard by
//! the listener and judged against its text ([`crate::dub::qc`]); the result
//! is stored with the take and the fit it heard, so it survives restarts and
//! a take already heard under the same fit is not heard again. A take that
//! fails when first heard can be taken again once on a fresh seed; the
//! better of the two stays in use, and a line that still fails is left for
//! a person (the editor marks it, export warns about it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::dub::lines::{FittedLine, TrackLines};
use crate::dub::pipeline::RenderScope;
use crate::dub::qc::{judge_errors, placement_signature};
use crate::Engine;
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};
use revoice_model::whisper::TranscriptOptions;
use revoice_store::TakeCheckRecord;
use revoice_text::language;
use revoice_text::word_errors::{word_errors_in, WordErrors};

/// Whisper's rate: lines are fitted straight to it.
const HEARING_RATE: u32 = 16_000;

/// One line's check, fresh or as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedLine {
    pub segment_id: i64,
    pub take_id: i64,
    /// The track's language.
    pub language: String,
    pub text: String,
    pub heard: String,
    pub word_error_rate: f64,
    pub problems: Vec<String>,
    /// Heard in this run (false: the stored check of this take and fit).
    pub fresh: bool,
    /// Taken again on a fresh seed in this run, because its take failed.
    pub retaken: bool,
}

impl CheckedLine {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// Fewer problems, then fewer wrong words.
    fn better_than(&self, other: &CheckedLine) -> bool {
        (self.problems.len(), self.word_error_rate) < (other.problems.len(), other.word_error_rate)
    }
}

/// What to listen to.
#[derive(Debug, Clone, Default)]
pub struct ListenRequest {
    /// Only these lines (every rendered line when `None`).
    pub only: Option<Vec<i64>>,
    /// Hear takes again even when a check of them under the same fit is stored.
    pub again: bool,
    /// Take a line that fails when first heard again, once, on a fresh seed.
    pub retake: bool,
}

/// What listening back reports as it goes.
#[derive(Debug)]
pub enum ListenEvent<'a> {
    /// A failing line is being taken again on a fresh seed.
    Retaking { segment_id: i64 },
    /// A line's verdict (after its re-take, if it had one), and how many of
    /// the lines to hear are done.
    Checked { line: &'a CheckedLine, done: usize, total: usize },
}

impl Engine {
    /// Listens back to a project's rendered lines (blocking: a window of
    /// Whisper, about three seconds, for each pack of lines heard together,
    /// plus a render for each re-take). Lines are heard several at a time
    /// ([`Listener::hear_clips`](crate::listening::Listener::hear_clips)); a
    /// line that fails so is heard again alone before it is judged, so a
    /// verdict of failure never rests on its neighbours. Cancelled between
    /// packs by `cancel`; what was heard by then is stored.
    pub fn listen_back(&self, project_id: i64, request: &ListenRequest, cancel: &AtomicBool, events: &mut dyn FnMut(ListenEvent)) -> Result<Vec<CheckedLine>> {
        let tracks = wait(self.runtime(), self.project_lines(project_id))?;
        let stored = if request.again { HashMap::new() } else { wait(self.runtime(), self.store().project_take_checks(project_id))? };
        let wanted = |id: i64| request.only.as_ref().is_none_or(|only| only.contains(&id));
        let todo: Vec<(usize, usize)> = tracks
            .iter()
            .enumerate()
            .flat_map(|(t, track)| track.lines.iter().enumerate().filter(|(_, l)| l.take.is_some() && wanted(l.segment.id)).map(move |(i, _)| (t, i)))
            .collect();
        let total = todo.len();
        let mut out: Vec<Option<CheckedLine>> = vec![None; total];
        let mut done = 0;
        let cancelled = || Error::Cancelled(format!("listening back to project {project_id}"));
        // Lines heard before under the fit they have now keep their verdicts.
        let mut to_hear: Vec<(usize, usize, usize)> = Vec::new();
        for (k, &(t, i)) in todo.iter().enumerate() {
            match stored_verdict(&tracks[t], i, &stored) {
                Some(verdict) => {
                    done += 1;
                    events(ListenEvent::Checked { line: out[k].insert(verdict), done, total });
                }
                None => to_hear.push((k, t, i)),
            }
        }
        // The rest, track by track, several lines to a window.
        for (track_index, track) in tracks.iter().enumerate() {
            let lines: Vec<(usize, usize)> = to_hear.iter().filter(|(_, t, _)| *t == track_index).map(|&(k, _, i)| (k, i)).collect();
            let lengths: Vec<f64> = lines.iter().map(|&(_, i)| track.lines[i].placement(&track.limits).map_or(0.0, |p| p.length)).collect();
            for pack in crate::listening::pack_clips(&lengths) {
                if cancel.load(Ordering::Acquire) {
                    return Err(cancelled());
                }
                let mut fitted = Vec::with_capacity(pack.len());
                for &n in &pack {
                    fitted.push(track.fit(self.segments(), lines[n].1, HEARING_RATE)?);
                }
                let clips: Vec<&[f32]> = fitted.iter().map(|f| f.as_ref().map_or(&[][..], |f| f.audio.as_slice())).collect();
                let heard = self.listener().hear_clips(&clips, HEARING_RATE, Some(&track.track.language), &mut || !cancel.load(Ordering::Acquire))?;
                for ((&n, fitted), heard) in pack.iter().zip(&fitted).zip(heard) {
                    let (k, i) = lines[n];
                    let mut checked = match fitted {
                        Some(fitted) => self.judge_heard(track, i, fitted, heard)?,
                        None => missing_audio(track, i),
                    };
                    if request.retake && !checked.passed() {
                        events(ListenEvent::Retaking { segment_id: checked.segment_id });
                        checked = self.retake(project_id, track, checked, cancel)?;
                    }
                    done += 1;
                    events(ListenEvent::Checked { line: out[k].insert(checked), done, total });
                }
            }
        }
        Ok(out.into_iter().map(|c| c.expect("every line heard or stored")).collect())
    }

    /// Judges line `i`'s fitted take from what was heard of it among
    /// others; a failure is heard again alone first. The verdict is stored.
    fn judge_heard(&self, track: &TrackLines, i: usize, fitted: &FittedLine, heard_among_others: String) -> Result<CheckedLine> {
        let line = &track.lines[i];
        let (text, language) = (&line.segment.fields.text, &track.track.language);
        let judged = |heard: &str| -> Result<crate::dub::qc::LineCheck> {
            let errors = self.heard_errors(text, heard, language)?;
            Ok(judge_errors(line.segment.id, fitted_take(track, i).id, &fitted.audio, &fitted.placement, errors, heard))
        };
        let mut check = judged(&heard_among_others)?;
        if !check.passed() {
            check = judged(&self.hear_alone(track, &fitted.audio)?)?;
        }
        self.store_check(track, i, check)
    }

    /// Line `i`'s active take heard alone (the second opinion on a re-take).
    fn check_line(&self, track: &TrackLines, i: usize) -> Result<CheckedLine> {
        let Some(fitted) = track.fit(self.segments(), i, HEARING_RATE)? else {
            return Ok(missing_audio(track, i));
        };
        let heard = self.hear_alone(track, &fitted.audio)?;
        let line = &track.lines[i];
        let errors = self.heard_errors(&line.segment.fields.text, &heard, &track.track.language)?;
        let check = judge_errors(line.segment.id, fitted_take(track, i).id, &fitted.audio, &fitted.placement, errors, &heard);
        self.store_check(track, i, check)
    }

    /// How far `heard` is from `text` in `language`: Japanese by the two
    /// texts' readings in kana (Whisper writes a word in kanji or in kana as
    /// it likes), other languages as [`word_errors_in`] reads them.
    fn heard_errors(&self, text: &str, heard: &str, language: &str) -> Result<WordErrors> {
        if language::primary(language) == "ja" {
            let reader = self.speech()?.front_end.japanese_reader()?;
            if let (Ok(text), Ok(heard)) = (reader.reading(text), reader.reading(heard)) {
                return Ok(word_errors_in(&text, &heard, language));
            }
        }
        Ok(word_errors_in(text, heard, language))
    }

    fn hear_alone(&self, track: &TrackLines, audio: &[f32]) -> Result<String> {
        let tag = &track.track.language;
        let options = TranscriptOptions {
            language: Some(language::primary(tag)),
            initial_prompt: language::transcription_prompt(tag).map(str::to_string),
            ..Default::default()
        };
        Ok(self.listener().transcribe(audio, HEARING_RATE, &options, &mut |_| true)?.text())
    }

    /// Stores a fresh check of line `i`'s take under the fit it has now.
    fn store_check(&self, track: &TrackLines, i: usize, check: crate::dub::qc::LineCheck) -> Result<CheckedLine> {
        let take = fitted_take(track, i);
        let signature = signature_of(track, i);
        wait(self.runtime(), self.store().save_take_check(take.id, &signature, &check.heard, check.errors.rate(), &check.problems, check.passed()))?;
        Ok(verdict(track, i, check.heard.clone(), check.errors.rate(), check.problems, true))
    }

    /// Takes a failing line again on a fresh seed and hears the new take;
    /// the better of the two takes stays in use (the other stays in the
    /// line's takes).
    fn retake(&self, project_id: i64, track: &TrackLines, first: CheckedLine, cancel: &AtomicBool) -> Result<CheckedLine> {
        let segment_id = first.segment_id;
        let rt = self.runtime();
        wait(rt, self.new_take_seed(segment_id))?;
        let scope = RenderScope { only: Some(vec![segment_id]), from_s: None };
        let summary = self.render_project(project_id, &scope, cancel, &mut |_| {})?;
        let again = wait(rt, self.track_lines(track.track.id))?;
        let rendered = summary.failed.is_empty() && !summary.cancelled;
        let second = match again.index_of(segment_id) {
            Some(i) if rendered && again.lines[i].is_current() => Some(self.check_line(&again, i)?),
            _ => None,
        };
        match second {
            Some(second) if second.better_than(&first) || second.passed() => Ok(CheckedLine { retaken: true, ..second }),
            _ => {
                wait(rt, self.pick_take(segment_id, first.take_id))?;
                Ok(CheckedLine { retaken: true, ..first })
            }
        }
    }

    /// The stored checks of a project's active takes, under the fit each
    /// line has now, that failed, as `(segment id, problems)`: what an
    /// export warns about and the editor marks.
    pub async fn failing_checks(&self, project_id: i64) -> Result<Vec<(i64, Vec<String>)>> {
        let tracks = self.project_lines(project_id).await?;
        let mut stored = self.store().project_take_checks(project_id).await?;
        let mut failing: Vec<(i64, Vec<String>)> =
            current_of(&tracks, &mut stored).into_iter().filter(|(_, c)| !c.passed).map(|(id, c)| (id, c.problems())).collect();
        failing.sort_by_key(|(id, _)| *id);
        Ok(failing)
    }
}

fn fitted_take(track: &TrackLines, i: usize) -> &revoice_store::Take {
    track.lines[i].take.as_ref().expect("a line with a take")
}

/// The fit line `i` has now, as its checks are stored under.
fn signature_of(track: &TrackLines, i: usize) -> String {
    track.lines[i].placement(&track.limits).map(|p| placement_signature(&p)).expect("a take has a placement")
}

fn verdict(track: &TrackLines, i: usize, heard: String, word_error_rate: f64, problems: Vec<String>, fresh: bool) -> CheckedLine {
    let line = &track.lines[i];
    CheckedLine {
        segment_id: line.segment.id,
        take_id: fitted_take(track, i).id,
        language: track.track.language.clone(),
        text: line.segment.fields.text.clone(),
        heard,
        word_error_rate,
        problems,
        fresh,
        retaken: false,
    }
}

/// Line `i`'s stored check, when it is of its take under the fit it has now.
fn stored_verdict(track: &TrackLines, i: usize, stored: &HashMap<i64, TakeCheckRecord>) -> Option<CheckedLine> {
    let record = stored.get(&fitted_take(track, i).id).filter(|c| c.placement == signature_of(track, i))?;
    Some(verdict(track, i, record.heard.clone(), record.word_error_rate, record.problems(), false))
}

fn missing_audio(track: &TrackLines, i: usize) -> CheckedLine {
    verdict(track, i, String::new(), 1.0, vec!["its audio is missing from the segment store: render the line again".into()], true)
}

/// Each line's check among `stored`, when it is of the line's active take
/// under its fit now.
pub fn current_of(tracks: &[TrackLines], stored: &mut HashMap<i64, TakeCheckRecord>) -> HashMap<i64, TakeCheckRecord> {
    let mut current = HashMap::new();
    for track in tracks {
        for line in &track.lines {
            let (Some(take), Some(placement)) = (&line.take, line.placement(&track.limits)) else { continue };
            if let Some(record) = stored.remove(&take.id).filter(|c| c.placement == placement_signature(&placement)) {
                current.insert(line.segment.id, record);
            }
        }
    }
    current
}
