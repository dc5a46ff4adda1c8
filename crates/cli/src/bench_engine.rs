//! `revoice bench engine`: the scheduler on the real model. Throughput
//! (audio seconds rendered per wall second) at batch widths 1, 2, 4 and 8
//! with every row queued at once, each compared with width 1 measured in
//! the same run; then continuous mode under Poisson arrivals at about 80 %
//! of the best width's capacity, with per-row latency; then reference
//! encodes through the reference-encode service on the scheduler's owner
//! thread: miss and hit latency, and 16 concurrent requests for one new
//! reference (how many merged into one encode). The best width is saved as
//! the scheduler's default for this machine.

use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use revoice_engine::model::speech::SpeechRow;
use revoice_engine::scheduler::{Calibration, Job, Scheduler, SchedulerConfig};
use revoice_engine::speech::{SayRequest, Synthesizer};
use revoice_engine::Result;

use crate::bench::memory_mib;

/// Lines of dubbing-script length, rendered as one row each.
const LINES: [&str; 12] = [
    "Get down, now!",
    "I told you we should have left an hour ago.",
    "The museum closes at six, so we have time for one more room.",
    "Nobody answers the phone after midnight.",
    "She kept the letter for twenty years and never opened it.",
    "Turn left at the bridge, then follow the river.",
    "Is that really what you want?",
    "We found the recordings in a box under the stairs.",
    "Thank you, that will be all.",
    "The storm knocked out power across the whole valley.",
    "He laughed, but his eyes stayed cold.",
    "Tomorrow we start again from the beginning.",
];

const WIDTHS: [usize; 4] = [1, 2, 4, 8];

/// Runs the benchmark and prints the report.
pub fn engine(data_dir: &Path, voice: &str, save: bool) -> Result<()> {
    let synth = Synthesizer::load(data_dir)?;
    let model = synth.shared_model();
    let mut rows = Vec::new();
    for (i, text) in LINES.iter().enumerate() {
        let request = SayRequest { seed: Some(i as u64 + 1), ..SayRequest::new(*text, voice)? };
        rows.extend(synth.prepare(&request)?.into_iter().map(|l| l.row));
    }
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("revoice bench engine: Kokoro-82M v1.0, voice {voice}, {} rows, {cores} CPUs", rows.len());
    // Warm-up: first touch of weights and allocator.
    run_all_at_once(model.clone(), &rows[..1], 1)?;

    println!();
    println!("all rows queued at once (batch mode, window 50 ms)");
    println!("width  audio s   wall s   audio s/s   vs width 1");
    let mut results = Vec::new();
    let mut audio_total = 0.0;
    for width in WIDTHS {
        let (audio, wall) = run_all_at_once(model.clone(), &rows, width)?;
        audio_total = audio;
        let throughput = audio / wall;
        let baseline = results.first().map(|&(_, t)| t).unwrap_or(throughput);
        println!("{width:>5} {audio:>8.2} {wall:>8.2} {throughput:>11.2} {:>11.2}x", throughput / baseline);
        results.push((width, throughput));
    }
    let (best_width, best) = results.iter().copied().fold((1, 0.0), |a, b| if b.1 > a.1 { b } else { a });

    let rows_per_second = best / (audio_total / rows.len() as f64);
    let rate = 0.8 * rows_per_second;
    println!();
    println!("continuous mode, width {best_width}, Poisson arrivals at {rate:.2} rows/s (80 % of capacity)");
    let (audio, wall, latencies) = run_poisson(model.clone(), &rows, best_width, rate)?;
    let mut sorted = latencies.clone();
    sorted.sort_by(f64::total_cmp);
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    let p95 = sorted[((sorted.len() as f64 * 0.95).ceil() as usize).saturating_sub(1).min(sorted.len() - 1)];
    println!("  throughput {:.2} audio s/s over {wall:.2} s; row latency mean {mean:.2} s, p95 {p95:.2} s", audio / wall);

    reference_encodes(data_dir, model.clone(), &rows[2])?;

    if save {
        let calibration = Calibration {
            batch_width: best_width,
            audio_seconds_per_second: best,
            model_id: "kokoro-82m-v1.0".into(),
            measured_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        };
        calibration.save(data_dir)?;
        println!();
        println!("saved batch width {best_width} as this machine's default ({})", Calibration::path(data_dir).display());
    }
    let (peak, _) = memory_mib();
    println!();
    println!("peak resident memory {peak:.0} MiB");
    Ok(())
}

/// Every row as its own job, all submitted at once; (audio s, wall s).
fn run_all_at_once(model: std::sync::Arc<revoice_engine::model::kokoro::KokoroModel>, rows: &[SpeechRow], width: usize) -> Result<(f64, f64)> {
    let scheduler = Scheduler::start(model, SchedulerConfig::fixed(width, Duration::from_millis(50), 1, false))?;
    let start = Instant::now();
    let handles: Vec<_> = rows.iter().map(|r| scheduler.submit(Job::buffered(vec![r.clone()]))).collect();
    let mut audio = 0.0;
    for h in handles {
        for row in h.wait()? {
            audio += row.samples.len() as f64 / row.sample_rate as f64;
        }
    }
    Ok((audio, start.elapsed().as_secs_f64()))
}

/// Rows arriving with exponential gaps at `rate` per second, in
/// continuous mode; (audio s, wall s, latency per row).
fn run_poisson(model: std::sync::Arc<revoice_engine::model::kokoro::KokoroModel>, rows: &[SpeechRow], width: usize, rate: f64) -> Result<(f64, f64, Vec<f64>)> {
    let scheduler = std::sync::Arc::new(Scheduler::start(model, SchedulerConfig::fixed(width, Duration::ZERO, 1, true))?);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let start = Instant::now();
    let mut waiters = Vec::new();
    for row in rows {
        let gap = -(1.0 - rng.random::<f64>()).ln() / rate;
        std::thread::sleep(Duration::from_secs_f64(gap));
        let submitted = Instant::now();
        let handle = scheduler.submit(Job::buffered(vec![row.clone()]));
        waiters.push(std::thread::spawn(move || handle.wait().map(|audio| (audio, submitted.elapsed().as_secs_f64()))));
    }
    let mut audio = 0.0;
    let mut latencies = Vec::new();
    for w in waiters {
        let (rows, latency) = w.join().expect("waiter thread")?;
        audio += rows.iter().map(|r| r.samples.len() as f64 / r.sample_rate as f64).sum::<f64>();
        latencies.push(latency);
    }
    Ok((audio, start.elapsed().as_secs_f64(), latencies))
}

/// Miss and hit latency of a reference encode, and merging under 16
/// concurrent requests for one key.
fn reference_encodes(data_dir: &Path, model: std::sync::Arc<revoice_engine::model::kokoro::KokoroModel>, row: &SpeechRow) -> Result<()> {
    use revoice_engine::cache::{ReferenceEncodeConfig, ReferenceInput};
    use revoice_engine::voice::encoding::MatcherHooks;
    use std::sync::Arc;

    println!();
    println!("reference encodes (speaker encoder, run between batches on the scheduler)");
    let scheduler = Scheduler::start(model.clone(), SchedulerConfig::fixed(1, Duration::ZERO, 1, false))?;
    let config = ReferenceEncodeConfig { max_bytes: 16 << 20, follower_timeout: Duration::from_secs(600) };
    let service = Arc::new(MatcherHooks::service(data_dir, Some(scheduler.tasks()), config)?);
    // Two reference clips: the same line at two speeds, as WAV bytes.
    let clip = |speed: f32| -> Result<Arc<[u8]>> {
        let mut r = row.clone();
        r.speed = speed;
        let audio = revoice_engine::model::speech::SpeechModel::generate(model.as_ref(), std::slice::from_ref(&r)).pop().expect("one row")?;
        let file = tempfile::NamedTempFile::new().map_err(|e| revoice_engine::Error::io("create", std::env::temp_dir(), e))?;
        revoice_engine::audio::wav::write_pcm16(file.path(), &audio.samples, audio.sample_rate)?;
        Ok(std::fs::read(file.path()).map_err(|e| revoice_engine::Error::io("read", file.path(), e))?.into())
    };
    let (first, second) = (clip(1.0)?, clip(0.9)?);
    let encode = |bytes: &Arc<[u8]>| {
        let start = Instant::now();
        service.encode(ReferenceInput::Bytes { name: "bench.wav".into(), bytes: bytes.clone() }).map(|_| start.elapsed().as_secs_f64() * 1e3)
    };
    let miss = encode(&first)?;
    let hit = encode(&first)?;
    println!("  miss {miss:.1} ms, hit {hit:.3} ms ({:.0}x)", miss / hit.max(1e-6));
    let before = service.stats();
    let start = Instant::now();
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let (service, bytes) = (service.clone(), second.clone());
            std::thread::spawn(move || service.encode(ReferenceInput::Bytes { name: "bench.wav".into(), bytes }))
        })
        .collect();
    for t in threads {
        t.join().expect("encode thread")?;
    }
    let after = service.stats();
    println!(
        "  16 concurrent requests for a new reference: {} encode, {} merged, {} hits, {:.1} ms in all",
        after.misses - before.misses,
        after.merged - before.merged,
        after.hits - before.hits,
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
