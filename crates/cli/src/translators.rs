//! `revoice translators …`: translation engines, servers that speak the
//! OpenAI-compatible chat-completions API, kept in `config.toml`: add one
//! (saying where the lines sent to it go), list them, check one (its models
//! and what it makes of "Good morning."), remove one; and the lines
//! `revoice doctor` prints about them.

use clap::Subcommand;
use revoice_engine::{EngineConfig, Result};
use revoice_translate::{Translator, TranslatorSettings};

#[derive(Subcommand)]
pub enum TranslatorsCommand {
    /// Add a translator (or replace the one of that name).
    Add {
        name: String,
        /// Its base URL (`http://127.0.0.1:8080`, `http://127.0.0.1:11434/v1`, `https://api.example.com/v1`).
        #[arg(long)]
        url: String,
        /// The `model` its requests name (the server's default when empty).
        #[arg(long, default_value = "")]
        model: String,
        /// A Bearer token, if the server asks for one.
        #[arg(long, default_value = "")]
        api_key: String,
        /// Seconds a request may take (default 180).
        #[arg(long)]
        timeout: Option<f64>,
        /// Sampling temperature, 0 to 2 (default 0.2; 0: the same lines
        /// are translated the same way each time).
        #[arg(long)]
        temperature: Option<f64>,
        /// Lines sent in one request, 1 to 64 (default 8; fewer for a small
        /// local model).
        #[arg(long)]
        batch_lines: Option<usize>,
    },
    /// The translators, and whether each is on this machine.
    List,
    /// List a translator's models and have it translate "Good morning." into Spanish.
    Check { name: String },
    /// Remove a translator.
    Remove { name: String },
}

/// Where a translator's lines go: `127.0.0.1:8080 (this machine)`.
fn whereabouts(translator: &TranslatorSettings) -> String {
    let place = if translator.is_local() { "this machine" } else { "another machine: the script leaves this computer" };
    format!("{} ({place})", translator.host())
}

/// Runs a translators command on the config in `config`'s data folder;
/// false when a check failed.
pub async fn run(mut config: EngineConfig, command: TranslatorsCommand) -> Result<bool> {
    match command {
        TranslatorsCommand::Add { name, url, model, api_key, timeout, temperature, batch_lines } => {
            let translator = TranslatorSettings { name, url, model, api_key, timeout_s: timeout, temperature, batch_lines };
            config.save_translator(&translator)?;
            println!("added translator {:?} to {}", translator.name, config.config_file().display());
            println!("lines sent to {} go to {}", translator.name, whereabouts(&translator));
            println!("check it with `revoice translators check {}`", translator.name);
            Ok(true)
        }
        TranslatorsCommand::List => {
            if config.settings.translators.is_empty() {
                println!("no translators: `revoice translators add NAME --url URL [--model M] [--api-key K]`");
            }
            for translator in &config.settings.translators {
                let model = if translator.model.is_empty() { "the server's default model".to_string() } else { format!("model {}", translator.model) };
                let key = if translator.api_key.is_empty() { "" } else { ", with an API key" };
                let place = if translator.is_local() { "local (this machine)" } else { "not local (another machine: the script leaves this computer)" };
                println!("{}: {}, {model}{key}; {place}", translator.name, translator.url);
            }
            Ok(true)
        }
        TranslatorsCommand::Check { name } => {
            let translator = Translator::new(config.translator(Some(&name))?.clone());
            println!("checking {}: lines go to {}", translator.name(), whereabouts(translator.settings()));
            let settings = translator.settings().clone();
            match tokio::task::spawn_blocking(move || translator.check()).await.expect("check thread") {
                Ok(report) => {
                    if report.models.is_empty() {
                        println!("  models: none listed (the server has no /v1/models, or lists nothing)");
                    } else {
                        println!("  models: {}", report.models.join(", "));
                    }
                    let model = match (settings.model.as_str(), report.models.first()) {
                        ("", Some(first)) => first.as_str(),
                        ("", None) => "its default model",
                        (model, _) => model,
                    };
                    println!("  \"Good morning.\" into Spanish: {:?} ({model}, {:.2} s)", report.answered, report.seconds);
                    Ok(true)
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(false)
                }
            }
        }
        TranslatorsCommand::Remove { name } => {
            config.remove_translator(&name)?;
            println!("removed translator {name:?}");
            Ok(true)
        }
    }
}

/// The lines `revoice doctor` prints about the translators (no request is made).
pub fn doctor_lines(translators: &[TranslatorSettings]) -> Vec<String> {
    if translators.is_empty() {
        return vec!["Translators: none configured (`revoice translators add`)".to_string()];
    }
    let mut lines = vec![format!("Translators ({}):", translators.len())];
    for translator in translators {
        lines.push(format!("  {:<16} {}", translator.name, whereabouts(translator)));
    }
    lines
}
