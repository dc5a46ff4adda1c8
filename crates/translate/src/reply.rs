//! Reading a translator's replies back, as small models write them: the
//! JSON found inside ```json fences, or after a preamble and before closing
//! prose; an array of `{"id", "text"}`, or an object holding one
//! (`{"translations": […]}`). A batch's reply is taken whole or not at all:
//! the ids must be the batch's, in its order, every text non-empty and not
//! the source line repeated. A reply in the beside form (each line's source
//! again, then its translation under the target language's name) is read
//! the same way. Errors are reasons (the caller names the translator).

use serde_json::Value;

use crate::prompt::{plain_language_name, Batch, BatchLine, Shorten};

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

/// The keys an entry's translation is found under, in a reply to the first form.
const TEXT_KEYS: [&str; 4] = ["text", "translation", "translated", "target"];

/// An entry, its translation under the first of `keys` it has (spelt as
/// given, else in any case).
fn item(value: &Value, keys: &[&str]) -> Item {
    let exact = keys.iter().find_map(|k| value[*k].as_str());
    let any_case = || {
        let object = value.as_object()?;
        keys.iter().find_map(|k| object.iter().find(|(key, _)| key.eq_ignore_ascii_case(k)).and_then(|(_, v)| v.as_str()))
    };
    Item { id: value.get("id").and_then(id_of), text: exact.or_else(any_case).map(str::to_string) }
}

/// The entries a value holds, if it looks like a batch's reply, each
/// translation under the first of `keys` it has.
fn items(value: &Value, keys: &[&str]) -> Option<Vec<Item>> {
    match value {
        Value::Array(list) if list.iter().all(Value::is_object) && !list.is_empty() => Some(list.iter().map(|v| item(v, keys)).collect()),
        Value::Object(object) => {
            if let Some(list) = LIST_KEYS.iter().find_map(|k| object.get(*k).filter(|v| v.is_array())) {
                return items(list, keys);
            }
            let arrays: Vec<&Value> = object.values().filter(|v| v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_object))).collect();
            if let [list] = arrays[..] {
                return items(list, keys);
            }
            if object.contains_key("id") {
                return Some(vec![item(value, keys)]);
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
    read_batch(reply, batch, &TEXT_KEYS, "{\"id\", \"text\"}")
}

/// The batch's translations from a reply in the beside form
/// ([`batch_messages_beside`](crate::prompt::batch_messages_beside)): each
/// line's translation under the target language's name (`"Spanish"`, in any
/// case; else under `text` and the other keys [`batch_texts`] reads), the
/// source written again beside it left aside. The same refusals as
/// [`batch_texts`]: the wrong ids, order or count, an empty text, the
/// line's source or another line's repeated, a placeholder.
pub fn batch_texts_beside(reply: &str, batch: &Batch) -> Result<Vec<String>, String> {
    let (from, to) = (plain_language_name(&batch.from), plain_language_name(&batch.to));
    let keys: Vec<&str> = std::iter::once(to.as_str()).chain(TEXT_KEYS).collect();
    read_batch(reply, batch, &keys, &format!("{{\"id\", \"{from}\", \"{to}\"}}"))
}

/// A batch's reply read with each translation under the first of `keys`;
/// `form` names the entries asked for, for an error.
fn read_batch(reply: &str, batch: &Batch, keys: &[&str], form: &str) -> Result<Vec<String>, String> {
    let asked: Vec<i64> = batch.lines.iter().map(|l| l.id).collect();
    let Some(items) = json_values(reply).iter().find_map(|v| items(v, keys)) else {
        return Err(format!("answered no JSON array of {form} for lines {}: {}", list(&asked), excerpt(reply)));
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
        if reads_as_source_language(text, &batch.from, &batch.to) {
            return Err(format!("answered line {} in {} instead of translating it: {}", line.id, plain_language_name(&batch.from), excerpt(text)));
        }
        texts.push(text.to_string());
    }
    if let Some((a, b)) = same_answer_for_different_lines(&batch.lines, &texts) {
        return Err(format!("answered the same text for lines {a} and {b}, whose sources differ"));
    }
    Ok(texts)
}

/// Two lines of a batch, each of at least three words and saying different
/// things, given the same text: a small model repeating one answer rather
/// than translating each line.
fn same_answer_for_different_lines(lines: &[BatchLine], texts: &[String]) -> Option<(i64, i64)> {
    let worded = |t: &str| t.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count() >= 3;
    for (i, (a, text_a)) in lines.iter().zip(texts).enumerate() {
        for (b, text_b) in lines.iter().zip(texts).skip(i + 1) {
            if worded(&a.text) && worded(&b.text) && letters(&a.text) != letters(&b.text) && letters(text_a) == letters(text_b) {
                return Some((a.id, b.id));
            }
        }
    }
    None
}

/// Whether `text`, meant to be in the language `to`, reads instead as the
/// source's language `from` (a small model paraphrasing the line rather
/// than translating it). Told by the text's letters between those two
/// languages only, and only where that is clear: a text of at least three
/// words, judged reliably; short lines, names and languages the detector
/// does not know pass.
pub fn reads_as_source_language(text: &str, from: &str, to: &str) -> bool {
    let detectable = |tag: &str| {
        let language = revoice_text::language::of_tag(tag)?;
        language.codes.iter().find_map(|code| whatlang::Lang::from_code(*code))
    };
    let (Some(source), Some(target)) = (detectable(from), detectable(to)) else { return false };
    let words = text.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
    if source == target || words < 3 {
        return false;
    }
    whatlang::Detector::with_allowlist(vec![source, target]).detect(text).is_some_and(|info| info.lang() == source && info.is_reliable())
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
        Value::Object(_) => item(v, &TEXT_KEYS).text.or_else(|| items(v, &TEXT_KEYS).and_then(|i| i.into_iter().next()).and_then(|i| i.text)),
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
    fn a_line_answered_in_the_source_language_is_refused() {
        let english = r#"[{"id": 1, "text": "The light is out again, Theo."}]"#;
        let err = batch_texts(english, &batch(&[1])).unwrap_err();
        assert!(err.contains("answered line 1 in English instead of translating it"), "{err}");
        assert!(reads_as_source_language("We have to leave the harbour before the tide turns.", "en-US", "es"));
        // Spanish, however short or full of names, is Spanish; a name alone is no language.
        for spanish in ["La luz se apagó otra vez, Theo.", "Entonces prepara el barco.", "Buenos días, amigo.", "Theo, escúchame.", "OK, Maya."] {
            assert!(!reads_as_source_language(spanish, "en-US", "es"), "{spanish}");
        }
        // Between two varieties of one language, or into a language the detector does not know, nothing is refused.
        assert!(!reads_as_source_language("The light is out again, Theo.", "en-US", "en-GB"));
        assert!(!reads_as_source_language("The light is out again, Theo.", "en-US", "tlh"));
        // French out of English, and English out of Spanish.
        assert!(reads_as_source_language("The light is out again and the boats are coming in.", "en", "fr"));
        assert!(reads_as_source_language("La luz se apagó otra vez y los barcos están llegando.", "es", "en"));
        assert!(!reads_as_source_language("La lumière s'est encore éteinte et les bateaux arrivent.", "en", "fr"));
    }

    #[test]
    fn one_answer_given_for_lines_that_say_different_things_is_refused() {
        let same = r#"[{"id": 1, "text": "No."}, {"id": 2, "text": "Sí."}, {"id": 3, "text": "no"}]"#;
        let err = batch_texts(same, &batch(&[1, 2, 3])).unwrap_err();
        assert!(err.contains("the same text for lines 1 and 3"), "{err}");
        // Short lines may well say the same thing: "Yes." and "Yeah." are both "Sí.".
        let mut short = batch(&[1, 2]);
        short.lines[0].text = "Yes.".into();
        short.lines[1].text = "Yeah.".into();
        assert_eq!(batch_texts(r#"[{"id": 1, "text": "Sí."}, {"id": 2, "text": "Sí."}]"#, &short).unwrap(), ["Sí.", "Sí."]);
        // And a line said twice is translated the same way twice.
        let mut twice = batch(&[1, 2]);
        twice.lines[1].text = twice.lines[0].text.clone();
        assert!(batch_texts(r#"[{"id": 1, "text": "Esta es la línea."}, {"id": 2, "text": "Esta es la línea."}]"#, &twice).is_ok());
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
    fn a_beside_reply_is_read_from_the_target_languages_field() {
        let reply = r#"{"lines": [{"id": 1, "English": "This is line number 1.", "Spanish": " Esta es la línea uno. "}, {"id": 2, "English": "This is line number 2.", "spanish": "Esta es la dos."}]}"#;
        assert_eq!(batch_texts_beside(reply, &batch(&[1, 2])).unwrap(), ["Esta es la línea uno.", "Esta es la dos."]);
        // A reply in the first form is read too.
        assert_eq!(batch_texts_beside(r#"[{"id": 1, "text": "Uno."}]"#, &batch(&[1])).unwrap(), ["Uno."]);
        // The source beside it is never taken for the translation.
        let source_only = batch_texts_beside(r#"[{"id": 1, "English": "Esta es la uno."}]"#, &batch(&[1])).unwrap_err();
        assert_eq!(source_only, "answered no text for line 1");
        let none = batch_texts_beside("No.", &batch(&[1])).unwrap_err();
        assert!(none.contains("no JSON array of {\"id\", \"English\", \"Spanish\"}") && none.contains("lines 1"), "{none}");
    }

    #[test]
    fn a_beside_reply_is_refused_as_a_first_form_one_is() {
        let entry = |id: i64, spanish: &str| format!(r#"{{"id": {id}, "English": "This is line number {id}.", "Spanish": "{spanish}"}}"#);
        let reply = |entries: &[String]| format!(r#"{{"lines": [{}]}}"#, entries.join(", "));
        let echo = reply(&[entry(1, "Uno."), entry(2, "This is line number 2.")]);
        assert_eq!(batch_texts_beside(&echo, &batch(&[1, 2])).unwrap_err(), "repeated the source instead of translating line 2");
        let other = reply(&[entry(1, "this is line number 2"), entry(2, "Dos.")]);
        assert_eq!(batch_texts_beside(&other, &batch(&[1, 2])).unwrap_err(), "answered line 2's source for line 1 instead of translating it");
        let placeholder = reply(&[entry(1, "<its Spanish translation>")]);
        assert!(batch_texts_beside(&placeholder, &batch(&[1])).unwrap_err().contains("placeholder"));
        let short = reply(&[entry(1, "Uno.")]);
        assert!(batch_texts_beside(&short, &batch(&[1, 2])).unwrap_err().contains("left out line 2"));
        let swapped = reply(&[entry(2, "Dos."), entry(1, "Uno.")]);
        assert!(batch_texts_beside(&swapped, &batch(&[1, 2])).unwrap_err().contains("out of order"));
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
