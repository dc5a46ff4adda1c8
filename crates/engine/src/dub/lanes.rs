//! Which lanes sound, and how loud: the one rule playback and export share.
//! A lane is a speaker's lines (or the lines without a speaker). Muted
//! lanes never sound; while any lane is soloed only soloed lanes sound;
//! a lane that sounds has its level as a gain on every line. The mixes
//! come from the store (`store::lanes`); [`LaneMixes`] answers for any lane.

use std::collections::HashMap;

use super::mix::db_to_gain;
use revoice_store::LaneMix;

/// A project's lane mixes, lanes by speaker id (`None`: no speaker).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaneMixes {
    lanes: HashMap<Option<i64>, LaneMix>,
    any_solo: bool,
}

impl LaneMixes {
    /// From the lanes not at their defaults (any others are).
    pub fn new(lanes: impl IntoIterator<Item = (Option<i64>, LaneMix)>) -> LaneMixes {
        let lanes: HashMap<Option<i64>, LaneMix> = lanes.into_iter().collect();
        let any_solo = lanes.values().any(|m| m.solo);
        LaneMixes { lanes, any_solo }
    }

    /// A lane's mix as set.
    pub fn mix(&self, lane: Option<i64>) -> LaneMix {
        self.lanes.get(&lane).copied().unwrap_or_default()
    }

    /// Whether a lane is heard: not muted, and soloed when any lane is.
    pub fn audible(&self, lane: Option<i64>) -> bool {
        let mix = self.mix(lane);
        !mix.muted && (mix.solo || !self.any_solo)
    }

    /// The gain on a lane's lines: its level when heard, else 0.
    pub fn gain(&self, lane: Option<i64>) -> f32 {
        if self.audible(lane) {
            db_to_gain(self.mix(lane).level_db)
        } else {
            0.0
        }
    }

    /// Whether every lane sounds at unity (nothing to apply).
    pub fn is_neutral(&self) -> bool {
        self.lanes.values().all(|m| *m == LaneMix::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solo_silences_the_lanes_not_soloed_and_a_mute_wins_over_it() {
        let solo = LaneMix { solo: true, ..LaneMix::default() };
        let lanes = LaneMixes::new([(Some(1), solo), (Some(2), LaneMix { muted: true, solo: true, level_db: 0.0 })]);
        assert_eq!(lanes.gain(Some(1)), 1.0);
        assert_eq!(lanes.gain(Some(2)), 0.0, "muted though soloed");
        assert_eq!(lanes.gain(Some(3)), 0.0, "not soloed");
        assert_eq!(lanes.gain(None), 0.0, "the lane without a speaker is a lane too");
        let lanes = LaneMixes::new([(None, LaneMix { level_db: -6.0, ..LaneMix::default() })]);
        assert!((lanes.gain(None) - 0.501).abs() < 1e-3);
        assert_eq!(lanes.gain(Some(1)), 1.0);
        assert!(!lanes.is_neutral() && LaneMixes::default().is_neutral());
    }
}
