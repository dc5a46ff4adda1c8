//! `revoice project …`: dub projects from the command line. Create one,
//! import a script (SRT, WebVTT or plain text), give speakers voices, pick
//! a timing strategy, render (only what changed), see where it stands,
//! mute, solo and level a speaker's lane, mark points in time, find and
//! replace in the lines, undo and redo. Every edit is saved at once, as in
//! the app, and undoes in the same history.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Subcommand;

mod glossary;
mod translate;
use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::dub::timecode;
use revoice_engine::{Engine, Error, ExportRequest, Result};

/// Export file formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Wav,
    Flac,
    Mp3,
}

#[derive(Subcommand)]
pub enum CastCommand {
    /// Save a project's speakers and their voices on a cast sheet (made when new; members of
    /// other projects stay). The project then takes its voices from it.
    Save { project: i64, name: String },
    /// The cast sheets, with their members and voices.
    List,
    /// Delete a cast sheet (projects keep the voices they have).
    Delete { name: String },
}

#[derive(Subcommand)]
pub enum MarkerCommand {
    /// Add a marker at AT (seconds, or timecode at the project's frame rate).
    Add { at: String, name: String },
    /// Rename a marker.
    Rename { marker: i64, name: String },
    /// Move a marker to AT (seconds, or timecode).
    Move { marker: i64, at: String },
    /// Remove a marker.
    Remove { marker: i64 },
    /// List the markers (the default).
    List,
}

#[derive(Subcommand)]
pub enum ProjectCommand {
    /// Create a project with one track.
    New {
        name: String,
        /// The track's language (the dub's language).
        #[arg(long, default_value = "en-US")]
        language: String,
        /// Start from a cast sheet: speakers on it get its voices as their lines are imported.
        #[arg(long, value_name = "CAST")]
        cast: Option<String>,
    },
    /// Cast sheets: a project's speakers and voices kept for the next episode.
    Cast {
        #[command(subcommand)]
        command: CastCommand,
    },
    /// Create a project from a recording or a video (any container and codec the engine
    /// decodes): its dialogue transcribed by Whisper into timed lines, the language detected,
    /// the speakers told apart (Speaker 1, 2, …; rename them with `project rename-speaker`).
    NewFromMedia { name: String, file: PathBuf },
    /// Attach a recording or video as the project's original dialogue (a project made with
    /// new-from-media has its file already).
    Original { project: i64, file: PathBuf },
    /// Voice every speaker from their own lines in the original dialogue: each speaker's lines
    /// (up to 30 s, none talked over) are cut into a recording, made a library voice, and fitted.
    CastFromOriginal {
        project: i64,
        /// Who consented to these voices being made (kept with each voice).
        #[arg(long)]
        consent: String,
    },
    /// Rename a speaker (Speaker 1 → the character's name).
    RenameSpeaker { project: i64, speaker: String, new_name: String },
    /// Make the demo project: the lighthouse scene (32 lines, Maya and Theo) with voices and its bed.
    Demo,
    /// List projects.
    List,
    /// Add a script's lines to a track: SubRip, WebVTT, ASS/SSA or a plain text file (one line each),
    /// in any text encoding (the one it was read in is said).
    Import {
        project: i64,
        file: PathBuf,
        /// The track's language: a new track is added for a language the project has not got.
        /// The first track by default.
        #[arg(long)]
        language: Option<String>,
    },
    /// Give a speaker a voice: a stock voice, a blend, or a registered voice's name.
    Voice {
        project: i64,
        speaker: String,
        voice: String,
        /// Only for their lines in this language (a voice that speaks it); all languages by default.
        #[arg(long)]
        language: Option<String>,
    },
    /// Set the timing strategy: natural, strict_slot, smart_fit or resynthesize.
    Strategy { project: i64, strategy: revoice_engine::dub::timing::TimingStrategy },
    /// Set the background bed (music and effects under the dub), or with --add another stem of
    /// it (M&E: music, effects, ambience), each at its own level and ducking under the voice or
    /// not. Without a file, lists the stems.
    Bed {
        project: i64,
        file: Option<PathBuf>,
        /// Add the file as another stem instead of replacing the bed.
        #[arg(long, requires = "file")]
        add: bool,
        /// The stem's level on top of the mix's bed level, dB.
        #[arg(long, default_value_t = 0.0, allow_hyphen_values = true, requires = "add")]
        gain: f64,
        /// The stem does not duck under the voice (effects that must stay).
        #[arg(long, requires = "add")]
        no_duck: bool,
        /// Remove the stem with this id (see the list).
        #[arg(long, conflicts_with_all = ["file", "add"])]
        remove: Option<i64>,
    },
    /// Translate a track into another language through a translation engine
    /// (`revoice translators add`): the lines go in batches with their
    /// neighbours and speakers, and land on the track in that language in
    /// the same slots. Stopped or killed, the same command goes on where it
    /// stopped; lines translated before are kept unless named with --again.
    Translate {
        project: i64,
        /// The language to translate into (its track is made when missing).
        #[arg(long)]
        to: String,
        /// The language of the track to translate (the project's first track by default).
        #[arg(long)]
        from: Option<String>,
        /// The translator to use (the first configured by default).
        #[arg(long)]
        translator: Option<String>,
        /// Source line ids to translate again (comma-separated).
        #[arg(long, value_delimiter = ',')]
        again: Vec<i64>,
        /// Translate again lines edited by hand since their translation too.
        #[arg(long)]
        overwrite_edited: bool,
        /// Notes for the translator: register, audience, how to render names or terms.
        #[arg(long, default_value = "")]
        notes: String,
    },
    /// A project's glossary: how its terms are translated into each language. Every batch of
    /// a translation takes them, and lines that leave one out are reported.
    Glossary {
        project: i64,
        #[command(subcommand)]
        command: glossary::GlossaryCommand,
    },
    /// Render every line whose audio is missing or out of date (interrupted renders resume here).
    Render {
        project: i64,
        /// Hear every line back as it renders, at the lowest priority (a failing line is taken again
        /// once after the render), then print the verdicts as `qc` does.
        #[arg(long)]
        check: bool,
    },
    /// Play a track on the timeline (lines not rendered yet render in playhead
    /// order and join as they are ready), or preview one line. While it plays,
    /// type a command and Enter: pause, play, seek SECONDS, loop FROM TO,
    /// noloop, status, quit.
    Play {
        project: i64,
        /// Start here, seconds.
        #[arg(long, default_value_t = 0.0)]
        from: f64,
        /// Stop here, seconds (the programme's end by default).
        #[arg(long)]
        to: Option<f64>,
        /// Loop FROM..TO instead of stopping at TO.
        #[arg(long = "loop", requires = "to")]
        looping: bool,
        /// Preview this segment alone, streamed as it renders.
        #[arg(long, conflicts_with_all = ["from", "to", "looping"])]
        segment: Option<i64>,
        /// The track's language (the first track by default).
        #[arg(long)]
        language: Option<String>,
        /// Output device id (see `revoice doctor`); the configured one by default.
        #[arg(long)]
        device: Option<String>,
        /// Hear the original dialogue too: `solo` (alone), or a level in dB under the dub (e.g. -12).
        #[arg(long, allow_hyphen_values = true)]
        original: Option<String>,
    },
    /// Check every rendered line by ear: Whisper hears each take as the programme places it,
    /// and each line passes or says what failed (silence, clipping, lost words, the fit's cut).
    /// Checks are stored with the takes; takes already checked are not heard again.
    Qc {
        project: i64,
        /// Hear takes that were already checked again.
        #[arg(long)]
        again: bool,
        /// Take a line that fails again, once, on a fresh seed (the better take stays in use).
        #[arg(long)]
        retake: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Mix every track over the bed and write the mix, stems and subtitles.
    Export {
        project: i64,
        /// Folder to write into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Wav)]
        format: Format,
        /// Loudness delivery: ebu (EBU R128, -23 LUFS, -1 dBTP), stream16 or stream14 (-16 or
        /// -14 LUFS, -1 dBTP), atsc (ATSC A/85, -24 LKFS, -2 dBTP), or a target in LUFS. A loudness
        /// report (integrated, range, true peak, short-term max) is written beside each mix.
        #[arg(long, default_value = "ebu", allow_hyphen_values = true)]
        loudness: String,
        /// Also write the project's video with the dubs muxed in (video copied, a lossless dub
        /// stream per language, the default first, the original audio after them).
        #[arg(long)]
        with_video: bool,
        /// Also write handoff files per language for a DAW or an editor: any of rpp (Reaper),
        /// otio (OpenTimelineIO), edl (CMX 3600), comma-separated; every line a clip at its place.
        #[arg(long, value_name = "FORMATS")]
        handoff: Option<String>,
        /// Sample rate of every audio file (mix, stems, handoff media, the picture's dubs):
        /// 48000 or 44100.
        #[arg(long, value_name = "HZ", default_value = "48000")]
        sample_rate: String,
        /// Bits per sample of WAV and FLAC files: 24 or 16.
        #[arg(long, default_value = "24")]
        bits: String,
        /// Tag each subtitle cue with its speaker (`[Ana] …` in SRT, `<v Ana>` in WebVTT).
        #[arg(long)]
        speaker_tags: bool,
        /// Refuse to export while any line is flagged (doesn't fit, words cut, overlapping the
        /// next line, failed its check); without it the flagged lines are listed after the export.
        #[arg(long)]
        strict: bool,
    },
    /// Attach a video as the project's picture (muxed into exports with --with-video). Its
    /// audio becomes the original dialogue when the project has none.
    Video {
        project: i64,
        /// The video (mp4, mkv, mov, webm, …); omit it with --remove.
        #[arg(required_unless_present = "remove")]
        file: Option<PathBuf>,
        /// Use the video's audio as the bed (music and effects) too.
        #[arg(long)]
        bed: bool,
        /// The language of the video's original dialogue (tags its audio stream in exports).
        #[arg(long)]
        language: Option<String>,
        /// Take the picture off the project.
        #[arg(long, conflicts_with_all = ["file", "bed", "language"])]
        remove: bool,
    },
    /// Every line with its id, in and out timecode at the project's frame rate, speaker and
    /// whether it has a take.
    Lines { project: i64 },
    /// Set the rate the project's timecode runs at: 23.976, 24, 25, 29.97df (drop-frame), 29.97
    /// or 30. A project with a picture follows the picture's rate. Without a rate, prints it.
    FrameRate { project: i64, rate: Option<String> },
    /// Lines, speakers, rendered and stale counts, and the lines that do not fit their slots.
    Status { project: i64 },
    /// Each line's predicted spoken length against its slot, before any render: the rate it
    /// needs, and the lines that do not fit at up to x1.25 with the gaps around them.
    Fit { project: i64 },
    /// Write the project (lines, speakers, voices, settings) as a JSON project file.
    Save { project: i64, file: PathBuf },
    /// Create a project from a JSON project file.
    Load { file: PathBuf },
    /// Mute, solo or level a speaker's lane (SPEAKER by name, or "none" for the lines without a
    /// speaker): muted lanes are never heard, while any lane is soloed only soloed lanes are, and
    /// the level is a gain on every line of the lane, in playback and export. Prints the lanes.
    Lane {
        project: i64,
        speaker: String,
        #[arg(long, conflicts_with = "unmute")]
        mute: bool,
        #[arg(long)]
        unmute: bool,
        #[arg(long, conflicts_with = "unsolo")]
        solo: bool,
        #[arg(long)]
        unsolo: bool,
        /// The lane's level, dB (-60 to +12).
        #[arg(long, allow_hyphen_values = true)]
        level: Option<f32>,
    },
    /// The project's markers: named points in time, carried into the handoff files.
    Markers {
        project: i64,
        #[command(subcommand)]
        command: Option<MarkerCommand>,
    },
    /// Replace text in a track's lines, as one undoable edit (the lines changed render again).
    Replace {
        project: i64,
        #[arg(long)]
        find: String,
        #[arg(long, allow_hyphen_values = true)]
        replace: String,
        /// The track's language (the first track by default).
        #[arg(long)]
        track: Option<String>,
        /// Only text in the same case matches.
        #[arg(long)]
        match_case: bool,
        /// Only whole words match.
        #[arg(long)]
        whole_word: bool,
    },
    /// Undo the last edit.
    Undo { project: i64 },
    /// Redo the last undone edit.
    Redo { project: i64 },
}

pub async fn run(engine: &Arc<Engine>, command: ProjectCommand) -> Result<ExitCode> {
    let store = engine.store();
    match command {
        ProjectCommand::New { name, language, cast } => {
            let (project, track) = match &cast {
                Some(cast) => engine.create_project_from_cast(&name, &language, cast).await?,
                None => engine.create_project(&name, &language).await?,
            };
            println!("created project {} \"{}\" with a {} track", project.id, project.name, track.language);
            if let Some(cast) = cast {
                println!("its speakers take their voices from cast sheet {cast:?} as their lines are imported");
            }
        }
        ProjectCommand::Cast { command } => cast(engine, command).await?,
        ProjectCommand::NewFromMedia { name, file } => {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar.set_message(format!("listening to {}", file.display()));
            let ticker = bar.clone();
            let shown = file.display().to_string();
            let made = engine
                .new_project_from_media(&name, &file, move |done| {
                    ticker.set_message(format!("listening to {shown}: {done:.0} s heard"));
                    true
                })
                .await;
            bar.finish_and_clear();
            let (project, track, heard) = made?;
            println!(
                "created project {} \"{}\" from {}: {} lines in {} ({:.1} s of audio), {} speakers",
                project.id,
                project.name,
                file.display(),
                heard.cues.len(),
                track.language,
                heard.duration,
                heard.speakers
            );
            for cue in &heard.cues {
                println!("  {:>7.2} → {:>7.2}  {:<10} {}", cue.start, cue.end, cue.speaker.as_deref().unwrap_or(""), cue.text);
            }
        }
        ProjectCommand::Original { project, file } => {
            let (path, seconds) = engine.set_original_dialogue(project, &file).await?;
            println!("project {project}: original dialogue {} ({seconds:.1} s)", path.display());
        }
        ProjectCommand::CastFromOriginal { project, consent } => {
            let cutting = engine.clone();
            let clips = tokio::task::spawn_blocking(move || cutting.original_speaker_clips(project)).await.expect("cutting thread")?;
            if clips.is_empty() {
                return Err(Error::invalid(format!("project {project}"), "no speaker has a line of their own to cut"));
            }
            for voiced in engine.voice_speakers(project, None, &clips, &consent).await? {
                match (&voiced.voice, &voiced.note) {
                    (Some(voice), _) => println!(
                        "{}: {voice} (its matched blend for now{})",
                        voiced.speaker,
                        if voiced.fitting {
                            "; the fit begun here stops with this command and resumes from its checkpoint when the studio fits it"
                        } else {
                            ""
                        }
                    ),
                    (None, Some(note)) => println!("{}: no voice: {note}", voiced.speaker),
                    (None, None) => println!("{}: no voice", voiced.speaker),
                }
            }
        }
        ProjectCommand::RenameSpeaker { project, speaker, new_name } => {
            let old = engine.speaker_named(project, &speaker).await?;
            let renamed = engine.rename_speaker(project, old.id, &new_name).await?;
            println!("renamed speaker {:?} to {:?}", old.name, renamed.name);
        }
        ProjectCommand::Demo => {
            let project = engine.create_demo_project().await?;
            println!("created project {} \"{}\": render it with `revoice project render {}`, then play or export it", project.id, project.name, project.id);
        }
        ProjectCommand::List => {
            for p in store.projects().await? {
                println!("{:>4}  {:<30} {:<12} updated {}", p.id, p.name, p.timing_strategy, p.updated_at);
            }
        }
        ProjectCommand::Import { project, file, language } => {
            let (track, added, script) = engine.import_script(project, &file, language.as_deref()).await?;
            let speakers = store.speakers(project).await?;
            println!(
                "imported {added} lines into project {project} ({}) from {} read as {} in {}; speakers: {}",
                track.language,
                file.display(),
                script.format,
                script.encoding,
                speakers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
            );
            match crate::fit_report::fits(engine, project).await {
                Ok(fits) => crate::fit_report::print_problems(&fits),
                Err(e) => eprintln!("  the lines' lengths could not be predicted: {e}"),
            }
        }
        ProjectCommand::Fit { project } => crate::fit_report::print_all(&crate::fit_report::fits(engine, project).await?),
        ProjectCommand::Voice { project, speaker, voice, language } => {
            let found = engine.speaker_named(project, &speaker).await?;
            let set = engine.set_speaker_voice(project, found.id, &voice, language.as_deref()).await?;
            match language {
                Some(language) => println!("{} now speaks {language} with {voice}", set.name),
                None => println!("{} now speaks with {voice}", set.name),
            }
        }
        ProjectCommand::Strategy { project, strategy } => {
            engine.set_strategy(project, strategy).await?;
            println!("project {project} now uses {strategy}");
        }
        ProjectCommand::Bed { project, file, add, gain, no_duck, remove } => {
            match (file, remove) {
                (Some(file), _) if add => {
                    let (stem, seconds) = engine.add_bed_stem(project, &file, gain, !no_duck).await?;
                    println!("bed stem {} added: {} ({seconds:.1} s)", stem.id, stem.file);
                }
                (Some(file), _) => {
                    let (path, seconds) = engine.set_bed(project, &file).await?;
                    println!("bed set: {} ({seconds:.1} s)", path.display());
                }
                (None, Some(stem)) => {
                    engine.store().project(project).await?;
                    engine.store().remove_bed_stem(project, stem).await?;
                    println!("bed stem {stem} removed");
                }
                (None, None) => {}
            }
            let stems = engine.store().bed_stems(project).await?;
            if stems.is_empty() {
                println!("project {project} has no bed");
            }
            for stem in stems {
                println!("  stem {:>3}  {:+5.1} dB  {}  {}", stem.id, stem.gain_db, if stem.ducked { "ducks   " } else { "no ducking" }, stem.file);
            }
        }
        ProjectCommand::Save { project, file } => {
            let document = revoice_engine::dub::project_file::export(store, project).await?;
            let text = serde_json::to_string_pretty(&document).expect("project serialises");
            revoice_engine::fsutil::write_atomically(&file, text.as_bytes())?;
            println!("saved project {project} to {}", file.display());
        }
        ProjectCommand::Load { file } => {
            let text = std::fs::read_to_string(&file).map_err(|e| Error::io("read", &file, e))?;
            let document = revoice_engine::dub::project_file::parse(&text, &file.display().to_string())?;
            let id = revoice_engine::dub::project_file::import(store, &document).await?;
            println!("created project {id} \"{}\" from {}", document.name, file.display());
        }
        ProjectCommand::Translate { project, to, from, translator, again, overwrite_edited, notes } => {
            let request = revoice_engine::translating::TranslateRequest { project_id: project, from, to, translator, again, overwrite_edited, notes };
            if !translate::run(engine, request).await? {
                return Ok(ExitCode::from(1));
            }
        }
        ProjectCommand::Glossary { project, command } => glossary::run(engine, project, command).await?,
        ProjectCommand::Render { project, check } => {
            render(engine, project, check).await?;
            if check {
                // Every line was heard (and a failing one taken again) beside the render: the verdicts are stored.
                let qc = ProjectCommand::Qc { project, again: false, retake: true, json: false };
                return Box::pin(run(engine, qc)).await;
            }
        }
        ProjectCommand::Play { project, from, to, looping, segment, language, device, original } => {
            let device = device.unwrap_or_else(|| engine.config().settings.audio.output_device.clone());
            let original = crate::play::parse_monitor(original.as_deref())?;
            let request = crate::play::PlayRequest { project, from, to, looping, segment, language, device, original };
            crate::play::play(engine, request).await?
        }
        ProjectCommand::Qc { project, again, retake, json } => {
            let checking = engine.clone();
            let lines = tokio::task::spawn_blocking(move || {
                let bar = indicatif::ProgressBar::new(0);
                let request = revoice_engine::checking::ListenRequest { only: None, again, retake };
                let result = checking.listen_back(project, &request, &AtomicBool::new(false), &mut |event| match event {
                    revoice_engine::checking::ListenEvent::Retaking { segment_id } => bar.set_message(format!("taking line {segment_id} again")),
                    revoice_engine::checking::ListenEvent::Checked { done, total, .. } => {
                        bar.set_length(total as u64);
                        bar.set_position(done as u64);
                    }
                });
                bar.finish_and_clear();
                result
            })
            .await
            .expect("check thread")?;
            if json {
                println!("{}", serde_json::to_string_pretty(&lines).expect("report serialises"));
            } else {
                for line in &lines {
                    let mark = match (line.passed(), line.retaken) {
                        (true, false) => "pass",
                        (true, true) => "pass (re-taken)",
                        (false, false) => "FAIL",
                        (false, true) => "FAIL (re-taken too)",
                    };
                    println!("{:>5}  {mark}  {:>4.0} %  {:?}", line.segment_id, 100.0 * line.word_error_rate, line.text);
                    if !line.passed() {
                        println!("               heard: {:?}", line.heard);
                        for problem in &line.problems {
                            println!("               {problem}");
                        }
                    }
                }
                let passed = lines.iter().filter(|l| l.passed()).count();
                let fresh = lines.iter().filter(|l| l.fresh).count();
                let retaken = lines.iter().filter(|l| l.retaken).count();
                let retaken = if retaken > 0 { format!("; {retaken} taken again") } else { String::new() };
                println!("{passed} of {} rendered lines passed ({fresh} heard now, {} as checked before{retaken})", lines.len(), lines.len() - fresh);
            }
        }
        ProjectCommand::Export { project, out, format, loudness, with_video, handoff, sample_rate, bits, speaker_tags, strict } => {
            let handoff = revoice_engine::dub::handoff::HandoffFormat::parse_list(handoff.as_deref().unwrap_or(""))?;
            let audio = revoice_engine::dub::export::AudioDelivery::parse(&sample_rate, &bits)?;
            let selection =
                revoice_engine::dub::export::ExportSelection { handoff, with_video, speaker_tags, audio, refuse_flagged: strict, ..Default::default() };
            export(engine, project, &out, format, loudness, selection).await?;
        }
        ProjectCommand::Video { project, file, bed, language, remove } => match file {
            Some(file) if !remove => {
                let attached = engine.attach_video(project, &file, bed, language.as_deref()).await?;
                let i = &attached.info;
                println!(
                    "project {project}: picture {} ({} {}×{}, {:.3} fps, {:.2} s, {} audio streams)",
                    attached.path,
                    i.codec,
                    i.width,
                    i.height,
                    i.frame_rate,
                    i.duration_s,
                    i.audio.len()
                );
                if attached.original_dialogue {
                    println!("its audio is now the project's original dialogue");
                }
                if attached.bed {
                    println!("its audio is now the project's bed");
                } else if !i.audio.is_empty() {
                    println!("to use its audio as the bed: `revoice project video {project} FILE --bed` (or `project bed` with a separate M&E file)");
                }
            }
            _ => {
                engine.detach_video(project).await?;
                println!("project {project} has no picture now");
            }
        },
        ProjectCommand::Status { project } => status(engine, project).await?,
        ProjectCommand::Lines { project } => {
            let rate = engine.frame_rate(project).await?;
            for track in engine.project_lines(project).await? {
                println!("track {} (timecode at {rate})", track.track.language);
                for line in &track.lines {
                    let f = &line.segment.fields;
                    let speaker = track.speaker_name(f.speaker_id).map_or(String::new(), |name| format!("[{name}] "));
                    let take = if line.take.is_some() { "take" } else { "no take" };
                    let (start, end) = (timecode::format(f.start_s, rate), timecode::format(f.end_s, rate));
                    println!("{:>6}  {start} – {end}  {:<8} {speaker}{}", line.segment.id, take, f.text);
                }
            }
        }
        ProjectCommand::FrameRate { project, rate } => match rate {
            Some(rate) => println!("project {project}'s timecode now runs at {}", engine.set_frame_rate(project, &rate).await?),
            None => println!("{}", engine.frame_rate(project).await?),
        },
        ProjectCommand::Lane { project, speaker, mute, unmute, solo, unsolo, level } => {
            let speaker_id = match speaker.trim() {
                s if s.eq_ignore_ascii_case("none") || s.eq_ignore_ascii_case(revoice_engine::NO_SPEAKER_LANE) => None,
                s => Some(engine.speaker_named(project, s).await?.id),
            };
            let either = |on: bool, off: bool| {
                if on {
                    Some(true)
                } else if off {
                    Some(false)
                } else {
                    None
                }
            };
            let edit = revoice_engine::LaneMixEdit { muted: either(mute, unmute), solo: either(solo, unsolo), level_db: level };
            if edit != revoice_engine::LaneMixEdit::default() {
                engine.set_lane_mix(project, speaker_id, edit).await?;
            }
            print_lanes(engine, project).await?;
        }
        ProjectCommand::Markers { project, command } => markers(engine, project, command.unwrap_or(MarkerCommand::List)).await?,
        ProjectCommand::Replace { project, find, replace, track, match_case, whole_word } => {
            let track = engine.existing_track(project, track.as_deref()).await?;
            let options = revoice_engine::ReplaceOptions { match_case, whole_word, only: None };
            let (count, changed) = engine.replace_text(track.id, &find, &replace, &options).await?;
            println!("replaced {find:?} with {replace:?} in {count} {} of the {} track", if count == 1 { "line" } else { "lines" }, track.language);
            for line in changed {
                println!("{:>6}  {}", line.id, line.fields.text);
            }
        }
        ProjectCommand::Undo { project } => match engine.undo(project).await? {
            Some(what) => println!("undid: {what}"),
            None => println!("nothing to undo"),
        },
        ProjectCommand::Redo { project } => match engine.redo(project).await? {
            Some(what) => println!("redid: {what}"),
            None => println!("nothing to redo"),
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// Every lane of the project: each speaker's, then the lines without one.
async fn print_lanes(engine: &Engine, project: i64) -> Result<()> {
    let view = engine.store();
    let lanes = revoice_engine::dub::lanes::LaneMixes::new(view.lane_mixes(project).await?);
    let mut rows: Vec<(String, Option<i64>)> = view.speakers(project).await?.into_iter().map(|s| (s.name, Some(s.id))).collect();
    rows.push((revoice_engine::NO_SPEAKER_LANE.to_string(), None));
    for (name, id) in rows {
        let mix = lanes.mix(id);
        let heard = if lanes.audible(id) { "heard" } else { "silent" };
        println!("  {name:<16} {:<6} {:<5} {:+6.1} dB  {heard}", if mix.muted { "muted" } else { "" }, if mix.solo { "solo" } else { "" }, mix.level_db);
    }
    Ok(())
}

async fn markers(engine: &Engine, project: i64, command: MarkerCommand) -> Result<()> {
    let rate = engine.frame_rate(project).await?;
    match command {
        MarkerCommand::Add { at, name } => {
            let marker = engine.add_marker(project, timecode::parse(&at, rate)?, &name).await?;
            println!("marker {} {:?} at {}", marker.id, marker.name, timecode::format(marker.at_seconds, rate));
        }
        MarkerCommand::Rename { marker, name } => {
            let marker = engine.rename_marker(marker, &name).await?;
            println!("marker {} is now {:?}", marker.id, marker.name);
        }
        MarkerCommand::Move { marker, at } => {
            let marker = engine.move_marker(marker, timecode::parse(&at, rate)?).await?;
            println!("marker {} {:?} now at {}", marker.id, marker.name, timecode::format(marker.at_seconds, rate));
        }
        MarkerCommand::Remove { marker } => {
            engine.remove_marker(marker).await?;
            println!("marker {marker} removed");
        }
        MarkerCommand::List => {}
    }
    let all = engine.markers(project).await?;
    if all.is_empty() {
        println!("project {project} has no markers");
    }
    for m in all {
        println!("{:>6}  {}  {}", m.id, timecode::format(m.at_seconds, rate), m.name);
    }
    Ok(())
}

async fn cast(engine: &Engine, command: CastCommand) -> Result<()> {
    let print = |sheet: &revoice_engine::store::CastSheet| {
        println!("cast {:?}: {} speakers", sheet.name, sheet.members.len());
        for member in &sheet.members {
            let own: Vec<String> = member.language_voices.iter().map(|(l, v)| format!("{l}: {v}")).collect();
            let own = if own.is_empty() { String::new() } else { format!(" ({})", own.join(", ")) };
            println!("  {:<16} {}{own}", member.speaker, member.voice);
        }
    };
    match command {
        CastCommand::Save { project, name } => {
            let sheet = engine.save_cast(project, &name).await?;
            print(&sheet);
            println!("start the next episode with `revoice project new NAME --cast {:?}`", sheet.name);
        }
        CastCommand::List => {
            let sheets = engine.cast_sheets().await?;
            if sheets.is_empty() {
                println!("no cast sheets yet: `revoice project cast save PROJECT NAME`");
            }
            sheets.iter().for_each(print);
        }
        CastCommand::Delete { name } => {
            engine.store().delete_cast(&name).await?;
            println!("deleted cast sheet {name:?}");
        }
    }
    Ok(())
}

/// Renders `project`; with `check`, each line is heard back as the render
/// finishes it ([`Engine::render_and_listen`]).
async fn render(engine: &Arc<Engine>, project: i64, check: bool) -> Result<()> {
    engine.store().project(project).await?;
    for job in engine.interrupted_renders().iter().filter(|j| j.project_id == project) {
        eprintln!("a render of project {} was interrupted at {}/{} lines; it resumes with this one", job.project_id, job.done, job.total);
    }
    let rendering = engine.clone();
    let (summary, took) = tokio::task::spawn_blocking(move || -> Result<_> {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} lines ({msg}) {elapsed}").expect("template"));
        let started = std::time::Instant::now();
        let never = AtomicBool::new(false);
        let heard = std::cell::Cell::new(0);
        let mut show = |p: &revoice_engine::dub::pipeline::RenderProgress| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            let heard = if check { format!(", {} heard back", heard.get()) } else { String::new() };
            bar.set_message(format!("{} synthesised{heard}", p.rendered));
        };
        let summary = if check {
            let mut on_heard = |event: revoice_engine::checking::ListenEvent| {
                if let revoice_engine::checking::ListenEvent::Checked { done, .. } = event {
                    heard.set(done);
                }
            };
            rendering.render_and_listen(project, &RenderScope::default(), &Arc::new(AtomicBool::new(false)), &mut show, &mut on_heard)?.render
        } else {
            rendering.render_project(project, &RenderScope::default(), &never, &mut show)?
        };
        bar.finish_and_clear();
        Ok((summary, started.elapsed()))
    })
    .await
    .expect("render thread")?;
    println!("rendered {} of {} lines ({} already current) in {:.1} s", summary.rendered, summary.segments, summary.fresh, took.as_secs_f64());
    for (segment, reason) in &summary.failed {
        eprintln!("  segment {segment} failed: {reason}");
    }
    for f in &summary.failovers {
        let secs = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{s:.2} s"));
        eprintln!(
            "  failover: {} was taken out ({}); its {} lines went to other servers after {}, all rendered {} after the fault",
            f.server,
            f.reason,
            f.lines,
            secs(f.resent_after_s),
            secs(f.recovered_after_s)
        );
    }
    for remote in engine.remote().status() {
        for s in &remote.servers {
            let state = if s.up { "up".to_string() } else { format!("out: {}", s.problem.clone().unwrap_or_default()) };
            let pace = s.ms_per_line.map_or(String::new(), |ms| format!(", {ms:.0} ms a line"));
            println!("  {}: {} {} lines{pace}, {} faults, {state}", remote.name, s.url, s.lines_done, s.failures);
        }
    }
    if summary.failed.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid(format!("project {project}"), format!("{} lines could not be rendered (see above)", summary.failed.len())))
    }
}

async fn status(engine: &Arc<Engine>, project: i64) -> Result<()> {
    let p = engine.store().project(project).await?;
    let beds = engine.store().bed_stems(project).await?;
    let bed = match beds.len() {
        0 => "none".to_string(),
        1 => beds[0].file.clone(),
        n => format!("{n} stems"),
    };
    println!("project {} \"{}\" (timing: {}, bed: {bed}, picture: {})", p.id, p.name, p.timing_strategy, p.video_file.as_deref().unwrap_or("none"));
    for s in engine.store().speakers(project).await? {
        let own: Vec<String> = s.language_voices().into_iter().map(|(l, v)| format!("{l}: {v}")).collect();
        let own = if own.is_empty() { String::new() } else { format!(" ({})", own.join(", ")) };
        println!("  speaker {:<16} voice {}{own}", s.name, s.voice);
    }
    for track in engine.project_lines(project).await? {
        let with_take = track.lines.iter().filter(|l| l.take.is_some()).count();
        let end = track.lines.iter().map(|l| l.slot.end).fold(0.0, f64::max);
        println!("  track {}: {} lines, {} with a take, {:.1} s long", track.track.language, track.lines.len(), with_take, end);
    }
    match crate::fit_report::fits(engine, project).await {
        Ok(fits) => crate::fit_report::print_problems(&fits),
        Err(e) => eprintln!("  the lines' lengths could not be predicted: {e}"),
    }
    Ok(())
}

async fn export(
    engine: &Arc<Engine>,
    project: i64,
    out: &Path,
    format: Format,
    loudness: String,
    selection: revoice_engine::dub::export::ExportSelection,
) -> Result<()> {
    use revoice_engine::dub::export::ExportFormat;
    let name = engine.store().project(project).await?.name;
    let format = match format {
        Format::Wav => ExportFormat::Wav,
        Format::Flac => ExportFormat::Flac,
        Format::Mp3 => ExportFormat::Mp3,
    };
    let loudness = revoice_engine::dub::export::LoudnessSpec::parse(&loudness)?;
    let request = ExportRequest { folder: out.to_path_buf(), format, loudness, selection };
    let exporting = engine.clone();
    tokio::task::spawn_blocking(move || -> Result<()> {
        let started = std::time::Instant::now();
        let bar = indicatif::ProgressBar::new(1000);
        let export = exporting.export_project(project, &request, &mut |f| bar.set_position((f * 1000.0) as u64))?;
        bar.finish_and_clear();
        let tracks = &export.tracks;
        let took = started.elapsed().as_secs_f64();
        let programme: f64 = tracks.iter().map(|t| t.report.duration_s).sum();
        for track in tracks {
            let report = &track.report;
            println!("{name} ({}): {:.2} s, {}", track.language, report.duration_s, report.delivery.summary());
            for file in report.files.iter().map(|f| &f.path).chain(&track.handoff) {
                println!("  {}", file.display());
            }
        }
        if let Some(video) = &export.video {
            println!("{name} with its picture: {}", video.display());
        }
        println!("exported {programme:.2} s of programme in {took:.1} s ({:.0}x real time)", programme / took.max(1e-9));
        if !export.flagged.is_empty() {
            eprintln!(
                "warning: {} exported lines are flagged (`revoice project fit {project}`, `project qc {project}`; `--strict` refuses them):",
                export.flagged.len()
            );
            for line in &export.flagged {
                let flags: Vec<String> = line.flags.iter().map(|f| f.describe()).collect();
                eprintln!("  line {} ({}, segment {}): {}: {:?}", line.number, line.language, line.segment_id, flags.join(", "), line.text);
            }
        }
        Ok(())
    })
    .await
    .expect("export thread")
}
