//! `revoice dictionary …`: pronunciation dictionaries, a project's (with
//! `--project`) or the global one every project uses under its own. An
//! entry says a word or name as phonemes or as a respelling; `say` speaks
//! a word as an entry would, before it is saved.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use revoice_engine::text::pronounce::Saying;
use revoice_engine::{Engine, Error, Result};

/// How a word is said, from the command line.
#[derive(Args)]
#[group(multiple = false)]
pub struct SayingArgs {
    /// Phonemes, as Kokoro reads them (IPA, e.g. "ɪzˈoʊldə").
    #[arg(long)]
    phonemes: Option<String>,
    /// Another spelling for the G2P to read (e.g. "ee-ZOLD-uh").
    #[arg(long)]
    respell: Option<String>,
}

impl SayingArgs {
    fn saying(self) -> Option<Saying> {
        self.phonemes.map(Saying::Phonemes).or(self.respell.map(Saying::Respelling))
    }
}

#[derive(Subcommand)]
pub enum DictionaryCommand {
    /// Say WORD as given from now on (replaces its entry); lines that use it render again.
    Set {
        word: String,
        #[command(flatten)]
        saying: SayingArgs,
        /// A project's dictionary (the global one without).
        #[arg(long)]
        project: Option<i64>,
    },
    /// The entries of a project's dictionary and the global one.
    List {
        #[arg(long)]
        project: Option<i64>,
    },
    /// Remove WORD's entry.
    Remove {
        word: String,
        #[arg(long)]
        project: Option<i64>,
    },
    /// Speak TEXT (a word or a sentence) with the dictionary, and the entry given here over it:
    /// hear an entry before saving it. Prints the phonemes.
    Say {
        text: String,
        /// The entry to try: for this word…
        #[arg(long)]
        word: Option<String>,
        #[command(flatten)]
        saying: SayingArgs,
        #[arg(long)]
        project: Option<i64>,
        #[arg(long, default_value = "af_heart")]
        voice: String,
        /// Write a 16-bit WAV file here.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Play through the configured audio output.
        #[arg(long)]
        play: bool,
    },
}

fn whose(project: Option<i64>) -> String {
    project.map_or("the global dictionary".into(), |p| format!("project {p}'s dictionary"))
}

pub async fn run(engine: &std::sync::Arc<Engine>, command: DictionaryCommand) -> Result<()> {
    match command {
        DictionaryCommand::Set { word, saying, project } => {
            let saying = saying.saying().ok_or_else(|| Error::invalid(format!("dictionary word {word:?}"), "say how: --phonemes or --respell"))?;
            let (entry, using) = engine.set_pronunciation(project, &word, saying).await?;
            println!("{}: {} ({using} lines use it and render again)", whose(project), entry.describe());
        }
        DictionaryCommand::List { project } => {
            let entries = match project {
                Some(p) => engine.project_pronunciations(p).await?.entries().to_vec(),
                None => engine.store().pronunciations(None).await?,
            };
            if entries.is_empty() {
                println!("{} has no entries: `revoice dictionary set WORD --phonemes … | --respell …`", whose(project));
            }
            for entry in entries {
                println!(
                    "  {:<24} {}{}",
                    entry.word,
                    entry.describe().split_once('=').map_or("", |(_, s)| s),
                    if entry.global && project.is_some() { "  (global)" } else { "" }
                );
            }
        }
        DictionaryCommand::Remove { word, project } => {
            let using = engine.remove_pronunciation(project, &word).await?;
            println!("removed {word:?} from {} ({using} lines use it and render again)", whose(project));
        }
        DictionaryCommand::Say { text, word, saying, project, voice, output, play } => {
            if output.is_none() && !play {
                return Err(Error::invalid("dictionary say", "nowhere to put the audio: pass -o FILE and/or --play"));
            }
            let extra = match (word, saying.saying()) {
                (Some(word), Some(saying)) => Some(revoice_engine::text::pronounce::Pronunciation::new(&word, saying, project.is_none())?),
                _ => None,
            };
            let (request, dictionary) = engine.pronounced_request(project, &text, &voice, extra).await?;
            let speaking = engine.clone();
            let device = engine.config().settings.audio.output_device.clone();
            tokio::task::spawn_blocking(move || -> Result<()> {
                let (phonemes, samples) = speaking.say_pronounced(&request, &dictionary)?;
                let rate = speaking.speech()?.sample_rate();
                println!("{phonemes}");
                if let Some(path) = &output {
                    revoice_engine::audio::wav::write_pcm16(path, &samples, rate)?;
                    eprintln!("wrote {}", path.display());
                }
                if play {
                    let mut live = revoice_engine::audio::live::LivePlayback::open(&device, rate)?;
                    live.push(&samples)?;
                    live.finish()?;
                }
                Ok(())
            })
            .await
            .expect("synthesis thread")?;
        }
    }
    Ok(())
}
