//! Translating a track through a scripted chat-completions server (it
//! answers each line as `[es] <source>`, a line saying "long" at great
//! length, and counts what it was asked):
//! lines land on the Spanish track in their source's slots with their
//! speakers; a job stopped after its first batch goes on with the lines it
//! lacks and asks for none twice; a line edited by hand survives being
//! translated again unless that is asked; a source edited after its
//! translation is reported.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use revoice_engine::testing::{scripted_loader, ScriptedModel};
use revoice_engine::translating::TranslateRequest;
use revoice_engine::{Engine, EngineConfig, ErrorKind};
use revoice_translate::TranslatorSettings;

/// What the scripted server was asked: the ids of each batch's lines.
type Asked = Arc<Mutex<Vec<Vec<i64>>>>;

/// A chat server on a free port that translates each line to translate as
/// `[es] <text>`; its URL and what it was asked.
fn scripted_translator() -> (String, Asked) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked: Asked = Arc::default();
    let log = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
                if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let answer = match serde_json::from_slice::<serde_json::Value>(&body) {
                // Asked for a line shorter: a short one, but a "stubborn" line stays long.
                Ok(request) if request["messages"][1]["content"].as_str().unwrap_or_default().contains("target_syllables") => {
                    let user: serde_json::Value = serde_json::from_str(request["messages"][1]["content"].as_str().unwrap()).unwrap();
                    let original = user["original"].as_str().unwrap();
                    let text = if original.contains("stubborn") { format!("{} otra vez", user["translation"].as_str().unwrap()) } else { "Corta.".to_string() };
                    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": serde_json::json!({"text": text}).to_string()}}]})
                }
                Ok(request) => {
                    let user: serde_json::Value = serde_json::from_str(request["messages"][1]["content"].as_str().unwrap_or("{}")).unwrap_or_default();
                    let lines = user["translate"].as_array().cloned().unwrap_or_default();
                    log.lock().unwrap().push(lines.iter().map(|l| l["id"].as_i64().unwrap()).collect());
                    let said = |text: &str| match text.contains("long") {
                        // Each long line its own long translation: one answer for two lines is refused.
                        true => format!(
                            "[es] {} {}",
                            if text.contains("stubborn") { "Terca," } else { "Larga," },
                            "una frase que no se acaba nunca y sigue y sigue ".repeat(6)
                        ),
                        false => format!("[es] {text}"),
                    };
                    let texts: Vec<serde_json::Value> =
                        lines.iter().map(|l| serde_json::json!({"id": l["id"], "text": said(l["text"].as_str().unwrap())})).collect();
                    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": serde_json::to_string(&texts).unwrap()}}]})
                }
                // `GET /v1/models`: none listed.
                Err(_) => serde_json::json!({"data": [{"id": "scripted"}]}),
            }
            .to_string();
            let _ =
                write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}", answer.len());
        }
    });
    (url, asked)
}

struct Translating {
    runtime: tokio::runtime::Runtime,
    engine: Arc<Engine>,
    project: i64,
    asked: Asked,
    _dir: tempfile::TempDir,
}

/// An engine with the scripted translator configured and a project of `lines` English lines.
fn translating(lines: usize) -> Translating {
    let texts: Vec<String> = (0..lines).map(|i| format!("Line number {i} is here.")).collect();
    translating_lines(&texts.iter().map(String::as_str).collect::<Vec<_>>())
}

/// An engine with the scripted translator configured and a project of these English lines, 1.5 s each.
fn translating_lines(texts: &[&str]) -> Translating {
    let lines = texts.len();
    let (url, asked) = scripted_translator();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), format!("[[translators]]\nname = \"scripted\"\nurl = \"{url}\"\ntimeout_s = 10\n")).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let config = EngineConfig::load_from(dir.path().to_path_buf()).unwrap();
    let engine = Arc::new(runtime.block_on(Engine::open_with(config, scripted_loader(Arc::new(ScriptedModel::new()), None))).unwrap());
    let (project, track) = runtime.block_on(engine.create_project("Quay", "en-US")).unwrap();
    let srt: String =
        (0..lines).map(|i| format!("{}\n00:00:{:02},000 --> 00:00:{:02},500\n[{}] {}\n\n", i + 1, i * 2, i * 2 + 1, ["Ana", "Ben"][i % 2], texts[i])).collect();
    runtime.block_on(engine.store().import_cues(&track, &revoice_engine::subtitles::parse_srt(&srt, "quay.srt").unwrap())).unwrap();
    Translating { runtime, engine, project: project.id, asked, _dir: dir }
}

impl Translating {
    fn request(&self) -> TranslateRequest {
        TranslateRequest { project_id: self.project, to: "es".into(), ..Default::default() }
    }

    fn track(&self, language: &str) -> Vec<revoice_engine::store::Segment> {
        let tracks = self.runtime.block_on(self.engine.store().tracks(self.project)).unwrap();
        let track = tracks.iter().find(|t| t.language == language).unwrap();
        self.runtime.block_on(self.engine.store().segments(track.id)).unwrap()
    }

    fn asked(&self) -> Vec<i64> {
        self.asked.lock().unwrap().iter().flatten().copied().collect()
    }
}

#[test]
fn a_track_is_translated_into_lines_in_the_same_slots_with_their_speakers() {
    let t = translating(3);
    let mut seen = Vec::new();
    let report = t.engine.translate_track(&t.request(), &mut |p| seen.push((p.done, p.total)), &|| false).unwrap();
    assert_eq!((report.translated, report.already, report.from.as_str()), (3, 0, "en-US"));
    assert!(report.local && report.translator.starts_with("scripted ("), "{report:?}");
    assert_eq!(seen, [(0, 3), (3, 3)]);
    let (english, spanish) = (t.track("en-US"), t.track("es"));
    for (source, line) in english.iter().zip(&spanish) {
        assert_eq!(line.fields.text, format!("[es] {}", source.fields.text));
        assert_eq!((line.fields.start_s, line.fields.end_s, line.fields.speaker_id), (source.fields.start_s, source.fields.end_s, source.fields.speaker_id));
    }
    let tracks = t.runtime.block_on(t.engine.store().tracks(t.project)).unwrap();
    assert_eq!(t.runtime.block_on(t.engine.store().track_source(tracks[1].id)).unwrap(), Some(tracks[0].id));
    // Undone, the translation goes as one step.
    assert_eq!(t.runtime.block_on(t.engine.store().undo(t.project)).unwrap().as_deref(), Some("translated 3 lines"));
    assert!(t.track("es").is_empty());

    let same = t.engine.translate_track(&TranslateRequest { to: "en-US".into(), ..t.request() }, &mut |_| {}, &|| false).unwrap_err();
    assert_eq!(same.kind(), ErrorKind::InvalidInput, "{same}");
    let unknown = t.engine.translate_track(&TranslateRequest { translator: Some("deepl".into()), ..t.request() }, &mut |_| {}, &|| false).unwrap_err();
    assert!(unknown.to_string().contains("scripted"), "names the translators there are: {unknown}");
}

#[test]
fn a_stopped_translation_goes_on_with_the_lines_it_lacks_and_asks_for_none_twice() {
    let t = translating(TranslatorSettings::DEFAULT_BATCH_LINES + 3);
    let english: Vec<i64> = t.track("en-US").iter().map(|s| s.id).collect();
    let batches = std::cell::Cell::new(0);
    let stopped = t.engine.translate_track(&t.request(), &mut |p| batches.set(p.done), &|| batches.get() > 0).unwrap_err();
    assert_eq!(stopped.kind(), ErrorKind::Cancelled, "{stopped}");
    assert_eq!(t.track("es").len(), TranslatorSettings::DEFAULT_BATCH_LINES, "the first batch is written whole, nothing of the second");
    let report = t.engine.translate_track(&t.request(), &mut |_| {}, &|| false).unwrap();
    assert_eq!((report.translated, report.already), (3, TranslatorSettings::DEFAULT_BATCH_LINES));
    assert_eq!(t.asked(), english, "every line asked for once, in order");
    assert_eq!(t.track("es").len(), english.len());
    // Nothing left: a third run asks for nothing.
    assert_eq!(t.engine.translate_track(&t.request(), &mut |_| {}, &|| false).unwrap().translated, 0);
    assert_eq!(t.asked().len(), english.len());
}

#[test]
fn a_line_edited_by_hand_survives_translating_again_unless_that_is_asked() {
    let t = translating(2);
    t.engine.translate_track(&t.request(), &mut |_| {}, &|| false).unwrap();
    let (english, spanish) = (t.track("en-US"), t.track("es"));
    let edit = |id: i64, text: &str| {
        let edit = revoice_engine::LineEdit { text: Some(text.into()), ..Default::default() };
        t.runtime.block_on(t.engine.edit_line(id, edit)).unwrap();
    };
    edit(spanish[0].id, "La marea cambia.");
    edit(english[1].id, "Then we leave.");
    let again = TranslateRequest { again: vec![english[0].id, english[1].id], ..t.request() };
    let report = t.engine.translate_track(&again, &mut |_| {}, &|| false).unwrap();
    assert_eq!(report.kept_edited, [english[0].id]);
    assert_eq!(report.translated, 1);
    let now = t.track("es");
    assert_eq!(now[0].fields.text, "La marea cambia.", "the hand edit is kept");
    assert_eq!(now[1].fields.text, "[es] Then we leave.", "the changed source translated again");
    assert_eq!(now.len(), 2, "translated in place, not added");

    edit(english[0].id, "The tide has turned.");
    let report = t.engine.translate_track(&t.request(), &mut |_| {}, &|| false).unwrap();
    assert_eq!(report.source_changed, [english[0].id], "a source edited since is told");
    let forced = TranslateRequest { again: vec![english[0].id], overwrite_edited: true, ..t.request() };
    t.engine.translate_track(&forced, &mut |_| {}, &|| false).unwrap();
    assert_eq!(t.track("es")[0].fields.text, "[es] The tide has turned.");
}

#[test]
fn a_translation_too_long_for_its_slot_is_asked_for_shorter_and_kept_only_if_it_fits() {
    let t = translating_lines(&["A long line.", "A stubborn long line.", "Then we go."]);
    let report = t.engine.translate_track(&t.request(), &mut |_| {}, &|| false).unwrap();
    let spanish = t.track("es");
    assert_eq!((report.sized, report.fit_before, report.fit_after), (3, 1, 2), "{report:?}");
    assert_eq!(report.shortened, [spanish[0].id]);
    assert_eq!(report.too_long, [spanish[1].id]);
    assert_eq!(spanish[0].fields.text, "Corta.", "the shorter one fits, and is kept");
    assert!(
        spanish[1].fields.text.starts_with("[es] Terca, una frase") && !spanish[1].fields.text.ends_with("otra vez"),
        "a shorter one that does not fit is not kept"
    );
    assert_eq!(spanish[2].fields.text, "[es] Then we go.");
    // The shortened line is known as translated, not as edited by hand.
    let again = TranslateRequest { again: vec![t.track("en-US")[0].id], ..t.request() };
    assert!(t.engine.translate_track(&again, &mut |_| {}, &|| false).unwrap().kept_edited.is_empty());
}

#[test]
fn glossary_terms_a_line_leaves_out_are_reported_as_it_stands_after_sizing_and_shown_in_the_translation_view() {
    let t = translating_lines(&["A long line.", "Light the lamp.", "Then we go."]);
    let glossary = |language: &str, term: &str, translation: &str| {
        t.runtime.block_on(t.engine.set_glossary_term(t.project, language, term, translation)).unwrap();
    };
    // `long` first comes back as "…una frase…", then said shorter as "Corta.", which leaves it out.
    glossary("es", "long", "frase");
    glossary("es", "lamp", "lámpara");
    glossary("es", "light", "Light");
    glossary("fr", "go", "allons");
    let report = t.engine.translate_track(&t.request(), &mut |_| {}, &|| false).unwrap();
    let (english, spanish) = (t.track("en-US"), t.track("es"));
    assert_eq!(report.shortened, [spanish[0].id], "{report:?}");
    let dropped: Vec<(i64, &str, &str)> = report.glossary_dropped.iter().map(|d| (d.segment_id, d.term.as_str(), d.translation.as_str())).collect();
    assert_eq!(dropped, [(spanish[0].id, "long", "frase"), (spanish[1].id, "lamp", "lámpara")], "a French entry is not for Spanish");
    assert!(report.failed.is_empty());

    // The view: each line with its source, and what changed since.
    let edit = |id: i64, text: &str| {
        let edit = revoice_engine::LineEdit { text: Some(text.into()), ..Default::default() };
        t.runtime.block_on(t.engine.edit_line(id, edit)).unwrap();
    };
    edit(spanish[1].id, "Light: la lámpara.");
    edit(english[2].id, "Then we leave.");
    let tracks = t.runtime.block_on(t.engine.store().tracks(t.project)).unwrap();
    let view = t.runtime.block_on(t.engine.track_translations(tracks[1].id)).unwrap();
    assert_eq!((view.source_track_id, view.source_language.as_deref()), (Some(tracks[0].id), Some("en-US")));
    assert_eq!(
        view.lines.iter().map(|l| (l.segment_id, l.source_segment_id)).collect::<Vec<_>>(),
        spanish.iter().zip(&english).map(|(s, e)| (s.id, e.id)).collect::<Vec<_>>()
    );
    let [shortened, edited, changed] = &view.lines[..] else { panic!("{view:?}") };
    assert_eq!((shortened.edited, shortened.dropped_terms.as_slice()), (false, ["long".to_string()].as_slice()), "a line said shorter is the engine's own");
    assert_eq!((edited.edited, edited.dropped_terms.is_empty(), edited.source_changed), (true, true, false), "the hand edit put the term back");
    assert_eq!((changed.source_changed, changed.source_text.as_str(), changed.translated_from.as_str()), (true, "Then we leave.", "Then we go."));
    assert!(changed.translator.starts_with("scripted (") && changed.translated_at.ends_with('Z'), "{changed:?}");
    // A track not made by translation has no translated lines.
    let source_view = t.runtime.block_on(t.engine.track_translations(tracks[0].id)).unwrap();
    assert_eq!((source_view.source_track_id, source_view.lines.len()), (None, 0));
}
