//! `revoice voices match FILE`: the quality report of a reference recording,
//! the stock voices closest to it, and the blend of the best few. Matching
//! picks and mixes stock voices; it does not clone the speaker. Also the
//! voice library: `voices add`, `voices fit` (a voice fitted to the
//! recording by search: still not a clone), `voices show`, `voices remove`,
//! the registered voices in `voices list`, and registered names in
//! `say --voice`.

use std::path::Path;
use std::sync::Arc;

use revoice_engine::cache::ReferenceInput;
use revoice_engine::voice::fit::{FitProgress, FitSettings};
use revoice_engine::voice::library::VoiceDetails;
use revoice_engine::voice::MatchedVoice;
use revoice_engine::{Engine, FitRequest, NewLibraryVoice};

/// Matches `file` against the stock voices and prints the result (JSON with
/// `json`); with `output`, saves the artifact there. Blocking.
pub fn match_file(engine: &Engine, file: &Path, json: bool, top: usize, output: Option<&Path>) -> revoice_engine::Result<()> {
    let started = std::time::Instant::now();
    eprintln!("loading the speaker encoder (the stock voices' embeddings are computed on first use, then cached)...");
    engine.references()?;
    let loaded = started.elapsed();
    let voice = engine.match_recording(ReferenceInput::LocalFile(file.to_path_buf()))?;
    let matched = started.elapsed() - loaded;
    if let Some(path) = output {
        voice.save(path)?;
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&voice).expect("artifact serialises"));
    } else {
        print_match(&voice, top);
        eprintln!("matched in {:.2} s (encoder and stock embeddings loaded in {:.2} s)", matched.as_secs_f64(), loaded.as_secs_f64());
    }
    if let Some(path) = output {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

fn print_match(v: &MatchedVoice, top: usize) {
    let q = &v.quality;
    println!("Reference {}", v.source);
    println!("  length        {:.1} s ({:.1} s of speech)", q.seconds, q.speech_seconds);
    println!("  level         peak {:.1} dBFS, RMS {:.1} dBFS", q.peak_dbfs, q.rms_dbfs);
    println!("  clipping      {:.3} % of samples", q.clipped_fraction * 100.0);
    println!("  noise         floor {:.0} dBFS, speech {:.0} dB above it", q.noise_floor_dbfs, q.snr_db);
    for w in &q.warnings {
        println!("  warning: {w}");
    }
    println!();
    println!("Closest stock voices (cosine similarity of speaker embeddings):");
    for (i, m) in v.matches.iter().take(top).enumerate() {
        println!("  {:>2}. {:<14} {:<6} {:<7} {:.3}", i + 1, m.voice, m.language, m.gender, m.similarity);
    }
    println!();
    println!("Blend of the closest voices (this matches and mixes stock voices; it does not clone):");
    for p in &v.blend {
        println!("  {:<14} {:>5.1} %", p.voice, p.weight * 100.0);
    }
    println!("  use it with: revoice say --voice {} \"...\"", v.blend_spec());
}

/// Matches `file` and registers it under `details.name`.
pub async fn add(engine: &Arc<Engine>, file: &Path, details: VoiceDetails) -> revoice_engine::Result<()> {
    details.check()?;
    let given_text = !details.reference_text.trim().is_empty();
    let (record, matched, _) = engine
        .add_library_voice(NewLibraryVoice {
            details,
            recording: file,
            max_voices: None,
            fitted: None,
            language: None,
            recording_language: None,
            hear_text_later: false,
        })
        .await?;
    print_match(&matched, 3);
    println!();
    if !given_text && !record.voice.reference_text.is_empty() {
        println!("reference text (heard by Whisper): {}", record.voice.reference_text);
    }
    println!("registered voice {:?} (version {}); use it with: revoice say --voice {:?} \"...\"", record.voice.name, record.version, record.voice.name);
    Ok(())
}

/// Removes a registered voice.
pub async fn remove(engine: &Engine, name: &str) -> revoice_engine::Result<()> {
    engine.delete_library_voice(name).await.map_err(|e| e.context("see `revoice voices list`"))?;
    println!("removed voice {name:?}");
    Ok(())
}

/// Prints the library's voices after the stock ones.
pub async fn list_registered(engine: &Engine) -> revoice_engine::Result<()> {
    let voices = engine.store().voices().await?;
    if voices.is_empty() {
        return Ok(());
    }
    println!();
    println!("registered voices (matched: a blend of stock voices; fitted: a style fitted to the recording):");
    for r in voices {
        let summary = match serde_json::from_str::<MatchedVoice>(&r.voice.artifact_json) {
            Ok(m) if m.fits.is_empty() => format!("matched ({}), {}", m.language, m.blend_spec()),
            Ok(m) => {
                let fits: Vec<String> = m
                    .fits
                    .values()
                    .map(|f| format!("{} {:.3} (best stock {:.3})", f.language, f.held_out.fitted_similarity, f.held_out.best_stock_similarity))
                    .collect();
                format!("fitted for {}", fits.join(", "))
            }
            Err(_) => "unreadable artifact".into(),
        };
        println!("  {:<20} v{}  {}  ({})", r.voice.name, r.version, summary, r.voice.description);
    }
    Ok(())
}

fn minutes(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    format!("{}m{:02}s", s / 60, s % 60)
}

/// Fits a voice to `file` (a search of Kokoro's style space, not a clone),
/// printing progress, then registers it under `details.name` and prints the
/// similarity on held-out sentences before and after. Ctrl-C stops the fit
/// after its generation; running the same command again resumes it.
pub async fn fit(engine: &Arc<Engine>, file: &Path, details: VoiceDetails, settings: FitSettings, language: String) -> revoice_engine::Result<()> {
    details.check()?;
    let request = FitRequest { recording: ReferenceInput::LocalFile(file.to_path_buf()), settings: settings.clone(), language: language.clone() };
    let key = engine.fit_key(&request)?;
    let budget = settings.minutes as f64 * 60.0;
    eprintln!("fitting a voice to {} (searching Kokoro's style space for up to {}; Ctrl-C stops and keeps a checkpoint)...", file.display(), minutes(budget));
    let watcher = engine.clone();
    let watched_key = key.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("stopping after this generation...");
            watcher.cancel_fit(&watched_key);
        }
    });
    let progress: Arc<dyn Fn(&FitProgress) + Send + Sync> = Arc::new(|p: &FitProgress| {
        eprintln!(
            "  generation {:>3}: {:>4} candidates heard, similarity {:.3} (start {:.3}), {} spent, about {} left",
            p.generation,
            p.candidates,
            p.best_similarity,
            p.start_similarity,
            minutes(p.seconds),
            minutes(p.seconds_left)
        );
    });
    let outcome = engine.fit_voice(request, progress).await;
    ctrl_c.abort();
    let (_, fitted) = outcome.map_err(|e| match e.kind() {
        revoice_engine::ErrorKind::Cancelled => e.context("the checkpoint is kept: run the same command again to resume"),
        _ => e,
    })?;
    let (record, matched, _) = engine
        .add_library_voice(NewLibraryVoice {
            details,
            recording: file,
            max_voices: None,
            fitted: Some(fitted),
            language: Some(language),
            recording_language: None,
            hear_text_later: false,
        })
        .await?;
    println!();
    print_record(&record.voice.name, record.version, &matched);
    println!();
    println!("registered fitted voice {:?}; use it with: revoice say --voice {:?} \"...\"", record.voice.name, record.voice.name);
    Ok(())
}

/// Prints what a library voice is: its matched blend in its own language,
/// and each fit (one per language it was fitted to speak) with its figures.
fn print_record(name: &str, version: i64, v: &MatchedVoice) {
    println!("Voice {name:?} (version {version}) from {}", v.source);
    println!("  recording     {:.1} s ({:.1} s of speech), speech {:.0} dB above the noise", v.quality.seconds, v.quality.speech_seconds, v.quality.snr_db);
    println!("  made for      {} (a line in another language speaks its fit for that language, or that language's closest voices)", v.language);
    println!("  matched       a blend of the closest stock voices (not a clone): {}", v.blend_spec());
    if let Some(best) = v.best_voice() {
        println!("  closest       {} ({:.3})", best.voice, best.similarity);
    }
    if v.fits.is_empty() {
        println!("  fitted        not yet: `revoice voices fit` searches for a voice that sounds more like the recording");
    }
    for f in v.fits.values() {
        print_fit(f);
    }
}

/// One fit's figures.
fn print_fit(f: &revoice_engine::voice::fit::FittedVoice) {
    println!();
    println!("  fitted voice for {}: a Kokoro style found by search to sound like the recording (not a clone)", f.language);
    println!("    search        {} generations, {} candidates, {}", f.generations, f.candidates, minutes(f.seconds as f64));
    println!(
        "    started from  {}{}",
        f.started_from,
        if f.kept_start { " (kept: the search's best sounded less like the recording on other sentences)" } else { "" }
    );
    println!("    similarity to the recording on sentences not used in the fit:");
    println!("      best stock voice ({:<10}) {:.3}", f.held_out.best_stock, f.held_out.best_stock_similarity);
    println!("      blend of stock voices        {:.3}", f.held_out.blend_similarity);
    println!("      fitted voice                 {:.3}", f.held_out.fitted_similarity);
    if let Some(style_only) = f.held_out.style_only_similarity {
        println!("      its style without the tone   {style_only:.3}");
    }
    let h = &f.held_out;
    if let Some(fitted) = h.fitted_naturalness {
        println!(
            "    naturalness on the same sentences (DNSMOS speech signal, 1-5; the search guards it at weight {} below a margin of {}, the tone choice weighs it {}):",
            f.settings.naturalness_guard, f.settings.naturalness_guard_margin, f.settings.naturalness_weight
        );
        let shown = |n: Option<f32>| n.map_or("-".to_string(), |n| format!("{n:.2}"));
        println!("      best stock voice ({:<10}) {}", h.best_stock, shown(h.best_stock_naturalness));
        println!("      blend of stock voices        {}", shown(h.blend_naturalness));
        println!("      fitted voice                 {fitted:.2}");
    }
    if let Some(offset) = &f.recipe.timbre_offset {
        let rms = (offset.iter().map(|o| o * o).sum::<f32>() / offset.len().max(1) as f32).sqrt();
        println!("    timbre        refined beyond the stock voices' blend (offset RMS {rms:.3})");
    }
    match &f.recipe.tone {
        Some(tone) => println!("    tone          matched to the recording's tonal balance (largest gain {:.1} dB)", tone.largest_db()),
        None => println!("    tone          as Kokoro renders it (no tone match)"),
    }
    if let Some(semitones) = f.recipe.pitch_semitones {
        println!("    register      pitch moved {semitones:+.1} semitones to the recording's");
    }
}

/// Prints a library voice's record.
pub async fn show(engine: &Engine, name: &str) -> revoice_engine::Result<()> {
    let record = engine
        .store()
        .voice(name)
        .await?
        .ok_or_else(|| revoice_engine::Error::not_found(format!("voice {name:?}"), "is not in the library; see `revoice voices list`"))?;
    let matched: MatchedVoice = serde_json::from_str(&record.voice.artifact_json)
        .map_err(|e| revoice_engine::Error::invalid(format!("voice {name:?}"), format!("its stored record is unreadable ({e}): add it again")))?;
    print_record(&record.voice.name, record.version, &matched);
    println!("  consent       {}", record.voice.consent);
    if !record.voice.description.is_empty() {
        println!("  description   {}", record.voice.description);
    }
    Ok(())
}
