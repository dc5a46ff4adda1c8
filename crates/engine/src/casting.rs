//! Voicing a project's cast from recordings ("voice every speaker"): one
//! clip per speaker becomes a library voice (matched at once, in the
//! track's language), that speaker's voice on the track, and, where a fit
//! can be made for the language, a fit for that language queued in the
//! background: the queue fits them one after another, and each speaker
//! speaks the fitted voice once its fit is done. Voicing the same clips on
//! another track keeps the fits already made for the first: one recording,
//! a fit per language.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{Engine, NewLibraryVoice};
use revoice_core::error::{Error, Result};
use revoice_voices::library::VoiceDetails;

/// One speaker's recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SpeakerClip {
    pub speaker_id: i64,
    #[ts(type = "string")]
    pub recording: PathBuf,
    /// What is said in it, when known (cut from the original dialogue);
    /// otherwise Whisper hears it.
    #[serde(default)]
    #[ts(optional)]
    pub text: Option<String>,
}

/// What became of one speaker.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SpeakerVoiced {
    pub speaker_id: i64,
    pub speaker: String,
    /// The library voice made for them and now theirs on the track, when
    /// that worked.
    pub voice: Option<String>,
    /// Whether a fit of that voice is queued or running.
    pub fitting: bool,
    /// Why the speaker got no voice, or no fit (the voice still speaks as
    /// its matched blend).
    pub note: Option<String>,
}

/// The library name of a speaker's voice in a project: both names, with
/// what a voice name may not hold turned into spaces, at most 64 characters.
pub fn cast_voice_name(project: &str, speaker: &str) -> String {
    let clean = |s: &str| -> String {
        let kept: String = s.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { ' ' }).collect();
        kept.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let name = format!("{} - {}", clean(project), clean(speaker));
    let name: String = name.trim_matches(|c: char| c == ' ' || c == '-').chars().take(64).collect();
    name.trim_end().to_string()
}

impl Engine {
    /// Gives each clip's speaker a voice made from it, on the project's
    /// track in `language` (its first track when `None`), and queues a fit
    /// of each. Checked before anything is written: the speakers are the
    /// project's, each once, and the consent is given; after that, each
    /// speaker's outcome is reported on its own (a bad recording leaves the
    /// others voiced).
    pub async fn voice_speakers(self: &Arc<Self>, project_id: i64, language: Option<&str>, clips: &[SpeakerClip], consent: &str) -> Result<Vec<SpeakerVoiced>> {
        let project = self.store().project(project_id).await?;
        let track = self.existing_track(project_id, language).await?;
        let speakers = self.store().speakers(project_id).await?;
        if clips.is_empty() {
            return Err(Error::invalid(format!("project {:?}", project.name), "choose a recording for at least one speaker"));
        }
        if consent.trim().is_empty() {
            return Err(Error::invalid("consent", "say who consented to these voices being used"));
        }
        let mut cast = Vec::with_capacity(clips.len());
        for (i, clip) in clips.iter().enumerate() {
            let speaker = speakers
                .iter()
                .find(|s| s.id == clip.speaker_id)
                .ok_or_else(|| Error::not_found(format!("speaker {}", clip.speaker_id), format!("not in project {:?}", project.name)))?;
            if clips[..i].iter().any(|c| c.speaker_id == clip.speaker_id) {
                return Err(Error::invalid(format!("speaker {:?}", speaker.name), "has two recordings: choose one"));
            }
            cast.push((speaker.clone(), clip.recording.clone(), clip.text.clone().unwrap_or_default()));
        }
        let mut voiced = Vec::with_capacity(cast.len());
        for (speaker, recording, reference_text) in cast {
            let name = cast_voice_name(&project.name, &speaker.name);
            let details = VoiceDetails {
                name: name.clone(),
                description: format!("{} in {}", speaker.name, project.name),
                reference_text,
                consent: consent.trim().to_string(),
            };
            let mut outcome = SpeakerVoiced { speaker_id: speaker.id, speaker: speaker.name.clone(), voice: None, fitting: false, note: None };
            let added = self
                .add_library_voice(NewLibraryVoice {
                    details,
                    recording: &recording,
                    max_voices: None,
                    fitted: None,
                    language: Some(track.language.clone()),
                    // A clip of the original speaks the original's language.
                    recording_language: project.original_language.clone(),
                    hear_text_later: true,
                })
                .await;
            let given = match added {
                Ok(_) => self.set_speaker_voice(project_id, speaker.id, &name, Some(&track.language)).await.map(|_| ()),
                Err(e) => Err(e),
            };
            match given {
                Ok(()) => {
                    outcome.voice = Some(name.clone());
                    match self.fit_library_voice_in_background(&name, self.background_fit_settings(), Some(&track.language)).await {
                        Ok(_) => outcome.fitting = true,
                        Err(e) => outcome.note = Some(format!("not fitted: {e}")),
                    }
                }
                Err(e) => outcome.note = Some(e.to_string()),
            }
            voiced.push(outcome);
        }
        Ok(voiced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cast_voice_name_is_a_valid_library_name() {
        assert_eq!(cast_voice_name("The Lighthouse", "Keeper"), "The Lighthouse - Keeper");
        assert_eq!(cast_voice_name("Ep. 3: (pilot)", "Dr. Ruiz/Narrator"), "Ep. 3 pilot - Dr. Ruiz Narrator");
        let long = cast_voice_name(&"x".repeat(80), "Anna");
        assert_eq!(long.chars().count(), 64);
        for name in [cast_voice_name("Ep. 3: (pilot)", "Dr. Ruiz/Narrator"), long, cast_voice_name("", "Anna")] {
            revoice_store::voices::check_voice_name(&name).unwrap();
        }
    }
}
