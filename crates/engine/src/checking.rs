//! Checking a project's takes by ear, for every face (an `impl Engine`):
//! each line's active take, placed as the programme places it, is heard by
//! the listener and judged against its text ([`crate::dub::qc`]); the result
//! is stored with the take, so it survives restarts and a take already
//! heard under the same fit is not heard again. A new take (an edited line
//! re-rendered) has no check yet, so it is heard next time.

use serde::Serialize;

use crate::dub::qc::{judge, placement_signature};
use crate::error::{Error, Result};
use crate::language;
use crate::model::whisper::TranscriptOptions;
use crate::Engine;

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
}

impl CheckedLine {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

impl Engine {
    /// Checks every rendered line of a project (blocking: about a second a
    /// line). With `again`, takes already checked are heard again.
    /// `progress` hears (lines done, lines to check) and cancels by
    /// returning false.
    pub fn check_project(&self, project_id: i64, again: bool, progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<Vec<CheckedLine>> {
        let tracks = self.runtime().block_on(self.project_lines(project_id))?;
        let total: usize = tracks.iter().map(|t| t.lines.iter().filter(|l| l.take.is_some()).count()).sum();
        let mut out = Vec::with_capacity(total);
        for track in &tracks {
            let spoken = language::primary(&track.track.language);
            for (i, line) in track.lines.iter().enumerate() {
                let Some(take) = &line.take else { continue };
                let text = line.segment.fields.text.clone();
                let Some(fitted) = track.fit(self.segments(), i, HEARING_RATE)? else {
                    out.push(CheckedLine {
                        segment_id: line.segment.id,
                        take_id: take.id,
                        language: track.track.language.clone(),
                        text,
                        heard: String::new(),
                        word_error_rate: 1.0,
                        problems: vec!["its audio is missing from the segment store: render the line again".into()],
                        fresh: true,
                    });
                    continue;
                };
                let signature = placement_signature(&fitted.placement);
                let stored = if again { None } else { self.runtime().block_on(self.store().take_check(take.id))?.filter(|c| c.placement == signature) };
                let checked = match stored {
                    Some(record) => CheckedLine {
                        segment_id: line.segment.id,
                        take_id: take.id,
                        language: track.track.language.clone(),
                        text,
                        heard: record.heard.clone(),
                        word_error_rate: record.word_error_rate,
                        problems: record.problems(),
                        fresh: false,
                    },
                    None => {
                        let options = TranscriptOptions { language: Some(spoken.clone()), ..Default::default() };
                        let heard = self.listener().transcribe(&fitted.audio, HEARING_RATE, &options, &mut |_| true)?.text();
                        let check = judge(line.segment.id, take.id, &fitted.audio, &fitted.placement, &text, &heard);
                        self.runtime().block_on(self.store().save_take_check(take.id, &signature, &check.heard, check.errors.rate(), &check.problems, check.passed()))?;
                        CheckedLine {
                            segment_id: line.segment.id,
                            take_id: take.id,
                            language: track.track.language.clone(),
                            text,
                            heard: check.heard,
                            word_error_rate: check.errors.rate(),
                            problems: check.problems,
                            fresh: true,
                        }
                    }
                };
                out.push(checked);
                if !progress(out.len(), total) {
                    return Err(Error::Cancelled(format!("checking project {project_id}")));
                }
            }
        }
        Ok(out)
    }

    /// The stored checks of a project's active takes that failed, as
    /// `(segment id, problems)`: what an export warns about.
    pub async fn failing_checks(&self, project_id: i64) -> Result<Vec<(i64, Vec<String>)>> {
        let mut failing = Vec::new();
        for track in self.project_lines(project_id).await? {
            for line in &track.lines {
                let Some(take) = &line.take else { continue };
                if let Some(check) = self.store().take_check(take.id).await?.filter(|c| !c.passed) {
                    failing.push((line.segment.id, check.problems()));
                }
            }
        }
        Ok(failing)
    }
}
