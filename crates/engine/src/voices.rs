//! The voice library's operations for every face: matching a recording
//! through the one reference-encode service, registering it (consent
//! required, the library's size capped where a face asks, one writer at a
//! time so racing uploads of one name leave one voice), renaming and
//! deleting, each keeping the one artifact cache in step. A recording
//! registered without its text gets the text Whisper hears in it: at once
//! where a person waits to see it, or in the background where a client
//! only wants the voice (an API upload, a cast made from clips).

use std::path::Path;
use std::sync::Arc;

use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_speech::cache::ReferenceInput;
use revoice_store::VoiceRecord;
use revoice_voices::library::{self, VoiceDetails};
use revoice_voices::MatchedVoice;

/// A voice to add from a recording.
pub struct NewLibraryVoice<'a> {
    pub details: VoiceDetails,
    /// The recording (a file the library copies).
    pub recording: &'a Path,
    /// Refuse a new name when the library holds this many voices already.
    pub max_voices: Option<usize>,
    /// A voice fitted to the recording, when there is one: in the language
    /// it was fitted for it speaks instead of the matched blend. (Fits the
    /// same recording already has for other languages are kept.)
    pub fitted: Option<revoice_voices::fit::FittedVoice>,
    /// The language the voice will speak (its blend mixes only stock voices
    /// that speak it); `None`: US English.
    pub language: Option<String>,
    /// The language spoken in the recording, when known (it may differ
    /// from the one the voice will speak); `None`: Whisper tells.
    pub recording_language: Option<String>,
    /// Without a reference text, hear it after registering, in the
    /// background (the voice is answered at once), rather than before.
    pub hear_text_later: bool,
}

/// Serialises the library's writes (the cap check and the write), process-wide.
pub(crate) static LIBRARY_WRITES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Engine {
    /// Matches a recording to the stock voices (blocking; through the one
    /// reference-encode service, so the same recording is encoded once).
    pub fn match_recording(&self, input: ReferenceInput) -> Result<MatchedVoice> {
        self.references()?.encode(input)
    }

    /// Registers (or overwrites) a library voice from `voice.recording`,
    /// matched to stock voices; the stored record, the match, and whether
    /// it replaced a voice of that name.
    pub async fn add_library_voice(self: &Arc<Self>, voice: NewLibraryVoice<'_>) -> Result<(VoiceRecord, MatchedVoice, bool)> {
        voice.details.check()?;
        let engine = self.clone();
        let input = ReferenceInput::LocalFile(voice.recording.to_path_buf());
        let mut matched = tokio::task::spawn_blocking(move || engine.match_recording(input))
            .await
            .map_err(|e| Error::internal("matching the recording", e.to_string()))??;
        let mut details = voice.details.clone();
        let unheard = details.reference_text.trim().is_empty();
        if unheard && !voice.hear_text_later {
            details.reference_text = self.hear_reference_text(voice.recording, voice.recording_language.as_deref()).await;
        }
        if let Some(language) = &voice.language {
            matched.speak(language)?;
        }
        if let Some(fitted) = voice.fitted.clone() {
            matched.add_fit(fitted);
        }
        let _writing = LIBRARY_WRITES.lock().await;
        let store = self.store();
        let existing = store.voice(&details.name).await?.is_some();
        if let (false, Some(cap)) = (existing, voice.max_voices) {
            let count = store.voices().await?.len();
            if count >= cap {
                return Err(Error::invalid(
                    format!("voice {:?}", details.name),
                    format!("the voice library is full ({count} of {cap} voices): delete one first"),
                ));
            }
        }
        let record = library::register(store, self.data_dir(), self.voice_artifacts(), voice.recording, &details, &mut matched).await?;
        if unheard && voice.hear_text_later {
            let engine = self.clone();
            let (name, sha256) = (record.voice.name.clone(), record.voice.reference_sha256.clone());
            let kept = self.data_dir().join(&record.voice.reference_file);
            let language = voice.recording_language.clone();
            tokio::spawn(async move {
                let text = engine.hear_reference_text(&kept, language.as_deref()).await;
                if !text.is_empty() {
                    if let Err(e) = engine.store().fill_voice_reference_text(&name, &sha256, &text).await {
                        tracing::warn!(voice = %name, error = %e, "the heard reference text was not kept");
                    }
                }
            });
        }
        Ok((record, matched, existing))
    }

    /// What a reference recording says, heard by Whisper (in `language`'s
    /// base language, detected when `None`); empty, with a warning in the
    /// log, when Whisper is not installed or cannot hear it: a voice never
    /// fails to register for want of its text.
    async fn hear_reference_text(&self, recording: &Path, language: Option<&str>) -> String {
        let listener = self.listener().clone();
        let path = recording.to_path_buf();
        let options = revoice_model::whisper::TranscriptOptions {
            language: language.map(|l| l.split('-').next().unwrap_or(l).to_ascii_lowercase()),
            ..Default::default()
        };
        let heard = tokio::task::spawn_blocking(move || listener.transcribe_file(&path, &options, &mut |_| true)).await;
        match heard {
            Ok(Ok(transcript)) => transcript.text(),
            Ok(Err(e)) => {
                tracing::warn!(recording = %recording.display(), error = %e, "the reference text was not transcribed");
                String::new()
            }
            Err(e) => {
                tracing::warn!(error = %e, "the transcription thread failed");
                String::new()
            }
        }
    }

    /// Where a library voice's recording is kept (to play it beside the
    /// voice made from it).
    pub async fn library_voice_recording(&self, name: &str) -> Result<std::path::PathBuf> {
        let record = self.store().voice(name).await?.ok_or_else(|| Error::not_found(format!("voice {name:?}"), "is not in the library"))?;
        Ok(self.data_dir().join(&record.voice.reference_file))
    }

    /// Renames a library voice; speakers that use it follow.
    pub async fn rename_library_voice(&self, name: &str, new_name: &str) -> Result<VoiceRecord> {
        let _writing = LIBRARY_WRITES.lock().await;
        let record = self.store().rename_voice(name, new_name.trim()).await?;
        self.voice_artifacts().voice_deleted(name);
        Ok(record)
    }

    /// Deletes a library voice (its recording too, when nothing else uses it).
    pub async fn delete_library_voice(&self, name: &str) -> Result<VoiceRecord> {
        let _writing = LIBRARY_WRITES.lock().await;
        let deleted = library::delete(self.store(), self.data_dir(), self.voice_artifacts(), name)
            .await?
            .ok_or_else(|| Error::not_found(format!("voice {name:?}"), "is not in the library"))?;
        // Its recording leaves the remote servers it was uploaded to, unless another voice keeps it.
        let sha = &deleted.voice.reference_sha256;
        if !self.store().voices().await?.iter().any(|v| &v.voice.reference_sha256 == sha) {
            self.remote().forget_recording(sha).await;
        }
        Ok(deleted)
    }
}
