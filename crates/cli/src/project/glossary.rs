//! `revoice project glossary`: a project's glossary listed, a term's
//! translation into a language set, an entry removed. Each batch of a
//! translation into that language takes its terms, and the lines that
//! leave one out are reported.

use clap::Subcommand;

use revoice_engine::{Engine, Result};

#[derive(Subcommand)]
pub enum GlossaryCommand {
    /// List the glossary (every language, or the entries that apply to one).
    List {
        /// Only the entries used translating into this language (`es` entries apply to `es-MX`).
        #[arg(long)]
        to: Option<String>,
    },
    /// Translate TERM as TRANSLATION into a language (replacing the term's entry, in any case).
    Set {
        /// The language the translation is in.
        #[arg(long)]
        to: String,
        term: String,
        translation: String,
    },
    /// Remove an entry (its id, as the list shows it).
    Remove { entry: i64 },
}

/// Runs `command` on `project`'s glossary and prints what it holds or did.
pub async fn run(engine: &Engine, project: i64, command: GlossaryCommand) -> Result<()> {
    match command {
        GlossaryCommand::List { to } => {
            let entries = engine.glossary(project, to.as_deref()).await?;
            if entries.is_empty() {
                match &to {
                    Some(to) => println!("project {project}'s glossary has no terms for {to}"),
                    None => println!(
                        "project {project}'s glossary is empty: add a term with `revoice project glossary {project} set --to LANGUAGE TERM TRANSLATION`"
                    ),
                }
            }
            for entry in entries {
                println!("  {:>4}  {:<6} {} → {}", entry.id, entry.language, entry.term, entry.translation);
            }
        }
        GlossaryCommand::Set { to, term, translation } => {
            let entry = engine.set_glossary_term(project, &to, &term, &translation).await?;
            println!("glossary entry {}: {} → {} ({})", entry.id, entry.term, entry.translation, entry.language);
        }
        GlossaryCommand::Remove { entry } => {
            engine.remove_glossary_term(project, entry).await?;
            println!("glossary entry {entry} removed");
        }
    }
    Ok(())
}
