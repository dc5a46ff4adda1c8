//! Translation engines the studio may send a track's lines to: servers
//! that speak the OpenAI-compatible chat-completions API (llama.cpp's
//! server, Ollama, vLLM, LM Studio, a hosted API), as `[[translators]]` in
//! `config.toml` (saved and removed there, by [`crate::config::EngineConfig`]).
//! Nothing is sent anywhere unless one is configured.

use serde::{Deserialize, Serialize};

/// One translation engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct TranslatorSettings {
    /// How the studio names it (`revoice project translate --translator NAME`).
    pub name: String,
    /// Its base URL (`http://127.0.0.1:8080` or `…/v1`).
    pub url: String,
    /// The `model` sent with each request (empty: the server's default).
    #[serde(default)]
    pub model: String,
    /// Bearer token, if the server asks for one.
    #[serde(default)]
    pub api_key: String,
    /// Seconds a request may take (default [`TranslatorSettings::DEFAULT_TIMEOUT_S`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout_s: Option<f64>,
    /// Sampling temperature sent with each request (default
    /// [`TranslatorSettings::DEFAULT_TEMPERATURE`]); 0 answers the same
    /// lines the same way each time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub temperature: Option<f64>,
    /// Lines sent in one request (default
    /// [`TranslatorSettings::DEFAULT_BATCH_LINES`]): a small local model
    /// keeps to the task better with fewer, a hosted one costs less with more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub batch_lines: Option<usize>,
}

impl TranslatorSettings {
    /// How long a request may take by default, seconds: a small model on a
    /// CPU answers a batch of lines in tens of seconds.
    pub const DEFAULT_TIMEOUT_S: f64 = 180.0;
    /// The temperature sent by default: a little variety, so that a line
    /// translated again can come back worded otherwise.
    pub const DEFAULT_TEMPERATURE: f64 = 0.2;

    /// Lines sent in one request by default.
    pub const DEFAULT_BATCH_LINES: usize = 8;

    /// Lines to send in one request.
    pub fn batch_lines(&self) -> usize {
        self.batch_lines.unwrap_or(Self::DEFAULT_BATCH_LINES)
    }

    /// The temperature to send.
    pub fn temperature(&self) -> f64 {
        self.temperature.unwrap_or(Self::DEFAULT_TEMPERATURE)
    }

    /// How long a request may take.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.timeout_s.unwrap_or(Self::DEFAULT_TIMEOUT_S))
    }

    /// The host the lines go to (`127.0.0.1:8080`), for saying where they go.
    pub fn host(&self) -> &str {
        let rest = self.url.strip_prefix("http://").or_else(|| self.url.strip_prefix("https://")).unwrap_or(&self.url);
        rest.split('/').next().unwrap_or(rest)
    }

    /// Whether the lines stay on this machine (a loopback host).
    pub fn is_local(&self) -> bool {
        let host = self.host();
        let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
        matches!(name, "localhost" | "127.0.0.1" | "[::1]") || name.starts_with("127.")
    }

    /// Checks the name (letters, digits, `-`, `_`), the URL (http or https
    /// with a host), the timeout, the temperature and the lines a request.
    pub fn check(&self) -> std::result::Result<(), String> {
        let name = &self.name;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')) {
            return Err(format!("[[translators]] name {name:?} must be letters, digits, '-' or '_'"));
        }
        let rest = self.url.strip_prefix("http://").or_else(|| self.url.strip_prefix("https://"));
        if rest.is_none_or(|r| r.split('/').next().unwrap_or("").is_empty()) {
            return Err(format!("[[translators]] {name}: {:?} is not an http:// or https:// address", self.url));
        }
        if let Some(t) = self.timeout_s {
            if !(1.0..=3600.0).contains(&t) {
                return Err(format!("[[translators]] {name}: timeout_s {t} is outside 1 to 3600 seconds"));
            }
        }
        if let Some(n) = self.batch_lines {
            if !(1..=64).contains(&n) {
                return Err(format!("[[translators]] {name}: batch_lines {n} is outside 1 to 64"));
            }
        }
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(format!("[[translators]] {name}: temperature {t} is outside 0 to 2"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> TranslatorSettings {
        TranslatorSettings {
            name: "llama".into(),
            url: "http://127.0.0.1:8080".into(),
            model: String::new(),
            api_key: String::new(),
            timeout_s: None,
            temperature: None,
            batch_lines: None,
        }
    }

    #[test]
    fn a_bad_translator_is_refused_naming_what_is_wrong() {
        for (bad, says) in [
            (TranslatorSettings { name: "my llama".into(), ..local() }, "name"),
            (TranslatorSettings { url: "127.0.0.1:8080".into(), ..local() }, "http"),
            (TranslatorSettings { timeout_s: Some(0.1), ..local() }, "timeout_s"),
            (TranslatorSettings { temperature: Some(2.5), ..local() }, "temperature"),
            (TranslatorSettings { batch_lines: Some(0), ..local() }, "batch_lines"),
        ] {
            let err = bad.check().unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn where_the_lines_go_is_said() {
        assert!(local().is_local());
        assert_eq!(local().host(), "127.0.0.1:8080");
        let hosted = TranslatorSettings { url: "https://api.example.com/v1".into(), ..local() };
        assert!(!hosted.is_local());
        assert_eq!(hosted.host(), "api.example.com");
    }
}
