//! `revoice bench edit`: the engine's part of the editor's feedback. Each
//! edit a dubber makes on the timeline (the project's timing, a line's text,
//! its slot, a lane's level, a speaker's voice) is one engine operation and
//! then the project view the window draws from; this times both together,
//! several times each, on the demo script repeated to `--lines` lines, and
//! prints the median and 95th percentile beside the view alone (the same
//! project, nothing changed) as the baseline of the same run. A voice
//! change also leaves its speaker's lines without a spoken length: the
//! prediction that brings their "doesn't fit" flags back is timed too.
//! Peak memory is printed at the end.

use std::path::Path;
use std::time::Instant;

use revoice_engine::dub::timing::TimingStrategy;
use revoice_engine::studio::view::{project_view, LiveStates, ProjectView};
use revoice_engine::{Engine, LaneMixEdit, LineEdit, Result};

use crate::bench::memory_mib;
use crate::bench_dub::{demo_project, DemoProject};

/// Times each edit `repeats` times.
pub fn edit(data_dir: &Path, lines: usize, repeats: usize) -> Result<()> {
    let rt = tokio::runtime::Handle::current();
    let DemoProject { scratch: _scratch, engine, project, track } = demo_project(data_dir, lines)?;
    let id = project.id;
    let view = |engine: &Engine| -> Result<ProjectView> {
        let tracks = rt.block_on(engine.project_lines(id))?;
        rt.block_on(project_view(engine.store(), &tracks, id, &LiveStates::default()))
    };
    println!("revoice bench edit: {lines} lines (the demo script repeated), 2 speakers, {repeats} edits of each kind");
    let start = Instant::now();
    engine.predict_lengths(id)?;
    println!("every line's spoken length predicted first: {:.2} s", start.elapsed().as_secs_f64());
    println!();

    let segments = rt.block_on(engine.store().segments(track.id))?;
    let middle = segments[segments.len() / 2].clone();
    let speakers = rt.block_on(engine.store().speakers(id))?;
    let maya = speakers.iter().find(|s| s.name == "Maya").map(|s| s.id);
    let theo = speakers.iter().find(|s| s.name == "Theo").map(|s| s.id).unwrap_or_default();

    let baseline = timed(repeats, |_| view(&engine).map(drop))?;
    println!("{:<34} {:>9} {:>9} {:>8}", "edit, then the project view", "median ms", "p95 ms", "× view");
    print_row("the view alone (baseline)", &baseline, &baseline);
    let strategies = [TimingStrategy::StrictSlot, TimingStrategy::SmartFit];
    let rows: Vec<(&str, Vec<f64>)> = vec![
        (
            "timing strategy",
            timed(repeats, |i| {
                rt.block_on(engine.set_strategy(id, strategies[i % 2]))?;
                view(&engine).map(drop)
            })?,
        ),
        (
            "a line's text",
            timed(repeats, |i| {
                let text = format!("{} ({i})", middle.fields.text);
                rt.block_on(engine.edit_line(middle.id, LineEdit { text: Some(text), ..Default::default() }))?;
                view(&engine).map(drop)
            })?,
        ),
        (
            "a line's slot (nudged a frame)",
            timed(repeats, |i| {
                let shift = if i % 2 == 0 { 0.04 } else { 0.0 };
                let (start, end) = (middle.fields.start_s + shift, middle.fields.end_s + shift);
                rt.block_on(engine.edit_line(middle.id, LineEdit { start: Some(start), end: Some(end), ..Default::default() }))?;
                view(&engine).map(drop)
            })?,
        ),
        (
            "a lane's level",
            timed(repeats, |i| {
                rt.block_on(engine.set_lane_mix(id, maya, LaneMixEdit { level_db: Some(-(i as f32) - 1.0), ..Default::default() }))?;
                view(&engine).map(drop)
            })?,
        ),
        (
            "a speaker's voice",
            timed(repeats, |i| {
                rt.block_on(engine.set_speaker_voice(id, theo, ["bm_lewis", "bm_george"][i % 2], None))?;
                view(&engine).map(drop)
            })?,
        ),
    ];
    for (name, times) in &rows {
        print_row(name, times, &baseline);
    }
    // The voice's lines are predicted again (the first time for bm_lewis;
    // bm_george's lengths are kept from the start).
    rt.block_on(engine.set_speaker_voice(id, theo, "bm_daniel", None))?;
    let unknown = view(&engine)?.tracks.iter().flat_map(|t| &t.segments).filter(|s| s.spoken.is_none()).count();
    let start = Instant::now();
    engine.predict_lengths(id)?;
    let predict_s = start.elapsed().as_secs_f64();
    println!();
    println!(
        "after a voice change, {unknown} lines predicted again in {predict_s:.2} s ({:.1} ms a line): their fit flags show then",
        1000.0 * predict_s / unknown.max(1) as f64
    );
    let (peak, _) = memory_mib();
    println!("peak resident memory {peak:.0} MiB");
    Ok(())
}

/// Milliseconds each run of `step` took (`step(i)` for i in 0..repeats).
fn timed(repeats: usize, mut step: impl FnMut(usize) -> Result<()>) -> Result<Vec<f64>> {
    (0..repeats)
        .map(|i| {
            let start = Instant::now();
            step(i)?;
            Ok(1000.0 * start.elapsed().as_secs_f64())
        })
        .collect()
}

fn percentile(times: &[f64], q: f64) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn print_row(name: &str, times: &[f64], baseline: &[f64]) {
    let median = percentile(times, 0.5);
    println!("{name:<34} {median:>9.1} {:>9.1} {:>8.2}", percentile(times, 0.95), median / percentile(baseline, 0.5).max(1e-9));
}
