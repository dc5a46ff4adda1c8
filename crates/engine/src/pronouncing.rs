//! Pronunciation dictionaries for every face (an `impl Engine`): entries
//! added, replaced and removed in a project's dictionary or the global
//! one, the merged dictionary a project's lines render with, which lines
//! use a word (they, and only they, render again after its entry
//! changes), and a word said as an entry would say it, for a preview.

use std::sync::Arc;

use crate::speaking::{Delivery, SpeakRequest, StopSpeaking};
use crate::Engine;
use revoice_core::error::{Error, Result};
use revoice_speech::voice_spec::VoiceSpec;
use revoice_speech::SayRequest;
use revoice_text::pronounce::{Pronunciation, Pronunciations, Saying};

impl Engine {
    /// The dictionary `project_id`'s lines render with: its own entries over the global ones.
    pub async fn project_pronunciations(&self, project_id: i64) -> Result<Arc<Pronunciations>> {
        let own = self.store().pronunciations(Some(project_id)).await?;
        let global = self.store().pronunciations(None).await?;
        Ok(Arc::new(Pronunciations::merged(own, global)))
    }

    /// Says `word` as `saying` in `project_id`'s dictionary (or the global
    /// one for `None`), replacing its entry; the entry and the lines of the
    /// project (of every project, for the global dictionary) that use it.
    pub async fn set_pronunciation(&self, project_id: Option<i64>, word: &str, saying: Saying) -> Result<(Pronunciation, usize)> {
        if let Some(project) = project_id {
            self.store().project(project).await?;
        }
        let entry = Pronunciation::new(word, saying, project_id.is_none())?;
        self.store().set_pronunciation(project_id, &entry).await?;
        let using = self.lines_using(project_id, &entry.word).await?;
        Ok((entry, using))
    }

    /// Removes `word` from a dictionary; the lines that used it.
    pub async fn remove_pronunciation(&self, project_id: Option<i64>, word: &str) -> Result<usize> {
        self.store().remove_pronunciation(project_id, word).await?;
        let using = self.lines_using(project_id, word).await?;
        if let Some(project) = project_id {
            // A line that had a take before the word was added gets it back.
            self.restore_takes(project).await?;
        }
        Ok(using)
    }

    /// How many lines of `project_id` (of every project for `None`) say `word`.
    async fn lines_using(&self, project_id: Option<i64>, word: &str) -> Result<usize> {
        let probe = Pronunciations::merged(vec![Pronunciation::new(word, Saying::Respelling("x".into()), false)?], Vec::new());
        let projects = match project_id {
            Some(p) => vec![p],
            None => self.store().projects().await?.into_iter().map(|p| p.id).collect(),
        };
        let mut using = 0;
        for project in projects {
            for track in self.store().tracks(project).await? {
                using += self.store().segments(track.id).await?.iter().filter(|s| !probe.used_in(&s.fields.text).is_empty()).count();
            }
        }
        Ok(using)
    }

    /// What saying `text` in `voice` (a stock, blended or library voice)
    /// with `project_id`'s dictionary (the global one for `None`) and
    /// `extra` over it asks of the model: the request and the dictionary,
    /// for [`Engine::say_pronounced`]. A preview of an entry before it is saved.
    pub async fn pronounced_request(
        &self,
        project_id: Option<i64>,
        text: &str,
        voice: &str,
        extra: Option<Pronunciation>,
    ) -> Result<(SayRequest, Pronunciations)> {
        let mut own = match project_id {
            Some(p) => self.store().pronunciations(Some(p)).await?,
            None => Vec::new(),
        };
        own.retain(|e| extra.as_ref().is_none_or(|x| x.word.to_lowercase() != e.word.to_lowercase()));
        own.extend(extra);
        let dictionary = Pronunciations::merged(own, self.store().pronunciations(None).await?);
        let spec = self.voice_spec(voice).await?;
        let speaks: VoiceSpec = self.resolve_voice(&spec).await?;
        if speaks.remote().is_some() {
            return Err(Error::invalid(
                format!("voice {voice:?}"),
                "a dictionary entry is heard with a local voice: a remote engine reads text, so it gets respellings but not phonemes",
            ));
        }
        Ok((SayRequest { text: text.to_string(), voice: speaks, speed: 1.0, seed: Some(1) }, dictionary))
    }

    /// Says a [`Engine::pronounced_request`] through the one speaking
    /// operation ([`Engine::speak`]; blocking, loads the model if needed):
    /// its phonemes and its audio at the model's rate.
    pub fn say_pronounced(&self, request: &SayRequest, dictionary: &Pronunciations) -> Result<(String, Vec<f32>)> {
        let mut speak = SpeakRequest::new(request.text.clone(), request.voice.clone());
        (speak.speed, speak.seed, speak.dictionary, speak.delivery) = (request.speed, request.seed, dictionary.clone(), Delivery::Whole);
        let spoken = self.speak(&speak, &StopSpeaking::default(), &mut |_| Ok(()))?;
        Ok((spoken.phonemes, spoken.samples))
    }
}
