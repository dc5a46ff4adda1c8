//! A project's original dialogue (an `impl Engine`): the recording or video
//! its script was heard from, or one attached later. It stays with the
//! project as a lane to listen against, and each speaker's own lines in it
//! are cut into that speaker's voice reference, so the cast can be voiced
//! from the actors themselves.

use std::path::{Path, PathBuf};

use crate::Engine;
use crate::SpeakerClip;
use revoice_audio::decode::DecodedAudio;
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};

/// A speaker's reference is cut to about this much of their speech, seconds.
pub const REFERENCE_SECONDS: f64 = 30.0;
/// Silence laid between two cut lines, seconds.
const GAP_SECONDS: f64 = 0.25;

/// Which of a speaker's lines make their reference: `(start, end)` slots
/// of theirs, `others` the slots of every other speaker. Lines another
/// speaker talks over are left out; the longest are taken first until
/// [`REFERENCE_SECONDS`] are gathered, then kept in time order.
pub fn reference_spans(own: &[(f64, f64)], others: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut clean: Vec<(f64, f64)> = own.iter().copied().filter(|&(s, e)| e > s && !others.iter().any(|&(os, oe)| os < e && oe > s)).collect();
    clean.sort_by(|a, b| (b.1 - b.0).total_cmp(&(a.1 - a.0)));
    let mut taken = Vec::new();
    let mut total = 0.0;
    for span in clean {
        if total >= REFERENCE_SECONDS {
            break;
        }
        total += span.1 - span.0;
        taken.push(span);
    }
    taken.sort_by(|a, b| a.0.total_cmp(&b.0));
    taken
}

impl Engine {
    /// Attaches a recording or video as the project's original dialogue
    /// after checking its audio decodes; its absolute path and length.
    pub async fn set_original_dialogue(&self, project_id: i64, file: &Path) -> Result<(PathBuf, f64)> {
        self.store().project(project_id).await?;
        let (absolute, seconds) = crate::projects::decodable_media(file, "the original dialogue").await?;
        self.store().set_original_media(project_id, Some(&absolute.to_string_lossy())).await?;
        Ok((absolute, seconds))
    }

    /// The project's original dialogue decoded, or `None` without one
    /// (blocking: decodes the whole file).
    pub fn original_dialogue(&self, project_id: i64) -> Result<Option<DecodedAudio>> {
        let project = wait(self.runtime(), self.store().project(project_id))?;
        let Some(media) = project.original_media else { return Ok(None) };
        revoice_audio::decode::decode_file(Path::new(&media)).map(Some).map_err(|e| e.context("reading the project's original dialogue"))
    }

    /// Cuts each speaker's lines out of the original dialogue into one
    /// recording per speaker (see [`reference_spans`]), written under
    /// `<data>/originals/project-<id>/`, with the lines' text: the clips
    /// "voice every speaker" takes (blocking). Speakers with no line of
    /// their own alone are left out.
    pub fn original_speaker_clips(&self, project_id: i64) -> Result<Vec<SpeakerClip>> {
        let Some(original) = self.original_dialogue(project_id)? else {
            return Err(Error::invalid(format!("project {project_id}"), "has no original dialogue: make it from a recording or video, or attach one"));
        };
        let tracks = wait(self.runtime(), self.project_lines(project_id))?;
        let Some(track) = tracks.first() else { return Ok(Vec::new()) };
        let folder = self.data_dir().join("originals").join(format!("project-{project_id}"));
        std::fs::create_dir_all(&folder).map_err(|e| Error::io("create", &folder, e))?;
        let rate = original.sample_rate as f64;
        let mut clips = Vec::new();
        for speaker in &track.speakers {
            let slot = |l: &crate::dub::lines::Line| (l.segment.fields.start_s, l.segment.fields.end_s);
            let own: Vec<(f64, f64)> = track.lines.iter().filter(|l| l.segment.fields.speaker_id == Some(speaker.id)).map(slot).collect();
            let others: Vec<(f64, f64)> = track.lines.iter().filter(|l| l.segment.fields.speaker_id != Some(speaker.id)).map(slot).collect();
            let spans = reference_spans(&own, &others);
            if spans.is_empty() {
                continue;
            }
            let gap = vec![0.0f32; (GAP_SECONDS * rate) as usize];
            let mut audio = Vec::new();
            let mut text = Vec::new();
            for &(start, end) in &spans {
                let from = ((start * rate) as usize).min(original.samples.len());
                let to = ((end * rate) as usize).clamp(from, original.samples.len());
                if !audio.is_empty() {
                    audio.extend_from_slice(&gap);
                }
                audio.extend_from_slice(&original.samples[from..to]);
                if let Some(line) = track.lines.iter().find(|l| l.segment.fields.speaker_id == Some(speaker.id) && l.segment.fields.start_s == start) {
                    text.push(line.segment.fields.text.trim().to_string());
                }
            }
            let path = folder.join(format!("speaker-{}.wav", speaker.id));
            revoice_audio::wav::write_pcm16(&path, &audio, original.sample_rate)?;
            clips.push(SpeakerClip { speaker_id: speaker.id, recording: path, text: Some(text.join(" ")) });
        }
        Ok(clips)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_takes_the_longest_clean_lines_in_time_order() {
        let own = [(0.0, 4.0), (10.0, 22.0), (30.0, 31.0), (40.0, 55.0), (60.0, 70.0), (80.0, 90.0)];
        // Someone talks over 60–70.
        let others = [(5.0, 9.0), (65.0, 66.0)];
        let spans = reference_spans(&own, &others);
        // 15 + 12 + 10 = 37 s: enough after three lines, longest first, kept in time order.
        assert_eq!(spans, vec![(10.0, 22.0), (40.0, 55.0), (80.0, 90.0)]);
        assert!(reference_spans(&[(1.0, 2.0)], &[(1.5, 3.0)]).is_empty());
    }
}
