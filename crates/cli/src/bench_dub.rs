//! `revoice bench dub`: a 300-line project (the demo script over and over,
//! two speakers) in a scratch database and segment store: every line's
//! spoken length predicted before the render (time, and its error against
//! the rendered length), the full render (time, RTF), a re-render after
//! editing one line, a re-mix after a strategy change, an export (mix and
//! stems, × real time), a preview of a line not rendered yet and timeline
//! playback from the middle (times to first audio at the output device).
//! The later steps are also shown as a fraction of the full render. The
//! figures are kept in the data folder (`bench/dub-<lines>.json`) and
//! printed beside the last run's.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use revoice_engine::dub::assemble::assemble_track;
use revoice_engine::dub::export::{export_mix, ExportFormat};
use revoice_engine::dub::mix::MixSettings;
use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::dub::player::{Playback, PlaybackView};
use revoice_engine::dub::PROGRAMME_RATE;
use revoice_engine::subtitles::{parse_srt, Cue};
use revoice_engine::{Engine, EngineConfig, Error, Result};

use crate::bench::memory_mib;

/// Runs the benchmark with `lines` lines and prints the report.
pub fn dub(data_dir: &Path, lines: usize, device: &str) -> Result<()> {
    let rt = tokio::runtime::Handle::current();
    let DemoProject { scratch, engine, project, track } = demo_project(data_dir, lines)?;
    let engine = Arc::new(engine);
    let store = engine.store();
    let speech_stack = engine.speech()?;
    let width = speech_stack.renderer.scheduler().config().width;
    let render = |engine: &Engine| engine.render_project(project.id, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {});
    let never = AtomicBool::new(false);
    println!("revoice bench dub: {lines} lines (the demo script repeated), 2 speakers, batch width {width}");
    println!();
    let mut figures: Vec<(&str, f64)> = Vec::new();

    // Every line's spoken length before any render (the model's durations, no audio).
    let start = Instant::now();
    let fits = engine.project_fits(project.id)?;
    let predict_s = start.elapsed().as_secs_f64();
    let predicted: Vec<(i64, f64)> = fits.iter().flat_map(|t| t.lines.iter().filter_map(|l| l.spoken.map(|s| (l.segment_id, s)))).collect();
    let not_fitting: usize = fits.iter().map(|t| t.not_fitting().count()).sum();
    println!(
        "predicted lengths  {:>4} lines   {predict_s:>8.2} s   {:.1} ms a line; {not_fitting} don't fit their slots",
        predicted.len(),
        1000.0 * predict_s / predicted.len().max(1) as f64
    );
    figures.push(("predict s", predict_s));

    let start = Instant::now();
    let bar = indicatif::ProgressBar::new(lines as u64);
    let full = engine.render_project(project.id, &RenderScope::default(), &never, &mut |p| bar.set_position(p.done as u64))?;
    bar.finish_and_clear();
    let full_s = start.elapsed().as_secs_f64();
    let settings = MixSettings::default();
    // Seconds of speech, as placed (the assembled audio is dropped at once).
    let speech: f64 =
        assemble_track(&rt.block_on(engine.track_lines(track.id))?, engine.segments(), PROGRAMME_RATE, &settings)?.cues.iter().map(|c| c.end - c.start).sum();
    println!("full render        {:>4} lines   {full_s:>8.2} s   {speech:.0} s of speech, RTF {:.3}", full.rendered, full_s / speech);
    println!("                                         the prediction was {:.3} of the render's time", predict_s / full_s);
    figures.extend([("full render s", full_s), ("render RTF", full_s / speech)]);
    // Predicted against rendered length, line by line.
    let rendered = rt.block_on(engine.track_lines(track.id))?;
    let mut errors: Vec<f64> = predicted
        .iter()
        .filter_map(|(id, p)| {
            rendered.lines.iter().find(|l| l.segment.id == *id).and_then(|l| l.take.as_ref()).map(|t| (p - t.duration_s).abs() / t.duration_s.max(1e-9))
        })
        .collect();
    errors.sort_by(f64::total_cmp);
    let median = errors.get(errors.len() / 2).copied().unwrap_or(f64::NAN);
    let worst = errors.last().copied().unwrap_or(f64::NAN);
    println!("predicted length   median error {:.2} %, worst {:.2} % over {} lines (against the rendered takes)", 100.0 * median, 100.0 * worst, errors.len());
    figures.extend([("length error median %", 100.0 * median), ("length error worst %", 100.0 * worst)]);

    let first = rt.block_on(store.segments(track.id))?[7].id;
    rt.block_on(store.edit_segment(first, "bench edit", |f| f.text = "Most of it, and the last entries are the strange part.".into()))?;
    let start = Instant::now();
    let edit = render(&engine)?;
    let edit_s = start.elapsed().as_secs_f64();
    println!("re-render, 1 edit  {:>4} lines   {edit_s:>8.2} s   {:.4} of the full render", edit.rendered, edit_s / full_s);
    figures.push(("re-render 1 edit s", edit_s));

    rt.block_on(store.set_timing_strategy(project.id, "strict_slot"))?;
    let start = Instant::now();
    let remix = render(&engine)?;
    let assembled = assemble_track(&rt.block_on(engine.track_lines(track.id))?, engine.segments(), PROGRAMME_RATE, &settings)?;
    let remix_s = start.elapsed().as_secs_f64();
    println!("strategy change    {:>4} lines   {remix_s:>8.2} s   re-mixed; {:.4} of the full render", remix.rendered, remix_s / full_s);
    figures.push(("strategy change s", remix_s));

    let out = scratch.path().join("export");
    std::fs::create_dir_all(&out).map_err(|e| Error::io("create", &out, e))?;
    let start = Instant::now();
    let report = export_mix(&assembled.mix, assembled.sample_rate, &out, "bench", ExportFormat::Wav, &settings, Some(&assembled.cues), true, &mut |_| {})?;
    let export_s = start.elapsed().as_secs_f64();
    println!("export WAV + stems {:>10.2} s of programme in {export_s:.2} s: {:.0}x real time", report.duration_s, report.duration_s / export_s);
    figures.push(("export x real time", report.duration_s / export_s));

    // Preview of a line nobody has rendered (just edited), streamed as it
    // renders: from the request to the first audible sample handed to the
    // output device.
    let line = rt.block_on(store.segments(track.id))?[11].id;
    rt.block_on(store.edit_segment(line, "bench preview", |f| f.text = "Nobody has heard this line before, so it renders while you wait.".into()))?;
    match revoice_engine::audio::live::LivePlayback::open(device, speech_stack.sample_rate()) {
        Ok(mut live) => {
            let start = Instant::now();
            let samples = engine.stream_line(line, &never, &mut |chunk| live.push(chunk))?;
            let rendered = start.elapsed().as_secs_f64();
            let audio = samples.len() as f64 / speech_stack.sample_rate() as f64;
            let ttfa = live.finish()?.first_sound.map_or(f64::NAN, |d| d.as_secs_f64());
            println!("preview, new line  TTFA {ttfa:.3} s (render {rendered:.2} s for {audio:.2} s of audio, RTF {:.2})", rendered / audio);
        }
        Err(e) => println!("preview, new line  skipped: {e}"),
    }

    // Timeline playback from line 150, everything rendered, as `project
    // play` does it: from the play request to the first voice sample
    // handed to the output device.
    let track_lines = rt.block_on(engine.track_lines(track.id))?;
    let from = track_lines.lines[lines / 2].slot.start;
    let playback = Playback::start(engine.clone(), Arc::new(|_: &PlaybackView| {}))?;
    playback.use_device(device);
    match playback.play_rendering_missing(project.id, track.id, from, None, |_| {}) {
        Ok(()) => {
            let waited = Instant::now();
            let mut view = playback.view_now()?;
            while view.first_voice_ms.is_none() && waited.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(1));
                view = playback.view_now()?;
            }
            let laid = playback.playing_lines()?.len();
            playback.stop()?;
            let ms = |ms: Option<f64>| ms.map_or("never".to_string(), |ms| format!("{ms:.0} ms"));
            println!(
                "play from line {}  first voice {} (first audio {}); {laid} lines laid before it stopped",
                lines / 2,
                ms(view.first_voice_ms),
                ms(view.first_sound_ms)
            );
        }
        Err(e) => println!("timeline play      skipped: {e}"),
    }
    let (peak, _) = memory_mib();
    println!();
    println!("peak resident memory {peak:.0} MiB");
    figures.push(("peak MiB", peak));
    beside_last_time(&data_dir.join("bench").join(format!("dub-{lines}.json")), &figures);
    Ok(())
}

/// Prints `figures` beside those the last run kept in `file`, then keeps
/// these there (a file that cannot be read or written is said, not fatal).
fn beside_last_time(file: &Path, figures: &[(&str, f64)]) {
    let last: std::collections::BTreeMap<String, f64> = std::fs::read(file).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    println!();
    println!("{:<24} {:>12} {:>12} {:>8}", "figure", "now", "last time", "ratio");
    for (name, now) in figures {
        match last.get(*name) {
            Some(before) => println!("{name:<24} {now:>12.3} {before:>12.3} {:>8.3}", now / before),
            None => println!("{name:<24} {now:>12.3} {:>12} {:>8}", "-", "-"),
        }
    }
    let kept: std::collections::BTreeMap<&str, f64> = figures.iter().copied().collect();
    let written =
        file.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(file, serde_json::to_vec_pretty(&kept).expect("figures serialise")));
    if let Err(e) = written {
        println!("(the figures could not be kept in {}: {e})", file.display());
    }
}

/// A bench's project: the demo script repeated to `lines` lines, Maya on
/// af_bella and Theo on bm_george, in a scratch data folder (its own
/// database and segment store; the installed models linked in).
pub(crate) struct DemoProject {
    pub scratch: tempfile::TempDir,
    pub engine: Engine,
    pub project: revoice_engine::store::Project,
    pub track: revoice_engine::store::Track,
}

/// Makes the bench's project (see [`DemoProject`]).
pub(crate) fn demo_project(data_dir: &Path, lines: usize) -> Result<DemoProject> {
    let rt = tokio::runtime::Handle::current();
    let scratch = tempfile::tempdir().map_err(|e| Error::io("create", std::env::temp_dir(), e))?;
    // The link is made from another folder: a relative data folder would leave it dangling.
    let data_dir = &std::path::absolute(data_dir).map_err(|e| Error::io("find", data_dir, e))?;
    std::os::unix::fs::symlink(data_dir.join("models"), scratch.path().join("models")).map_err(|e| Error::io("link the models into", scratch.path(), e))?;
    let mut config = EngineConfig::load_from(scratch.path().to_path_buf())?;
    config.settings.dub.segment_store_mb = 8 << 10;
    config.settings.scheduler = revoice_engine::config::SchedulerSettings::default();
    let calibration = data_dir.join("calibration.json");
    if calibration.exists() {
        let _ = std::fs::copy(&calibration, scratch.path().join("calibration.json"));
    }
    let engine = rt.block_on(Engine::open(config))?;
    let store = engine.store();
    let (project, track) = rt.block_on(engine.create_project("bench", "en-US"))?;
    let demo = parse_srt(include_str!("../../../assets/demo/lighthouse.srt"), "lighthouse.srt")?;
    let period = demo.last().map(|c| c.end + 1.0).unwrap_or(1.0);
    let cues: Vec<Cue> = (0..lines)
        .map(|i| {
            let c = &demo[i % demo.len()];
            let shift = (i / demo.len()) as f64 * period;
            Cue { start: c.start + shift, end: c.end + shift, ..c.clone() }
        })
        .collect();
    rt.block_on(store.import_cues(&track, &cues))?;
    for s in rt.block_on(store.speakers(project.id))? {
        rt.block_on(engine.set_speaker_voice(project.id, s.id, if s.name == "Maya" { "af_bella" } else { "bm_george" }, None))?;
    }
    Ok(DemoProject { scratch, engine, project, track })
}
