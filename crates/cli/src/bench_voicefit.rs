//! `revoice bench voicefit`: fits a voice to each reference recording in a
//! folder (speakers that are not Kokoro voices: `scripts/voicefit-references`
//! renders some with Piper and Festival) on a scratch copy of the data
//! folder, and prints per reference the similarity on held-out sentences of
//! the best stock voice and the blend (the baselines, measured in the same
//! run) and of the fitted voice, the fit's time, and the peak memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use revoice_engine::cache::ReferenceInput;
use revoice_engine::voice::fit::{FitProgress, FitSettings};
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

/// Fits every recording in `dir` with `settings`.
pub async fn voicefit(data_dir: &Path, dir: &Path, settings: FitSettings) -> Result<()> {
    let files = references(dir)?;
    let scratch = crate::bench_api::scratch(data_dir)?;
    let engine = Arc::new(Engine::open(EngineConfig::load_from(scratch.path().to_path_buf())?).await?);
    println!("revoice bench voicefit: {} references, {} min budget each, population {}, {}+{} directions", files.len(), settings.minutes, settings.population, settings.timbre_dims, settings.prosody_dims);
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
        rows.push((name, matched.quality.speech_seconds, fitted, started.elapsed().as_secs_f64()));
    }
    println!();
    println!("similarity to the reference on sentences not used in the fit (GE2E cosine):");
    println!("{:<14} {:>8}  {:<12} {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>5}", "reference", "speech s", "best stock", "sim", "blend", "fitted", "vs best", "fit s", "gens");
    for (name, speech, f, seconds) in &rows {
        let h = &f.held_out;
        println!(
            "{:<14} {:>8.1}  {:<12} {:>6.3}  {:>6.3}  {:>6.3}  {:>+7.3}  {:>6.0}  {:>5}",
            name, speech, h.best_stock, h.best_stock_similarity, h.blend_similarity, h.fitted_similarity, h.fitted_similarity - h.best_stock_similarity, seconds, f.generations
        );
    }
    println!("peak memory (RSS): {:.0} MiB", memory_mib().0);
    engine.close().await;
    Ok(())
}
