//! Translation engines: a dub track's lines sent to a server that speaks
//! the OpenAI-compatible chat-completions API (llama.cpp's server, Ollama,
//! vLLM, LM Studio, a hosted API), configured as `[[translators]]`
//! ([`TranslatorSettings`]). This crate owns the HTTP client ([`chat`]), the
//! prompts ([`prompt`]), reading the replies back ([`reply`]) and the
//! [`Translator`] that puts them together, and what each fault means for a
//! job ([`fault`]). Everything here blocks: callers
//! run it on blocking threads.

pub mod chat;
pub mod fault;
pub mod glossary;
pub mod prompt;
pub mod reply;
mod translator;

pub use prompt::{Batch, BatchLine, GlossaryTerm, Shorten};
pub use revoice_core::translators::TranslatorSettings;
pub use translator::{CheckReport, Translator};
