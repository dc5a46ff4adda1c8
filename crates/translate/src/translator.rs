//! A translator as the studio uses it: a batch of lines in, one translation
//! per line out (all or nothing); one line said shorter; and a check that
//! lists the server's models and translates "Good morning.". A reply that
//! cannot be read (malformed, the wrong lines, the source repeated) is asked
//! for once more before it is an error; a batch, the second time in the
//! beside form, which small models that echo the source answer in the
//! target language.

use std::sync::OnceLock;
use std::time::Instant;

use revoice_core::error::{Error, Result};
use revoice_core::translators::TranslatorSettings;
use serde::Serialize;

use crate::chat::{ChatClient, Message};
use crate::prompt::{batch_messages, batch_messages_beside, batch_schema, batch_schema_beside, shorten_messages, shorten_schema, Batch, BatchLine, Shorten};
use crate::reply::{batch_texts, batch_texts_beside, shortened_text};

/// How many times a reply that cannot be read is asked for.
const ASKS: usize = 2;

/// One way of asking: the messages, the reply's schema, the most tokens
/// the answer may take, and how the reply is read.
struct Ask<'a, T> {
    messages: Vec<Message>,
    schema: serde_json::Value,
    max_tokens: usize,
    read: Box<Reader<'a, T>>,
}

/// How a reply is read: what it holds, or why it cannot be used.
type Reader<'a, T> = dyn Fn(&str) -> std::result::Result<T, String> + 'a;
/// The most tokens any answer may take.
const MAX_TOKENS: usize = 8192;

/// What [`Translator::check`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// The models the server lists (empty when it lists none, or has no `/v1/models`).
    pub models: Vec<String>,
    /// What it answered for "Good morning." into Spanish.
    pub answered: String,
    /// How long that answer took, seconds.
    pub seconds: f64,
}

/// One translation engine, ready to ask.
pub struct Translator {
    settings: TranslatorSettings,
    chat: ChatClient,
    /// The first model the server listed, once it has been asked.
    listed: OnceLock<String>,
}

impl Translator {
    /// The translator `settings` describes. They are taken as they are:
    /// the config checked them ([`TranslatorSettings::check`]) when it was
    /// read or saved, and an address that is no URL fails each request.
    pub fn new(settings: TranslatorSettings) -> Translator {
        let chat = ChatClient::new(&settings);
        Translator { settings, chat, listed: OnceLock::new() }
    }

    /// Its name in the config.
    pub fn name(&self) -> &str {
        &self.settings.name
    }

    /// Its settings.
    pub fn settings(&self) -> &TranslatorSettings {
        &self.settings
    }

    /// The model that answers: the configured one, else the first the
    /// server lists (asked once), else `default`.
    pub fn model(&self) -> String {
        if !self.settings.model.is_empty() {
            return self.settings.model.clone();
        }
        if let Some(listed) = self.listed.get() {
            return listed.clone();
        }
        match self.chat.models() {
            Ok(models) if !models.is_empty() => self.listed.get_or_init(|| models[0].clone()).clone(),
            _ => "default".to_string(),
        }
    }

    /// The models the server lists (empty when it has no `/v1/models`).
    pub fn models(&self) -> Result<Vec<String>> {
        let models = self.chat.models()?;
        if let Some(first) = models.first() {
            let _ = self.listed.set(first.clone());
        }
        Ok(models)
    }

    /// The translations of `batch.lines`, one per line in order. A reply
    /// that cannot be used is asked for once more, in the beside form
    /// ([`batch_messages_beside`]: each line's source again, then its
    /// translation), for small models echo the first form's sources; where
    /// the two languages have one name (`en-US` into `en-GB`), in the first
    /// form again. Then the error, and no translation at all.
    pub fn translate(&self, batch: &Batch) -> Result<Vec<String>> {
        if batch.lines.is_empty() {
            return Ok(Vec::new());
        }
        for (i, line) in batch.lines.iter().enumerate() {
            if batch.lines[..i].iter().any(|l| l.id == line.id) {
                return Err(Error::invalid(format!("line {}", line.id), "is in the batch twice"));
            }
            if line.text.trim().is_empty() {
                return Err(Error::invalid(format!("line {}", line.id), "has no text to translate"));
            }
        }
        let started = Instant::now();
        // Room for each line three times over (a token a character at worst) and the JSON around it.
        let budget: usize = batch.lines.iter().map(|l| l.text.chars().count() * 3 + 48).sum::<usize>() + 128;
        let first = Ask {
            messages: batch_messages(batch),
            schema: batch_schema(batch),
            max_tokens: budget.min(MAX_TOKENS),
            read: Box::new(|reply: &str| batch_texts(reply, batch)),
        };
        let second = match (batch_messages_beside(batch), batch_schema_beside(batch)) {
            (Some(messages), Some(schema)) => {
                // The source written again too, and its language's name on each line.
                let again: usize = batch.lines.iter().map(|l| l.text.chars().count() + 16).sum();
                Ask { messages, schema, max_tokens: (budget + again).min(MAX_TOKENS), read: Box::new(|reply: &str| batch_texts_beside(reply, batch)) }
            }
            _ => Ask {
                messages: first.messages.clone(),
                schema: first.schema.clone(),
                max_tokens: first.max_tokens,
                read: Box::new(|reply: &str| batch_texts(reply, batch)),
            },
        };
        let texts = self.ask(&[first, second])?;
        tracing::debug!(translator = %self.settings.name, lines = texts.len(), seconds = started.elapsed().as_secs_f64(), "translated a batch");
        Ok(texts)
    }

    /// `request.line`'s translation said shorter. A reply that cannot be
    /// used is asked for once more; then the error.
    pub fn shorten(&self, request: &Shorten) -> Result<String> {
        if request.current.trim().is_empty() {
            return Err(Error::invalid(format!("line {}", request.line.id), "has no translation to shorten"));
        }
        let budget = (request.current.chars().count() * 3 + 128).min(MAX_TOKENS);
        let ask = || Ask {
            messages: shorten_messages(request),
            schema: shorten_schema(),
            max_tokens: budget,
            read: Box::new(|reply: &str| shortened_text(reply, request)),
        };
        self.ask(&[ask(), ask()])
    }

    /// Lists the server's models and translates "Good morning." from
    /// English into Spanish, timing it. A server without a model list
    /// passes; one that cannot translate fails with the reason.
    pub fn check(&self) -> Result<CheckReport> {
        let models = self.models().unwrap_or_else(|e| {
            tracing::debug!(translator = %self.settings.name, error = %e, "no model list");
            Vec::new()
        });
        let batch = Batch {
            from: "en-US".into(),
            to: "es".into(),
            lines: vec![BatchLine { id: 1, speaker: None, text: "Good morning.".into(), seconds: 1.0 }],
            before: Vec::new(),
            after: Vec::new(),
            glossary: Vec::new(),
            keep: Vec::new(),
            notes: String::new(),
        };
        let started = Instant::now();
        let answered = self.translate(&batch)?.remove(0);
        Ok(CheckReport { models, answered, seconds: started.elapsed().as_secs_f64() })
    }

    /// Asks each way in turn ([`ASKS`] of them) until one's reply is read;
    /// else the last reason.
    fn ask<T>(&self, asks: &[Ask<'_, T>; ASKS]) -> Result<T> {
        let mut reason = String::new();
        for (asked, ask) in (1..).zip(asks) {
            let reply = self.chat.complete(&ask.messages, Some(&ask.schema), ask.max_tokens)?;
            match (ask.read)(&reply) {
                Ok(value) => return Ok(value),
                Err(why) => {
                    tracing::warn!(translator = %self.settings.name, asked, reason = %why, "a reply that cannot be used");
                    reason = why;
                }
            }
        }
        Err(Error::internal(self.chat.what(), format!("{reason} (asked {ASKS} times)")))
    }
}
