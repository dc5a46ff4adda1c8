//! A timeline lane's mix for every face: muting, soloing and levelling a
//! speaker's lane (or the lane of lines without a speaker), each change
//! one undoable step. The store keeps it (`store::lanes`); playback and
//! export hear it through `dub::lanes`.

use serde::Deserialize;

use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_store::lanes::LANE_LEVEL_RANGE;
use revoice_store::LaneMix;

/// What a lane change sets; absent fields stay as they are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields)]
pub struct LaneMixEdit {
    pub muted: Option<bool>,
    pub solo: Option<bool>,
    /// dB, from -60 to +12.
    pub level_db: Option<f32>,
}

impl LaneMixEdit {
    /// What the history calls it, for the lane called `lane`.
    fn describe(&self, lane: &str) -> String {
        let mut what = Vec::new();
        match self.muted {
            Some(true) => what.push("mute".to_string()),
            Some(false) => what.push("unmute".to_string()),
            None => {}
        }
        match self.solo {
            Some(true) => what.push("solo".to_string()),
            Some(false) => what.push("unsolo".to_string()),
            None => {}
        }
        if let Some(level) = self.level_db {
            what.push(format!("level {level:+.1} dB"));
        }
        format!("{} lane {lane}", what.join(", "))
    }
}

/// What the lane of lines without a speaker is called.
pub const NO_SPEAKER_LANE: &str = "No speaker";

impl Engine {
    /// Changes how a lane sounds (`speaker_id` `None`: the lines without a
    /// speaker) in one undoable step; the lane's mix after it. A level
    /// outside -60 to +12 dB is refused, naming the field.
    pub async fn set_lane_mix(&self, project_id: i64, speaker_id: Option<i64>, edit: LaneMixEdit) -> Result<LaneMix> {
        let (low, high) = LANE_LEVEL_RANGE;
        if let Some(level) = edit.level_db {
            if !(low..=high).contains(&level) {
                return Err(Error::invalid(format!("lane level (levelDb) {level} dB"), format!("must be from {low} to +{high} dB")));
            }
        }
        let store = self.store();
        store.project(project_id).await?;
        let name = match speaker_id {
            Some(id) => store
                .speakers(project_id)
                .await?
                .into_iter()
                .find(|s| s.id == id)
                .map(|s| s.name)
                .ok_or_else(|| Error::not_found(format!("speaker {id}"), format!("not in project {project_id}")))?,
            None => NO_SPEAKER_LANE.to_string(),
        };
        let before = store.lane_mixes(project_id).await?.into_iter().find(|(lane, _)| *lane == speaker_id).map(|(_, mix)| mix).unwrap_or_default();
        let after =
            LaneMix { muted: edit.muted.unwrap_or(before.muted), solo: edit.solo.unwrap_or(before.solo), level_db: edit.level_db.unwrap_or(before.level_db) };
        store.set_lane_mix(project_id, speaker_id, &edit.describe(&name), after).await
    }
}
