//! `revoice bench translate`: a translation engine measured through the
//! studio's own job. A project (the demo script repeated to `--lines`, or
//! the first track of `--project`) is copied into a scratch data folder,
//! so every run translates into a new track and measures translation, not
//! resume. Prints lines a minute over the job's wall time and the time of
//! each batch; then, for the lines translated, the spoken length the
//! sizing predicts (the model's durations, no audio) against each line
//! rendered with the model, and the span of it that is heard; the median
//! absolute errors; and peak memory.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use revoice_engine::dub::pipeline::RenderScope;
use revoice_engine::dub::segment_store::Stored;
use revoice_engine::subtitles::Cue;
use revoice_engine::translating::{TranslateReport, TranslateRequest};
use revoice_engine::{Engine, EngineConfig, Error, Result};

use crate::bench::memory_mib;
use crate::bench_dub::{demo_project, DemoProject};

/// Frames of this many seconds decide where a take is heard.
const FRAME_S: f64 = 0.01;
/// A frame this far below the take's loudest frame (dB) is silence.
const SILENCE_DB: f32 = 40.0;

/// Runs the bench with the translator `name` (the first configured when
/// `None`) into `to`, on `project`'s first track or the demo script.
pub fn translate(engine: &Engine, name: Option<&str>, project: Option<i64>, to: &str, lines: usize) -> Result<()> {
    let rt = tokio::runtime::Handle::current();
    let settings = EngineConfig::load_from(engine.data_dir().to_path_buf())?.translator(name)?.clone();
    let (source, scratch) = match project {
        Some(id) => (format!("project {id}'s first track"), copied_project(engine, id, lines)?),
        None => ("the demo script".to_string(), demo_project(engine.data_dir(), lines)?),
    };
    let DemoProject { scratch: folder, engine: bench, project, track } = &scratch;
    EngineConfig::load_from(folder.path().to_path_buf())?.save_translator(&settings)?;
    let where_to = if settings.is_local() { "this machine" } else { "another machine" };
    let count = rt.block_on(bench.store().segments(track.id))?.len();
    println!("revoice bench translate: {count} lines of {source} into {to} with {} at {} ({where_to})", settings.name, settings.host());

    let request = TranslateRequest { project_id: project.id, to: to.to_string(), translator: Some(settings.name.clone()), ..Default::default() };
    let started = Instant::now();
    let mut batches: Vec<(usize, f64)> = Vec::new();
    let report = bench.translate_track(&request, &mut |p| batches.push((p.done, started.elapsed().as_secs_f64())), &|| false)?;
    let job_s = started.elapsed().as_secs_f64();
    print_translation(&report, &batches, job_s);
    if report.translated == 0 {
        println!("no line was translated: nothing to render");
        return print_memory();
    }

    // Predicted (as the sizing predicts) against rendered, for each line translated.
    let translated: Vec<i64> = rt.block_on(bench.store().translations(report.track_id))?.iter().map(|t| t.segment_id).collect();
    let predicted = bench.predict_lengths(project.id)?;
    let predicted: Vec<(i64, f64)> =
        predicted.iter().filter(|t| t.track.id == report.track_id).flat_map(|t| &t.lines).filter_map(|l| l.predicted.map(|p| (l.segment.id, p))).collect();
    let scope = RenderScope { only: Some(translated.clone()), from_s: None };
    let start = Instant::now();
    let summary = bench.render_project(project.id, &scope, &AtomicBool::new(false), &mut |_| {})?;
    let render_s = start.elapsed().as_secs_f64();
    let sample_rate = bench.speech()?.sample_rate();
    let rendered = rt.block_on(bench.track_lines(report.track_id))?;
    println!();
    println!("rendered {} lines in {render_s:.1} s; each line's length as the sizing predicts it against its take", summary.rendered);
    println!("{:>4} {:>7} {:>11} {:>10} {:>8} {:>9} {:>8}  text", "line", "slot s", "predicted s", "rendered s", "error %", "heard s", "error %");
    let (mut take_errors, mut heard_errors) = (Vec::new(), Vec::new());
    for (number, line) in rendered.lines.iter().enumerate().filter(|(_, l)| translated.contains(&l.segment.id)) {
        let (Some(&(_, predicted)), Some(take), Some(key)) = (predicted.iter().find(|(id, _)| *id == line.segment.id), &line.take, line.take_key()) else {
            continue;
        };
        let heard = match bench.segments().get(&key, sample_rate)? {
            Stored::Audio(samples) => heard_seconds(&samples, sample_rate),
            Stored::Missing | Stored::Damaged(_) => continue,
        };
        let take_error = 100.0 * (predicted - take.duration_s) / take.duration_s.max(1e-9);
        let heard_error = 100.0 * (predicted - heard) / heard.max(1e-9);
        take_errors.push(take_error.abs());
        heard_errors.push(heard_error.abs());
        let text: String = line.segment.fields.text.chars().take(60).collect();
        println!(
            "{:>4} {:>7.2} {predicted:>11.2} {:>10.2} {take_error:>+8.1} {heard:>9.2} {heard_error:>+8.1}  {text}",
            number + 1,
            line.slot.length(),
            take.duration_s
        );
    }
    println!(
        "median absolute error of the prediction over {} lines: {:.2} % against the rendered takes, {:.1} % against the span heard in them",
        take_errors.len(),
        median(&mut take_errors),
        median(&mut heard_errors)
    );
    println!("(the prediction counts the model's frames, its own silence at each end included; \"heard\": from the first to the last 10 ms frame within {SILENCE_DB:.0} dB of the loudest)");
    print_memory()
}

/// Lines a minute, the batches' times and what the report says.
fn print_translation(report: &TranslateReport, batches: &[(usize, f64)], job_s: f64) {
    println!(
        "translated {} lines in {job_s:.1} s: {:.1} lines a minute over the job's wall time ({} failed, {} translated before)",
        report.translated,
        60.0 * report.translated as f64 / job_s.max(1e-9),
        report.failed.len(),
        report.already
    );
    let last = batches.last().map_or(0.0, |b| b.1);
    let mut times: Vec<f64> = batches.windows(2).map(|w| w[1].1 - w[0].1).collect();
    if !times.is_empty() {
        let answered: String = batches.windows(2).map(|w| format!(" {}:{:.1}s", w[1].0 - w[0].0, w[1].1 - w[0].1)).collect();
        println!(
            "{} batches (lines:seconds){answered}; median {:.1} s a batch; the batches took {last:.1} s, the sizing after them {:.1} s",
            times.len(),
            median(&mut times),
            job_s - last
        );
    }
    println!(
        "translator {} at {}; {} of {} sized lines fit their slots as first translated, {} after {} were asked shorter",
        report.translator,
        report.host,
        report.fit_before,
        report.sized,
        report.fit_after,
        report.shortened.len() + report.too_long.len()
    );
    if let Some(why) = &report.not_sized {
        println!("not sized: {why}");
    }
    if let Some(first) = report.failed.first() {
        println!("{} lines failed; the first because: {}", report.failed.len(), first.reason);
    }
}

/// `project`'s first track (its first `lines` lines) with its speakers and
/// their voices, in a scratch data folder sharing the installed models.
fn copied_project(engine: &Engine, project: i64, lines: usize) -> Result<DemoProject> {
    let rt = tokio::runtime::Handle::current();
    let store = engine.store();
    let track = rt.block_on(store.tracks(project))?.into_iter().next().ok_or_else(|| Error::not_found(format!("project {project}"), "has no track"))?;
    let speakers = rt.block_on(store.speakers(project))?;
    let cues: Vec<Cue> = rt
        .block_on(store.segments(track.id))?
        .into_iter()
        .take(lines)
        .map(|s| Cue {
            start: s.fields.start_s,
            end: s.fields.end_s,
            text: s.fields.text,
            speaker: s.fields.speaker_id.and_then(|id| speakers.iter().find(|p| p.id == id)).map(|p| p.name.clone()),
        })
        .collect();
    let scratch = crate::bench_api::scratch(engine.data_dir())?;
    let copy = rt.block_on(Engine::open(EngineConfig::load_from(scratch.path().to_path_buf())?))?;
    let (made, made_track) = rt.block_on(copy.create_project("bench", &track.language))?;
    rt.block_on(copy.store().import_cues(&made_track, &cues))?;
    for speaker in rt.block_on(copy.store().speakers(made.id))? {
        let Some(voice) = speakers.iter().find(|s| s.name == speaker.name).map(|s| s.voice.clone()) else { continue };
        if let Err(e) = rt.block_on(copy.set_speaker_voice(made.id, speaker.id, &voice, None)) {
            println!("{}'s voice {voice:?} is not in the scratch copy ({e}); their lines speak the default voice", speaker.name);
        }
    }
    Ok(DemoProject { scratch, engine: copy, project: made, track: made_track })
}

/// Seconds from the first to the last frame of `samples` within
/// [`SILENCE_DB`] of the loudest frame.
fn heard_seconds(samples: &[f32], sample_rate: u32) -> f64 {
    let frame = ((sample_rate as f64 * FRAME_S) as usize).max(1);
    let rms: Vec<f32> = samples.chunks(frame).map(|c| (c.iter().map(|x| x * x).sum::<f32>() / c.len() as f32).sqrt()).collect();
    let loudest = rms.iter().copied().fold(0.0, f32::max);
    let floor = loudest * 10f32.powf(-SILENCE_DB / 20.0);
    match (rms.iter().position(|&r| r > floor), rms.iter().rposition(|&r| r > floor)) {
        (Some(first), Some(last)) => ((last + 1 - first) * frame).min(samples.len()) as f64 / sample_rate as f64,
        _ => 0.0,
    }
}

/// The median of `values` (sorted in place); NaN when empty.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn print_memory() -> Result<()> {
    let (peak, _) = memory_mib();
    println!();
    println!("peak resident memory {peak:.0} MiB");
    Ok(())
}
