//! The project file: a project as one JSON document (name, timing
//! strategy, speakers and their voices, tracks and their lines with every
//! setting, each lane's mix, the markers), for moving a project between machines or keeping it under
//! version control. Export then import gives back the same project;
//! rendered audio is not included (it is re-rendered from the lines).

use serde::{Deserialize, Serialize};

use revoice_core::error::{Error, Result};
use revoice_store::{LaneMix, SegmentFields, Store};

/// The document's format version.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectFile {
    pub format: String,
    pub version: u32,
    pub name: String,
    pub timing_strategy: String,
    /// The timecode rate (`25`, `29.97df`…) when the project set one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_rate: Option<String>,
    pub speakers: Vec<SpeakerEntry>,
    /// How the lane of lines without a speaker is heard, when not at its defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_speaker_lane: Option<LaneMix>,
    pub tracks: Vec<TrackEntry>,
    /// Named points on the timeline, in time order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<MarkerEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerEntry {
    /// Seconds.
    pub at: f64,
    pub name: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(db: &f32) -> bool {
    *db == 0.0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeakerEntry {
    pub name: String,
    pub voice: String,
    /// Voices by track language, where the speaker has their own.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub language_voices: std::collections::BTreeMap<String, String>,
    /// Their lane never sounds.
    #[serde(default, skip_serializing_if = "is_false")]
    pub muted: bool,
    /// Their lane is soloed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub solo: bool,
    /// Their lane's level, dB.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub level_db: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackEntry {
    pub language: String,
    pub lines: Vec<LineEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineEntry {
    pub start: f64,
    pub end: f64,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    pub speed: f64,
    pub gain_db: f64,
    pub fade_in: f64,
    pub fade_out: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing_strategy: Option<String>,
    #[serde(default)]
    pub locked: bool,
    /// The seed the line renders with (so a re-imported line sounds the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
}

const FORMAT_NAME: &str = "revoice-project";

/// A project from the database as a document.
pub async fn export(store: &Store, project_id: i64) -> Result<ProjectFile> {
    let project = store.project(project_id).await?;
    let speakers = store.speakers(project_id).await?;
    let lanes = crate::dub::lanes::LaneMixes::new(store.lane_mixes(project_id).await?);
    let speaker_name = |id: Option<i64>| id.and_then(|id| speakers.iter().find(|s| s.id == id)).map(|s| s.name.clone());
    let mut tracks = Vec::new();
    for track in store.tracks(project_id).await? {
        let lines = store
            .segments(track.id)
            .await?
            .into_iter()
            .map(|s| {
                let seed = Some(s.seed());
                let f = s.fields;
                LineEntry {
                    start: f.start_s,
                    end: f.end_s,
                    speaker: speaker_name(f.speaker_id),
                    text: f.text,
                    speed: f.speed,
                    gain_db: f.gain_db,
                    fade_in: f.fade_in_s,
                    fade_out: f.fade_out_s,
                    timing_strategy: f.timing_strategy,
                    locked: f.locked,
                    seed,
                }
            })
            .collect();
        tracks.push(TrackEntry { language: track.language, lines });
    }
    Ok(ProjectFile {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        name: project.name,
        timing_strategy: project.timing_strategy,
        frame_rate: project.frame_rate,
        speakers: speakers
            .into_iter()
            .map(|s| {
                let mix = lanes.mix(Some(s.id));
                SpeakerEntry { language_voices: s.language_voices(), name: s.name, voice: s.voice, muted: mix.muted, solo: mix.solo, level_db: mix.level_db }
            })
            .collect(),
        no_speaker_lane: Some(lanes.mix(None)).filter(|m| *m != LaneMix::default()),
        tracks,
        markers: store.markers(project_id).await?.into_iter().map(|m| MarkerEntry { at: m.at_seconds, name: m.name }).collect(),
    })
}

/// Reads a document, naming the file and what is wrong.
pub fn parse(text: &str, source: &str) -> Result<ProjectFile> {
    let file: ProjectFile = serde_json::from_str(text)
        .map_err(|e| Error::InvalidInput { input: format!("{source}, line {}", e.line()), reason: format!("not a Revoice project file: {e}") })?;
    if file.format != FORMAT_NAME || file.version > FORMAT_VERSION {
        return Err(Error::InvalidInput {
            input: source.into(),
            reason: format!("format {:?} version {} (this build reads {FORMAT_NAME:?} up to version {FORMAT_VERSION})", file.format, file.version),
        });
    }
    Ok(file)
}

/// Creates a new project from a document; returns its id.
pub async fn import(store: &Store, file: &ProjectFile) -> Result<i64> {
    let first_language = file.tracks.first().map(|t| t.language.as_str()).unwrap_or("en-US");
    let (project, track) = store.create_project(&file.name, first_language).await?;
    store.set_initial_timing_strategy(project.id, &file.timing_strategy).await?;
    if let Some(rate) = &file.frame_rate {
        rate.parse::<crate::dub::timecode::FrameRate>().map_err(|e| e.context(format!("project file {:?}", file.name)))?;
        store.set_frame_rate(project.id, rate).await?;
    }
    for (i, entry) in file.tracks.iter().enumerate() {
        let track = if i == 0 { track.clone() } else { store.add_track(project.id, &entry.language).await? };
        let cues: Vec<revoice_text::subtitles::Cue> =
            entry.lines.iter().map(|l| revoice_text::subtitles::Cue { start: l.start, end: l.end, text: l.text.clone(), speaker: l.speaker.clone() }).collect();
        store.import_cues(&track, &cues).await?;
        // Settings beyond the cue itself.
        for (segment, line) in store.segments(track.id).await?.into_iter().zip(&entry.lines) {
            let wanted = SegmentFields {
                speed: line.speed,
                gain_db: line.gain_db,
                fade_in_s: line.fade_in,
                fade_out_s: line.fade_out,
                timing_strategy: line.timing_strategy.clone(),
                locked: line.locked,
                seed: line.seed,
                ..segment.fields.clone()
            };
            if wanted != segment.fields {
                store.set_segment_fields(segment.id, &wanted).await?;
            }
        }
    }
    let bad = |what: String, reason: &str| Error::invalid(format!("project file {:?}: {what}", file.name), reason);
    let (low, high) = revoice_store::lanes::LANE_LEVEL_RANGE;
    let check_level = |what: &str, level: f32| {
        if (low..=high).contains(&level) {
            Ok(())
        } else {
            Err(bad(format!("{what} level_db {level}"), "must be from -60 to +12 dB"))
        }
    };
    for speaker in store.speakers(project.id).await? {
        if let Some(entry) = file.speakers.iter().find(|s| s.name == speaker.name) {
            store.set_speaker_voice_quietly(speaker.id, &entry.voice, &entry.language_voices).await?;
            check_level(&format!("speaker {:?}", entry.name), entry.level_db)?;
            store.set_lane_mix_quietly(project.id, Some(speaker.id), LaneMix { muted: entry.muted, solo: entry.solo, level_db: entry.level_db }).await?;
        }
    }
    if let Some(mix) = file.no_speaker_lane {
        check_level("no_speaker_lane", mix.level_db)?;
        store.set_lane_mix_quietly(project.id, None, mix).await?;
    }
    for marker in &file.markers {
        if !marker.at.is_finite() || marker.at < 0.0 || marker.name.trim().is_empty() {
            return Err(bad(format!("marker {:?} at {}", marker.name, marker.at), "a marker needs a name and a time from 0 seconds on"));
        }
        store.add_marker_quietly(project.id, marker.at, marker.name.trim()).await?;
    }
    Ok(project.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use revoice_text::subtitles::parse_srt;

    #[tokio::test]
    async fn export_then_import_gives_back_the_same_project() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).await.unwrap();
        let (project, track) = store.create_project("Lighthouse", "en-US").await.unwrap();
        let cues = parse_srt(include_str!("../../../../assets/demo/lighthouse.srt"), "lighthouse.srt").unwrap();
        store.import_cues(&track, &cues).await.unwrap();
        let first = store.segments(track.id).await.unwrap()[0].id;
        store
            .edit_segment(first, "tweak", |f| {
                f.speed = 1.1;
                f.gain_db = -2.0;
                f.timing_strategy = Some("strict_slot".into());
            })
            .await
            .unwrap();
        let maya = store.speakers(project.id).await.unwrap()[0].id;
        store.set_speaker_voice(maya, "bf_emma").await.unwrap();
        store.set_frame_rate(project.id, "29.97df").await.unwrap();
        store.set_lane_mix(project.id, Some(maya), "solo Maya", LaneMix { muted: false, solo: true, level_db: -3.0 }).await.unwrap();
        store.set_lane_mix(project.id, None, "mute no speaker", LaneMix { muted: true, ..LaneMix::default() }).await.unwrap();
        store.add_marker(project.id, 12.5, "Storm").await.unwrap();
        store.add_marker(project.id, 2.0, "Arrival").await.unwrap();

        let exported = export(&store, project.id).await.unwrap();
        let text = serde_json::to_string_pretty(&exported).unwrap();
        let copy = import(&store, &parse(&text, "copy.json").unwrap()).await.unwrap();
        assert_ne!(copy, project.id);
        assert_eq!(export(&store, copy).await.unwrap(), exported);
        assert_eq!(exported.frame_rate.as_deref(), Some("29.97df"), "the timecode rate travels with the project");
        assert_eq!((exported.speakers[0].solo, exported.speakers[0].level_db), (true, -3.0), "lanes travel too");
        assert!(exported.no_speaker_lane.is_some_and(|m| m.muted));
        assert_eq!(exported.markers.iter().map(|m| (m.at, m.name.as_str())).collect::<Vec<_>>(), [(2.0, "Arrival"), (12.5, "Storm")]);
        // Importing does not leave undo steps behind.
        assert_eq!(store.undo(copy).await.unwrap(), None);
    }

    #[test]
    fn a_broken_document_names_the_line_and_a_foreign_one_the_format() {
        let err = parse("{\n  \"format\": \"revoice-project\",\n  \"version\": 1,\n  oops\n}", "p.json").unwrap_err().to_string();
        assert!(err.contains("p.json, line 4"), "{err}");
        let err =
            parse(r#"{"format":"other","version":1,"name":"x","timing_strategy":"natural","speakers":[],"tracks":[]}"#, "p.json").unwrap_err().to_string();
        assert!(err.contains("other"), "{err}");
    }
}
