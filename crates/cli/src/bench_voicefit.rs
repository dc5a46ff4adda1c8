//! `revoice bench voicefit`: fits a voice to each reference recording in a
//! folder (speakers that are not Kokoro voices: `scripts/voicefit-references`
//! gathers some: Piper and Festival voices and a real reader) on a scratch
//! copy of the data folder, once for each language the voice should speak
//! (the recording's own and others: the dubbing case, an actor's voice
//! speaking another language), and prints per reference and language:
//! - on held-out sentences of that language, the similarity to the
//!   recording of the language's best stock voice and blend (the baselines,
//!   measured in the same run) and of the fitted voice; where the folder has
//!   the speaker's own reading of other sentences (`held-out/<same file
//!   name>`), that reading's similarity: the speaker against itself, the
//!   ceiling a fitted voice is measured against;
//! - Whisper's word error rate in that language on the fitted voice's and
//!   the best stock voice's renders of those sentences (is the fitted voice
//!   still intelligible?), and their pitch (register and range) beside the
//!   recording's;
//! - in the recording's own language, the spectral distance (mel-cepstral
//!   distortion) of the fitted voice and the best stock voice to the
//!   recording, each saying the recording's own words, and their pace
//!   against the recording's on those words;
//! - how natural each voice sounds to an outside judge (DNSMOS, through
//!   `scripts/dev/naturalness_reference.py`, when a Python with it is
//!   given): the recording, the best stock voice, the blend, the fitted
//!   voice and its style without the tone match (which of the two costs
//!   naturalness);
//! - the fit's time, and the peak memory.
//!
//! The held-out renders and each fitted voice's record are kept in a folder
//! (`target/voicefit-renders` by default), to listen to and to judge again:
//! `--kept <that folder>` judges the kept voices again instead of fitting
//! (their styles through today's tone match; minutes instead of hours, for
//! trying a change to the tone match or the measures).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use revoice_engine::audio::cepstrum::{band_top_hz, mel_cepstral_distortion_below};
use revoice_engine::audio::pitch::{voice_stats, VoiceStats};
use revoice_engine::cache::ReferenceInput;
use revoice_engine::language::{of_tag, primary};
use revoice_engine::model::speaker::cosine_similarity;
use revoice_engine::model::whisper::TranscriptOptions;
use revoice_engine::speech::SayRequest;
use revoice_engine::text::pronounce::Pronunciations;
use revoice_engine::text::word_errors::word_errors;
use revoice_engine::voice::fit::probe::sentences_for;
use revoice_engine::voice::fit::{FitProgress, FitSettings, FittedVoice, StyleRecipe};
use revoice_engine::voice_spec::VoiceSpec;
use revoice_engine::{Engine, EngineConfig, Error, FitRequest, Result};

use crate::bench::memory_mib;

/// In `--languages`, the recording's own language.
pub const OWN_LANGUAGE: &str = "own";

fn references(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io("read", dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| ["wav", "flac", "mp3", "ogg", "opus"].contains(&e.to_ascii_lowercase().as_str())))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::invalid(dir.display().to_string(), "holds no recordings: run scripts/voicefit-references to make some"));
    }
    Ok(files)
}

/// A reference recording, heard.
struct Recording {
    name: String,
    path: PathBuf,
    /// Its samples at the engine's rate.
    samples: Vec<f32>,
    /// The highest frequency it carries, in Hz: a little under the Nyquist
    /// frequency of the rate it was recorded at, or of the engine's.
    band_top_hz: f64,
    /// The language Whisper hears it in, and its words.
    language: String,
    words: String,
    stats: VoiceStats,
}

async fn hear_recording(engine: &Arc<Engine>, path: &Path) -> Result<Recording> {
    let (engine, path) = (engine.clone(), path.to_path_buf());
    tokio::task::spawn_blocking(move || -> Result<Recording> {
        let options = TranscriptOptions { language: None, word_timestamps: false, initial_prompt: None };
        let decoded = revoice_engine::audio::decode::decode_file(&path)?;
        let heard = engine
            .listener()
            .transcribe(&decoded.samples, decoded.sample_rate, &options, &mut |_| true)
            .map_err(|e| e.context(format!("transcribing {}", path.display())))?;
        let rate = engine.speech()?.sample_rate();
        let samples = revoice_engine::audio::resample::resample(&decoded.samples, decoded.sample_rate, rate)?;
        let band_top_hz = band_top_hz(decoded.sample_rate, rate);
        let stats = voice_stats(&samples, rate);
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        Ok(Recording { name, path, samples, band_top_hz, language: heard.language.clone(), words: heard.text(), stats })
    })
    .await
    .map_err(|e| Error::internal("hearing the reference", e.to_string()))?
}

/// The similarity to the reference (`matched`) of the speaker's own reading
/// of other sentences, when `dir/held-out/<name>` has one.
async fn speaker_itself(engine: &Arc<Engine>, dir: &Path, name: &str, reference: &[f32]) -> Result<Option<f32>> {
    let reading = dir.join("held-out").join(name);
    if !reading.is_file() {
        return Ok(None);
    }
    let engine = engine.clone();
    let own = tokio::task::spawn_blocking(move || engine.match_recording(ReferenceInput::LocalFile(reading)))
        .await
        .map_err(|e| Error::internal("hearing the speaker's own reading", e.to_string()))??;
    Ok(Some(cosine_similarity(&own.embedding, reference)))
}

/// A voice saying the recording's own words, against the recording.
struct OwnWords {
    /// Mel-cepstral distortion in dB after aligning the two in time.
    distance: Option<f64>,
    /// Its speech time over the recording's (the same words): its pace.
    pace: f32,
}

async fn own_words(engine: &Arc<Engine>, recording: &Arc<Recording>, voice: VoiceSpec) -> Result<OwnWords> {
    let (engine, recording) = (engine.clone(), recording.clone());
    tokio::task::spawn_blocking(move || -> Result<OwnWords> {
        let rate = engine.speech()?.sample_rate();
        let request = SayRequest { text: recording.words.clone(), voice, speed: 1.0, seed: Some(1) };
        let said = engine.say_pronounced(&request, &Pronunciations::default())?.1;
        let pace = voice_stats(&said, rate).speech_seconds / recording.stats.speech_seconds.max(f32::EPSILON);
        Ok(OwnWords { distance: mel_cepstral_distortion_below(&recording.samples, &said, rate, recording.band_top_hz), pace })
    })
    .await
    .map_err(|e| Error::internal("measuring the spectral distance", e.to_string()))?
}

/// A voice on the held-out sentences of a language: Whisper's word error
/// rate in that language (when asked for), how its voice sits, and the
/// renders one after the other.
struct HeldOut {
    word_errors: Option<f64>,
    stats: VoiceStats,
    said: Vec<f32>,
}

/// Whether [`held_out`] has Whisper hear the renders (the table prints the
/// fitted and the best stock voice's word errors only).
#[derive(Clone, Copy, PartialEq)]
enum Hear {
    WordErrors,
    Not,
}

async fn held_out(engine: &Arc<Engine>, voice: VoiceSpec, language: &str, hear: Hear) -> Result<HeldOut> {
    let sentences = sentences_for(language).ok_or_else(|| Error::invalid(format!("language {language:?}"), "has no sentences a voice can be fitted on"))?;
    let (engine, spoken) = (engine.clone(), primary(language));
    tokio::task::spawn_blocking(move || -> Result<HeldOut> {
        let rate = engine.speech()?.sample_rate();
        let mut clips = Vec::new();
        for sentence in sentences.held_out {
            let request = SayRequest { text: sentence.to_string(), voice: voice.clone(), speed: 1.0, seed: Some(1) };
            clips.push(engine.say_pronounced(&request, &Pronunciations::default())?.1);
        }
        let word_error_rate = match hear {
            Hear::WordErrors => {
                let clip_refs: Vec<&[f32]> = clips.iter().map(Vec::as_slice).collect();
                let heard = engine.listener().hear_clips(&clip_refs, rate, Some(&spoken), &mut || true)?;
                let (errors, words) = sentences.held_out.iter().zip(&heard).fold((0.0, 0usize), |(e, w), (written, heard)| {
                    let errors = word_errors(written, heard);
                    (e + errors.rate() * errors.words as f64, w + errors.words)
                });
                Some(errors / words.max(1) as f64)
            }
            Hear::Not => None,
        };
        let said: Vec<f32> = clips.concat();
        Ok(HeldOut { word_errors: word_error_rate, stats: voice_stats(&said, rate), said })
    })
    .await
    .map_err(|e| Error::internal("hearing the fitted voice", e.to_string()))?
}

/// One reference fitted to speak one language.
struct Row {
    reference: Arc<Recording>,
    language: String,
    speech_seconds: f64,
    fitted: FittedVoice,
    fit_seconds: f64,
    itself: Option<f32>,
    /// The fitted voice, the best stock voice, the blend and the fitted
    /// style without its tone match, in that order.
    held_out: [HeldOut; 4],
    /// The fitted voice, the best stock voice and the style without its tone.
    own_words: Option<[OwnWords; 3]>,
}

/// The languages `--languages` names for a recording in `own` (its own
/// language first; each once; `own` where the list says so).
pub fn target_languages(list: &[String], own: &str) -> Result<Vec<String>> {
    let mut targets: Vec<String> = Vec::new();
    for item in list {
        let tag = if item == OWN_LANGUAGE {
            of_tag(own)
                .and_then(|l| l.kokoro_language)
                .ok_or_else(|| Error::invalid(format!("the recording's language {own:?}"), "has no Kokoro voices to fit"))?
                .to_string()
        } else {
            item.clone()
        };
        if sentences_for(&tag).is_none() {
            return Err(Error::invalid(format!("language {tag:?}"), "has no sentences a voice can be fitted on"));
        }
        if !targets.iter().any(|t| primary(t) == primary(&tag)) {
            targets.push(tag);
        }
    }
    targets.sort_by_key(|t| primary(t) != primary(own));
    Ok(targets)
}

/// The fitted voice an earlier run kept in `folder` for `recording`
/// speaking `language`; `None` when it kept none.
fn kept_voice(folder: &Path, recording: &Recording, language: &str) -> Result<Option<FittedVoice>> {
    let path = folder.join(format!("{}.{language}.fitted.json", stem_of(&recording.name)));
    if !path.is_file() {
        return Ok(None);
    }
    let json = std::fs::read_to_string(&path).map_err(|e| Error::io("read", &path, e))?;
    serde_json::from_str(&json).map(Some).map_err(|e| Error::invalid(path.display().to_string(), format!("is not a fitted voice's record: {e}")))
}

fn stem_of(name: &str) -> String {
    Path::new(name).file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// Fits every recording in `dir` with `settings` (or, with `kept`, judges
/// again the fitted voices an earlier run kept there), to speak each of
/// `languages`, keeps the renders in `renders`, and has them judged for
/// naturalness by `judge` (a Python with DNSMOS), if given.
pub async fn voicefit(
    data_dir: &Path,
    dir: &Path,
    settings: FitSettings,
    languages: &[String],
    renders: &Path,
    kept: Option<&Path>,
    judge: Option<&str>,
) -> Result<()> {
    let same_folder = |a: &Path, b: &Path| std::fs::canonicalize(a).ok().zip(std::fs::canonicalize(b).ok()).is_some_and(|(a, b)| a == b);
    if kept.is_some_and(|k| same_folder(k, renders)) {
        return Err(Error::invalid(format!("--kept {}", renders.display()), "is the folder this run keeps its renders in; name another --renders"));
    }
    let files = references(dir)?;
    let scratch = crate::bench_api::scratch(data_dir)?;
    let engine = Arc::new(Engine::open(EngineConfig::load_from(scratch.path().to_path_buf())?).await?);
    println!(
        "revoice bench voicefit: {} references, each to speak {}; {}{} min budget a fit ({:.0} % of it refining outside the stock voices, on {} probe sets in turn), population {}, seed {}, {}+{} directions, tone match up to {} dB, register moved up to {} semitones, spectral weight {}, descent {:.0} % of the budget, naturalness weight {}, naturalness guard {} (margin {})",
        files.len(),
        languages.join(", "),
        kept.map_or(String::new(), |k| format!("the fitted voices kept in {} judged again (fitted with their own settings, chosen with today's); ", k.display())),
        settings.minutes,
        settings.refine_share * 100.0,
        settings.probe_sets,
        settings.population,
        settings.seed,
        settings.timbre_dims,
        settings.prosody_dims,
        settings.tone_match_db,
        settings.register_semitones,
        settings.spectral_weight,
        settings.descent_share * 100.0,
        settings.naturalness_weight,
        settings.naturalness_guard,
        settings.naturalness_guard_margin
    );
    let mut rows = Vec::new();
    for file in &files {
        let recording = Arc::new(hear_recording(&engine, file).await?);
        eprintln!("{} ({}) says: {}", recording.name, recording.language, recording.words);
        let mut itself = None;
        for language in target_languages(languages, &recording.language)? {
            let kept_fit = match kept {
                Some(folder) => match kept_voice(folder, &recording, &language)? {
                    Some(fitted) => Some(fitted),
                    None => {
                        eprintln!("{} has no voice kept for {} speaking {language}: left out", folder.display(), recording.name);
                        continue;
                    }
                },
                None => None,
            };
            eprintln!("{} {} to speak {language}...", if kept_fit.is_some() { "judging again" } else { "fitting" }, recording.name);
            let request = FitRequest { recording: ReferenceInput::LocalFile(file.clone()), settings: settings.clone(), language: language.clone() };
            let started = Instant::now();
            let label = format!("{} → {language}", recording.name);
            let progress: Arc<dyn Fn(&FitProgress) + Send + Sync> = Arc::new(move |p: &FitProgress| {
                eprintln!(
                    "  {label}: generation {:>3}, similarity {:.3} (start {:.3}), {:.0} s",
                    p.generation, p.best_similarity, p.start_similarity, p.seconds
                );
            });
            let (matched, fitted, fit_seconds) = match kept_fit {
                Some(kept_fit) => {
                    let (matched, fitted) = engine.fit_judged_again(request, kept_fit).await?;
                    let seconds = fitted.seconds as f64;
                    (matched, fitted, seconds)
                }
                None => {
                    let (matched, fitted) = engine.fit_voice(request, progress).await?;
                    (matched, fitted, started.elapsed().as_secs_f64())
                }
            };
            let fitted_voice = VoiceSpec::from_fitted(&fitted.recipe, &fitted.held_out.best_stock);
            let style_voice = VoiceSpec::from_fitted(&StyleRecipe { tone: None, ..fitted.recipe.clone() }, &fitted.held_out.best_stock);
            let stock_voice = VoiceSpec::parse_stock(&fitted.held_out.best_stock)?;
            let blend_voice = VoiceSpec::parse_stock(&matched.blend_spec())?;
            let held_out = [
                held_out(&engine, fitted_voice.clone(), &language, Hear::WordErrors).await?,
                held_out(&engine, stock_voice.clone(), &language, Hear::WordErrors).await?,
                held_out(&engine, blend_voice, &language, Hear::Not).await?,
                held_out(&engine, style_voice.clone(), &language, Hear::Not).await?,
            ];
            let own_words = if primary(&language) == primary(&recording.language) {
                Some([
                    own_words(&engine, &recording, fitted_voice).await?,
                    own_words(&engine, &recording, stock_voice).await?,
                    own_words(&engine, &recording, style_voice).await?,
                ])
            } else {
                None
            };
            if itself.is_none() {
                itself = Some(speaker_itself(&engine, dir, &recording.name, &matched.embedding).await?);
            }
            rows.push(Row {
                reference: recording.clone(),
                language,
                speech_seconds: matched.quality.speech_seconds,
                fitted,
                fit_seconds,
                itself: itself.flatten(),
                held_out,
                own_words,
            });
        }
    }
    let kept = keep_renders(&rows, renders, engine.speech()?.sample_rate())?;
    print_similarity(&rows);
    print_measures(&rows);
    print_naturalness(&rows, &kept, judge);
    println!("peak memory (RSS): {:.0} MiB", memory_mib().0);
    engine.close().await;
    Ok(())
}

/// The files one row's voices were kept in: the fitted voice, the best
/// stock voice, the blend and the style without its tone match on the
/// held-out sentences.
struct Kept {
    renders: [PathBuf; 4],
}

/// Writes each row's held-out renders as WAV files and its fitted voice's
/// record as JSON into `folder`, named `<reference>.<language>.<voice>`.
fn keep_renders(rows: &[Row], folder: &Path, rate: u32) -> Result<Vec<Kept>> {
    std::fs::create_dir_all(folder).map_err(|e| Error::io("create", folder, e))?;
    let mut kept = Vec::new();
    for row in rows {
        let stem = stem_of(&row.reference.name);
        let named = |ending: &str| folder.join(format!("{stem}.{}.{ending}", row.language));
        let renders = ["fitted", "stock", "blend", "style"].map(|voice| named(&format!("{voice}.wav")));
        for (path, held_out) in renders.iter().zip(&row.held_out) {
            revoice_engine::audio::wav::write_pcm16(path, &held_out.said, rate)?;
        }
        let record = named("fitted.json");
        let json = serde_json::to_string_pretty(&row.fitted).map_err(|e| Error::internal("writing the fitted voice's record", e.to_string()))?;
        std::fs::write(&record, json).map_err(|e| Error::io("write", &record, e))?;
        kept.push(Kept { renders });
    }
    eprintln!("held-out renders and fitted voices kept in {}", folder.display());
    Ok(kept)
}

/// One clip's scores from the naturalness judge.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Naturalness {
    /// P.835 signal quality (distortion of the voice itself) and overall.
    signal: f64,
    overall: f64,
    /// P.808 overall: another network, which the fit never listens with.
    p808: f64,
}

/// Runs `scripts/dev/naturalness_reference.py` on `clips`.
fn judge_naturalness(python: &str, clips: &[PathBuf]) -> std::result::Result<(String, Vec<Naturalness>), String> {
    let request = serde_json::json!({ "clips": clips });
    let answer = crate::bench::run_dev_script(python, "naturalness_reference.py", &[], &request)?;
    let scores = answer["clips"]
        .as_array()
        .ok_or("the naturalness judge answered without clips")?
        .iter()
        .map(|c| {
            let score = |key: &str| c[key].as_f64().unwrap_or(f64::NAN);
            Naturalness { signal: score("sig_mos"), overall: score("ovrl_mos"), p808: score("p808_mos") }
        })
        .collect::<Vec<_>>();
    if scores.len() != clips.len() {
        return Err(format!("the naturalness judge scored {} clips of {}", scores.len(), clips.len()));
    }
    Ok((answer["judge"].as_str().unwrap_or("?").to_string(), scores))
}

fn print_naturalness(rows: &[Row], kept: &[Kept], judge: Option<&str>) {
    println!();
    let Some(python) = judge else {
        println!("naturalness: no judge (make one with scripts/dev/naturalness-venv, then --reference-python target/naturalness-venv/bin/python)");
        return;
    };
    // Each recording once, then every row's three voices.
    let mut clips: Vec<PathBuf> = Vec::new();
    let mut recordings: Vec<&str> = Vec::new();
    for row in rows {
        if !recordings.contains(&row.reference.name.as_str()) {
            recordings.push(&row.reference.name);
            clips.push(row.reference.path.clone());
        }
    }
    clips.extend(kept.iter().flat_map(|k| k.renders.iter().cloned()));
    let (name, scores) = match judge_naturalness(python, &clips) {
        Ok(judged) => judged,
        Err(e) => {
            println!("naturalness: the judge failed: {e}");
            return;
        }
    };
    let (of_recordings, of_voices) = scores.split_at(recordings.len());
    println!("naturalness by {name}, signal / overall quality on a 1-5 opinion scale (held-out sentences; the recording as it is):");
    println!("(style: the fitted style without its tone match)");
    println!(
        "{:<14} {:>6}  {:>11}  {:>11}  {:>11}  {:>11}  {:>11}  {:>13}",
        "reference", "speaks", "recording", "best stock", "blend", "style", "fitted", "fitted-stock"
    );
    let show = |n: &Naturalness| format!("{:.2} / {:.2}", n.signal, n.overall);
    for (row, voices) in rows.iter().zip(of_voices.chunks(4)) {
        let recording = &of_recordings[recordings.iter().position(|r| *r == row.reference.name).unwrap_or(0)];
        println!(
            "{:<14} {:>6}  {:>11}  {:>11}  {:>11}  {:>11}  {:>11}  {:>+5.2} / {:>+5.2}",
            row.reference.name,
            row.language,
            show(recording),
            show(&voices[1]),
            show(&voices[2]),
            show(&voices[3]),
            show(&voices[0]),
            voices[0].signal - voices[1].signal,
            voices[0].overall - voices[1].overall,
        );
    }
    println!();
    println!("a second opinion, DNSMOS P.808 (a network the fit does not listen with; the fit weighs the P.835 signal score):");
    println!(
        "{:<14} {:>6}  {:>9}  {:>10}  {:>5}  {:>5}  {:>6}  {:>12}",
        "reference", "speaks", "recording", "best stock", "blend", "style", "fitted", "fitted-stock"
    );
    for (row, voices) in rows.iter().zip(of_voices.chunks(4)) {
        let recording = &of_recordings[recordings.iter().position(|r| *r == row.reference.name).unwrap_or(0)];
        println!(
            "{:<14} {:>6}  {:>9.2}  {:>10.2}  {:>5.2}  {:>5.2}  {:>6.2}  {:>+12.2}",
            row.reference.name,
            row.language,
            recording.p808,
            voices[1].p808,
            voices[2].p808,
            voices[3].p808,
            voices[0].p808,
            voices[0].p808 - voices[1].p808
        );
    }
}

fn or_dash<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map_or("-".to_string(), show)
}

fn print_similarity(rows: &[Row]) {
    println!();
    println!("similarity to the reference on held-out sentences of the language the voice speaks (GE2E cosine):");
    println!("(rec: the language Whisper hears the recording in; speaks: the language the voice was fitted to speak;");
    println!(" style: the fitted style without its tone match; tone dB: the tone match's largest gain;");
    println!(" reg st: the semitones its pitch is moved by to the recording's register;");
    println!(" itself: the speaker's own reading of other sentences, where the folder has one)");
    println!(
        "{:<14} {:>4} {:>6} {:>8}  {:<12} {:>6}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>7}  {:>6}  {:>6}  {:>5}",
        "reference", "rec", "speaks", "speech s", "best stock", "sim", "blend", "style", "fitted", "vs best", "itself", "tone dB", "reg st", "fit s", "gens"
    );
    for row in rows {
        let (f, h) = (&row.fitted, &row.fitted.held_out);
        println!(
            "{:<14} {:>4} {:>6} {:>8.1}  {:<12} {:>6.3}  {:>6.3}  {:>6}  {:>6.3}  {:>+7.3}  {:>6}  {:>7}  {:>6}  {:>6.0}  {:>5}",
            row.reference.name,
            row.reference.language,
            row.language,
            row.speech_seconds,
            h.best_stock,
            h.best_stock_similarity,
            h.blend_similarity,
            or_dash(h.style_only_similarity, |s| format!("{s:.3}")),
            h.fitted_similarity,
            h.fitted_similarity - h.best_stock_similarity,
            or_dash(row.itself, |s| format!("{s:.3}")),
            or_dash(f.recipe.tone.as_ref(), |t| format!("{:.1}", t.largest_db())),
            or_dash(f.recipe.pitch_semitones, |p| format!("{p:+.1}")),
            row.fit_seconds,
            f.generations,
        );
    }
}

fn print_measures(rows: &[Row]) {
    println!();
    println!("beside the speaker encoder, fitted voice / best stock voice:");
    println!("(WER: Whisper's word error rate on the held-out sentences, in the language the voice speaks;");
    println!(" pitch: median Hz on them, and range in semitones (10th to 90th percentile), after the recording's own;");
    println!(" MCD: mel-cepstral distortion in dB to the recording, saying its own words as Whisper hears them,");
    println!("  over the mel bands below the recording's band top (kHz: 0.9 of its Nyquist frequency),");
    println!("  and of the fitted style without its tone match;");
    println!(" and pace: the speech time of those words over the recording's (1: the same pace); own language only)");
    println!(
        "{:<14} {:>6}  {:>13}  {:>17}  {:>16}  {:>5}  {:>13}  {:>5}  {:>11}",
        "reference", "speaks", "WER", "pitch Hz", "range st", "kHz", "MCD dB", "style", "pace"
    );
    for row in rows {
        let [fitted, stock, _, _] = &row.held_out;
        let own = &row.reference.stats;
        let own_words = row.own_words.as_ref();
        println!(
            "{:<14} {:>6}  {:>5.1}% / {:>4.1}%  {:>5.0}: {:>4.0} / {:>4.0}  {:>4.1}: {:>4.1} / {:>4.1}  {:>5.1}  {:>5} / {:>5}  {:>5}  {:>4} / {:>4}",
            row.reference.name,
            row.language,
            fitted.word_errors.unwrap_or(f64::NAN) * 100.0,
            stock.word_errors.unwrap_or(f64::NAN) * 100.0,
            own.median_pitch_hz,
            fitted.stats.median_pitch_hz,
            stock.stats.median_pitch_hz,
            own.pitch_range_semitones,
            fitted.stats.pitch_range_semitones,
            stock.stats.pitch_range_semitones,
            row.reference.band_top_hz / 1000.0,
            or_dash(own_words.and_then(|o| o[0].distance), |d| format!("{d:.1}")),
            or_dash(own_words.and_then(|o| o[1].distance), |d| format!("{d:.1}")),
            or_dash(own_words.and_then(|o| o[2].distance), |d| format!("{d:.1}")),
            or_dash(own_words, |o| format!("{:.2}", o[0].pace)),
            or_dash(own_words, |o| format!("{:.2}", o[1].pace)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_recordings_own_language_comes_first_and_each_language_once() {
        assert_eq!(target_languages(&list(&["own", "es"]), "en").unwrap(), ["en-US", "es"]);
        assert_eq!(target_languages(&list(&["en-US", "es", "own"]), "it").unwrap(), ["it", "en-US", "es"]);
        assert_eq!(target_languages(&list(&["own", "en-US", "es"]), "en").unwrap(), ["en-US", "es"]);
        assert_eq!(target_languages(&list(&["es"]), "en").unwrap(), ["es"]);
        let unknown = target_languages(&list(&["ko"]), "en").unwrap_err().to_string();
        assert!(unknown.contains("\"ko\""), "{unknown}");
        let unspoken = target_languages(&list(&["own"]), "ko").unwrap_err().to_string();
        assert!(unspoken.contains("\"ko\""), "{unspoken}");
    }
}
