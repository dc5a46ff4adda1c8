//! A voice as a person names it ([`VoiceSpec`]): one of Kokoro's stock
//! voices (`af_heart`), a blend of them with weights
//! (`af_heart:0.7,af_bella:0.3`), a voice in the library by its name
//! (`Narrator`), or a voice on a remote engine (`fleet/af_bella`: a voice
//! that engine has; `fleet/@Narrator`: a library voice's recording, cloned
//! by that engine). Every face reads voice names through [`VoiceSpec::parse`],
//! so a name means the same thing and is refused for the same reason
//! everywhere; [`VoiceSpec::check_speaks`] is the one rule for which
//! voices may read which language.

use std::fmt;
use std::sync::Arc;

use crate::fitted_style::{self, FittedStyle, StyleRecipe};
use revoice_core::error::{Error, Result};
use revoice_model::kokoro::release::{stock_voices, StockVoice};
use revoice_text::language;

/// What a spec names.
#[derive(Debug, Clone, PartialEq)]
pub enum VoiceKind {
    /// One stock voice.
    Stock(String),
    /// Stock voices mixed by weight (as written; packs normalise them).
    Blend(Vec<(String, f32)>),
    /// A voice in the library, which speaks as the blend matched to its
    /// recording or the voice fitted to it.
    Library(String),
    /// A fitted voice (shown as `fitted:<id>`), as a library voice
    /// resolves once fitted: it carries its style ([`crate::fitted_style`]).
    Fitted(Arc<FittedStyle>),
    /// A voice on a remote engine (`ENGINE/VOICE`).
    Remote { engine: String, voice: RemoteVoice },
}

/// What a remote voice names on its engine.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteVoice {
    /// A voice the engine has by this name.
    Named(String),
    /// A library voice (`@Name`) whose recording the engine clones.
    Reference(String),
}

/// A parsed voice name. It displays as the text it was read from, so a
/// stored name and the keys made from it never change by being parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceSpec {
    text: String,
    kind: VoiceKind,
}

fn stock(name: &str) -> Option<StockVoice> {
    stock_voices().into_iter().find(|v| v.name == name)
}

impl VoiceSpec {
    /// Reads a voice name. A name in the library (`in_library` says which
    /// are) is that voice; otherwise it must be a stock voice or a blend of
    /// stock voices with weights.
    pub fn parse(text: &str, in_library: impl Fn(&str) -> bool) -> Result<VoiceSpec> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::invalid("voice", "is empty: name a stock voice, a blend like af_heart:0.7,af_bella:0.3, or a voice in your library"));
        }
        if in_library(text) {
            return Ok(VoiceSpec { text: text.to_string(), kind: VoiceKind::Library(text.to_string()) });
        }
        if text.contains('/') {
            return VoiceSpec::parse_remote(text);
        }
        VoiceSpec::parse_stock(text)
    }

    /// Reads `ENGINE/VOICE` or `ENGINE/@LibraryVoice` (whether the engine is
    /// configured is checked where it is used).
    pub fn parse_remote(text: &str) -> Result<VoiceSpec> {
        let text = text.trim();
        let refuse = |reason: &str| Error::invalid(format!("voice {text:?}"), reason.to_string());
        let Some((engine, voice)) = text.split_once('/') else {
            return Err(refuse("a voice on a remote engine is written ENGINE/VOICE, or ENGINE/@LibraryVoice for a library voice's recording"));
        };
        let (engine, voice) = (engine.trim(), voice.trim());
        if engine.is_empty() || !engine.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')) {
            return Err(refuse("the engine's name (before '/') must be letters, digits, '-' or '_'"));
        }
        let voice = match voice.strip_prefix('@') {
            Some(name) if !name.trim().is_empty() => RemoteVoice::Reference(name.trim().to_string()),
            Some(_) => return Err(refuse("'@' must be followed by the name of a voice in your library")),
            None if voice.is_empty() => return Err(refuse("name the voice after the '/'")),
            None => RemoteVoice::Named(voice.to_string()),
        };
        Ok(VoiceSpec { text: text.to_string(), kind: VoiceKind::Remote { engine: engine.to_string(), voice } })
    }

    /// A fitted voice: `recipe`, read with `reading_voice`'s language.
    pub fn from_fitted(recipe: &StyleRecipe, reading_voice: &str) -> VoiceSpec {
        let style = FittedStyle::new(recipe, reading_voice);
        VoiceSpec { text: format!("{}{}", fitted_style::PREFIX, style.id), kind: VoiceKind::Fitted(Arc::new(style)) }
    }

    /// Reads a stock voice or a blend of stock voices (no library names).
    pub fn parse_stock(text: &str) -> Result<VoiceSpec> {
        let text = text.trim();
        if text.starts_with(fitted_style::PREFIX) {
            return Err(Error::not_found(format!("voice {text:?}"), "a fitted voice is named by the library voice it was fitted to"));
        }
        let mut parts = Vec::new();
        for part in text.split(',') {
            let (name, weight) = match part.split_once(':') {
                Some((name, w)) => {
                    let weight: f32 =
                        w.trim().parse().map_err(|_| Error::invalid(format!("voice {text:?}"), format!("weight {:?} is not a number", w.trim())))?;
                    if !weight.is_finite() || weight < 0.0 {
                        return Err(Error::invalid(format!("voice {text:?}"), format!("weight {weight} must be zero or more")));
                    }
                    (name.trim(), weight)
                }
                None => (part.trim(), 1.0),
            };
            if stock(name).is_none() {
                let names: Vec<String> = stock_voices().into_iter().map(|v| v.name).collect();
                return Err(Error::not_found(
                    format!("voice {text:?}"),
                    format!("{name:?} is neither a stock voice nor a voice in your library; the stock voices are {}", names.join(", ")),
                ));
            }
            parts.push((name.to_string(), weight));
        }
        if parts.iter().map(|(_, w)| w).sum::<f32>() <= 0.0 {
            return Err(Error::invalid(format!("voice {text:?}"), "the weights add up to nothing"));
        }
        let kind = if parts.len() == 1 && !text.contains(':') { VoiceKind::Stock(parts.remove(0).0) } else { VoiceKind::Blend(parts) };
        Ok(VoiceSpec { text: text.to_string(), kind })
    }

    /// What it names.
    pub fn kind(&self) -> &VoiceKind {
        &self.kind
    }

    /// The stock voices and weights it mixes; `None` for a library voice
    /// (resolve it to its blend first).
    pub fn stock_parts(&self) -> Option<Vec<(&str, f32)>> {
        match &self.kind {
            VoiceKind::Stock(name) => Some(vec![(name.as_str(), 1.0)]),
            VoiceKind::Blend(parts) => Some(parts.iter().map(|(n, w)| (n.as_str(), *w)).collect()),
            VoiceKind::Library(_) | VoiceKind::Fitted(_) | VoiceKind::Remote { .. } => None,
        }
    }

    /// The engine and voice, for a voice on a remote engine.
    pub fn remote(&self) -> Option<(&str, &RemoteVoice)> {
        match &self.kind {
            VoiceKind::Remote { engine, voice } => Some((engine, voice)),
            _ => None,
        }
    }

    /// The fitted style, for a fitted voice.
    pub fn fitted(&self) -> Option<&FittedStyle> {
        match &self.kind {
            VoiceKind::Fitted(style) => Some(style),
            _ => None,
        }
    }

    /// The library voice's name, for a library voice.
    pub fn library_name(&self) -> Option<&str> {
        match &self.kind {
            VoiceKind::Library(name) => Some(name),
            _ => None,
        }
    }

    /// The language of its first (leading) stock voice; `None` for a
    /// library voice.
    pub fn language(&self) -> Option<&'static str> {
        if let Some(style) = self.fitted() {
            return stock(&style.reading_voice).map(|v| v.language);
        }
        let parts = self.stock_parts()?;
        stock(parts.first()?.0).map(|v| v.language)
    }

    /// Refuses a stock voice or blend that does not speak `language`: a
    /// Kokoro voice reads text with its own language's pronunciation, so an
    /// English line read by a Spanish voice comes out as neither. Every
    /// stock voice in a blend must speak it. A library voice is checked by
    /// its leading voice once resolved ([`Self::check_speaks`] on the blend).
    pub fn check_speaks(&self, language: &str) -> Result<()> {
        if let (Some(_), Some(own)) = (self.fitted(), self.language()) {
            if !language::speaks(own, language) {
                return Err(Error::invalid(format!("voice {:?}", self.text), format!("was fitted to speak {own}, not {language}")));
            }
        }
        let Some(parts) = self.stock_parts() else { return Ok(()) };
        for (name, _) in parts {
            let Some(found) = stock(name) else { continue };
            if !language::speaks(found.language, language) {
                let fitting: Vec<String> = stock_voices().into_iter().filter(|v| language::speaks(v.language, language)).map(|v| v.name).take(6).collect();
                let hint = if fitting.is_empty() { "no stock voice speaks it".to_string() } else { format!("voices that do: {}", fitting.join(", ")) };
                return Err(Error::invalid(format!("voice {:?}", self.text), format!("{name} speaks {}, not {language}; {hint}", found.language)));
            }
        }
        Ok(())
    }
}

impl fmt::Display for VoiceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn stock_voices_blends_and_library_names_parse_to_what_they_name() {
        assert_eq!(VoiceSpec::parse("af_heart", none).unwrap().kind(), &VoiceKind::Stock("af_heart".into()));
        let blend = VoiceSpec::parse(" af_heart:0.7, af_bella:0.3 ", none).unwrap();
        assert_eq!(blend.kind(), &VoiceKind::Blend(vec![("af_heart".into(), 0.7), ("af_bella".into(), 0.3)]));
        assert_eq!(blend.to_string(), "af_heart:0.7, af_bella:0.3", "displays as written, trimmed");
        let narrator = VoiceSpec::parse("Narrator", |n| n == "Narrator").unwrap();
        assert_eq!(narrator.library_name(), Some("Narrator"));
        assert_eq!(narrator.language(), None);
        assert_eq!(blend.language(), Some("en-US"));
    }

    #[test]
    fn unknown_names_bad_weights_and_empty_names_are_refused_by_name() {
        let unknown = VoiceSpec::parse("zz_nobody", none).unwrap_err();
        assert_eq!(unknown.kind(), revoice_core::ErrorKind::NotFound);
        assert!(unknown.to_string().contains("zz_nobody"), "{unknown}");
        let weight = VoiceSpec::parse("af_heart:lots", none).unwrap_err();
        assert_eq!(weight.kind(), revoice_core::ErrorKind::InvalidInput);
        assert!(weight.to_string().contains("lots"), "{weight}");
        assert!(VoiceSpec::parse("af_heart:0,af_bella:0", none).is_err());
        assert!(VoiceSpec::parse("af_heart:-1", none).is_err());
        assert_eq!(VoiceSpec::parse("  ", none).unwrap_err().kind(), revoice_core::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_voice_must_speak_the_language_it_reads() {
        let dora = VoiceSpec::parse("ef_dora", none).unwrap();
        assert!(dora.check_speaks("es").is_ok());
        let err = dora.check_speaks("en-US").unwrap_err().to_string();
        assert!(err.contains("ef_dora speaks es, not en-US") && err.contains("af_"), "{err}");
        assert!(VoiceSpec::parse("bm_george", none).unwrap().check_speaks("en-US").is_ok(), "British voices read any English");
        assert!(VoiceSpec::parse("af_heart:0.5,ef_dora:0.5", none).unwrap().check_speaks("en-US").is_err(), "every part of a blend");
        assert!(VoiceSpec::parse("Narrator", |_| true).unwrap().check_speaks("en-US").is_ok(), "checked once resolved");
    }

    #[test]
    fn voices_on_remote_engines_name_the_engine_and_a_voice_or_a_library_recording() {
        let named = VoiceSpec::parse("fleet/af_bella", none).unwrap();
        assert_eq!(named.remote(), Some(("fleet", &RemoteVoice::Named("af_bella".into()))));
        let cloned = VoiceSpec::parse("gpu/@Old Sailor", none).unwrap();
        assert_eq!(cloned.remote(), Some(("gpu", &RemoteVoice::Reference("Old Sailor".into()))));
        assert_eq!(cloned.to_string(), "gpu/@Old Sailor");
        assert!(cloned.check_speaks("ja").is_ok(), "the engine decides what its voices speak");
        for bad in ["/af_bella", "fleet/", "fleet/@", "my fleet/x"] {
            assert_eq!(VoiceSpec::parse(bad, none).unwrap_err().kind(), revoice_core::ErrorKind::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn a_fitted_voice_carries_its_style_and_no_process_table_names_it() {
        let recipe = StyleRecipe::of_blend(&[("ef_dora".into(), 0.6), ("em_alex".into(), 0.4)]);
        let voice = VoiceSpec::from_fitted(&recipe, "ef_dora");
        assert_eq!(voice.to_string(), format!("fitted:{}", recipe.id()));
        assert_eq!(voice.fitted().map(|f| f.recipe.clone()), Some(recipe.clone()));
        assert_eq!(voice.language(), Some("es"), "it speaks its reading voice's language");
        assert!(voice.check_speaks("es").is_ok() && voice.check_speaks("en-US").is_err());
        assert_eq!(voice, VoiceSpec::from_fitted(&recipe, "ef_dora"));
        // Its text alone names nothing: a fitted voice is spoken through the library voice it belongs to.
        let refused = VoiceSpec::parse_stock(&voice.to_string()).unwrap_err();
        assert_eq!(refused.kind(), revoice_core::ErrorKind::NotFound);
        assert!(refused.to_string().contains("library voice"), "{refused}");
    }
}
