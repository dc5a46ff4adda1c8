//! `revoice bench heard`: how well Whisper base hears our Mandarin or
//! Japanese beside the reference pipeline on the same held-out dialogue.
//! Ours: each sentence said by each voice as `revoice say` says it (the
//! studio's G2P, Kokoro on candle). The reference: misaki 0.9.4's G2P and
//! kokoro-onnx on onnxruntime (scripts/dev/heard_reference.py), on the same
//! ONNX release and voice packs. Both heard by the same Whisper with the
//! same options; the character error rate of each against the written
//! sentence, per sentence, per voice and overall, the share of sentences
//! whose phonemes are the same on both sides, render speed and peak memory.
//! It prints figures and asserts nothing: it fails only when it cannot run.

use std::path::{Path, PathBuf};
use std::time::Instant;

use revoice_engine::audio;
use revoice_engine::doctor::memory_mib;
use revoice_engine::model::kokoro::Precision;
use revoice_engine::model::whisper::{TranscriptOptions, WhisperModel};
use revoice_engine::speech::voice_spec::VoiceSpec;
use revoice_engine::speech::{SayRequest, Synthesizer};
use revoice_engine::text::word_errors::word_errors_in;
use revoice_engine::{Error, Result};

use crate::bench::run_dev_script;

/// The languages the bench hears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HeardLanguage {
    /// Mandarin Chinese, in simplified characters.
    Zh,
    /// Japanese.
    Ja,
}

impl HeardLanguage {
    /// The language's tag, as Whisper and the reference script name it.
    pub fn tag(self) -> &'static str {
        match self {
            HeardLanguage::Zh => "zh",
            HeardLanguage::Ja => "ja",
        }
    }

    /// What a Python must import to run the reference for this language.
    pub fn python_imports(self) -> &'static str {
        match self {
            HeardLanguage::Zh => "kokoro_onnx, onnxruntime, soundfile, safetensors, misaki.zh",
            HeardLanguage::Ja => "kokoro_onnx, onnxruntime, soundfile, safetensors, misaki.ja",
        }
    }

    /// The voices heard when none are named: a woman's and a man's.
    fn default_voices(self) -> [&'static str; 2] {
        match self {
            HeardLanguage::Zh => ["zf_xiaobei", "zm_yunjian"],
            HeardLanguage::Ja => ["jf_alpha", "jm_kumo"],
        }
    }

    /// The built-in held-out sentences.
    fn built_in_sentences(self) -> &'static str {
        match self {
            HeardLanguage::Zh => include_str!("bench_heard/zh.txt"),
            HeardLanguage::Ja => include_str!("bench_heard/ja.txt"),
        }
    }

    /// How Whisper is asked to listen: in the language, and for Mandarin
    /// with a prompt in simplified characters so it writes them.
    fn transcript_options(self) -> TranscriptOptions {
        TranscriptOptions {
            language: Some(self.tag().into()),
            initial_prompt: revoice_engine::text::language::transcription_prompt(self.tag()).map(str::to_string),
            ..Default::default()
        }
    }
}

/// One sentence said by one voice on one side, as Whisper heard it.
struct Heard {
    text: String,
    edits: usize,
    audio_seconds: f64,
    render_seconds: f64,
}

/// Our render of one sentence, before it is heard.
struct OurRender {
    phonemes: String,
    samples: Vec<f32>,
    audio_seconds: f64,
    render_seconds: f64,
}

/// The reference's render of one sentence.
struct ReferenceRender {
    wav: PathBuf,
    audio_seconds: f64,
    render_seconds: f64,
}

/// What the reference script answered.
struct Reference {
    /// Per sentence: misaki's phonemes, or why it could not read it.
    phonemes: Vec<std::result::Result<String, String>>,
    /// Per voice, per sentence.
    renders: Vec<Vec<Option<ReferenceRender>>>,
    peak_mib: f64,
    versions: String,
}

/// One voice's results on both sides.
struct VoiceRun {
    voice: String,
    ours: Vec<std::result::Result<Heard, String>>,
    reference: Vec<Option<Heard>>,
}

/// Runs the benchmark and prints the report. `voices` empty: the
/// language's defaults; `sentences` none: the built-in set.
pub fn heard(data_dir: &Path, language: HeardLanguage, voices: &[String], reference_python: Option<&str>, sentences: Option<&Path>) -> Result<()> {
    let started = Instant::now();
    let sentences = match sentences {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
            let lines = sentence_lines(&text);
            if lines.is_empty() {
                return Err(Error::invalid(path.display().to_string(), "has no sentences (one a line; blank lines and lines starting with # are skipped)"));
            }
            lines
        }
        None => sentence_lines(language.built_in_sentences()),
    };
    let voices: Vec<String> = if voices.is_empty() { language.default_voices().map(str::to_string).to_vec() } else { voices.to_vec() };

    let synth = Synthesizer::load_in(data_dir, Precision::fastest())?;
    let mut voice_languages = Vec::new();
    for voice in &voices {
        let (_, spoken) = synth.resolve_voice(&VoiceSpec::parse_stock(voice)?)?;
        voice_languages.push(format!("{voice} ({spoken})"));
    }
    println!(
        "revoice bench heard: {} sentences of {} dialogue, voices {}; heard by Whisper base (language {}{})",
        sentences.len(),
        language.tag(),
        voice_languages.join(", "),
        language.tag(),
        language.transcript_options().initial_prompt.map_or(String::new(), |p| format!(", prompt {p:?}"))
    );

    // Ours: every sentence in every voice, as `revoice say` says it.
    let ours_started = Instant::now();
    // Warm-up (first touch of the weights, the allocator); a failure shows below.
    let _ = render_ours(&synth, &sentences[0], &voices[0]);
    let mut ours = Vec::new();
    for voice in &voices {
        eprintln!("ours: {voice} saying {} sentences", sentences.len());
        ours.push(sentences.iter().map(|s| render_ours(&synth, s, voice)).collect::<Vec<_>>());
    }
    let rate = synth.sample_rate();
    drop(synth);
    let ours_seconds = ours_started.elapsed().as_secs_f64();

    // The reference, into a scratch folder.
    let reference_started = Instant::now();
    let scratch = tempfile::tempdir().map_err(|e| Error::io("create", std::env::temp_dir(), e))?;
    let reference = match reference_python {
        Some(python) => {
            eprintln!("reference: misaki and kokoro-onnx saying {} sentences in {} voices", sentences.len(), voices.len());
            run_reference(python, data_dir, scratch.path(), language, &voices, &sentences)
        }
        None => Err(format!(
            "no Python with kokoro-onnx and misaki ({}) found: run scripts/dev/heard-venv, then pass --reference-python target/heard-venv/bin/python (or set REVOICE_HEARD_PYTHON)",
            language.python_imports()
        )),
    };
    let reference_seconds = reference_started.elapsed().as_secs_f64();

    // Both sides heard by the same Whisper, the same way.
    let listening_started = Instant::now();
    let whisper = WhisperModel::load(data_dir)?;
    let options = language.transcript_options();
    let mut runs = Vec::new();
    for (v, voice) in voices.iter().enumerate() {
        eprintln!("listening to {voice}");
        let mut run = VoiceRun { voice: voice.clone(), ours: Vec::new(), reference: Vec::new() };
        for (i, sentence) in sentences.iter().enumerate() {
            let heard_ours = match &ours[v][i] {
                Ok(render) => {
                    let text = listen(&whisper, &render.samples, rate, &options)?;
                    Ok(Heard { edits: edits(language, sentence, &text), text, audio_seconds: render.audio_seconds, render_seconds: render.render_seconds })
                }
                Err(why) => Err(why.clone()),
            };
            let heard_reference = match reference.as_ref().ok().and_then(|r| r.renders[v][i].as_ref()) {
                Some(render) => {
                    let decoded = audio::decode::decode_file(&render.wav)?;
                    let text = listen(&whisper, &decoded.samples, decoded.sample_rate, &options)?;
                    Some(Heard { edits: edits(language, sentence, &text), text, audio_seconds: render.audio_seconds, render_seconds: render.render_seconds })
                }
                None => None,
            };
            run.ours.push(heard_ours);
            run.reference.push(heard_reference);
        }
        runs.push(run);
    }
    let listening_seconds = listening_started.elapsed().as_secs_f64();

    print_sentences(language, &sentences, &runs);
    let phonemes: Vec<Option<&str>> = (0..sentences.len()).map(|i| ours.iter().find_map(|voice| voice[i].as_ref().ok()).map(|r| r.phonemes.as_str())).collect();
    match &reference {
        Ok(r) => {
            println!();
            println!("reference: {}", r.versions);
            print_phonemes(&sentences, &phonemes, &r.phonemes);
        }
        Err(why) => {
            println!();
            println!("reference (misaki + kokoro-onnx): skipped: {why}");
        }
    }
    let (peak, _) = memory_mib();
    print_summary(language, &sentences, &runs, peak, reference.as_ref().ok().map(|r| r.peak_mib));
    println!(
        "time: {:.0} s in all; ours rendered in {ours_seconds:.0} s, the reference in {reference_seconds:.0} s, Whisper heard them in {listening_seconds:.0} s",
        started.elapsed().as_secs_f64()
    );

    // Our side failing is an error (the figures above still stand).
    let failures: Vec<(&str, &String)> =
        runs.iter().flat_map(|run| run.ours.iter().filter_map(|o| o.as_ref().err()).map(|e| (run.voice.as_str(), e))).collect();
    if let Some((voice, why)) = failures.first() {
        return Err(Error::invalid(
            format!("bench heard --language {}", language.tag()),
            format!("our side could not say {} of {} renders; the first, in voice {voice}: {why}", failures.len(), sentences.len() * voices.len()),
        ));
    }
    Ok(())
}

/// The sentences of a file: one a line, blank lines and `#` lines skipped.
fn sentence_lines(text: &str) -> Vec<String> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect()
}

/// `sentence` said by `voice` through the front end and Kokoro, as
/// `revoice say` says it; the error's text when the front end refuses it.
fn render_ours(synth: &Synthesizer, sentence: &str, voice: &str) -> std::result::Result<OurRender, String> {
    let request = SayRequest::new(sentence, voice).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut samples = Vec::new();
    let mut phonemes: Vec<String> = Vec::new();
    synth
        .say(&request, |chunk| {
            if phonemes.len() <= chunk.sentence {
                phonemes.push(chunk.phonemes);
            }
            samples.extend_from_slice(&chunk.samples);
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    let render_seconds = start.elapsed().as_secs_f64();
    let audio_seconds = samples.len() as f64 / synth.sample_rate() as f64;
    Ok(OurRender { phonemes: phonemes.join(" "), samples, audio_seconds, render_seconds })
}

/// What Whisper hears in `samples` (at `rate`).
fn listen(whisper: &WhisperModel, samples: &[f32], rate: u32, options: &TranscriptOptions) -> Result<String> {
    let samples = audio::resample::resample(samples, rate, revoice_engine::model::whisper::mel::SAMPLE_RATE)?;
    Ok(whisper.transcribe(&samples, options, &mut |_| true)?.text())
}

/// Runs scripts/dev/heard_reference.py, its WAVs into `out_dir`.
fn run_reference(
    python: &str,
    data_dir: &Path,
    out_dir: &Path,
    language: HeardLanguage,
    voices: &[String],
    sentences: &[String],
) -> std::result::Result<Reference, String> {
    let request = serde_json::json!({"language": language.tag(), "voices": voices, "sentences": sentences});
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).to_string();
    let (data_dir, out_dir) = (data_dir.display().to_string(), out_dir.display().to_string());
    let v = run_dev_script(python, "heard_reference.py", &[&data_dir, &out_dir, &threads], &request)?;
    let phonemes = v["sentences"]
        .as_array()
        .filter(|a| a.len() == sentences.len())
        .ok_or("the reference answered no phonemes for the sentences")?
        .iter()
        .map(|s| match s["phonemes"].as_str() {
            Some(p) => Ok(p.to_string()),
            None => Err(s["error"].as_str().unwrap_or("no phonemes").to_string()),
        })
        .collect();
    let mut renders = Vec::new();
    for voice in voices {
        let rows =
            v["renders"][voice.as_str()].as_array().filter(|a| a.len() == sentences.len()).ok_or(format!("the reference answered no renders for {voice}"))?;
        renders.push(
            rows.iter()
                .map(|r| {
                    r["wav"].as_str().map(|wav| ReferenceRender {
                        wav: PathBuf::from(wav),
                        audio_seconds: r["seconds_audio"].as_f64().unwrap_or(0.0),
                        render_seconds: r["seconds_render"].as_f64().unwrap_or(0.0),
                    })
                })
                .collect(),
        );
    }
    let versions = v["versions"]
        .as_object()
        .map(|o| o.iter().map(|(name, version)| format!("{name} {}", version.as_str().unwrap_or("?"))).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    Ok(Reference { phonemes, renders, peak_mib: v["peak_mib"].as_f64().unwrap_or(0.0), versions: format!("{versions}; onnxruntime on {threads} threads") })
}

/// Each sentence with what each side was heard saying, the worst of each
/// side in each voice flagged.
fn print_sentences(language: HeardLanguage, sentences: &[String], runs: &[VoiceRun]) {
    for run in runs {
        println!();
        println!("{}: edits / characters, ours then the reference", run.voice);
        let worst = |edits: Vec<Option<usize>>| -> Option<usize> { edits.iter().copied().flatten().max().filter(|&m| m > 0) };
        let worst_ours = worst(run.ours.iter().map(|h| h.as_ref().ok().map(|h| h.edits)).collect());
        let worst_reference = worst(run.reference.iter().map(|h| h.as_ref().map(|h| h.edits)).collect());
        // One reason for every sentence (a voice whose language the front end cannot read) is said once.
        let failed_alike = run.ours.first().and_then(|o| o.as_ref().err()).filter(|why| run.ours.iter().all(|o| o.as_ref().err() == Some(*why)));
        if let Some(why) = failed_alike {
            println!("     ours  failed on every sentence: {why}");
        }
        for (i, sentence) in sentences.iter().enumerate() {
            let total = characters(language, sentence);
            println!("{:>3}  {sentence}", i + 1);
            match &run.ours[i] {
                Ok(h) => {
                    let flag = if Some(h.edits) == worst_ours { "   <- worst of ours" } else { "" };
                    println!("     ours {:>2}/{total:<3} {}{flag}", h.edits, h.text);
                }
                Err(_) if failed_alike.is_some() => println!("     ours  -"),
                Err(why) => println!("     ours  failed: {why}"),
            }
            match &run.reference[i] {
                Some(h) => {
                    let flag = if Some(h.edits) == worst_reference { "   <- worst of the reference" } else { "" };
                    println!("     ref  {:>2}/{total:<3} {}{flag}", h.edits, h.text);
                }
                None => println!("     ref   -"),
            }
        }
    }
}

/// The share of sentences whose phonemes are the same on both sides, and
/// the ones that differ.
fn print_phonemes(sentences: &[String], ours: &[Option<&str>], reference: &[std::result::Result<String, String>]) {
    let mut compared = 0;
    let mut same = 0;
    let mut differ = Vec::new();
    for (i, sentence) in sentences.iter().enumerate() {
        match (ours[i], &reference[i]) {
            (Some(o), Ok(r)) => {
                compared += 1;
                // kokoro-onnx reads the reference's phonemes with runs of
                // whitespace made one space; ours are joined by one.
                let r = r.split_whitespace().collect::<Vec<_>>().join(" ");
                if o.trim() == r {
                    same += 1;
                } else {
                    differ.push((i, sentence, o.to_string(), r));
                }
            }
            (_, Err(why)) => println!("the reference's G2P could not read sentence {}: {why}", i + 1),
            (None, _) => {}
        }
    }
    if compared == 0 {
        println!("phonemes: none to compare (our front end read no sentence)");
        return;
    }
    println!("phonemes: {same} of {compared} sentences the same as the reference's ({:.0} %)", 100.0 * same as f64 / compared as f64);
    for (i, sentence, o, r) in differ {
        println!("{:>3}  {sentence}\n     ours {o}\n     ref  {r}", i + 1);
    }
}

/// Character error rates per voice and overall, with render speed and memory.
fn print_summary(language: HeardLanguage, sentences: &[String], runs: &[VoiceRun], peak_ours: f64, peak_reference: Option<f64>) {
    println!();
    println!(
        "{:<12} {:>9} {:>10} {:>9} {:>9} {:>7} {:>9} {:>8} {:>10} {:>9}",
        "voice", "sentences", "characters", "CER ours", "CER ref", "points", "RTF ours", "RTF ref", "peak ours", "peak ref"
    );
    let mut all = Tally::default();
    for run in runs {
        let tally = Tally::of(language, sentences, run);
        tally.print(&run.voice, "", "");
        all.add(&tally);
    }
    let peak_reference = peak_reference.map_or("-".to_string(), |p| format!("{p:.0} MiB"));
    all.print("all", &format!("{peak_ours:.0} MiB"), &peak_reference);
    println!("CER: Levenshtein edits over the written sentence's characters, punctuation and spaces left out, full-width letters and digits as ASCII,");
    println!(
        "numbers in {} numerals on both sides; a sentence counts where every side that ran said it. points: ours less the reference's.",
        match language {
            HeardLanguage::Zh => "Chinese",
            HeardLanguage::Ja => "kanji",
        }
    );
    println!("RTF: render seconds over audio seconds (ours: candle on this process's threads; ref: onnxruntime). peak: the most resident memory of each process in the run.");
}

/// Edits, characters and render time over a voice's sentences.
#[derive(Default)]
struct Tally {
    sentences: usize,
    characters: usize,
    ours: Option<Sides>,
    reference: Option<Sides>,
}

/// One side's sums.
#[derive(Default, Clone, Copy)]
struct Sides {
    edits: usize,
    audio_seconds: f64,
    render_seconds: f64,
}

impl Sides {
    fn add(&mut self, heard: &Heard) {
        self.edits += heard.edits;
        self.audio_seconds += heard.audio_seconds;
        self.render_seconds += heard.render_seconds;
    }
}

impl Tally {
    /// The sentences where every side that ran said it (a side that said
    /// none is left out).
    fn of(language: HeardLanguage, sentences: &[String], run: &VoiceRun) -> Tally {
        let ours_ran = run.ours.iter().any(|o| o.is_ok());
        let reference_ran = run.reference.iter().any(Option::is_some);
        let mut tally = Tally { ours: ours_ran.then(Sides::default), reference: reference_ran.then(Sides::default), ..Default::default() };
        for (i, sentence) in sentences.iter().enumerate() {
            let ours = run.ours[i].as_ref().ok();
            let reference = run.reference[i].as_ref();
            if (ours_ran && ours.is_none()) || (reference_ran && reference.is_none()) || !(ours_ran || reference_ran) {
                continue;
            }
            tally.sentences += 1;
            tally.characters += characters(language, sentence);
            if let (Some(sides), Some(h)) = (tally.ours.as_mut(), ours) {
                sides.add(h);
            }
            if let (Some(sides), Some(h)) = (tally.reference.as_mut(), reference) {
                sides.add(h);
            }
        }
        tally
    }

    fn add(&mut self, other: &Tally) {
        self.sentences += other.sentences;
        self.characters += other.characters;
        for (mine, theirs) in [(&mut self.ours, other.ours), (&mut self.reference, other.reference)] {
            if let Some(t) = theirs {
                let m = mine.get_or_insert_with(Sides::default);
                m.edits += t.edits;
                m.audio_seconds += t.audio_seconds;
                m.render_seconds += t.render_seconds;
            }
        }
    }

    fn print(&self, name: &str, peak_ours: &str, peak_reference: &str) {
        let cer = |s: Option<Sides>| s.filter(|_| self.characters > 0).map(|s| 100.0 * s.edits as f64 / self.characters as f64);
        let rtf = |s: Option<Sides>| s.filter(|s| s.audio_seconds > 0.0).map(|s| s.render_seconds / s.audio_seconds);
        let show = |x: Option<f64>, unit: &str, places: usize| x.map_or("-".to_string(), |x| format!("{x:.places$}{unit}"));
        let (ours, reference) = (cer(self.ours), cer(self.reference));
        let points = ours.zip(reference).map(|(o, r)| o - r);
        println!(
            "{name:<12} {:>9} {:>10} {:>9} {:>9} {:>7} {:>9} {:>8} {peak_ours:>10} {peak_reference:>9}",
            self.sentences,
            self.characters,
            show(ours, " %", 1),
            show(reference, " %", 1),
            points.map_or("-".to_string(), |p| format!("{p:+.1}")),
            show(rtf(self.ours), "", 2),
            show(rtf(self.reference), "", 2),
        );
    }
}

/// Characters of `heard` wrong against `written`, both read as listening
/// back reads them (`word_errors_in`: by characters, full-width forms
/// folded, figures in Han numerals, Japanese kana folded to hiragana,
/// punctuation and spaces left out).
fn edits(language: HeardLanguage, written: &str, heard: &str) -> usize {
    let e = word_errors_in(written, heard, language.tag());
    e.substitutions + e.deletions + e.insertions
}

/// The characters CER counts in `text` (see [`edits`]).
fn characters(language: HeardLanguage, text: &str) -> usize {
    word_errors_in(text, "", language.tag()).words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_width_punctuation_and_kana_do_not_count_as_errors() {
        assert_eq!(edits(HeardLanguage::Ja, "このケーキ、一つ320円です。", "このケーキ一つ三百二十円です"), 0);
        assert_eq!(edits(HeardLanguage::Ja, "ＰＣを買った", "PCをかった"), 1, "買 heard as か");
        assert_eq!(edits(HeardLanguage::Zh, "房租是3500元。", "房租是三千五百元"), 0);
        assert_eq!(edits(HeardLanguage::Zh, "明天见", "明天再见"), 1);
        assert_eq!(characters(HeardLanguage::Zh, "喂，小王吗？ 我是张伟。"), 8);
    }

    #[test]
    fn the_built_in_sets_are_forty_sentences_or_more_held_out_from_the_g2p_parity_sets() {
        let parity_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../text/tests/data");
        let mut parity = Vec::new();
        for entry in std::fs::read_dir(&parity_dir).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with("sentences.txt") {
                parity.extend(sentence_lines(&std::fs::read_to_string(&path).unwrap()));
            }
        }
        assert!(!parity.is_empty(), "no parity sentences in {}", parity_dir.display());
        for language in [HeardLanguage::Zh, HeardLanguage::Ja] {
            let sentences = sentence_lines(language.built_in_sentences());
            assert!(sentences.len() >= 40, "{language:?}: {} sentences", sentences.len());
            for s in &sentences {
                assert!(!parity.contains(s), "{s} is in a G2P parity set");
                assert!(characters(language, s) > 0, "{s} has no characters");
            }
        }
    }

    #[test]
    fn sentence_files_skip_blank_and_comment_lines() {
        assert_eq!(sentence_lines("# note\n\n 你好。 \n# another\n再见。\n"), ["你好。", "再见。"]);
    }
}
