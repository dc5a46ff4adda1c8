//! `revoice`: the studio's engine without the app. Every subcommand is a
//! thin shell over [`revoice::Engine`]; no logic lives here that the
//! desktop app would also need.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use revoice::{CheckStatus, Diagnosis};

#[derive(Parser)]
#[command(name = "revoice", version, about = "Revoice Studio from the command line: neural dubbing and voice synthesis")]
struct Cli {
    /// Data folder (config, logs, database, models). Default: $REVOICE_DATA_DIR, else the platform's data folder.
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check this host: data folder, database, model assets, audio output, desktop requirements.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Exit with status 1 when any check finds a problem.
        #[arg(long)]
        strict: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> revoice::Result<ExitCode> {
    let (engine, _log) = revoice::start(cli.data_dir).await?;
    let code = match cli.command {
        Command::Doctor { json, strict } => {
            let report = engine.diagnose().await;
            if json {
                println!("{}", serde_json::to_string_pretty(&report).expect("report serialises"));
            } else {
                print_report(&report);
            }
            if strict && report.overall() == CheckStatus::Problem {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
    };
    engine.close().await;
    Ok(code)
}

fn print_report(r: &Diagnosis) {
    println!("Revoice Studio engine {}", r.engine_version);
    println!();
    println!("  data folder   {}", r.data_dir.display());
    println!("  config file   {}", r.config_file.display());
    println!("  log folder    {}", r.log_dir.display());
    println!("  database      {}", r.database.display());
    println!(
        "  SQLite        {}",
        r.sqlite_version.as_deref().unwrap_or("unavailable")
    );
    println!();
    println!("Audio outputs ({}):", r.audio.host);
    if r.audio.devices.is_empty() {
        println!("  none");
    }
    for d in &r.audio.devices {
        let marks = match (d.is_default, r.audio_output.as_deref() == Some(d.id.as_str())) {
            (_, true) => " [playback]",
            (true, false) => " [default]",
            _ => "",
        };
        let format = d.default_format.as_deref().unwrap_or("format unknown");
        println!("  {:<28} {} ({format}){marks}", d.id, d.name);
    }
    println!();
    println!("Checks:");
    for c in &r.checks {
        let tag = match c.status {
            CheckStatus::Ok => "ok     ",
            CheckStatus::Warning => "warning",
            CheckStatus::Problem => "PROBLEM",
        };
        println!("  [{tag}] {}: {}", c.name, c.detail);
        if let Some(fix) = &c.fix {
            println!("            -> {fix}");
        }
    }
    let problems = r.checks.iter().filter(|c| c.status == CheckStatus::Problem).count();
    let warnings = r.checks.iter().filter(|c| c.status == CheckStatus::Warning).count();
    println!();
    println!("{problems} problem(s), {warnings} warning(s)");
}
