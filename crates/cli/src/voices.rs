//! `revoice voices match FILE`: the quality report of a reference recording,
//! the stock voices closest to it, and the blend of the best few. Matching
//! picks and mixes stock voices; it does not clone the speaker. Also the
//! voice library: `voices add`, `voices remove`, the registered voices in
//! `voices list`, and registered names in `say --voice`.

use std::path::Path;
use std::sync::Arc;

use revoice_engine::cache::ReferenceInput;
use revoice_engine::voice::library::VoiceDetails;
use revoice_engine::voice::MatchedVoice;
use revoice_engine::{Engine, NewLibraryVoice};

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
    let (record, matched, _) = engine.add_library_voice(NewLibraryVoice { details, recording: file, max_voices: None }).await?;
    print_match(&matched, 3);
    println!();
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
    println!("registered voices (blends of stock voices matched to a recording):");
    for r in voices {
        let blend = serde_json::from_str::<MatchedVoice>(&r.voice.artifact_json).map(|m| m.blend_spec()).unwrap_or_else(|_| "unreadable artifact".into());
        println!("  {:<20} v{}  {}  ({})", r.voice.name, r.version, blend, r.voice.description);
    }
    Ok(())
}
