//! `revoice project play`: a track on the timeline through the audio
//! output, with commands typed while it plays (pause, play, seek, loop,
//! status, quit), or one line previewed as it renders. Prints the time to
//! first audio and to first voice from the play request.

use std::io::BufRead;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use revoice_engine::audio::live::LivePlayback;
use revoice_engine::dub::player::{Playback, PlaybackView, RenderNote};
use revoice_engine::dub::programme::OriginalMonitor;
use revoice_engine::store::{Project, Track};
use revoice_engine::{Engine, Error, Result};

/// What to play.
pub struct PlayRequest {
    pub project: i64,
    pub from: f64,
    pub to: Option<f64>,
    pub looping: bool,
    pub segment: Option<i64>,
    pub language: Option<String>,
    pub device: String,
    /// How the original dialogue is heard.
    pub original: OriginalMonitor,
}

/// `solo`, `off` or a level in dB (`-12`): how the original dialogue is heard.
pub fn parse_monitor(text: Option<&str>) -> Result<OriginalMonitor> {
    match text.map(|t| t.trim().to_ascii_lowercase()) {
        None => Ok(OriginalMonitor::Off),
        Some(t) if t == "off" => Ok(OriginalMonitor::Off),
        Some(t) if t == "solo" => Ok(OriginalMonitor::Solo),
        Some(t) => match t.trim_end_matches("db").trim().parse::<f32>() {
            Ok(gain_db) if (-60.0..=12.0).contains(&gain_db) => Ok(OriginalMonitor::Under { gain_db }),
            _ => Err(revoice_engine::Error::invalid(format!("--original {t:?}"), "say solo, off, or a level in dB from -60 to 12 (e.g. -12)")),
        },
    }
}

/// A command typed while playing.
#[derive(Debug, Clone, PartialEq)]
enum Command {
    Play,
    Pause,
    Seek(f64),
    Loop(f64, f64),
    NoLoop,
    Status,
    Quit,
}

fn parse_command(line: &str) -> std::result::Result<Command, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| -> std::result::Result<f64, String> {
        words
            .get(i)
            .ok_or_else(|| format!("{line:?}: a time in seconds is missing"))?
            .parse::<f64>()
            .map_err(|_| format!("{line:?}: {:?} is not a time in seconds", words[i]))
    };
    match words.first().copied() {
        Some("play" | "p") => Ok(Command::Play),
        Some("pause" | "stop") => Ok(Command::Pause),
        Some("seek" | "s") => Ok(Command::Seek(number(1)?)),
        Some("loop" | "l") => Ok(Command::Loop(number(1)?, number(2)?)),
        Some("noloop") => Ok(Command::NoLoop),
        Some("status" | "?") => Ok(Command::Status),
        Some("quit" | "q" | "exit") => Ok(Command::Quit),
        _ => Err(format!("{line:?}: commands are play, pause, seek S, loop A B, noloop, status, quit")),
    }
}

fn print_state(view: &PlaybackView) {
    let looping = view.looping.map_or(String::new(), |(a, b)| format!(", looping {a:.2}–{b:.2} s"));
    let doing = if view.playing {
        "playing"
    } else if view.ended {
        "ended"
    } else {
        "paused"
    };
    println!("{doing} at {:.2} of {:.2} s{looping}", view.position, view.length);
}

pub async fn play(engine: &Arc<Engine>, request: PlayRequest) -> Result<()> {
    let project = engine.store().project(request.project).await?;
    let track = engine.existing_track(project.id, request.language.as_deref()).await?;
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || match request.segment {
        Some(segment) => preview(&engine, &project, segment, &request.device),
        None => timeline(&engine, &project, &track, &request),
    })
    .await
    .expect("playback thread")
}

/// One line alone, streamed as it renders (or read, when it is current).
fn preview(engine: &Engine, project: &Project, segment: i64, device: &str) -> Result<()> {
    if engine.runtime().block_on(engine.project_of_line(segment))? != project.id {
        return Err(Error::not_found(format!("segment {segment}"), format!("is not in project {}", project.id)));
    }
    let loading = Instant::now();
    let speech = engine.speech()?;
    let loaded = loading.elapsed();
    let requested = Instant::now();
    let mut live = LivePlayback::open(device, speech.sample_rate())?;
    let never = AtomicBool::new(false);
    let samples = engine.stream_line(segment, &never, &mut |chunk| live.push(chunk))?;
    let rendered = requested.elapsed();
    let first = live.finish()?.first_sound;
    let audio = samples.len() as f64 / speech.sample_rate() as f64;
    println!(
        "segment {segment}: first audio {} after the play request; {audio:.2} s of audio ready after {:.2} s (RTF {:.2}); model loaded in {:.2} s",
        first.map_or("never (silent line)".to_string(), |d| format!("{:.0} ms", d.as_secs_f64() * 1000.0)),
        rendered.as_secs_f64(),
        rendered.as_secs_f64() / audio.max(1e-9),
        loaded.as_secs_f64()
    );
    Ok(())
}

/// What rendering the missing lines while playing has done, told as it goes.
#[derive(Default)]
struct Rendered {
    from_store: usize,
    rendered: usize,
    failure: Option<Error>,
}

impl Rendered {
    fn hear(&mut self, note: RenderNote) {
        match note {
            RenderNote::Laid { from_store, missing } => {
                self.from_store = from_store;
                eprintln!("{from_store} lines in place from the store");
                if missing > 0 {
                    eprintln!("{missing} lines are not rendered yet; rendering them in playhead order");
                }
            }
            RenderNote::LineRendered { segment_id, done, total } => eprintln!("segment {segment_id} rendered and in place ({done} of {total} lines current)"),
            RenderNote::Ended(Ok(summary)) => self.rendered = summary.rendered,
            RenderNote::Ended(Err(e)) => self.failure = Some(e),
        }
    }
}

/// The track on the timeline, its missing lines rendering as it plays.
fn timeline(engine: &Arc<Engine>, project: &Project, track: &Track, request: &PlayRequest) -> Result<()> {
    let playback = Playback::start(engine.clone(), Arc::new(|_: &PlaybackView| {}))?;
    playback.use_device(&request.device);
    playback.set_original_monitor(request.original)?;
    let rendered = Arc::new(Mutex::new(Rendered::default()));
    let notes = rendered.clone();
    let from = request.from.max(0.0);
    playback.play_rendering_missing(project.id, track.id, from, None, move |note| notes.lock().expect("render notes").hear(note))?;
    let length = playback.view_now()?.length;
    let from = from.min(length);
    let to = request.to.map(|t| t.clamp(from, length));
    if request.looping {
        playback.set_loop(Some((from, to.unwrap_or(length))))?;
    }
    println!("playing \"{}\" ({}) from {from:.2} s; the programme is {length:.2} s", project.name, track.language);

    let (commands, typed) = channel();
    // A detached reader: a read from stdin cannot be interrupted, and the
    // process ends with playback anyway.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if !line.trim().is_empty() && commands.send(line).is_err() {
                break;
            }
        }
    });

    let (mut told_sound, mut told_voice) = (false, false);
    let mut looping = request.looping;
    loop {
        match typed.recv_timeout(Duration::from_millis(50)) {
            Ok(line) => match parse_command(&line) {
                Ok(Command::Play) => {
                    playback.resume()?;
                    (told_sound, told_voice) = (false, false);
                }
                Ok(Command::Pause) => playback.pause()?,
                Ok(Command::Seek(s)) => playback.seek(s)?,
                Ok(Command::Loop(a, b)) => {
                    playback.set_loop(Some((a, b)))?;
                    looping = true;
                }
                Ok(Command::NoLoop) => {
                    playback.set_loop(None)?;
                    looping = false;
                }
                Ok(Command::Status) => print_state(&playback.view_now()?),
                Ok(Command::Quit) => break,
                Err(message) => eprintln!("{message}"),
            },
            Err(RecvTimeoutError::Timeout) => {}
            // Nothing more will be typed (stdin closed): play on.
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(Duration::from_millis(50)),
        }
        let view = playback.view_now()?;
        if let (false, Some(ms)) = (told_sound, view.first_sound_ms) {
            println!("first audio {ms:.0} ms after the play request");
            told_sound = true;
        }
        if let (false, Some(ms)) = (told_voice, view.first_voice_ms) {
            println!("first voice {ms:.0} ms after the play request");
            told_voice = true;
        }
        if let (false, Some(t)) = (looping, to) {
            if view.playing && view.position >= t {
                playback.pause()?;
                break;
            }
        }
        if view.ended {
            break;
        }
    }
    print_state(&playback.view_now()?);
    playback.stop()?;
    let Rendered { from_store, rendered, failure } = std::mem::take(&mut *rendered.lock().expect("render notes"));
    if let Some(e) = failure {
        return Err(e);
    }
    println!("{from_store} lines from the store, {rendered} rendered while playing");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_commands_parse_and_bad_ones_say_what_is_wrong() {
        assert_eq!(parse_command("seek 12.5"), Ok(Command::Seek(12.5)));
        assert_eq!(parse_command("loop 2 4"), Ok(Command::Loop(2.0, 4.0)));
        assert_eq!(parse_command(" pause "), Ok(Command::Pause));
        assert!(parse_command("seek soon").unwrap_err().contains("\"soon\" is not a time"));
        assert!(parse_command("loop 2").unwrap_err().contains("missing"));
        assert!(parse_command("rewind").unwrap_err().contains("commands are"));
    }
}
