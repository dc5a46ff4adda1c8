//! `revoice voices match FILE`: the quality report of a reference recording,
//! the stock voices closest to it, and the blend of the best few. Matching
//! picks and mixes stock voices; it does not clone the speaker. Also the
//! voice library: `voices add`, `voices remove`, the registered voices in
//! `voices list`, and registered names in `say --voice`.

use std::path::Path;

use revoice_engine::voice::{MatchedVoice, VoiceMatcher};

/// Matches `file` against the stock voices and prints the result (JSON with
/// `json`); with `output`, saves the artifact there.
pub fn match_file(data_dir: &Path, file: &Path, json: bool, top: usize, output: Option<&Path>) -> revoice_engine::Result<()> {
    let started = std::time::Instant::now();
    let matcher = VoiceMatcher::open(data_dir, &|done, total, voice| {
        if voice.is_empty() {
            eprintln!("stock voice embeddings ready ({total} voices, cached for next time)");
        } else {
            eprintln!("computing stock voice embeddings (first use): {}/{total} {voice}", done + 1);
        }
    })?;
    let loaded = started.elapsed();
    let voice = matcher.match_file(file)?;
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

/// A cache for one CLI command (artifacts are read at most a few times).
fn artifact_cache() -> revoice_engine::cache::VoiceArtifactCache<MatchedVoice> {
    revoice_engine::cache::VoiceArtifactCache::new(8 << 20).expect("non-zero budget")
}

/// Matches `file` and registers it under `details.name`.
pub async fn add(engine: &revoice_engine::Engine, file: &Path, details: &revoice_engine::voice::library::VoiceDetails) -> revoice_engine::Result<()> {
    details.check()?;
    let (data_dir, path) = (engine.data_dir().to_path_buf(), file.to_path_buf());
    let matched = tokio::task::spawn_blocking(move || {
        let matcher = VoiceMatcher::open(&data_dir, &|done, total, voice| {
            if !voice.is_empty() {
                eprintln!("computing stock voice embeddings (first use): {}/{total} {voice}", done + 1);
            }
        })?;
        matcher.match_file(&path)
    })
    .await
    .expect("matching thread")?;
    let record = revoice_engine::voice::library::register(engine.store(), engine.data_dir(), &artifact_cache(), file, details, &matched).await?;
    print_match(&matched, 3);
    println!();
    println!("registered voice {:?} (version {}); use it with: revoice say --voice {:?} \"...\"", record.voice.name, record.version, record.voice.name);
    Ok(())
}

/// Removes a registered voice.
pub async fn remove(engine: &revoice_engine::Engine, name: &str) -> revoice_engine::Result<()> {
    match revoice_engine::voice::library::delete(engine.store(), engine.data_dir(), &artifact_cache(), name).await? {
        Some(_) => {
            println!("removed voice {name:?}");
            Ok(())
        }
        None => Err(revoice_engine::Error::InvalidInput { input: format!("voice {name:?}"), reason: "is not in the library (see `revoice voices list`)".into() }),
    }
}

/// Prints the library's voices after the stock ones.
pub async fn list_registered(engine: &revoice_engine::Engine) -> revoice_engine::Result<()> {
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

/// A registered voice's name becomes its blend of stock voices; anything
/// else (stock names, explicit blends) passes through unchanged.
pub async fn resolve_registered(engine: &revoice_engine::Engine, voice: String) -> revoice_engine::Result<String> {
    match revoice_engine::voice::library::artifact(engine.store(), &artifact_cache(), voice.trim()).await? {
        Some(matched) => Ok(matched.blend_spec()),
        None => Ok(voice),
    }
}
