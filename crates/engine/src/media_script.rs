//! A recording or a video into a script: its audio decoded (any container
//! and codec the audio crate reads, video files included), heard by the
//! listener (language detected), every Whisper segment a line timed by its
//! words, and the
//! lines' speakers told apart by clustering their GE2E embeddings: average
//! linkage, merging while two groups' mean cosine similarity is at least
//! [`SAME_SPEAKER`]. Speakers are named Speaker 1, 2, … in order of first
//! appearance; a line too short to embed gets the speaker of the line
//! before it. Each line is snapped to where its sound starts and ends. `Engine::new_project_from_media` makes a project of it.

use std::path::Path;

use crate::Engine;
use revoice_audio::levels::{FrameLevels, FRAMES_PER_SECOND};
use revoice_core::error::{Error, Result};
use revoice_model::speaker::{cosine_similarity, SpeakerEncoder};
use revoice_model::whisper::TranscriptOptions;
use revoice_text::language;
use revoice_text::subtitles::Cue;

/// Two groups of lines whose embeddings are at least this similar on
/// average are one speaker (GE2E: one speaker scores 0.82–0.96 against
/// itself, different speakers mostly under 0.75).
pub const SAME_SPEAKER: f32 = 0.78;

/// What was heard in a recording.
#[derive(Debug, Clone, PartialEq)]
pub struct HeardScript {
    /// The studio's tag for the detected language (`en-US`, `es`).
    pub language: String,
    /// One timed line per segment, with its speaker.
    pub cues: Vec<Cue>,
    /// How many speakers the lines were told apart into.
    pub speakers: usize,
    /// Seconds of audio.
    pub duration: f64,
}

/// Groups embeddings into speakers; `None` for a line without one. Returns
/// each line's speaker index, numbered by first appearance.
pub fn cluster_speakers(embeddings: &[Option<Vec<f32>>], threshold: f32) -> Vec<usize> {
    let mut groups: Vec<Vec<usize>> = embeddings.iter().enumerate().filter(|(_, e)| e.is_some()).map(|(i, _)| vec![i]).collect();
    let sim = |a: &[usize], b: &[usize]| -> f32 {
        let mut total = 0.0;
        for &i in a {
            for &j in b {
                total += cosine_similarity(embeddings[i].as_ref().expect("embedded"), embeddings[j].as_ref().expect("embedded"));
            }
        }
        total / (a.len() * b.len()) as f32
    };
    loop {
        let mut best: Option<(usize, usize, f32)> = None;
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                let s = sim(&groups[a], &groups[b]);
                if best.is_none_or(|(_, _, t)| s > t) {
                    best = Some((a, b, s));
                }
            }
        }
        match best {
            Some((a, b, s)) if s >= threshold => {
                let merged = groups.remove(b);
                groups[a].extend(merged);
            }
            _ => break,
        }
    }
    let mut group_of = vec![None; embeddings.len()];
    for (g, members) in groups.iter().enumerate() {
        for &i in members {
            group_of[i] = Some(g);
        }
    }
    // Number speakers by first appearance; a line without an embedding takes the one before it.
    let mut numbering: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(embeddings.len());
    let mut previous = 0;
    for g in group_of {
        let speaker = match g {
            Some(g) => match numbering.iter().position(|&n| n == g) {
                Some(k) => k,
                None => {
                    numbering.push(g);
                    numbering.len() - 1
                }
            },
            None => previous,
        };
        previous = speaker;
        out.push(speaker);
    }
    out
}

/// Moves a line's start forward and its end back to where its sound is
/// (10 ms frames louder than 26 dB under the recording's loudest frame,
/// 50 ms kept either side): Whisper often times the first word of a
/// window, or of a line after a pause, from the pause's start. `levels`
/// are the whole recording's, measured once.
pub fn snap_to_speech(levels: &FrameLevels, start: f64, end: f64) -> (f64, f64) {
    let Some((onset, offset)) = levels.sound_between(start, end) else {
        return (start, end);
    };
    let snapped_start = (onset as f64 / FRAMES_PER_SECOND - 0.05).max(start);
    let snapped_end = ((offset + 1) as f64 / FRAMES_PER_SECOND + 0.05).min(end);
    if snapped_end > snapped_start {
        (snapped_start, snapped_end)
    } else {
        (start, end)
    }
}

impl Engine {
    /// Hears the recording at `path` into timed lines with speakers
    /// (blocking: seconds per minute of audio). `progress` hears the seconds
    /// transcribed and cancels by returning false.
    pub fn hear_script(&self, path: &Path, progress: &mut dyn FnMut(f64) -> bool) -> Result<HeardScript> {
        let decoded = revoice_audio::decode::decode_file(path)?;
        let transcript = self
            .listener()
            // Words timed, so each line starts and ends with its speech (segment
            // timestamps alone are coarse: a line after a pause often starts at its pause).
            .transcribe(&decoded.samples, decoded.sample_rate, &TranscriptOptions { word_timestamps: true, ..Default::default() }, progress)
            .map_err(|e| e.context(format!("transcribing {}", path.display())))?;
        let studio_language = language::of_tag(&transcript.language).ok_or_else(|| {
            Error::invalid(
                path.display().to_string(),
                format!("is spoken in {:?}, which this studio does not speak; it speaks {}", transcript.language, language::accepted()),
            )
        })?;
        let tag = studio_language.kokoro_language.unwrap_or(studio_language.codes[0]).to_string();
        let segments: Vec<_> = transcript.segments.iter().filter(|s| !s.text.trim().is_empty()).collect();
        if segments.is_empty() {
            return Err(Error::invalid(path.display().to_string(), "no speech was heard in it"));
        }
        let encoder = SpeakerEncoder::load(self.data_dir())?;
        let rate = decoded.sample_rate as f64;
        let embeddings: Vec<Option<Vec<f32>>> = segments
            .iter()
            .map(|s| {
                let from = ((s.start * rate) as usize).min(decoded.samples.len());
                let to = ((s.end * rate) as usize).clamp(from, decoded.samples.len());
                encoder.embed(&decoded.samples[from..to], decoded.sample_rate).ok().map(|u| u.embedding)
            })
            .collect();
        let speakers = cluster_speakers(&embeddings, SAME_SPEAKER);
        let count = speakers.iter().max().map_or(0, |m| m + 1);
        let levels = FrameLevels::of(&decoded.samples, decoded.sample_rate);
        let cues = segments
            .iter()
            .zip(&speakers)
            .map(|(s, &k)| {
                let (start, end) = snap_to_speech(&levels, s.start, s.end);
                Cue { start, end, text: s.text.trim().to_string(), speaker: Some(format!("Speaker {}", k + 1)) }
            })
            .collect();
        Ok(HeardScript { language: tag, cues, speakers: count, duration: decoded.seconds() })
    }

    /// A new project from a recording or video: its lines heard, timed and
    /// given speakers ([`Engine::hear_script`]), in one track of the language
    /// heard, the file kept as its original dialogue. Nothing is written
    /// unless the whole script was heard.
    pub async fn new_project_from_media(
        self: &std::sync::Arc<Self>,
        name: &str,
        path: &Path,
        progress: impl FnMut(f64) -> bool + Send + 'static,
    ) -> Result<(revoice_store::Project, revoice_store::Track, HeardScript)> {
        if name.trim().is_empty() {
            return Err(Error::invalid("project name", "is empty"));
        }
        let engine = self.clone();
        let file = path.to_path_buf();
        let mut progress = progress;
        let heard = tokio::task::spawn_blocking(move || engine.hear_script(&file, &mut progress))
            .await
            .map_err(|e| Error::internal("hearing the recording", e.to_string()))??;
        let absolute = std::fs::canonicalize(path).map_err(|e| Error::io("resolve", path, e))?;
        let (project, track) = self.create_project(name, &heard.language).await?;
        self.store().import_cues(&track, &heard.cues).await?;
        self.store().set_original_media(project.id, Some(&absolute.to_string_lossy())).await?;
        self.store().set_original_language(project.id, Some(&heard.language)).await?;
        // A video is the project's picture too (when ffprobe is there to say so).
        let probed = absolute.clone();
        if tokio::task::spawn_blocking(move || crate::dub::picture::probe(&probed)).await.is_ok_and(|p| p.is_ok()) {
            self.store().set_video(project.id, Some(&absolute.to_string_lossy())).await?;
        }
        let project = self.store().project(project.id).await?;
        Ok((project, track, heard))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Option<Vec<f32>> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        Some(v.iter().map(|x| x / n).collect())
    }

    #[test]
    fn alternating_voices_become_two_speakers_numbered_by_first_line() {
        let a = [1.0, 0.1, 0.0];
        let b = [0.0, 0.2, 1.0];
        let lines = vec![unit(&a), unit(&b), unit(&[0.95, 0.15, 0.05]), None, unit(&[0.05, 0.25, 0.9])];
        assert_eq!(cluster_speakers(&lines, SAME_SPEAKER), vec![0, 1, 0, 0, 1]);
    }

    #[test]
    fn a_line_is_snapped_to_its_sound() {
        // 1 s of silence, 1 s of tone, 1 s of silence at 1 kHz sampling.
        let mut samples = vec![0.0f32; 1000];
        samples.extend((0..1000).map(|i| (i as f32 * 0.3).sin() * 0.5));
        samples.extend(vec![0.0f32; 1000]);
        let (start, end) = snap_to_speech(&FrameLevels::of(&samples, 1000), 0.0, 3.0);
        assert!((start - 0.95).abs() < 0.011 && (end - 2.05).abs() < 0.011, "{start} {end}");
        // Silence throughout: left as it was.
        assert_eq!(snap_to_speech(&FrameLevels::of(&[0.0; 3000], 1000), 0.5, 2.0), (0.5, 2.0));
    }

    #[test]
    fn one_voice_throughout_is_one_speaker() {
        let lines = vec![unit(&[1.0, 0.1]), unit(&[0.9, 0.2]), unit(&[1.0, 0.0])];
        assert_eq!(cluster_speakers(&lines, SAME_SPEAKER), vec![0, 0, 0]);
        assert_eq!(cluster_speakers(&[None, None], SAME_SPEAKER), vec![0, 0]);
    }
}
