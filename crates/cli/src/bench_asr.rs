//! `revoice bench asr`: Whisper base on candle against faster-whisper 1.2.1
//! (CTranslate2) on the same weights, audio and decoding (greedy, English):
//! real-time factor of both per clip and overall, their ratio, word error
//! rate of both against the texts the clips say, load time and peak memory;
//! then the engine's resident memory with Kokoro and Whisper both loaded,
//! and listening back to short takes one to a window against several.
//! The clips are two of our Kokoro renders (shipped with the parity test)
//! and a 33 s clip joined from them across a 30 s window.

use std::path::Path;
use std::time::Instant;

use revoice_engine::audio;
use revoice_engine::doctor::memory_mib;
use revoice_engine::model::whisper::{TranscriptOptions, WhisperModel};
use revoice_engine::text::word_errors::word_errors;
use revoice_engine::Result;

const HEART: &[u8] = include_bytes!("../../../tests/fixtures/whisper/heart.flac");
const GEORGE: &[u8] = include_bytes!("../../../tests/fixtures/whisper/george.flac");
const HEART_TEXT: &str = "The harbour lights came on one by one, and the last ferry pulled away from the pier.";
const GEORGE_TEXT: &str = "Check the ropes twice before you leave. If the wind turns, we sail back at once, no arguments.";

struct Clip {
    name: &'static str,
    text: String,
    samples: Vec<f32>,
}

fn clips() -> Result<Vec<Clip>> {
    let decode = |bytes: &[u8], name: &str| -> Result<Vec<f32>> {
        let d = audio::decode::decode_bytes(bytes.to_vec(), Path::new(name))?;
        audio::resample::resample(&d.samples, d.sample_rate, 16_000)
    };
    let heart = decode(HEART, "heart.flac")?;
    let george = decode(GEORGE, "george.flac")?;
    let gap = vec![0f32; 11_200];
    let mut long = Vec::new();
    let mut long_text = Vec::new();
    for (i, (s, t)) in
        [(&heart, HEART_TEXT), (&george, GEORGE_TEXT), (&heart, HEART_TEXT), (&george, GEORGE_TEXT), (&heart, HEART_TEXT)].into_iter().enumerate()
    {
        if i > 0 {
            long.extend_from_slice(&gap);
        }
        long.extend_from_slice(s);
        long_text.push(t);
    }
    Ok(vec![
        Clip { name: "short line", text: HEART_TEXT.into(), samples: heart },
        Clip { name: "two sentences", text: GEORGE_TEXT.into(), samples: george },
        Clip { name: "33 s, two windows", text: long_text.join(" "), samples: long },
    ])
}

/// Runs the benchmark and prints the report.
pub fn asr(data_dir: &Path, reference_python: Option<&str>, threads: usize) -> Result<()> {
    let clips = clips()?;
    let (_, rss_before) = memory_mib();
    let started = Instant::now();
    let model = WhisperModel::load(data_dir)?;
    let load = started.elapsed().as_secs_f64();
    let (_, rss_loaded) = memory_mib();
    let options = TranscriptOptions { language: Some("en".into()), ..Default::default() };
    model.transcribe(&clips[0].samples, &options, &mut |_| true)?;
    let mut ours = Vec::new();
    for clip in &clips {
        let t = Instant::now();
        let transcript = model.transcribe(&clip.samples, &options, &mut |_| true)?;
        ours.push((transcript.text(), t.elapsed().as_secs_f64()));
    }
    println!("revoice bench asr: Whisper base, greedy, English; candle on {} threads", rayon_threads());
    println!("{}", revoice_engine::model::cpu_features::describe());
    println!(
        "arithmetic: encoder and cross-attention memory {}; token steps f16 weights{}",
        if revoice_engine::model::bf16_matmul::supported() { "in bf16 (AVX-512 BF16)" } else { "in f32" },
        if revoice_engine::model::half_rows::HalfRows::supported() { "" } else { " unavailable (no AVX-512): f32" }
    );
    println!("candle: load {load:.2} s, resident +{:.0} MiB for the model", rss_loaded - rss_before);
    // Where candle's time goes: one window's encoder pass, then its greedy decode.
    let mel = revoice_engine::model::whisper::mel::log_mel(&clips[1].samples, model.config().n_mels);
    let t = Instant::now();
    let window = mel.window(0, mel.content_frames(), revoice_engine::model::whisper::WINDOW_FRAMES);
    let mel_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let states = model.encode(&window)?;
    let encode_s = t.elapsed().as_secs_f64();
    let en = model.tokens().language("en").expect("English");
    let t = Instant::now();
    let generation = model.generate(&states, &model.tokens().sot_sequence(en), 50)?;
    let decode_s = t.elapsed().as_secs_f64();
    println!(
        "candle, one window: mel {:.0} ms, encoder {:.0} ms, decoding {} tokens {:.0} ms ({:.1} ms a token)",
        mel_s * 1e3,
        encode_s * 1e3,
        generation.tokens.len() + 1,
        decode_s * 1e3,
        decode_s * 1e3 / (generation.tokens.len() + 1) as f64
    );
    // The same decode with every weight read as f32 (no f16 copies), for the ratio.
    let all_f32 = WhisperModel::load_dir_with(&revoice_engine::model::assets::WHISPER.status(data_dir).dir, false)?;
    all_f32.generate(&states, &model.tokens().sot_sequence(en), 50)?;
    let t = Instant::now();
    let f32_generation = all_f32.generate(&states, &model.tokens().sot_sequence(en), 50)?;
    let f32_decode_s = t.elapsed().as_secs_f64();
    drop(all_f32);
    println!(
        "decoding with f32 weights: {:.1} ms a token; the f16 copies take {:.2} of that ({})",
        f32_decode_s * 1e3 / (f32_generation.tokens.len() + 1) as f64,
        (decode_s / (generation.tokens.len() + 1) as f64) / (f32_decode_s / (f32_generation.tokens.len() + 1) as f64),
        if f32_generation.tokens == generation.tokens { "the same tokens" } else { "other tokens" }
    );

    let reference = match reference_python {
        Some(python) => run_reference(python, data_dir, &clips, threads),
        None => Err("no Python with faster-whisper found (pip install faster-whisper==1.2.1; or pass --reference-python)".to_string()),
    };
    if let Ok(r) = &reference {
        println!("reference: faster-whisper {} on {threads} threads, load {:.2} s, peak resident {:.0} MiB", r.version, r.load_seconds, r.peak_mib);
    }
    println!();
    println!("{:<18} {:>7} {:>9} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6}", "clip", "audio s", "candle s", "RTF", "WER", "f-w s", "RTF", "WER", "ratio");
    let (mut audio_total, mut ours_total, mut theirs_total) = (0.0, 0.0, 0.0);
    for (i, clip) in clips.iter().enumerate() {
        let seconds = clip.samples.len() as f64 / 16_000.0;
        let (text, ours_s) = &ours[i];
        let wer = word_errors(&clip.text, text).rate();
        audio_total += seconds;
        ours_total += ours_s;
        match &reference {
            Ok(r) => {
                let (their_text, theirs_s) = &r.clips[i];
                let their_text = &their_text.trim().to_string();
                theirs_total += theirs_s;
                let their_wer = word_errors(&clip.text, their_text).rate();
                println!(
                    "{:<18} {seconds:>7.2} {ours_s:>9.2} {:>6.3} {:>5.1}% {theirs_s:>9.2} {:>6.3} {:>5.1}% {:>6.2}",
                    clip.name,
                    ours_s / seconds,
                    100.0 * wer,
                    theirs_s / seconds,
                    100.0 * their_wer,
                    ours_s / theirs_s
                );
                if text != their_text {
                    println!("  transcripts differ:\n    candle:         {text}\n    faster-whisper: {their_text}");
                }
            }
            Err(_) => println!("{:<18} {seconds:>7.2} {ours_s:>9.2} {:>6.3} {:>5.1}%", clip.name, ours_s / seconds, 100.0 * wer),
        }
    }
    match &reference {
        Ok(_) => println!(
            "{:<18} {audio_total:>7.2} {ours_total:>9.2} {:>6.3} {:>6} {theirs_total:>9.2} {:>6.3} {:>6} {:>6.2}",
            "all",
            ours_total / audio_total,
            "",
            theirs_total / audio_total,
            "",
            ours_total / theirs_total
        ),
        Err(why) => {
            println!("{:<18} {audio_total:>7.2} {ours_total:>9.2} {:>6.3}", "all", ours_total / audio_total);
            println!("reference (faster-whisper): skipped: {why}");
        }
    }
    // Memory with both models resident (a render with QC), and once the
    // listener has let Whisper go (the idle studio).
    let kokoro = revoice_engine::speech::Synthesizer::load(data_dir)?;
    let (_, rss_both) = memory_mib();
    drop(model);
    revoice_engine::listening::release_freed_memory();
    let (_, rss_kokoro) = memory_mib();
    drop(kokoro);
    println!();
    println!("resident with Whisper and Kokoro both loaded: {rss_both:.0} MiB (budget while rendering: 1.5 GB)");
    println!("resident with Kokoro alone, Whisper let go when idle: {rss_kokoro:.0} MiB (budget idle: 600 MB)");
    takes(data_dir, &clips)?;
    let (peak, _) = memory_mib();
    println!("peak resident memory {peak:.0} MiB");
    Ok(())
}

/// Listening back: eight short takes heard one to a window, then several
/// to a window (what `checking` does), with the seconds a take and whether
/// every take was heard the same.
fn takes(data_dir: &Path, clips: &[Clip]) -> Result<()> {
    let takes: Vec<Vec<f32>> = (0..8).map(|i| clips[i % 2].samples.clone()).collect();
    let listener = revoice_engine::listening::Listener::new(data_dir);
    let options = TranscriptOptions { language: Some("en".into()), ..Default::default() };
    listener.transcribe(&takes[0], 16_000, &options, &mut |_| true)?;
    let t = Instant::now();
    let alone: Vec<String> = takes.iter().map(|c| listener.transcribe(c, 16_000, &options, &mut |_| true).map(|t| t.text())).collect::<Result<_>>()?;
    let alone_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let clips: Vec<&[f32]> = takes.iter().map(Vec::as_slice).collect();
    let together = listener.hear_clips(&clips, 16_000, Some("en"), &mut || true)?;
    let together_s = t.elapsed().as_secs_f64();
    let same = alone
        .iter()
        .zip(&together)
        .filter(|(a, b)| revoice_engine::text::word_errors::normalised_words(a) == revoice_engine::text::word_errors::normalised_words(b))
        .count();
    println!();
    println!(
        "listening back to {} takes ({:.1} s of audio each on average):",
        takes.len(),
        takes.iter().map(|c| c.len()).sum::<usize>() as f64 / 16_000.0 / takes.len() as f64
    );
    println!("  one to a window:     {:.2} s a take", alone_s / takes.len() as f64);
    println!(
        "  several to a window: {:.2} s a take ({:.2} of one to a window; {same} of {} heard the same)",
        together_s / takes.len() as f64,
        together_s / alone_s,
        takes.len()
    );
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

struct Reference {
    version: String,
    load_seconds: f64,
    peak_mib: f64,
    clips: Vec<(String, f64)>,
}

/// Runs scripts/dev/asr_reference.py on the same clips, written as 16-bit WAV.
fn run_reference(python: &str, data_dir: &Path, clips: &[Clip], threads: usize) -> std::result::Result<Reference, String> {
    let model_dir = revoice_engine::model::install::downloads_dir(data_dir, &revoice_engine::model::assets::WHISPER);
    if !model_dir.join("vocabulary.txt").is_file() {
        return Err(format!("{} lacks the CTranslate2 files: run `revoice models install --force`", model_dir.display()));
    }
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut paths = Vec::new();
    for (i, clip) in clips.iter().enumerate() {
        let path = scratch.path().join(format!("clip{i}.wav"));
        audio::wav::write_pcm16(&path, &clip.samples, 16_000).map_err(|e| e.to_string())?;
        paths.push(path.display().to_string());
    }
    let request = serde_json::json!({"model_dir": model_dir, "threads": threads, "clips": paths});
    let v = crate::bench::run_dev_script(python, "asr_reference.py", &[], &request)?;
    let clips = v["clips"]
        .as_array()
        .ok_or("bad reference output")?
        .iter()
        .map(|c| (c["text"].as_str().unwrap_or_default().to_string(), c["seconds"].as_f64().unwrap_or(0.0)))
        .collect();
    Ok(Reference {
        version: v["version"].as_str().unwrap_or("?").to_string(),
        load_seconds: v["load_seconds"].as_f64().unwrap_or(0.0),
        peak_mib: v["peak_mib"].as_f64().unwrap_or(0.0),
        clips,
    })
}
