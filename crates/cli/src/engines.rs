//! `revoice engines …`: remote engines, servers that speak the speech API
//! (another studio's `revoice serve`, or a cloning server with the same
//! contract), kept in `config.toml`: add one (several URLs make a fleet),
//! list them, check what each server answers and can do, remove one.

use clap::Subcommand;
use revoice_engine::config::RemoteEngineSettings;
use revoice_engine::engines::{check_engine, EngineReport};
use revoice_engine::{EngineConfig, Result};

#[derive(Subcommand)]
pub enum EnginesCommand {
    /// Add a remote engine (or replace the one of that name) and check it.
    Add {
        name: String,
        /// Its servers' base URLs (`http://host:8880`); several make a fleet.
        #[arg(required = true)]
        urls: Vec<String>,
        #[arg(long, default_value = "")]
        api_key: String,
        /// The `model` its requests name (the server's default when empty).
        #[arg(long, default_value = "")]
        model: String,
        /// Seconds a request may take before its server counts as hung (default 120).
        #[arg(long)]
        timeout: Option<f64>,
    },
    /// The remote engines.
    List,
    /// Ask each server of an engine (every engine without a name) what it is and can do.
    Check { name: Option<String> },
    /// Remove a remote engine.
    Remove { name: String },
}

fn print(report: &EngineReport) {
    println!("{}: {} of {} servers ready; can do: {}", report.name, report.ready(), report.nodes.len(), report.capabilities.describe());
    for node in &report.nodes {
        let what = match (&node.version, &node.model) {
            (Some(v), Some(m)) => format!("version {v}, model {m}"),
            (Some(v), None) => format!("version {v}"),
            _ => String::new(),
        };
        let speak = node.speak_ms.map_or(String::new(), |ms| format!(", says \"Hi.\" in {ms:.0} ms"));
        let state = if node.ready {
            "ready"
        } else if node.reachable {
            "not ready"
        } else {
            "unreachable"
        };
        println!("  {:<32} {state:<11} {what}{speak}", node.url);
        if let Some(problem) = &node.problem {
            println!("  {:<32} {problem}", "");
        }
    }
}

/// Runs an engines command on the config in `config`'s data folder.
pub async fn run(mut config: EngineConfig, command: EnginesCommand) -> Result<bool> {
    let check = |engines: Vec<RemoteEngineSettings>| async move {
        tokio::task::spawn_blocking(move || engines.iter().map(check_engine).collect::<Vec<_>>()).await.expect("check thread")
    };
    match command {
        EnginesCommand::Add { name, urls, api_key, model, timeout } => {
            let engine = RemoteEngineSettings { name, urls, api_key, model, timeout_s: timeout };
            config.save_remote_engine(&engine)?;
            println!("added engine {:?} to {}", engine.name, config.config_file().display());
            let reports = check(vec![engine]).await;
            reports.iter().for_each(print);
            Ok(reports.iter().all(|r| r.ready() > 0))
        }
        EnginesCommand::List => {
            if config.settings.engines.is_empty() {
                println!("no remote engines: `revoice engines add NAME URL [URL…]`");
            }
            for engine in &config.settings.engines {
                let key = if engine.api_key.is_empty() { "" } else { ", with an API key" };
                let model = if engine.model.is_empty() { String::new() } else { format!(", model {}", engine.model) };
                println!("{}: {}{key}{model}", engine.name, engine.urls.join(" "));
            }
            Ok(true)
        }
        EnginesCommand::Check { name } => {
            let engines: Vec<RemoteEngineSettings> =
                config.settings.engines.iter().filter(|e| name.as_ref().is_none_or(|n| e.name.eq_ignore_ascii_case(n))).cloned().collect();
            if let (Some(name), true) = (&name, engines.is_empty()) {
                return Err(revoice_engine::Error::not_found(format!("engine {name:?}"), "is not in config.toml (`revoice engines list`)"));
            }
            let reports = check(engines).await;
            reports.iter().for_each(print);
            Ok(reports.iter().all(|r| r.ready() > 0))
        }
        EnginesCommand::Remove { name } => {
            config.remove_remote_engine(&name)?;
            println!("removed engine {name:?}");
            Ok(true)
        }
    }
}
