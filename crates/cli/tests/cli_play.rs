//! `revoice project play` end to end on the real model and a null audio
//! device: the timeline starts at once over the bed, lines that are not
//! rendered render while it plays and join it, typed commands drive the
//! transport, and a line previewed alone streams as it renders.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

fn revoice(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_revoice"))
        .arg("--data-dir")
        .arg(revoice_engine::model::testing::installed_data_dir())
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("revoice runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn new_project(dir: &std::path::Path, name: &str, lines: &[&str]) -> String {
    let script = dir.join("scene.srt");
    let srt: String =
        lines.iter().enumerate().map(|(i, text)| format!("{}\n00:00:{:02},000 --> 00:00:{:02},500\n{text}\n\n", i + 1, 3 * i, 3 * i + 2)).collect();
    std::fs::write(&script, srt).unwrap();
    let (ok, out, err) = revoice(&["project", "new", name]);
    assert!(ok, "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    let (ok, out, err) = revoice(&["project", "import", &id, script.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    id
}

/// A `revoice project play` process with its output collected line by line.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_revoice"))
            .arg("--data-dir")
            .arg(revoice_engine::model::testing::installed_data_dir())
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = channel();
        for pipe in [Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>, Box::new(child.stderr.take().unwrap())] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        let stdin = child.stdin.take().unwrap();
        Session { child, stdin, lines, seen: Vec::new() }
    }

    fn wait_for(&mut self, needle: &str) {
        while !self.seen.iter().any(|l| l.contains(needle)) {
            match self.lines.recv_timeout(Duration::from_secs(600)) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("never printed {needle:?}; output so far:\n{}", self.seen.join("\n")),
            }
        }
    }

    fn type_line(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").unwrap();
    }

    /// Quits and returns everything it printed.
    fn quit(mut self) -> Vec<String> {
        self.type_line("quit");
        assert!(self.child.wait().unwrap().success(), "{}", self.seen.join("\n"));
        self.seen.extend(self.lines.iter());
        self.seen
    }
}

#[test]
fn the_timeline_plays_at_once_renders_what_is_missing_and_obeys_typed_commands() {
    let dir = tempfile::tempdir().unwrap();
    let id = new_project(dir.path(), "Play along", &["[Ana] The boats are in.", "[Ben] Then light the lamp.", "[Ana] It is lit."]);
    let bed = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/demo/harbour-bed.wav");
    assert!(revoice(&["project", "bed", &id, bed]).0);

    let mut play = Session::start(&["project", "play", &id, "--from", "0", "--to", "8.5", "--loop"]);
    // The bed is heard at once; the lines render in playhead order meanwhile.
    play.wait_for("first audio");
    play.wait_for("3 lines are not rendered yet");
    play.wait_for("(3 of 3 lines current)");
    assert_eq!(play.seen.iter().filter(|l| l.contains("rendered and in place")).count(), 3, "{:?}", play.seen);
    // Looping, the lines now in the programme are heard.
    play.wait_for("first voice");
    play.type_line("loop 3 4.5");
    play.type_line("status");
    play.wait_for("looping 3.00–4.50 s");
    play.type_line("pause");
    play.type_line("seek 7.25");
    play.type_line("status");
    play.wait_for("paused at 7.25 of 8.50 s");
    play.type_line("rewind");
    play.wait_for("commands are play, pause");
    let seen = play.quit();
    assert!(seen.iter().any(|l| l.contains("0 lines from the store, 3 rendered while playing")), "{seen:?}");

    let (_, out, _) = revoice(&["project", "status", &id]);
    assert!(out.contains("3 lines, 3 with a take"), "lines rendered while playing are kept: {out}");

    // Played again, every line comes from the store and nothing renders.
    let mut again = Session::start(&["project", "play", &id, "--from", "0", "--to", "8.5", "--loop"]);
    again.wait_for("3 lines in place from the store");
    again.wait_for("first voice");
    let seen = again.quit();
    assert!(seen.iter().any(|l| l.contains("3 lines from the store, 0 rendered while playing")), "{seen:?}");
    assert!(!seen.iter().any(|l| l.contains("not rendered yet")), "{seen:?}");
}

#[test]
fn a_line_previewed_before_it_is_rendered_streams_and_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let id = new_project(dir.path(), "Preview", &["[Ana] A line nobody has rendered yet."]);
    let (_, out, _) = revoice(&["project", "status", &id]);
    assert!(out.contains("1 lines, 0 with a take"), "{out}");
    let (_, lines, _) = revoice(&["project", "lines", &id]);
    let segment = lines.lines().find(|l| l.contains("A line nobody")).and_then(|l| l.split_whitespace().next()).expect("the line is listed").to_string();
    assert!(lines.contains("no take"), "{lines}");
    let (ok, out, err) = revoice(&["project", "play", &id, "--segment", &segment]);
    assert!(ok, "{err}");
    assert!(out.contains(&format!("segment {segment}: first audio")) && out.contains(" ms after the play request"), "{out}");
    let (_, out, _) = revoice(&["project", "status", &id]);
    assert!(out.contains("1 lines, 1 with a take"), "the streamed line is kept as its take: {out}");

    let (ok, _, err) = revoice(&["project", "play", &id, "--segment", "999999"]);
    assert!(!ok && err.contains("segment 999999"), "{err}");
}

#[test]
fn an_output_device_that_is_not_there_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let id = new_project(dir.path(), "No device", &["[Ana] Hello."]);
    let (ok, _, err) = revoice(&["project", "play", &id, "--device", "alsa:no-such-card"]);
    assert!(!ok && err.contains("alsa:no-such-card") && err.contains("not present"), "{err}");
}
