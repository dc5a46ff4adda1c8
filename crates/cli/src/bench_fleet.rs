//! `revoice bench fleet`: a project of distinct lines rendered by the
//! in-process engine, then through remote engines of 1, 2 and 3 local
//! `revoice serve` nodes (each its own process and data folder over the
//! same models); the dispatch overhead per line (the same lines again,
//! every one answered from the nodes' render caches); the failover time
//! when a node is killed mid-render; and peak memory of this process and
//! of each node. On a machine with few cores the nodes share them, so
//! the figures say what the fleet costs here, not what it gains on
//! separate machines.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use revoice_engine::config::RemoteEngineSettings;
use revoice_engine::dub::pipeline::{RenderScope, RenderSummary};
use revoice_engine::subtitles::{parse_srt, Cue};
use revoice_engine::{Engine, EngineConfig, Error, Result};

use crate::bench::memory_mib;

/// A `revoice serve` process on loopback over the bench's models.
struct Node {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

fn scratch(models: &Path) -> Result<tempfile::TempDir> {
    let dir = tempfile::tempdir().map_err(|e| Error::io("create", std::env::temp_dir(), e))?;
    std::os::unix::fs::symlink(models.join("models"), dir.path().join("models")).map_err(|e| Error::io("link the models into", dir.path(), e))?;
    Ok(dir)
}

impl Node {
    fn start(data_dir: &Path) -> Result<Node> {
        let dir = scratch(data_dir)?;
        let failed = |e: std::io::Error| Error::io("start a node:", "revoice serve", e);
        std::fs::write(dir.path().join("config.toml"), "[api]\nfit_uploaded_voices = false\n").map_err(failed)?;
        let exe = std::env::current_exe().map_err(failed)?;
        let mut child = Command::new(exe)
            .arg("--data-dir")
            .arg(dir.path())
            .args(["serve", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(failed)?;
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) if line.contains("http://") => break line[line.find("http://").expect("found")..].trim().to_string(),
                Some(_) => continue,
                None => return Err(Error::internal("revoice serve", "it stopped before saying its address")),
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        let deadline = Instant::now() + Duration::from_secs(300);
        while ureq::get(&format!("{url}/health")).call().map(|r| r.status().as_u16()).unwrap_or(0) != 200 {
            if Instant::now() > deadline {
                return Err(Error::internal(format!("node {url}"), "its model did not load in 5 minutes"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(Node { child, url, _dir: dir })
    }

    /// Peak resident memory, MiB.
    fn peak_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `lines` distinct lines from the demo script (a run name and a line number in front, so
/// no line is any other run's and no render cache helps), on two speakers.
fn cues(run: &str, lines: usize) -> Result<Vec<Cue>> {
    let demo = parse_srt(include_str!("../../../assets/demo/lighthouse.srt"), "lighthouse.srt")?;
    let period = demo.last().map(|c| c.end + 4.0).unwrap_or(4.0);
    Ok((0..lines)
        .map(|i| {
            let c = &demo[i % demo.len()];
            let shift = (i / demo.len()) as f64 * period;
            Cue { start: c.start + shift, end: c.end + shift + 1.5, text: format!("{run} {}. {}", i + 1, c.text), ..c.clone() }
        })
        .collect())
}

/// A new project of `cues` voiced with `voice`, rendered; its summary and seconds.
fn render(engine: &Engine, run: &str, cues: &[Cue], voice: &str, on_progress: &mut dyn FnMut(&Engine, usize)) -> Result<(RenderSummary, f64)> {
    let rt = tokio::runtime::Handle::current();
    let (project, track) = rt.block_on(engine.create_project(run, "en-US"))?;
    rt.block_on(engine.store().import_cues(&track, cues))?;
    rt.block_on(engine.store().set_timing_strategy(project.id, "natural"))?;
    for s in rt.block_on(engine.store().speakers(project.id))? {
        rt.block_on(engine.set_speaker_voice(project.id, s.id, voice, None))?;
    }
    rerender(engine, project.id, run, cues.len(), on_progress)
}

/// Renders what is stale in `project`; its summary and seconds.
fn rerender(engine: &Engine, project: i64, run: &str, lines: usize, on_progress: &mut dyn FnMut(&Engine, usize)) -> Result<(RenderSummary, f64)> {
    let bar = indicatif::ProgressBar::new(lines as u64);
    bar.set_message(run.to_string());
    let started = Instant::now();
    let summary = engine.render_project(project, &RenderScope::default(), &AtomicBool::new(false), &mut |p| {
        bar.set_position(p.done as u64);
        if p.finished.is_some() {
            on_progress(engine, p.done);
        }
    })?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if let Some((line, why)) = summary.failed.first() {
        return Err(Error::internal(format!("bench fleet, {run}"), format!("{} lines failed; line {line}: {why}", summary.failed.len())));
    }
    Ok((summary, seconds))
}

/// Runs the benchmark and prints the report.
pub fn fleet(data_dir: &Path, lines: usize) -> Result<()> {
    let rt = tokio::runtime::Handle::current();
    println!("revoice bench fleet: {lines} distinct lines, af_bella, natural timing; nodes are `revoice serve` processes on loopback");
    let started = Instant::now();
    let mut nodes = (0..3).map(|_| Node::start(data_dir)).collect::<Result<Vec<Node>>>()?;
    println!(
        "3 nodes up (models loaded) in {:.1} s; {} cores here, shared by every node and this process",
        started.elapsed().as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let studio = scratch(data_dir)?;
    let mut config = EngineConfig::load_from(studio.path().to_path_buf())?;
    for n in 1..=3 {
        let urls = nodes[..n].iter().map(|node| node.url.clone()).collect();
        config.save_remote_engine(&RemoteEngineSettings { name: format!("nodes{n}"), urls, api_key: String::new(), model: String::new(), timeout_s: None })?;
    }
    let engine = rt.block_on(Engine::open(config))?;
    engine.speech()?;

    println!();
    println!("{:<28} {:>9} {:>10} {:>12}", "render", "seconds", "lines/s", "vs in-process");
    let (_, local_s) = render(&engine, "Local", &cues("Local", lines)?, "af_bella", &mut |_, _| {})?;
    println!("{:<28} {local_s:>9.2} {:>10.2} {:>12.2}", "in-process engine", lines as f64 / local_s, 1.0);
    for n in 1..=3 {
        let run = ["One", "Two", "Three"][n - 1];
        let (_, s) = render(&engine, run, &cues(run, lines)?, &format!("nodes{n}/af_bella"), &mut |_, _| {})?;
        println!("{:<28} {s:>9.2} {:>10.2} {:>12.2}", format!("fleet of {n} node{}", if n == 1 { "" } else { "s" }), lines as f64 / s, local_s / s);
    }

    // The one-node project again under another model name (new keys here, the same requests
    // there): the node answers every line from its render cache, so what is left is dispatch.
    let mut config = EngineConfig::load_from(studio.path().to_path_buf())?;
    config.save_remote_engine(&RemoteEngineSettings {
        name: "nodes1".into(),
        urls: vec![nodes[0].url.clone()],
        api_key: String::new(),
        model: "kokoro".into(),
        timeout_s: None,
    })?;
    let one =
        rt.block_on(engine.store().projects())?.into_iter().find(|p| p.name == "One").ok_or_else(|| Error::internal("bench fleet", "project One is gone"))?;
    let (again, cached_s) = rerender(&engine, one.id, "Cached", lines, &mut |_, _| {})?;
    println!();
    println!(
        "dispatch overhead: {:.1} ms a line ({} lines re-sent, each answered from the node's render cache: the request, 16-bit WAV back, decoding and storing the take)",
        cached_s * 1000.0 / again.rendered.max(1) as f64,
        again.rendered
    );

    // A node killed once the first line is back.
    let mut killed = None;
    let mut peaks = [f64::NAN; 3];
    let (summary, failover_s) = render(&engine, "Four", &cues("Four", lines.min(40))?, "nodes3/af_bella", &mut |engine, _| {
        if killed.is_none() {
            let status = engine.remote().status();
            let Some(fleet) = status.iter().find(|e| e.name == "nodes3") else { return };
            let victim = (0..3).max_by_key(|&i| fleet.servers[i].in_flight).unwrap_or(0);
            killed = Some((victim, fleet.servers[victim].in_flight, Instant::now()));
            peaks[victim] = nodes[victim].peak_mib();
            nodes[victim].kill();
        }
    })?;
    match (summary.failovers.first(), killed) {
        (Some(f), Some((victim, in_flight, at))) => println!(
            "failover: node {} killed with {in_flight} lines in flight; {} of its lines (in flight, or sent before its fault was seen) went back to the queue, the first sent to another node {:.3} s after the fault (when one had room), all rendered {:.2} s after it; the render ended {:.2} s after the kill ({:.2} s in all, {} of {} lines, none twice)",
            victim + 1,
            f.lines,
            f.resent_after_s.unwrap_or(f64::NAN),
            f.recovered_after_s.unwrap_or(f64::NAN),
            at.elapsed().as_secs_f64(),
            failover_s,
            summary.rendered,
            summary.segments
        ),
        _ => println!("failover: the killed node had no lines in flight; nothing to move ({failover_s:.2} s)"),
    }

    println!();
    let (peak, now) = memory_mib();
    for (i, node) in nodes.iter().enumerate() {
        if peaks[i].is_nan() {
            peaks[i] = node.peak_mib();
        }
    }
    println!(
        "peak memory: this process {peak:.0} MiB (now {now:.0} MiB); nodes {}",
        peaks.iter().map(|p| format!("{p:.0} MiB")).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}
