//! `revoice bench synth`: real-time factor of the candle Kokoro on a fixed
//! set of lines, the time to first audio as `revoice say` hears it (text
//! in, first sample out) beside each line's render, where the time goes
//! per block, peak memory, and, when a Python with kokoro-onnx is
//! available, the same phonemes through onnxruntime in the same run, with
//! the ratio.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use revoice_engine::model::kokoro::source::SourceNoise;
use revoice_engine::model::kokoro::Precision;
use revoice_engine::speech::{SayRequest, Synthesizer};
use revoice_engine::Result;

/// The fixed lines: short, medium, long, numbers, a question.
const LINES: [&str; 5] = [
    "Hello there.",
    "The weather today is sunny with a light breeze from the west.",
    "Please remember to bring your passport, two photographs, and the signed form to the appointment on Friday morning.",
    "The invoice lists 42 items for a total of 1,250 dollars.",
    "Could you tell me where the nearest train station is?",
];

pub use revoice_engine::doctor::memory_mib;

/// The `--precision` choices.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum BenchPrecision {
    /// int8 convolutions where the CPU has AVX-512 VNNI or AVX2, else f32.
    Fastest,
    /// f32 throughout.
    F32,
}

impl From<BenchPrecision> for Precision {
    fn from(p: BenchPrecision) -> Precision {
        match p {
            BenchPrecision::Fastest => Precision::fastest(),
            BenchPrecision::F32 => Precision::F32,
        }
    }
}

/// Runs the benchmark and prints the report.
pub fn synth(data_dir: &Path, voice: &str, reference_python: Option<&str>, threads: usize, precision: Precision, repeats: usize) -> Result<()> {
    let load_start = Instant::now();
    let synth = Synthesizer::load_in(data_dir, precision)?;
    let load_seconds = load_start.elapsed().as_secs_f64();
    let (_, rss_loaded) = memory_mib();
    let mut lines = Vec::new();
    // The row of each text that its first audio comes from.
    let mut first_rows = Vec::new();
    for text in LINES {
        let request = SayRequest::new(text, voice)?;
        first_rows.push(lines.len());
        lines.extend(synth.prepare(&request)?);
    }
    let model = synth.model();
    // Warm-up (first touch of the weights, the allocator).
    model.synthesize(&lines[0].row.tokens, &lines[0].row.style, 1.0, SourceNoise::Off)?;
    let phonemes: Vec<String> = lines.iter().map(|l| l.phonemes.clone()).collect();

    println!("revoice bench synth: Kokoro-82M v1.0 on candle (CPU), voice {voice}, {} lines", lines.len());
    let arithmetic = match model.int8_kernel() {
        Some(kernel) if model.albert_bf16() => format!("int8 convolutions ({}), ALBERT in bf16 (AVX-512 BF16), f32 elsewhere", kernel.describe()),
        Some(kernel) => format!("int8 convolutions ({}), f32 elsewhere", kernel.describe()),
        None => "f32 throughout".to_string(),
    };
    println!("{arithmetic}; model load {load_seconds:.2} s; resident after load {rss_loaded:.0} MiB");
    println!("{}", revoice_engine::model::cpu_features::describe());
    println!();
    // Every figure is the median of `repeats` passes: this machine class
    // is shared, and a single pass varies by 10-15 %.
    let mut blocks: Vec<(&'static str, f64)> = Vec::new();
    let mut rows = Vec::new();
    for line in &lines {
        let mut passes = Vec::new();
        for _ in 0..repeats {
            let start = Instant::now();
            let trace = model.trace(&line.row.tokens, &line.row.style, 1.0, SourceNoise::Off)?;
            passes.push((start.elapsed().as_secs_f64(), trace));
        }
        passes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (render, trace) = &passes[passes.len() / 2];
        let audio = trace.generator.audio.len() as f64 / model.config().sample_rate as f64;
        for (name, d) in &trace.timings {
            match blocks.iter_mut().find(|(n, _)| n == name) {
                Some((_, total)) => *total += d.as_secs_f64(),
                None => blocks.push((name, d.as_secs_f64())),
            }
        }
        rows.push((line.text.clone(), audio, *render));
    }

    // Time to first audio: text in, as `revoice say` takes it, to the first
    // sample handed on (the front end and the first sentence's first piece).
    let mut ttfa = vec![None; lines.len()];
    for (text, &row) in LINES.iter().zip(&first_rows) {
        let request = SayRequest::new(*text, voice)?;
        let mut passes = Vec::new();
        for _ in 0..repeats {
            // Cold: a pass must not find the reading its last pass kept.
            model.reading_cache().clear();
            let start = Instant::now();
            let mut first = None;
            synth.say(&request, |_| {
                first.get_or_insert(start.elapsed().as_secs_f64());
                Ok(())
            })?;
            passes.extend(first);
        }
        passes.sort_by(f64::total_cmp);
        ttfa[row] = passes.get(passes.len() / 2).copied();
    }

    let reference = match reference_python {
        Some(python) => run_reference(python, data_dir, voice, &phonemes, threads, repeats),
        None => Err("no Python with kokoro-onnx found (pip install kokoro-onnx==0.6.1 onnxruntime; or pass --reference-python)".to_string()),
    };

    println!("{:<4} {:>8} {:>9} {:>6} {:>7} {:>9} {:>6} {:>7}", "line", "audio s", "candle s", "RTF", "TTFA s", "ORT s", "RTF", "ratio");
    let (mut audio_total, mut candle_total, mut ort_total) = (0.0, 0.0, 0.0);
    for (i, (_, audio, render)) in rows.iter().enumerate() {
        audio_total += audio;
        candle_total += render;
        let first = ttfa[i].map_or("-".to_string(), |s| format!("{s:.2}"));
        match &reference {
            Ok(r) => {
                let ort = r[i].1;
                ort_total += ort;
                println!("{:<4} {audio:>8.2} {render:>9.2} {:>6.2} {first:>7} {ort:>9.2} {:>6.2} {:>7.2}", i + 1, render / audio, ort / r[i].0, render / ort);
            }
            Err(_) => println!("{:<4} {audio:>8.2} {render:>9.2} {:>6.2} {first:>7} {:>9} {:>6} {:>7}", i + 1, render / audio, "-", "-", "-"),
        }
    }
    match &reference {
        Ok(_) => println!(
            "all  {audio_total:>8.2} {candle_total:>9.2} {:>6.2} {:>7} {ort_total:>9.2} {:>6.2} {:>7.2}",
            candle_total / audio_total,
            "",
            ort_total / audio_total,
            candle_total / ort_total
        ),
        Err(why) => {
            println!("all  {audio_total:>8.2} {candle_total:>9.2} {:>6.2}", candle_total / audio_total);
            println!("reference (onnxruntime): skipped: {why}");
        }
    }
    println!("each figure is the median of {repeats} passes per line, on both sides.");
    println!("TTFA: from the text to the first sample `revoice say` hands on: the front end, then a sentence over 2 s streams (a sketch of the line, then pieces; the first is a quarter second), a shorter one renders in one pass.");
    println!();
    println!("where the candle time goes (all lines):");
    let total: f64 = blocks.iter().map(|(_, d)| d).sum();
    for (name, d) in &blocks {
        println!("  {name:<16} {:>8.1} ms  {:>5.1} %", d * 1e3, 100.0 * d / total);
    }
    let (peak, working) = memory_mib();
    revoice_engine::allocator::release_freed_memory();
    let (_, idle) = memory_mib();
    println!();
    println!("peak resident memory {peak:.0} MiB; after the last line {working:.0} MiB, idle (freed memory handed back) {idle:.0} MiB");
    Ok(())
}

/// Runs scripts/dev/ort_reference.py; returns (audio s, render s) per line.
fn run_reference(
    python: &str,
    data_dir: &Path,
    voice: &str,
    phonemes: &[String],
    threads: usize,
    repeats: usize,
) -> std::result::Result<Vec<(f64, f64)>, String> {
    let request = serde_json::json!({"voice": voice, "speed": 1.0, "lines": phonemes, "repeats": repeats});
    let data_dir = data_dir.display().to_string();
    let v = run_dev_script(python, "ort_reference.py", &[&data_dir, &threads.to_string()], &request)?;
    println!("reference: kokoro-onnx {} with onnxruntime {} on {threads} threads", v["versions"]["kokoro_onnx"], v["versions"]["onnxruntime"]);
    Ok(v["lines"]
        .as_array()
        .ok_or("bad reference output")?
        .iter()
        .map(|l| (l["seconds_audio"].as_f64().unwrap_or(0.0), l["seconds_render"].as_f64().unwrap_or(0.0)))
        .collect())
}

/// Runs `scripts/dev/<script>` with `args`, `request` as JSON on its
/// stdin; its stdout read as JSON, or the last line of its stderr as the error.
pub fn run_dev_script(python: &str, script: &str, args: &[&str], request: &serde_json::Value) -> std::result::Result<serde_json::Value, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/dev").join(script);
    let mut child = Command::new(python)
        .arg(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    child.stdin.take().expect("piped").write_all(request.to_string().as_bytes()).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(err.lines().last().unwrap_or("failed").to_string());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

/// A Python that can run `import {imports}`, if any: the one given, then `$env`, then `python3`.
pub fn find_python(given: Option<String>, env: &str, imports: &str) -> Option<String> {
    let candidates = given.into_iter().chain(std::env::var(env).ok()).chain(std::iter::once("python3".to_string()));
    let check = format!("import {imports}");
    candidates.into_iter().find(|python| Command::new(python).args(["-c", &check]).stderr(Stdio::null()).status().map(|s| s.success()).unwrap_or(false))
}
