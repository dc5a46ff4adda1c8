//! Editing dub projects: the rules every face shares. Creating a project
//! and picking (or adding) a track by language; importing a script; giving
//! a speaker a voice (which must speak every language it will read); a
//! line's fields, new lines, splits, merges and deletes; another take on a
//! fresh seed and picking a take back; the timing strategy and the bed;
//! undo and redo. Each is one transaction in the store.

use std::path::Path;

use serde::Deserialize;

use crate::dub::timing::TimingStrategy;
use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_store::{Project, Segment, SegmentFields, Speaker, Track};
use revoice_text::language;

/// What an edit changes on a line; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(rename = "SegmentEdit", optional_fields)]
pub struct LineEdit {
    pub text: Option<String>,
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub speaker_id: Option<i64>,
    pub speed: Option<f64>,
    pub gain_db: Option<f64>,
    /// The line's own timing strategy; `null` clears it (the project's applies).
    #[serde(default, deserialize_with = "set_or_clear")]
    pub strategy: Option<Option<TimingStrategy>>,
}

/// A field that is absent (unchanged), `null` (cleared) or a value (set).
fn set_or_clear<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(field: D) -> std::result::Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(field).map(Some)
}

impl LineEdit {
    /// What the history calls this edit.
    fn describe(&self) -> String {
        let mut what = Vec::new();
        if self.text.is_some() {
            what.push("text");
        }
        if self.start.is_some() || self.end.is_some() {
            what.push("timing");
        }
        if self.speaker_id.is_some() {
            what.push("speaker");
        }
        if self.speed.is_some() {
            what.push("speed");
        }
        if self.gain_db.is_some() {
            what.push("gain");
        }
        if self.strategy.is_some() {
            what.push("strategy");
        }
        format!("edit line ({})", what.join(", "))
    }
}

/// The length of a new line when the next one is far enough away.
const NEW_LINE_SECONDS: f64 = 2.0;
/// A new line never starts closer than this to the next line.
const NEW_LINE_ROOM: f64 = 0.5;

/// Refuses a track language the studio cannot speak.
fn check_language(language: &str) -> Result<()> {
    language::parse(language).map_err(|reason| Error::invalid(format!("language {language:?}"), reason))?;
    Ok(())
}

impl Engine {
    /// A new, empty project with one track in `language`.
    pub async fn create_project(&self, name: &str, language: &str) -> Result<(Project, Track)> {
        check_language(language)?;
        self.store().create_project(name, language).await
    }

    /// The project's track in `language` (added when it has none), or its
    /// first track when no language is given.
    pub async fn track_for(&self, project_id: i64, language: Option<&str>) -> Result<Track> {
        let store = self.store();
        store.project(project_id).await?;
        match language {
            Some(language) => {
                check_language(language)?;
                store.track_for_language(project_id, language).await
            }
            None => store.tracks(project_id).await?.into_iter().next().ok_or_else(|| Error::not_found(format!("project {project_id}"), "has no track")),
        }
    }

    /// The project's track in `language`, which must exist (no track is added).
    pub async fn existing_track(&self, project_id: i64, language: Option<&str>) -> Result<Track> {
        let tracks = self.store().tracks(project_id).await?;
        let found = match language {
            Some(l) => tracks.iter().find(|t| t.language.eq_ignore_ascii_case(l)),
            None => tracks.first(),
        };
        found.cloned().ok_or_else(|| match language {
            Some(l) => Error::not_found(
                format!("language {l:?}"),
                format!("project {project_id} has tracks in {}", tracks.iter().map(|t| t.language.as_str()).collect::<Vec<_>>().join(", ")),
            ),
            None => Error::not_found(format!("project {project_id}"), "has no track"),
        })
    }

    /// Adds a script's lines (SRT, WebVTT, ASS/SSA or plain text, in any
    /// text encoding) to the project's track in `language` (see
    /// [`Engine::track_for`]); the track, how many lines were added, and
    /// the script as read (its format and encoding). A script that does not
    /// read adds nothing.
    pub async fn import_script(&self, project_id: i64, path: &Path, language: Option<&str>) -> Result<(Track, usize, revoice_text::subtitles::Script)> {
        let script = revoice_text::subtitles::read_script(path)?;
        let track = self.track_for(project_id, language).await?;
        let added = self.store().import_cues(&track, &script.cues).await?;
        Ok((track, added, script))
    }

    /// Renames a speaker (names are trimmed, not empty, unique in the
    /// project). Renamed to a member of the project's cast sheet, the
    /// speaker takes that member's voices.
    pub async fn rename_speaker(&self, project_id: i64, speaker_id: i64, name: &str) -> Result<Speaker> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::invalid("speaker name", "is empty"));
        }
        let renamed = self.store().rename_speaker(project_id, speaker_id, name).await?;
        match self.store().cast_member_of(project_id, name).await? {
            Some(member) => {
                self.store().set_speaker_voice_quietly(speaker_id, &member.voice, &member.language_voices).await?;
                self.restore_takes(project_id).await?;
                Ok(Speaker {
                    voice: member.voice,
                    language_voices: serde_json::to_string(&member.language_voices).expect("a map of strings serialises"),
                    ..renamed
                })
            }
            None => Ok(renamed),
        }
    }

    /// A speaker of the project by name (any case).
    pub async fn speaker_named(&self, project_id: i64, name: &str) -> Result<Speaker> {
        let speakers = self.store().speakers(project_id).await?;
        speakers.iter().find(|s| s.name.eq_ignore_ascii_case(name)).cloned().ok_or_else(|| {
            let names: Vec<&str> = speakers.iter().map(|s| s.name.as_str()).collect();
            Error::not_found(format!("speaker {name:?}"), format!("not in project {project_id}; its speakers are: {}", names.join(", ")))
        })
    }

    /// Gives a speaker a voice: for their lines in `language`, or (without
    /// one) for every track that has no voice of its own for them. The
    /// voice must exist and speak every language it will read.
    pub async fn set_speaker_voice(&self, project_id: i64, speaker_id: i64, voice: &str, language: Option<&str>) -> Result<Speaker> {
        let store = self.store();
        let speaker = store
            .speakers(project_id)
            .await?
            .into_iter()
            .find(|s| s.id == speaker_id)
            .ok_or_else(|| Error::not_found(format!("speaker {speaker_id}"), format!("not in project {project_id}")))?;
        let spec = self.voice_spec(voice).await?;
        // A library voice must still be there.
        self.resolve_voice(&spec).await?;
        let own = speaker.language_voices();
        let languages: Vec<String> = match language {
            Some(l) => {
                check_language(l)?;
                vec![l.to_string()]
            }
            None => store.tracks(project_id).await?.into_iter().map(|t| t.language).filter(|l| !own.keys().any(|k| k.eq_ignore_ascii_case(l))).collect(),
        };
        for l in &languages {
            match spec.library_name() {
                // A library voice speaks each language as its fit for it,
                // or as the blend of that language's closest stock voices.
                Some(_) => {
                    let speaks = self.resolve_voice_in(&spec, Some(l)).await;
                    speaks.and_then(|s| s.check_speaks(l)).map_err(|e| e.context(format!("library voice {voice:?}")))?
                }
                None => spec.check_speaks(l)?,
            }
        }
        let voice = spec.to_string();
        let speaker = match language {
            Some(language) => store.set_speaker_language_voice(speaker_id, language, Some(&voice)).await?,
            None => store.set_speaker_voice(speaker_id, &voice).await?,
        };
        self.restore_takes(project_id).await?;
        Ok(speaker)
    }

    /// Sets the project's timing strategy (lines with their own keep theirs).
    pub async fn set_strategy(&self, project_id: i64, strategy: TimingStrategy) -> Result<()> {
        self.store().project(project_id).await?;
        self.store().set_timing_strategy(project_id, strategy.name()).await?;
        self.restore_takes(project_id).await?;
        Ok(())
    }

    /// Makes `file` the project's bed (music and effects under the dub,
    /// its only stem) after checking it decodes; its absolute path and
    /// length in seconds.
    pub async fn set_bed(&self, project_id: i64, file: &Path) -> Result<(std::path::PathBuf, f64)> {
        self.store().project(project_id).await?;
        let (absolute, seconds) = decodable_media(file, "the bed").await?;
        self.store().set_bed(project_id, Some(&absolute.to_string_lossy())).await?;
        Ok((absolute, seconds))
    }

    /// Adds a bed stem (an M&E stem: music, effects, ambience) after the
    /// others, at `gain_db` on top of the mix's bed level, ducking under the
    /// voice or not; checked to decode first. The stem and its length.
    pub async fn add_bed_stem(&self, project_id: i64, file: &Path, gain_db: f64, ducked: bool) -> Result<(revoice_store::BedStem, f64)> {
        self.store().project(project_id).await?;
        let (absolute, seconds) = decodable_media(file, "the bed stem").await?;
        Ok((self.store().add_bed_stem(project_id, &absolute.to_string_lossy(), gain_db, ducked).await?, seconds))
    }

    /// Edits one line in one undoable step (a line edited back to an
    /// earlier version gets that version's take again).
    pub async fn edit_line(&self, segment_id: i64, edit: LineEdit) -> Result<Segment> {
        let segment = self.edit_fields(segment_id, edit).await?;
        let project_id = self.project_of_track(segment.track_id).await?;
        self.restore_takes(project_id).await?;
        self.store().segment(segment_id).await
    }

    async fn edit_fields(&self, segment_id: i64, edit: LineEdit) -> Result<Segment> {
        let described = edit.describe();
        self.store()
            .edit_segment(segment_id, &described, |f| {
                if let Some(t) = edit.text {
                    f.text = t;
                }
                if let Some(s) = edit.start {
                    f.start_s = s;
                }
                if let Some(e) = edit.end {
                    f.end_s = e;
                }
                if edit.speaker_id.is_some() {
                    f.speaker_id = edit.speaker_id;
                }
                if let Some(s) = edit.speed {
                    f.speed = s;
                }
                if let Some(g) = edit.gain_db {
                    f.gain_db = g;
                }
                if let Some(s) = edit.strategy {
                    f.timing_strategy = s.map(|s| s.name().to_string());
                }
            })
            .await
    }

    /// Adds a line at `at` seconds: two seconds long, or up to the next line.
    pub async fn insert_line(&self, track_id: i64, at: f64, speaker_id: Option<i64>) -> Result<Segment> {
        if !at.is_finite() {
            return Err(Error::invalid("new line", format!("{at} is not a time")));
        }
        let at = at.max(0.0);
        let next =
            self.store().segments(track_id).await?.into_iter().map(|s| s.fields.start_s).filter(|&s| s > at + NEW_LINE_ROOM).fold(f64::INFINITY, f64::min);
        let fields = SegmentFields::new_line(at, at + NEW_LINE_SECONDS.min(next - at), "New line".into(), speaker_id);
        self.store().insert_segment(track_id, &fields).await
    }

    /// Splits a line at `at` seconds into two (the text divides at the nearest word).
    pub async fn split_line(&self, segment_id: i64, at: f64) -> Result<Vec<Segment>> {
        self.store().split_segment(segment_id, at).await
    }

    /// Joins two lines of one track into the first.
    pub async fn merge_lines(&self, first: i64, second: i64) -> Result<Segment> {
        self.store().merge_segments(first, second).await
    }

    /// Deletes a line (undo brings it back with its takes); its track.
    pub async fn delete_line(&self, segment_id: i64) -> Result<i64> {
        let segment = self.store().segment(segment_id).await?;
        self.store().delete_segment(segment_id).await?;
        Ok(segment.track_id)
    }

    /// Gives a line a fresh seed no take of it has used, for another take
    /// (one undoable step; the earlier takes stay). Render it to hear it.
    pub async fn new_take_seed(&self, segment_id: i64) -> Result<Segment> {
        let store = self.store();
        let segment = store.segment(segment_id).await?;
        let taken: Vec<i64> = store.takes(segment_id).await?.iter().map(|t| t.seed).collect();
        let seed = (0u32..)
            .map(|attempt| (revoice_speech::scheduler::fresh_seed(Some(segment.seed() as u64), attempt + taken.len() as u32) >> 1) as i64)
            .find(|s| !taken.contains(s) && *s != segment.seed())
            .expect("an unused seed");
        store.edit_segment(segment_id, "new take", |f| f.seed = Some(seed)).await
    }

    /// Makes one of a line's takes its audio (undoable).
    pub async fn pick_take(&self, segment_id: i64, take_id: i64) -> Result<Segment> {
        self.store().pick_take(segment_id, take_id).await
    }

    /// Undoes the project's last edit; what was undone, if anything. A
    /// line whose audio it brings back to an earlier version gets that
    /// version's take again at once.
    pub async fn undo(&self, project_id: i64) -> Result<Option<String>> {
        let undone = self.store().undo(project_id).await?;
        self.restore_takes(project_id).await?;
        Ok(undone)
    }

    /// Redoes the project's last undone edit; what was redone, if anything.
    pub async fn redo(&self, project_id: i64) -> Result<Option<String>> {
        let redone = self.store().redo(project_id).await?;
        self.restore_takes(project_id).await?;
        Ok(redone)
    }

    /// Makes every line that is not current but has a take rendered from
    /// it as it is now (an undone edit, a voice given back) use that take
    /// again, when its audio is whole on disk; how many lines it restored.
    /// Nothing is synthesised.
    pub async fn restore_takes(&self, project_id: i64) -> Result<usize> {
        let mut restored = 0;
        for track in self.project_lines(project_id).await? {
            let stale: Vec<_> = track.lines.iter().filter(|l| !l.is_current()).collect();
            if stale.is_empty() {
                continue;
            }
            let takes = self.store().track_takes(track.track.id).await?;
            for line in stale {
                let found = takes.iter().rev().find(|t| {
                    t.segment_id == line.segment.id
                        && t.source_key.as_deref() == Some(line.source.as_str())
                        && revoice_speech::cache::RenderKey::from_hex(&t.synthesis_key).is_some_and(|k| self.segments().is_intact(&k))
                });
                if let Some(take) = found {
                    self.store().set_active_take(line.segment.id, take.id).await?;
                    restored += 1;
                }
            }
        }
        Ok(restored)
    }

    /// Renames a project.
    pub async fn rename_project(&self, project_id: i64, name: &str) -> Result<Project> {
        self.store().rename_project(project_id, name).await
    }

    /// Deletes a project, unless it is rendering.
    pub async fn delete_project(&self, project_id: i64) -> Result<()> {
        if self.is_rendering(project_id) {
            return Err(Error::conflict(format!("project {project_id}"), "is rendering: cancel the render first"));
        }
        self.store().delete_project(project_id).await
    }

    /// The project a track belongs to.
    pub async fn project_of_track(&self, track_id: i64) -> Result<i64> {
        Ok(self.store().track(track_id).await?.project_id)
    }

    /// The project a line belongs to.
    pub async fn project_of_line(&self, segment_id: i64) -> Result<i64> {
        let segment = self.store().segment(segment_id).await?;
        self.project_of_track(segment.track_id).await
    }
}

/// A recording or video a project refers to (its bed, its original
/// dialogue), checked to decode: its absolute path and length in seconds.
pub(crate) async fn decodable_media(file: &Path, what: &str) -> Result<(std::path::PathBuf, f64)> {
    let path = file.to_path_buf();
    let decoded = tokio::task::spawn_blocking(move || revoice_audio::decode::decode_file(&path))
        .await
        .map_err(|e| Error::internal(format!("reading {what}"), e.to_string()))??;
    let absolute = std::fs::canonicalize(file).map_err(|e| Error::io("resolve", file, e))?;
    Ok((absolute, decoded.seconds()))
}
