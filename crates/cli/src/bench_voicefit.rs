//! `revoice bench voicefit`: fits a voice to each reference recording in a
//! folder (speakers that are not Kokoro voices: `scripts/voicefit-references`
//! renders some with Piper and Festival) on a scratch copy of the data
//! folder, and prints per reference the similarity on held-out sentences of
//! the best stock voice and the blend (the baselines, measured in the same
//! run) and of the fitted voice, the fit's time, Whisper's word error rate
//! on the fitted voice's and the best stock voice's renders of the held-out
//! sentences (is the fitted voice still intelligible?), and the peak memory.
//! Where the folder has the speaker's own reading of the held-out sentences
//! (`held-out/<same file name>`), it also prints that reading's similarity
//! to the reference: the speaker against itself, the ceiling a fitted voice
//! is measured against. Beside the speaker encoder's figures, the spectral
//! distance (mel-cepstral distortion) of the fitted voice and the best stock
//! voice to the recording, each saying the recording's own words.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use revoice_engine::audio::cepstrum::mel_cepstral_distortion;
use revoice_engine::cache::ReferenceInput;
use revoice_engine::model::speaker::cosine_similarity;
use revoice_engine::speech::SayRequest;
use revoice_engine::text::pronounce::Pronunciations;
use revoice_engine::text::word_errors::word_errors;
use revoice_engine::voice::fit::probe::HELD_OUT_SENTENCES;
use revoice_engine::voice::fit::{FitProgress, FitSettings};
use revoice_engine::voice_spec::VoiceSpec;
use revoice_engine::{Engine, EngineConfig, Error, FitRequest, Result};

use crate::bench::memory_mib;

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

/// The similarity to the reference (`matched`) of the speaker's own reading
/// of the held-out sentences, when `dir/held-out/<name>` has one.
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

/// How far each of `voices` is from the recording in spectrum, saying the
/// recording's own words (as Whisper hears them): the mel-cepstral
/// distortion in dB after aligning the two in time, and the words.
async fn own_words_distance(engine: &Arc<Engine>, recording: &Path, voices: Vec<VoiceSpec>) -> Result<(Vec<Option<f64>>, String)> {
    let (engine, recording) = (engine.clone(), recording.to_path_buf());
    tokio::task::spawn_blocking(move || -> Result<(Vec<Option<f64>>, String)> {
        let options = revoice_engine::model::whisper::TranscriptOptions { language: Some("en".into()), word_timestamps: false, initial_prompt: None };
        let words = engine.listener().transcribe_file(&recording, &options, &mut |_| true)?.text();
        let rate = engine.speech()?.sample_rate();
        let decoded = revoice_engine::audio::decode::decode_file(&recording)?;
        let own = revoice_engine::audio::resample::resample(&decoded.samples, decoded.sample_rate, rate)?;
        let mut distances = Vec::new();
        for voice in voices {
            let request = SayRequest { text: words.clone(), voice, speed: 1.0, seed: Some(1) };
            let said = engine.say_pronounced(&request, &Pronunciations::default())?.1;
            distances.push(mel_cepstral_distortion(&own, &said, rate));
        }
        Ok((distances, words))
    })
    .await
    .map_err(|e| Error::internal("measuring the spectral distance", e.to_string()))?
}

/// Whisper's word error rate over the held-out sentences said by `voice`
/// (a stock voice or a registered fitted voice's spec).
async fn held_out_word_errors(engine: &Arc<Engine>, voice: VoiceSpec) -> Result<f64> {
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || -> Result<f64> {
        let mut clips = Vec::new();
        for sentence in HELD_OUT_SENTENCES {
            let request = SayRequest { text: sentence.to_string(), voice: voice.clone(), speed: 1.0, seed: Some(1) };
            clips.push(engine.say_pronounced(&request, &Pronunciations::default())?.1);
        }
        let clip_refs: Vec<&[f32]> = clips.iter().map(Vec::as_slice).collect();
        let heard = engine.listener().hear_clips(&clip_refs, engine.speech()?.sample_rate(), Some("en"), &mut || true)?;
        let (errors, words) = HELD_OUT_SENTENCES.iter().zip(&heard).fold((0.0, 0usize), |(e, w), (written, heard)| {
            let errors = word_errors(written, heard);
            (e + errors.rate() * errors.words as f64, w + errors.words)
        });
        Ok(errors / words.max(1) as f64)
    })
    .await
    .map_err(|e| Error::internal("hearing the fitted voice", e.to_string()))?
}

/// Fits every recording in `dir` with `settings`.
pub async fn voicefit(data_dir: &Path, dir: &Path, settings: FitSettings) -> Result<()> {
    let files = references(dir)?;
    let scratch = crate::bench_api::scratch(data_dir)?;
    let engine = Arc::new(Engine::open(EngineConfig::load_from(scratch.path().to_path_buf())?).await?);
    println!(
        "revoice bench voicefit: {} references, {} min budget each ({:.0} % of it refining outside the stock voices, on {} probe sets in turn), population {}, seed {}, {}+{} directions, tone match up to {} dB",
        files.len(),
        settings.minutes,
        settings.refine_share * 100.0,
        settings.probe_sets,
        settings.population,
        settings.seed,
        settings.timbre_dims,
        settings.prosody_dims,
        settings.tone_match_db
    );
    let mut rows = Vec::new();
    for file in &files {
        let name = file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        eprintln!("fitting {name}...");
        let request = FitRequest { recording: ReferenceInput::LocalFile(file.clone()), settings: settings.clone(), language: "en-US".into() };
        let started = Instant::now();
        let label = name.clone();
        let progress: Arc<dyn Fn(&FitProgress) + Send + Sync> = Arc::new(move |p: &FitProgress| {
            eprintln!("  {label}: generation {:>3}, similarity {:.3} (start {:.3}), {:.0} s", p.generation, p.best_similarity, p.start_similarity, p.seconds);
        });
        let (matched, fitted) = engine.fit_voice(request, progress).await?;
        let seconds = started.elapsed().as_secs_f64();
        let (fitted_voice, stock_voice) =
            (VoiceSpec::from_fitted(&fitted.recipe, &fitted.held_out.best_stock), VoiceSpec::parse_stock(&fitted.held_out.best_stock)?);
        let fitted_wer = held_out_word_errors(&engine, fitted_voice.clone()).await?;
        let stock_wer = held_out_word_errors(&engine, stock_voice.clone()).await?;
        let (mcd, words) = own_words_distance(&engine, file, vec![fitted_voice, stock_voice]).await?;
        eprintln!("  {name} says: {words}");
        let itself = speaker_itself(&engine, dir, &name, &matched.embedding).await?;
        rows.push((name, matched.quality.speech_seconds, fitted, seconds, fitted_wer, stock_wer, itself, mcd));
    }
    println!();
    println!("similarity to the reference on sentences not used in the fit (GE2E cosine):");
    println!("(style: the fitted style without its tone match; tone dB: the tone match's largest gain;");
    println!(" itself: the speaker's own reading of the held-out sentences, where the folder has one;");
    println!(" WER: Whisper's word error rate on the held-out sentences, fitted voice / best stock voice;");
    println!(" MCD: mel-cepstral distortion in dB to the recording, saying its own words as Whisper hears them, fitted / best stock)");
    println!(
        "{:<14} {:>8}  {:<12} {:>6}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>7}  {:>6}  {:>5}  {:>11}  {:>11}",
        "reference", "speech s", "best stock", "sim", "blend", "style", "fitted", "vs best", "itself", "tone dB", "fit s", "gens", "WER", "MCD dB"
    );
    for (name, speech, f, seconds, fitted_wer, stock_wer, itself, mcd) in &rows {
        let db = |d: Option<f64>| d.map_or("-".to_string(), |d| format!("{d:.2}"));
        let h = &f.held_out;
        let style = h.style_only_similarity.map_or("-".to_string(), |s| format!("{s:.3}"));
        let tone = f.recipe.tone.as_ref().map_or("-".to_string(), |t| format!("{:.1}", t.largest_db()));
        let itself = itself.map_or("-".to_string(), |s| format!("{s:.3}"));
        println!(
            "{:<14} {:>8.1}  {:<12} {:>6.3}  {:>6.3}  {:>6}  {:>6.3}  {:>+7.3}  {:>6}  {:>7}  {:>6.0}  {:>5}  {:>4.1}% / {:>3.1}%  {:>5} / {:>5}",
            name,
            speech,
            h.best_stock,
            h.best_stock_similarity,
            h.blend_similarity,
            style,
            h.fitted_similarity,
            h.fitted_similarity - h.best_stock_similarity,
            itself,
            tone,
            seconds,
            f.generations,
            fitted_wer * 100.0,
            stock_wer * 100.0,
            db(mcd[0]),
            db(mcd[1])
        );
    }
    println!("peak memory (RSS): {:.0} MiB", memory_mib().0);
    engine.close().await;
    Ok(())
}
