//! A line's takes as the inspector lists them: which is in use, and which
//! were rendered from the line as it is now (picking those needs no render).

use serde::Serialize;
use ts_rs::TS;

use crate::dub::lines::source_key;
use crate::Engine;
use revoice_core::error::{Error, Result};

/// One synthesis of a line.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TakeView {
    pub id: i64,
    pub seed: i64,
    pub seconds: f64,
    pub created_at: String,
    /// The line's audio now.
    pub active: bool,
    /// Rendered from the line as it is now (text, voice, speed, slot), so
    /// picking it needs no render; other takes are of an earlier version.
    pub current: bool,
}

/// The line's takes, oldest first.
pub async fn line_takes(engine: &Engine, segment_id: i64) -> Result<Vec<TakeView>> {
    let segment = engine.store().segment(segment_id).await?;
    let track = engine.track_lines(segment.track_id).await?;
    let line = track.index_of(segment_id).map(|i| &track.lines[i]).ok_or_else(|| Error::not_found(format!("line {segment_id}"), "it is not on its track"))?;
    // A take is current when the line as it is now, with the take's seed,
    // renders the same.
    let source_with_seed = |seed: i64| {
        let mut segment = line.segment.clone();
        segment.fields.seed = Some(seed);
        source_key(&segment, &line.voice_identity, line.strategy, &line.slot, &track.limits, &line.dictionary)
    };
    Ok(engine
        .store()
        .takes(segment_id)
        .await?
        .into_iter()
        .map(|t| TakeView {
            active: line.segment.active_take_id == Some(t.id),
            current: t.source_key.as_deref() == Some(source_with_seed(t.seed).as_str()),
            id: t.id,
            seed: t.seed,
            seconds: t.duration_s,
            created_at: t.created_at,
        })
        .collect())
}
