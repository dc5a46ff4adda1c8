//! The engine's ears: one Whisper per process, loaded on first use (a
//! failed load is not kept, so installing the model and asking again
//! works), used by one transcription at a time, and let go again after
//! [`IDLE_UNLOAD`] unused, so an idle studio holds only the speech model
//! (Whisper's f32 weights are ~300 MiB). It hears recordings in any
//! format the audio crate decodes, at any rate (resampled to 16 kHz), and
//! hands back timed segments and words ([`Transcript`]). Short clips (the
//! takes listening back hears) are heard several to a window
//! ([`Listener::hear_clips`]): Whisper's encoder costs the same for 2 s as
//! for 30 s. Callers run it on a blocking thread; it never runs on an
//! async worker.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use revoice_core::error::Result;
use revoice_model::whisper::{Transcript, TranscriptOptions, TranscriptWord, WhisperModel};

/// How long Whisper stays loaded unused.
pub const IDLE_UNLOAD: Duration = Duration::from_secs(120);

/// Clips heard together fill at most this much of a 30 s window, seconds.
pub const PACKED_WINDOW: f64 = 27.0;
/// Silence laid before each clip heard in a window, seconds.
pub const PACKED_GAP: f64 = 1.0;

/// Groups clips of `seconds` each, in order, into packs that fit
/// [`PACKED_WINDOW`] with [`PACKED_GAP`] before each; a clip too long for
/// a window is a pack of its own.
pub fn pack_clips(seconds: &[f64]) -> Vec<Vec<usize>> {
    let mut packs: Vec<Vec<usize>> = Vec::new();
    let mut filled = 0.0;
    for (i, &s) in seconds.iter().enumerate() {
        match packs.last_mut() {
            Some(pack) if !pack.is_empty() && filled + PACKED_GAP + s <= PACKED_WINDOW => {
                pack.push(i);
                filled += PACKED_GAP + s;
            }
            _ => {
                packs.push(vec![i]);
                filled = PACKED_GAP + s;
            }
        }
    }
    packs
}

/// Each clip's text from the words heard in their pack: a word belongs to
/// the clip its middle falls in (or nearest to, in a gap); `spans` are the
/// clips' `(start, end)` seconds in the pack.
pub fn words_by_clip(words: &[TranscriptWord], spans: &[(f64, f64)]) -> Vec<String> {
    let mut texts = vec![String::new(); spans.len()];
    for word in words {
        let middle = (word.start + word.end) / 2.0;
        let distance = |&(start, end): &(f64, f64)| {
            if middle < start {
                start - middle
            } else if middle > end {
                middle - end
            } else {
                0.0
            }
        };
        if let Some(nearest) = (0..spans.len()).min_by(|&a, &b| distance(&spans[a]).total_cmp(&distance(&spans[b]))) {
            texts[nearest].push_str(&word.word);
        }
    }
    texts.into_iter().map(|t| t.trim().to_string()).collect()
}

/// Whisper, loaded once, one transcription at a time.
pub struct Listener {
    data_dir: PathBuf,
    idle_unload: Duration,
    slot: Arc<Mutex<Slot>>,
    turn: Mutex<()>,
}

#[derive(Default)]
struct Slot {
    model: Option<Arc<WhisperModel>>,
    last_used: Option<Instant>,
}

impl Listener {
    /// A listener over the models installed in `data_dir` (nothing loads yet).
    pub fn new(data_dir: &Path) -> Listener {
        Listener::with_idle_unload(data_dir, IDLE_UNLOAD)
    }

    /// A listener that lets the model go after `idle_unload` unused.
    pub fn with_idle_unload(data_dir: &Path, idle_unload: Duration) -> Listener {
        Listener { data_dir: data_dir.to_path_buf(), idle_unload, slot: Arc::default(), turn: Mutex::new(()) }
    }

    /// The model, loading it first if nobody has (blocking: about a second).
    pub fn model(&self) -> Result<Arc<WhisperModel>> {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        slot.last_used = Some(Instant::now());
        if let Some(model) = slot.model.as_ref() {
            return Ok(model.clone());
        }
        let started = Instant::now();
        let model = Arc::new(WhisperModel::load(&self.data_dir)?);
        tracing::info!(seconds = started.elapsed().as_secs_f64(), "Whisper loaded");
        slot.model = Some(model.clone());
        self.watch_idle();
        Ok(model)
    }

    /// Whether the model is loaded now.
    pub fn is_loaded(&self) -> bool {
        self.slot.lock().unwrap_or_else(|p| p.into_inner()).model.is_some()
    }

    /// A thread that drops the model once nobody has used it for the idle
    /// time and nobody holds it; it ends with the unload.
    fn watch_idle(&self) {
        let slot = Arc::downgrade(&self.slot);
        let idle = self.idle_unload;
        let tick = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(10));
        let spawned = std::thread::Builder::new().name("whisper-idle".into()).spawn(move || loop {
            std::thread::sleep(tick);
            let Some(slot) = slot.upgrade() else { return };
            let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
            let unused = slot.last_used.is_none_or(|t| t.elapsed() >= idle);
            let held_elsewhere = slot.model.as_ref().is_some_and(|m| Arc::strong_count(m) > 1);
            if slot.model.is_none() {
                return;
            }
            if unused && !held_elsewhere {
                slot.model = None;
                drop(slot);
                release_freed_memory();
                tracing::info!("Whisper unloaded after {} s unused", idle.as_secs());
                return;
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no idle watcher for Whisper: it stays loaded");
        }
    }

    /// Transcribes `samples` at `sample_rate`; `progress` hears the seconds
    /// done and cancels by returning false.
    pub fn transcribe(&self, samples: &[f32], sample_rate: u32, options: &TranscriptOptions, progress: &mut dyn FnMut(f64) -> bool) -> Result<Transcript> {
        let model = self.model()?;
        let samples = revoice_audio::resample::resample(samples, sample_rate, revoice_model::whisper::mel::SAMPLE_RATE)?;
        let _turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
        let result = model.transcribe(&samples, options, progress);
        self.slot.lock().unwrap_or_else(|p| p.into_inner()).last_used = Some(Instant::now());
        result
    }

    /// What is said in each of `clips` (at `sample_rate`), heard several to
    /// a window with silence before each (see [`pack_clips`]) and told
    /// apart by the words' times. A clip too long to share a window is
    /// heard alone. `language` is a tag (`en`, `zh-TW`): Whisper is told its
    /// language and, for Chinese, its script. `keep_going` is asked before
    /// each window.
    pub fn hear_clips(&self, clips: &[&[f32]], sample_rate: u32, language: Option<&str>, keep_going: &mut dyn FnMut() -> bool) -> Result<Vec<String>> {
        let rate = sample_rate as f64;
        let seconds: Vec<f64> = clips.iter().map(|c| c.len() as f64 / rate).collect();
        let options = TranscriptOptions {
            language: language.map(revoice_text::language::primary),
            word_timestamps: true,
            initial_prompt: language.and_then(revoice_text::language::transcription_prompt).map(str::to_string),
        };
        let mut heard = vec![String::new(); clips.len()];
        for pack in pack_clips(&seconds) {
            if !keep_going() {
                return Err(revoice_core::error::Error::Cancelled("hearing takes".into()));
            }
            // Every clip after a gap of silence, the first too: a take starts
            // 20 ms before its first word, and Whisper mishears a word at the
            // very start of its window.
            let gap = vec![0.0f32; (PACKED_GAP * rate) as usize];
            let mut joined = Vec::new();
            let mut spans = Vec::with_capacity(pack.len());
            for &i in &pack {
                joined.extend_from_slice(&gap);
                let start = joined.len() as f64 / rate;
                joined.extend_from_slice(clips[i]);
                spans.push((start, joined.len() as f64 / rate));
            }
            let transcript = self.transcribe(&joined, sample_rate, &options, &mut |_| true)?;
            let words: Vec<TranscriptWord> = transcript.segments.into_iter().flat_map(|s| s.words).collect();
            for (&i, text) in pack.iter().zip(words_by_clip(&words, &spans)) {
                heard[i] = text;
            }
        }
        Ok(heard)
    }

    /// Transcribes the recording at `path` (any format the engine decodes).
    pub fn transcribe_file(&self, path: &Path, options: &TranscriptOptions, progress: &mut dyn FnMut(f64) -> bool) -> Result<Transcript> {
        let decoded = revoice_audio::decode::decode_file(path)?;
        self.transcribe(&decoded.samples, decoded.sample_rate, options, progress).map_err(|e| e.context(format!("transcribing {}", path.display())))
    }
}

/// Whisper hears the words of a voice fit's validation renders, each clip
/// in a window of its own: packed several to a window, what was heard in
/// one clip moved with its neighbours (one fit heard the same stock voice's
/// words with five errors when choosing its snapshot and three when
/// choosing its tone match).
impl revoice_voices::fit::WordListener for Listener {
    fn heard(&self, clips: &[&[f32]], sample_rate: u32, language: &str) -> Result<Vec<String>> {
        let options = TranscriptOptions {
            language: Some(revoice_text::language::primary(language)),
            word_timestamps: false,
            initial_prompt: revoice_text::language::transcription_prompt(language).map(str::to_string),
        };
        clips.iter().map(|clip| Ok(self.transcribe(clip, sample_rate, &options, &mut |_| true)?.text())).collect()
    }
}

/// Hands memory freed by a dropped model back to the system (glibc keeps
/// freed heap pages otherwise, so the process would stay as large as it was).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's heap to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_is_a_clear_error_and_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let listener = Listener::new(dir.path());
        let err = listener.transcribe(&[0.0; 16_000], 16_000, &TranscriptOptions::default(), &mut |_| true).unwrap_err().to_string();
        assert!(err.contains("Whisper is not installed") && err.contains("revoice models install"), "{err}");
        assert!(!listener.is_loaded());
    }

    fn word(word: &str, start: f64, end: f64) -> TranscriptWord {
        TranscriptWord { word: word.into(), start, end, probability: 0.9 }
    }

    #[test]
    fn clips_are_packed_in_order_into_windows_with_gaps() {
        assert_eq!(pack_clips(&[3.0, 4.0, 10.0, 8.0, 2.0]), vec![vec![0, 1, 2], vec![3, 4]]);
        assert_eq!(pack_clips(&[40.0, 2.0, 2.0]), vec![vec![0], vec![1, 2]]);
        assert!(pack_clips(&[]).is_empty());
    }

    #[test]
    fn words_go_to_the_clip_they_were_heard_in() {
        let spans = [(0.0, 2.0), (3.0, 5.5)];
        let words = [word(" The", 0.1, 0.3), word(" boats.", 0.3, 1.9), word(" Light", 2.4, 3.4), word(" it.", 3.4, 4.0)];
        assert_eq!(words_by_clip(&words, &spans), vec!["The boats.".to_string(), "Light it.".to_string()]);
        assert_eq!(words_by_clip(&[], &spans), vec![String::new(), String::new()]);
    }
}
