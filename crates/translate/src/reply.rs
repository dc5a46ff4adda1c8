//! Reading a translator's replies back, as small models write them: the
//! JSON found inside ```json fences, or after a preamble and before closing
//! prose; an array of `{"id", "text"}`, or an object holding one
//! (`{"translations": […]}`). A batch's reply is taken whole or not at all:
//! the ids must be the batch's, in its order, every text non-empty and not
//! the source line repeated. Errors are reasons (the caller names the
//! translator).

use serde_json::Value;

use crate::prompt::{Batch, Shorten};

/// The keys small models put a batch's array under.
const LIST_KEYS: [&str; 8] = ["translations", "lines", "translate", "items", "results", "data", "output", "response"];

/// The JSON values in a reply, in the order they appear: those inside
/// code fences first, then those in the whole text (each an array or an
/// object, found at its opening bracket and read to its end).
pub fn json_values(reply: &str) -> Vec<Value> {
    let mut values = Vec::new();
    for (i, part) in reply.split("```").enumerate() {
        if i % 2 == 1 {
            // A fence's first line may name its language (```json).
            let body = match part.split_once('\n') {
                Some((first, rest)) if !first.contains(['[', '{']) => rest,
                _ => part,
            };
            values.extend(values_in(body));
        }
    }
    values.extend(values_in(reply));
    values
}

fn values_in(text: &str) -> Vec<Value> {
    let mut values = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find(['[', '{']) {
        let from = at + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[from..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                values.push(value);
                at = from + stream.byte_offset();
            }
            _ => at = from + 1,
        }
    }
    values
}

/// One entry of a batch's reply.
struct Item {
    id: Option<i64>,
    text: Option<String>,
}

fn id_of(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) => s.trim().trim_start_matches('#').parse().ok(),
        _ => None,
    }
}

fn item(value: &Value) -> Item {
    let text = ["text", "translation", "translated", "target"].iter().find_map(|k| value[*k].as_str()).map(str::to_string);
    Item { id: value.get("id").and_then(id_of), text }
}

/// The entries a value holds, if it looks like a batch's reply.
fn items(value: &Value) -> Option<Vec<Item>> {
    match value {
        Value::Array(list) if list.iter().all(Value::is_object) && !list.is_empty() => Some(list.iter().map(item).collect()),
        Value::Object(object) => {
            if let Some(list) = LIST_KEYS.iter().find_map(|k| object.get(*k).filter(|v| v.is_array())) {
                return items(list);
            }
            let arrays: Vec<&Value> = object.values().filter(|v| v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_object))).collect();
            if let [list] = arrays[..] {
                return items(list);
            }
            if object.contains_key("id") {
                return Some(vec![item(value)]);
            }
            // {"7": "…", "8": "…"}: ids as keys.
            if !object.is_empty() && object.iter().all(|(k, v)| k.trim().parse::<i64>().is_ok() && v.is_string()) {
                return Some(object.iter().map(|(k, v)| Item { id: k.trim().parse().ok(), text: v.as_str().map(str::to_string) }).collect());
            }
            None
        }
        _ => None,
    }
}

fn list(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// `line 4`, `lines 4, 5`.
fn lines_named(ids: &[i64]) -> String {
    format!("{} {}", if ids.len() == 1 { "line" } else { "lines" }, list(ids))
}

/// Whether two tags name the same language (`en-US`, `en-GB`).
fn same_language(a: &str, b: &str) -> bool {
    match (revoice_text::language::of_tag(a), revoice_text::language::of_tag(b)) {
        (Some(x), Some(y)) => x.name == y.name,
        _ => {
            let primary = |t: &str| t.trim().split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
            primary(a) == primary(b)
        }
    }
}

fn normal(text: &str) -> String {
    text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// Whether `text` is `source` again (case, spacing and punctuation aside) where it
/// should have been translated: the languages differ and the source has at
/// least three words with letters (a name or "OK!" may stay as it is).
pub fn repeats_source(source: &str, text: &str, from: &str, to: &str) -> bool {
    let words = source.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
    words >= 3 && !same_language(from, to) && letters(source) == letters(text)
}

/// The words of a text in lower case, without punctuation: a source copied
/// with its full stop dropped is still the source.
fn letters(text: &str) -> String {
    let kept: String = text.chars().map(|c| if c.is_alphanumeric() || c.is_whitespace() { c } else { ' ' }).collect();
    normal(&kept)
}

/// The batch's translations, one per line in order, from the reply; or
/// why the reply cannot be used (none of it then).
pub fn batch_texts(reply: &str, batch: &Batch) -> Result<Vec<String>, String> {
    let asked: Vec<i64> = batch.lines.iter().map(|l| l.id).collect();
    let Some(items) = json_values(reply).iter().find_map(items) else {
        return Err(format!("answered no JSON array of {{\"id\", \"text\"}} for lines {}: {}", list(&asked), excerpt(reply)));
    };
    let unnamed = items.iter().filter(|i| i.id.is_none()).count();
    if unnamed > 0 {
        return Err(format!("answered {unnamed} of its {} lines without an id (lines {} were asked)", items.len(), list(&asked)));
    }
    let got: Vec<i64> = items.iter().filter_map(|i| i.id).collect();
    let mut problems = Vec::new();
    let missing: Vec<i64> = asked.iter().copied().filter(|id| !got.contains(id)).collect();
    if !missing.is_empty() {
        problems.push(format!("left out {}", lines_named(&missing)));
    }
    let mut extra: Vec<i64> = got.iter().copied().filter(|id| !asked.contains(id)).collect();
    extra.sort_unstable();
    extra.dedup();
    if !extra.is_empty() {
        problems.push(format!("answered {} not asked for", lines_named(&extra)));
    }
    let mut twice: Vec<i64> = got.iter().copied().filter(|id| asked.contains(id) && got.iter().filter(|g| *g == id).count() > 1).collect();
    twice.sort_unstable();
    twice.dedup();
    if !twice.is_empty() {
        problems.push(format!("answered {} more than once", lines_named(&twice)));
    }
    if !problems.is_empty() {
        let answered = if got.len() == 1 { "1 line".to_string() } else { format!("{} lines", got.len()) };
        return Err(format!("answered {answered} (ids {}) for the {} asked (ids {}): {}", list(&got), asked.len(), list(&asked), problems.join("; ")));
    }
    if got != asked {
        return Err(format!("answered the lines out of order (ids {} for {})", list(&got), list(&asked)));
    }
    let mut texts = Vec::with_capacity(items.len());
    for (line, item) in batch.lines.iter().zip(&items) {
        let text = item.text.as_deref().map(str::trim).unwrap_or_default();
        if text.is_empty() {
            return Err(format!("answered no text for line {}", line.id));
        }
        if repeats_source(&line.text, text, &batch.from, &batch.to) {
            return Err(format!("repeated the source instead of translating line {}", line.id));
        }
        let others = batch.lines.iter().chain(&batch.before).chain(&batch.after).filter(|other| other.id != line.id);
        if let Some(other) = others.into_iter().find(|other| repeats_source(&other.text, text, &batch.from, &batch.to)) {
            return Err(format!("answered line {}'s source for line {} instead of translating it", other.id, line.id));
        }
        if is_placeholder(text) {
            return Err(format!("answered a placeholder ({text}) instead of translating line {}", line.id));
        }
        texts.push(text.to_string());
    }
    Ok(texts)
}

/// Whether a text is a placeholder in angle brackets (`<translation>`,
/// `<Spanish>`): what a small model copies from the prompt's reply form
/// instead of translating.
pub fn is_placeholder(text: &str) -> bool {
    let text = text.trim();
    text.len() > 2 && text.starts_with('<') && text.ends_with('>') && !text[1..text.len() - 1].contains(['<', '>'])
}

/// The shorter translation the reply holds (`{"text": "…"}`, or a JSON
/// string); or why it cannot be used.
pub fn shortened_text(reply: &str, request: &Shorten) -> Result<String, String> {
    let id = request.line.id;
    let text = json_values(reply).iter().find_map(|v| match v {
        Value::Object(_) => item(v).text.or_else(|| items(v).and_then(|i| i.into_iter().next()).and_then(|i| i.text)),
        _ => None,
    });
    let Some(text) = text.or_else(|| serde_json::from_str::<String>(reply.trim()).ok()) else {
        return Err(format!("answered no JSON {{\"text\"}} for line {id}: {}", excerpt(reply)));
    };
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("answered no text for line {id}"));
    }
    if repeats_source(&request.line.text, text, &request.from, &request.to) {
        return Err(format!("repeated the source instead of translating line {id}"));
    }
    if is_placeholder(text) {
        return Err(format!("answered a placeholder ({text}) instead of line {id} said shorter"));
    }
    if normal(text) == normal(&request.current) {
        return Err(format!("answered the same translation of line {id} instead of a shorter one"));
    }
    Ok(text.to_string())
}

/// The start of a reply, for an error.
fn excerpt(reply: &str) -> String {
    let reply = reply.trim();
    if reply.is_empty() {
        return "it was empty".into();
    }
    let cut: String = reply.chars().take(200).collect();
    if cut.len() < reply.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::BatchLine;

    fn batch(ids: &[i64]) -> Batch {
        Batch {
            from: "en-US".into(),
            to: "es".into(),
            lines: ids.iter().map(|&id| BatchLine { id, speaker: None, text: format!("This is line number {id}."), seconds: 2.0 }).collect(),
            before: vec![],
            after: vec![],
            glossary: vec![],
            keep: vec![],
            notes: String::new(),
        }
    }

    #[test]
    fn a_plain_array_is_read_in_order_and_trimmed() {
        let reply = r#"[{"id": 1, "text": " Esta es la línea uno. "}, {"id": 2, "text": "Esta es la línea dos."}]"#;
        assert_eq!(batch_texts(reply, &batch(&[1, 2])).unwrap(), ["Esta es la línea uno.", "Esta es la línea dos."]);
    }

    #[test]
    fn fences_prose_and_wrapping_objects_are_seen_through() {
        let fenced = "Sure! Here are the lines [as asked]:\n```json\n[{\"id\": 4, \"text\": \"Hola.\"}]\n```\nLet me know if you need more.";
        assert_eq!(batch_texts(fenced, &batch(&[4])).unwrap(), ["Hola."]);
        let wrapped = r#"{"translations": [{"id": "4", "translation": "Hola."}, {"id": 5, "text": "Adiós."}]}"#;
        assert_eq!(batch_texts(wrapped, &batch(&[4, 5])).unwrap(), ["Hola.", "Adiós."]);
        let lines = r#"Output: {"lines": [{"id": 4, "text": "Hola."}]} done"#;
        assert_eq!(batch_texts(lines, &batch(&[4])).unwrap(), ["Hola."]);
        let keyed = r#"{"4": "Hola.", "5": "Adiós."}"#;
        assert_eq!(batch_texts(keyed, &batch(&[4, 5])).unwrap(), ["Hola.", "Adiós."]);
        let single = r#"{"id": 4, "text": "Hola."}"#;
        assert_eq!(batch_texts(single, &batch(&[4])).unwrap(), ["Hola."]);
    }

    #[test]
    fn wrong_ids_are_refused_naming_them() {
        let short = r#"[{"id": 1, "text": "Uno."}]"#;
        let err = batch_texts(short, &batch(&[1, 2])).unwrap_err();
        assert!(err.contains("left out line 2") && err.contains("ids 1, 2"), "{err}");
        let extra = r#"[{"id": 1, "text": "Uno."}, {"id": 2, "text": "Dos."}, {"id": 9, "text": "Nueve."}]"#;
        assert!(batch_texts(extra, &batch(&[1, 2])).unwrap_err().contains("answered line 9 not asked for"));
        let twice = r#"[{"id": 1, "text": "Uno."}, {"id": 1, "text": "Uno."}]"#;
        let err = batch_texts(twice, &batch(&[1, 2])).unwrap_err();
        assert!(err.contains("left out line 2") && err.contains("answered line 1 more than once"), "{err}");
        let swapped = r#"[{"id": 2, "text": "Dos."}, {"id": 1, "text": "Uno."}]"#;
        assert!(batch_texts(swapped, &batch(&[1, 2])).unwrap_err().contains("out of order"));
        let no_ids = r#"[{"text": "Uno."}, {"text": "Dos."}]"#;
        assert!(batch_texts(no_ids, &batch(&[1, 2])).unwrap_err().contains("without an id"));
        assert!(batch_texts("I cannot help with that.", &batch(&[1])).unwrap_err().contains("no JSON array"));
        let placeholder = batch_texts(r#"{"lines": [{"id": 1, "text": "<Spanish>"}]}"#, &batch(&[1])).unwrap_err();
        assert!(placeholder.contains("placeholder") && placeholder.contains("line 1"), "{placeholder}");
        assert!(!is_placeholder("<<no>>") && !is_placeholder("a <b> c") && is_placeholder(" <translation> "));
        assert!(batch_texts(r#"[1, 2]"#, &batch(&[1, 2])).unwrap_err().contains("no JSON array"));
    }

    #[test]
    fn an_empty_text_or_the_source_again_fails_the_whole_batch() {
        let empty = r#"[{"id": 1, "text": "Uno."}, {"id": 2, "text": "  "}]"#;
        assert!(batch_texts(empty, &batch(&[1, 2])).unwrap_err().contains("no text for line 2"));
        let copied = r#"[{"id": 1, "text": "Uno."}, {"id": 2, "text": "this is  LINE number 2."}]"#;
        assert_eq!(batch_texts(copied, &batch(&[1, 2])).unwrap_err(), "repeated the source instead of translating line 2");
        // Into the same language, or a short line (a name, "OK."), the same text is fine.
        let same = Batch { to: "en-GB".into(), ..batch(&[2]) };
        assert!(batch_texts(r#"[{"id": 2, "text": "This is line number 2."}]"#, &same).is_ok());
        assert!(!repeats_source("Marco!", "Marco!", "en", "es"));
        assert!(!repeats_source("OK, Marco.", "OK, Marco.", "en", "es"));
        assert!(repeats_source("Good morning, Marco.", "good morning,   marco.", "en", "es"));
        assert!(repeats_source("The keeper's logbook turned up last week.", "The keeper's logbook turned up last week", "en", "es"), "the full stop dropped");
        let other = r#"[{"id": 1, "text": "this is line number 2"}, {"id": 2, "text": "Dos."}]"#;
        assert_eq!(batch_texts(other, &batch(&[1, 2])).unwrap_err(), "answered line 2's source for line 1 instead of translating it");
    }

    #[test]
    fn a_shortened_line_is_read_and_checked() {
        let request = Shorten {
            from: "en".into(),
            to: "es".into(),
            line: BatchLine { id: 3, speaker: None, text: "We have to leave right now.".into(), seconds: 1.5 },
            current: "Tenemos que irnos ahora mismo, ya.".into(),
            current_seconds: 2.2,
            target_syllables: 7,
            glossary: vec![],
            keep: vec![],
            notes: String::new(),
        };
        assert_eq!(shortened_text("```json\n{\"text\": \" Vámonos ya. \"}\n```", &request).unwrap(), "Vámonos ya.");
        assert_eq!(shortened_text("\"Vámonos ya.\"", &request).unwrap(), "Vámonos ya.");
        assert!(shortened_text("Vámonos ya.", &request).unwrap_err().contains("no JSON"));
        assert!(shortened_text(r#"{"text": "tenemos que irnos ahora mismo, ya."}"#, &request).unwrap_err().contains("same translation"));
        assert!(shortened_text(r#"{"text": "We have to leave right now."}"#, &request).unwrap_err().contains("repeated the source"));
        assert!(shortened_text(r#"{"text": ""}"#, &request).unwrap_err().contains("no text"));
    }
}
