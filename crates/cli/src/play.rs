//! `revoice project play`: a track on the timeline through the audio
//! output, with commands typed while it plays (pause, play, seek, loop,
//! status, quit), or one line previewed as it renders. Prints the time to
//! first audio and to first voice from the play request.

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use std::sync::Arc;

use revoice_engine::audio::live::LivePlayback;
use revoice_engine::dub::mix::MixSettings;
use revoice_engine::dub::player::{empty_programme, Feed};
use revoice_engine::dub::programme::OriginalMonitor;
use revoice_engine::dub::transport::{Transport, TransportState};
use revoice_engine::speech::SpeechStack;
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

fn print_state(state: &TransportState) {
    let looping = state.looping.map_or(String::new(), |(a, b)| format!(", looping {a:.2}–{b:.2} s"));
    let doing = if state.playing {
        "playing"
    } else if state.ended {
        "ended"
    } else {
        "paused"
    };
    println!("{doing} at {:.2} of {:.2} s{looping}", state.position_s, state.length_s);
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

/// The track on the timeline.
fn timeline(engine: &Engine, project: &Project, track: &Track, request: &PlayRequest) -> Result<()> {
    let mix = MixSettings::default();
    let mut lines = engine.runtime().block_on(engine.track_lines(track.id))?;
    let programme = empty_programme(project, &lines, &mix, request.original)?;
    let transport = Transport::open(&request.device, programme)?;
    let length = transport.state().length_s;
    let from = request.from.clamp(0.0, length);
    let to = request.to.map(|t| t.clamp(from, length));
    transport.seek(from);
    if request.looping {
        transport.set_loop(Some((from, to.unwrap_or(length))));
    }
    transport.play();
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

    let stop_feeding = AtomicBool::new(false);
    let speech: OnceLock<Arc<SpeechStack>> = OnceLock::new();
    let outcome = std::thread::scope(|scope| {
        let feeder = scope.spawn(|| {
            let open_renderer = || {
                let loaded = engine.speech()?;
                Ok(engine.project_renderer(speech.get_or_init(|| loaded)))
            };
            let feed = Feed { runtime: engine.runtime(), store: engine.store(), segments: engine.segments(), transport: &transport, project };
            feed.run(&mut lines, from, &stop_feeding, open_renderer, &mut |note| eprintln!("{note}"))
        });
        let (mut told_sound, mut told_voice) = (false, false);
        let mut looping = request.looping;
        let result = loop {
            match typed.recv_timeout(Duration::from_millis(50)) {
                Ok(line) => match parse_command(&line) {
                    Ok(Command::Play) => {
                        transport.play();
                        (told_sound, told_voice) = (false, false);
                    }
                    Ok(Command::Pause) => transport.pause(),
                    Ok(Command::Seek(s)) => transport.seek(s),
                    Ok(Command::Loop(a, b)) => {
                        transport.set_loop(Some((a, b)));
                        looping = true;
                    }
                    Ok(Command::NoLoop) => {
                        transport.set_loop(None);
                        looping = false;
                    }
                    Ok(Command::Status) => print_state(&transport.state()),
                    Ok(Command::Quit) => break Ok(()),
                    Err(message) => eprintln!("{message}"),
                },
                Err(RecvTimeoutError::Timeout) => {}
                // Nothing more will be typed (stdin closed): play on.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(Duration::from_millis(50)),
            }
            let state = transport.state();
            if let (false, Some(t)) = (told_sound, state.first_sound) {
                println!("first audio {:.0} ms after the play request", t.as_secs_f64() * 1000.0);
                told_sound = true;
            }
            if let (false, Some(t)) = (told_voice, state.first_voice) {
                println!("first voice {:.0} ms after the play request", t.as_secs_f64() * 1000.0);
                told_voice = true;
            }
            if let (false, Some(t)) = (looping, to) {
                if state.playing && state.position_s >= t {
                    transport.pause();
                    break Ok(());
                }
            }
            if state.ended {
                break Ok(());
            }
        };
        print_state(&transport.state());
        stop_feeding.store(true, Ordering::Release);
        let fed = feeder.join().expect("feeder thread");
        result.and(fed)
    })?;
    println!("{} lines from the store, {} rendered while playing", outcome.from_store, outcome.render.as_ref().map_or(0, |r| r.rendered));
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
