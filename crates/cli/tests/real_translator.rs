//! `revoice translators check` and `revoice project translate` against a
//! real OpenAI-compatible chat server: llama-cpp-python's server with Gemma
//! 3 270M (a tiny base model: it tests the flow, not the quality of the
//! Spanish), started here on a free port of this machine and stopped at the
//! end, a failing test included.
//!
//! The server's Python and the model come from `REVOICE_TEST_LLAMA_PYTHON`
//! and `REVOICE_TEST_LLAMA_MODEL`, which `scripts/test` always sets (its
//! `ensure_translation_server` builds both into `target/`). Run alone
//! without them, the test says so and checks nothing.
//!
//! What it checks: the translator answers the check (models listed, a
//! line back); a small English project translated into Spanish finishes,
//! naming the translator, its model and this machine; every source line is
//! either translated (a line in its slot on the Spanish track, linked to
//! it, the translator recorded, its text not the source's) or reported
//! failed with a reason naming the translator, never half-written; and the
//! same command again asks only for the lines still missing.

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod run;
use run::revoice;

use revoice_engine::store::translations::Translation;
use revoice_engine::store::{Segment, Store, DATABASE_FILE_NAME};

/// How long the server may take to load the model and answer `/v1/models`.
const SERVER_START: Duration = Duration::from_secs(60);

/// The lines translated: short, everyday, two speakers.
const SCRIPT: [(&str, &str); 4] =
    [("Ana", "Good morning, how are you?"), ("Ben", "I am fine, thank you."), ("Ana", "Would you like a cup of coffee?"), ("Ben", "Yes, please, with milk.")];

/// The running server; stopped (killed and reaped) when dropped, so a
/// failing assertion does not leave it behind.
struct Server {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `python -m llama_cpp.server` on a free loopback port, its
    /// output in `log`, and waits until it lists its models.
    fn start(python: &str, model: &str, log: PathBuf) -> Server {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let output = File::create(&log).unwrap();
        let child = Command::new(python)
            .args(["-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", &port.to_string(), "--chat_format", "gemma"])
            .stdin(Stdio::null())
            .stdout(output.try_clone().unwrap())
            .stderr(output)
            .spawn()
            .unwrap_or_else(|e| panic!("{python} runs: {e}"));
        let mut server = Server { child, url: format!("http://127.0.0.1:{port}"), log };
        let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(2))).build().into();
        let started = Instant::now();
        loop {
            if agent.get(format!("{}/v1/models", server.url)).call().is_ok() {
                eprintln!("llama-cpp-python's server answered on {} after {:.1} s", server.url, started.elapsed().as_secs_f64());
                return server;
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("the server ended ({status}) before it answered:\n{}", server.log_tail());
            }
            assert!(started.elapsed() < SERVER_START, "the server did not answer /v1/models within {SERVER_START:?}:\n{}", server.log_tail());
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The last lines the server wrote, for a failure's message.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

/// The project's English and Spanish lines and the Spanish track's
/// translations, read from the database as the last command left it.
struct Tracks {
    english: Vec<Segment>,
    spanish: Vec<Segment>,
    translations: Vec<Translation>,
}

fn tracks(data: &Path, project: i64) -> Tracks {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = Store::open(&data.join(DATABASE_FILE_NAME)).await.unwrap();
        let all = store.tracks(project).await.unwrap();
        let english = all.iter().find(|t| t.language == "en-US").expect("the English track");
        let tracks = match all.iter().find(|t| t.language == "es") {
            Some(spanish) => Tracks {
                english: store.segments(english.id).await.unwrap(),
                spanish: store.segments(spanish.id).await.unwrap(),
                translations: store.translations(spanish.id).await.unwrap(),
            },
            None => Tracks { english: store.segments(english.id).await.unwrap(), spanish: Vec::new(), translations: Vec::new() },
        };
        store.close().await;
        tracks
    })
}

/// The source lines translated so far; panics on any line half-written:
/// a Spanish line without its translation record, a record without its
/// line, a line out of its source's slot, or a source translated twice.
fn whole_lines(tracks: &Tracks, translator: &str) -> Vec<i64> {
    assert_eq!(tracks.spanish.len(), tracks.translations.len(), "a Spanish line for each translation and no other: {:?}", tracks.translations);
    let mut sources = Vec::new();
    for line in &tracks.spanish {
        let record = tracks.translations.iter().find(|t| t.segment_id == line.id).unwrap_or_else(|| panic!("line {} has no translation", line.id));
        let source = tracks.english.iter().find(|s| s.id == record.source_segment_id).expect("its source is on the English track");
        assert_eq!(record.translated_text, line.fields.text, "the line holds what was translated");
        assert!(!line.fields.text.trim().is_empty(), "line {} is empty", line.id);
        assert_ne!(line.fields.text.trim(), source.fields.text.trim(), "line {} is its source", line.id);
        assert_eq!(record.source_text, source.fields.text);
        assert_eq!((line.fields.start_s, line.fields.end_s), (source.fields.start_s, source.fields.end_s), "line {} sits in its source's slot", line.id);
        assert!(record.translator.starts_with(translator), "the translator is recorded: {}", record.translator);
        assert!(!sources.contains(&source.id), "source line {} translated twice", source.id);
        sources.push(source.id);
    }
    sources
}

/// The source lines the report gives as failed, each named on a line
/// that gives the reason, naming the translator; panics on a source line
/// neither translated nor reported.
fn reported_failed(report: &str, sources: &[Segment], translated: &[i64]) -> Vec<i64> {
    let missing: Vec<i64> = sources.iter().map(|s| s.id).filter(|id| !translated.contains(id)).collect();
    if missing.is_empty() {
        return missing;
    }
    assert!(report.contains(&format!("{} lines were not translated", missing.len())), "the lines not translated are reported: {report}");
    for id in &missing {
        let named = report
            .lines()
            .filter_map(|l| l.split_once("translator \"local\""))
            .any(|(ids, _)| ids.split(|c: char| !c.is_ascii_digit()).any(|n| n == id.to_string()));
        assert!(named, "source line {id} is neither translated nor reported failed with a reason naming the translator: {report}");
    }
    missing
}

#[test]
fn a_real_chat_server_translates_a_project_or_says_which_lines_failed_and_why() {
    let (Some(python), Some(model)) = (std::env::var_os("REVOICE_TEST_LLAMA_PYTHON"), std::env::var_os("REVOICE_TEST_LLAMA_MODEL")) else {
        eprintln!("real translator test skipped: REVOICE_TEST_LLAMA_PYTHON and REVOICE_TEST_LLAMA_MODEL are not set (scripts/test sets them)");
        return;
    };
    let (python, model) = (python.to_string_lossy().into_owned(), model.to_string_lossy().into_owned());
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(&python, &model, data.path().join("llama-server.log"));
    let host = server.url.trim_start_matches("http://").to_string();

    let (code, out, err) = revoice(data.path(), &["translators", "add", "local", "--url", &server.url, "--timeout", "300"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&format!("{host} (this machine)")), "{out}");
    let (code, out, err) = revoice(data.path(), &["translators", "check", "local"]);
    assert_eq!(code, Some(0), "the check answers: {out}{err}\n{}", server.log_tail());
    let listed = Path::new(&model).file_name().unwrap().to_string_lossy().into_owned();
    assert!(out.contains("models:") && out.contains(&listed), "the server's model is listed: {out}");
    assert!(out.contains("\"Good morning.\" into Spanish: \""), "{out}");

    let script = data.path().join("kitchen.srt");
    let srt: String = SCRIPT
        .iter()
        .enumerate()
        .map(|(i, (speaker, text))| format!("{}\n00:00:{:02},000 --> 00:00:{:02},500\n[{speaker}] {text}\n\n", i + 1, 3 * i, 3 * i + 2))
        .collect();
    std::fs::write(&script, srt).unwrap();
    let (code, out, err) = revoice(data.path(), &["project", "new", "Kitchen"]);
    assert_eq!(code, Some(0), "{err}");
    let id = out.split_whitespace().nth(2).unwrap().to_string();
    let (code, _, err) = revoice(data.path(), &["project", "import", &id, script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let project: i64 = id.parse().unwrap();

    let started = Instant::now();
    let (code, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    let seconds = started.elapsed().as_secs_f64();
    let report = format!("{out}{err}");
    // It finishes: 0 with every line translated, 1 with lines reported failed.
    assert!(matches!(code, Some(0 | 1)), "the translation finishes: {report}\n{}", server.log_tail());
    assert!(out.contains(&format!("with local ({model}) at {host} (this machine)")), "the translator, its model and this machine: {out}");
    let first = tracks(data.path(), project);
    assert_eq!(first.english.len(), SCRIPT.len());
    let translated = whole_lines(&first, "local (");
    let failed = reported_failed(&report, &first.english, &translated);
    assert_eq!(code, Some(if failed.is_empty() { 0 } else { 1 }), "{report}");
    let batches = SCRIPT.len().div_ceil(revoice_translate::TranslatorSettings::DEFAULT_BATCH_LINES);
    println!(
        "real translator: {} of {} lines translated, {} failed, in {seconds:.1} s: {batches} batch(es), {:.1} s a batch (with its retries)",
        translated.len(),
        SCRIPT.len(),
        failed.len(),
        seconds / batches as f64
    );
    for line in &first.spanish {
        println!("  es: {}", line.fields.text);
    }

    // Again: the lines translated stay as they are, only the missing ones are asked for.
    let (code, out, err) = revoice(data.path(), &["project", "translate", &id, "--to", "es"]);
    let report = format!("{out}{err}");
    assert!(matches!(code, Some(0 | 1)), "{report}\n{}", server.log_tail());
    assert!(out.contains(&format!("{} were translated before", translated.len())), "{out}");
    let second = tracks(data.path(), project);
    let now = whole_lines(&second, "local (");
    for line in &first.spanish {
        assert!(second.spanish.contains(line), "line {} was kept as it was: {:?}", line.id, second.spanish);
    }
    let new: Vec<i64> = now.iter().copied().filter(|s| !translated.contains(s)).collect();
    assert!(out.contains(&format!("translated {} lines", new.len())), "only the missing lines were translated: {out}");
    assert!(new.iter().all(|s| failed.contains(s)));
    let still = reported_failed(&report, &second.english, &now);
    assert_eq!(code, Some(if still.is_empty() { 0 } else { 1 }), "{report}");
}
