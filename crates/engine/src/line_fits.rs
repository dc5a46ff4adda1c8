//! Whether each line fits its slot, for every face, before and after it
//! renders: lengths not known yet are predicted from the model's durations
//! (the model is loaded for it), then each line's fit follows from its
//! slot and neighbours (`dub::spoken_length`, `dub::timing`); and which
//! lines are flagged (`dub::flags`), for the export.

use crate::dub::flags::{flagged_lines, FlaggedLine};
use crate::dub::lines::TrackLines;
use crate::dub::spoken_length::{predict_missing, track_fits, LineFit};
use crate::Engine;
use revoice_core::blocking::wait;
use revoice_core::error::Result;

/// One track's lines and how each fits.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TrackFit {
    pub track_id: i64,
    pub language: String,
    pub lines: Vec<LineFit>,
}

impl TrackFit {
    /// The lines that do not fit, even at the fastest rate with the gaps they may borrow.
    pub fn not_fitting(&self) -> impl Iterator<Item = &LineFit> {
        self.lines.iter().filter(|l| l.shortfall.is_some())
    }
}

impl Engine {
    /// The flagged lines of `tracks` (doesn't fit, cut, overlapping, a
    /// current take that failed its check), in track and time order.
    pub async fn flagged_lines(&self, tracks: &[TrackLines]) -> Result<Vec<FlaggedLine>> {
        let Some(project_id) = tracks.first().map(|t| t.project.id) else { return Ok(Vec::new()) };
        let checks = crate::checking::current_of(tracks, &mut self.store().project_take_checks(project_id).await?);
        Ok(flagged_lines(tracks, &|segment| checks.get(&segment).is_some_and(|c| !c.passed)))
    }

    /// Predicts the length of every line of `project_id` not known yet
    /// (loading the model if needed; blocking). Returns the tracks, resolved,
    /// with every local line's length known.
    pub fn predict_lengths(&self, project_id: i64) -> Result<Vec<TrackLines>> {
        let mut tracks = wait(self.runtime(), self.project_lines(project_id))?;
        if tracks.iter().any(|t| t.lines.iter().any(|l| l.predicted.is_none() && !l.is_remote())) {
            let speech = self.speech()?;
            predict_missing(self.runtime(), self.store(), &speech, &mut tracks)?;
        }
        Ok(tracks)
    }

    /// How every line of `project_id` fits, its lengths predicted first
    /// where they are not known (blocking).
    pub fn project_fits(&self, project_id: i64) -> Result<Vec<TrackFit>> {
        let limits = self.fit_limits();
        Ok(self
            .predict_lengths(project_id)?
            .iter()
            .map(|t| TrackFit { track_id: t.track.id, language: t.track.language.clone(), lines: track_fits(t, &limits) })
            .collect())
    }
}
