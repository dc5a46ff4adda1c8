//! `revoice bench loop`: the loop a dubber lives in, the demo scene
//! rendered and every line heard back, timed two ways on fresh copies of
//! the project (each its own scratch database and segment store, models
//! loaded before the clock starts): one after the other, then heard while
//! rendering ([`Engine::render_and_listen`]). Prints each wall time, the
//! render's own time in both (its slowdown from the listening beside it),
//! lines heard and failing, the CPU features used and peak memory.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use revoice_engine::checking::ListenRequest;
use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::model::whisper::TranscriptOptions;
use revoice_engine::{Engine, Result};

use crate::bench::memory_mib;
use crate::bench_dub::demo_project;

/// One way through the loop: seconds until the render was done, until
/// every line was heard, lines heard and lines failing.
struct Pass {
    render_s: f64,
    total_s: f64,
    heard: usize,
    failing: usize,
}

/// Loads Kokoro and Whisper so neither load is timed.
fn warm(engine: &Engine) -> Result<()> {
    engine.speech()?;
    engine.listener().transcribe(&vec![0.0; 16_000], 16_000, &TranscriptOptions { language: Some("en".into()), ..Default::default() }, &mut |_| true)?;
    Ok(())
}

fn one_after_the_other(data_dir: &Path, lines: usize) -> Result<Pass> {
    let demo = demo_project(data_dir, lines)?;
    warm(&demo.engine)?;
    let never = AtomicBool::new(false);
    let start = Instant::now();
    demo.engine.render_project(demo.project.id, &RenderScope::default(), &never, &mut |_| {})?;
    let render_s = start.elapsed().as_secs_f64();
    let request = ListenRequest { only: None, again: false, retake: true };
    let heard = demo.engine.listen_back(demo.project.id, &request, &never, &mut |_| {})?;
    Ok(Pass { render_s, total_s: start.elapsed().as_secs_f64(), heard: heard.len(), failing: heard.iter().filter(|l| !l.passed()).count() })
}

fn overlapped(data_dir: &Path, lines: usize) -> Result<Pass> {
    let demo = demo_project(data_dir, lines)?;
    let engine = std::sync::Arc::new(demo.engine);
    warm(&engine)?;
    let never = std::sync::Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let mut render_s = 0.0;
    let (mut total, mut done) = (0, 0);
    let outcome = engine.render_and_listen(
        demo.project.id,
        &RenderScope::default(),
        &never,
        &mut |p| {
            total = p.total;
            done = p.done;
            if p.done == p.total {
                render_s = start.elapsed().as_secs_f64();
            }
        },
        &mut |_| {},
    )?;
    if render_s == 0.0 || done < total {
        render_s = start.elapsed().as_secs_f64();
    }
    let heard = &outcome.heard;
    Ok(Pass { render_s, total_s: start.elapsed().as_secs_f64(), heard: heard.len(), failing: heard.iter().filter(|l| !l.passed()).count() })
}

/// Runs the benchmark on `lines` lines of the demo and prints the report.
pub fn render_loop(data_dir: &Path, lines: usize) -> Result<()> {
    println!("revoice bench loop: the demo scene, {lines} lines, rendered and heard back (Whisper base), 2 speakers");
    println!("{}", revoice_engine::model::cpu_features::describe());
    println!();
    let after = one_after_the_other(data_dir, lines)?;
    let beside = overlapped(data_dir, lines)?;
    println!("{:<28} {:>9} {:>9} {:>7} {:>8}", "", "render s", "total s", "heard", "failing");
    for (name, p) in [("render, then listen back", &after), ("heard while rendering", &beside)] {
        println!("{name:<28} {:>9.2} {:>9.2} {:>7} {:>8}", p.render_s, p.total_s, p.heard, p.failing);
    }
    println!();
    println!(
        "heard while rendering: the loop in {:.2} of the time; the render itself {:+.1} % (listening at the lowest priority beside it)",
        beside.total_s / after.total_s,
        100.0 * (beside.render_s / after.render_s - 1.0)
    );
    let (peak, _) = memory_mib();
    println!("peak resident memory {peak:.0} MiB");
    Ok(())
}
