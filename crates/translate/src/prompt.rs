//! What a translator is asked: the messages for a batch of a track's lines
//! (with the lines around them as context, the glossary, the names kept as
//! written and the project's notes), and for one line said shorter to fit
//! its slot. Languages are named in English (`Spanish (es-MX)`). A batch
//! can also be asked in the beside form (each line's source again, then its
//! translation, under the languages' names), for small models that echo.

use serde_json::{json, Map, Value};

use crate::chat::Message;

/// One line of a track.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchLine {
    /// The line's id; the reply names it.
    pub id: i64,
    pub speaker: Option<String>,
    pub text: String,
    /// The length of the line's slot, seconds.
    pub seconds: f64,
}

/// A term and how it is translated.
#[derive(Debug, Clone, PartialEq)]
pub struct GlossaryTerm {
    pub term: String,
    pub translation: String,
}

/// Lines to translate, in order, with the lines around them.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The lines' language tag (`en-US`).
    pub from: String,
    /// The language tag to translate into (`es`, `pt-BR`).
    pub to: String,
    /// The lines to translate.
    pub lines: Vec<BatchLine>,
    /// The lines just before, as context (not translated).
    pub before: Vec<BatchLine>,
    /// The lines just after, as context (not translated).
    pub after: Vec<BatchLine>,
    pub glossary: Vec<GlossaryTerm>,
    /// Names and words kept exactly as written.
    pub keep: Vec<String>,
    /// The project's own instructions (tone, setting, audience); may be empty.
    pub notes: String,
}

/// One line whose translation is too long for its slot, to be said shorter.
#[derive(Debug, Clone, PartialEq)]
pub struct Shorten {
    pub from: String,
    pub to: String,
    /// The original line (its `seconds`: the slot's length).
    pub line: BatchLine,
    /// Its translation now.
    pub current: String,
    /// How long the translation takes to say now, seconds.
    pub current_seconds: f64,
    /// About how many syllables the shorter translation should have.
    pub target_syllables: usize,
    pub glossary: Vec<GlossaryTerm>,
    pub keep: Vec<String>,
    pub notes: String,
}

/// A language tag's English name: `Spanish` for `es`, `Portuguese (pt-BR)`
/// for `pt-BR`; a tag the studio does not know, as it is.
pub fn language_name(tag: &str) -> String {
    let tag = tag.trim();
    match revoice_text::language::of_tag(tag) {
        Some(language) if tag.contains(['-', '_']) => format!("{} ({tag})", language.name),
        Some(language) => language.name.to_string(),
        None => tag.to_string(),
    }
}

/// A language tag's plain English name, `Spanish` for `es` and for
/// `es-MX`; a tag the studio does not know, as it is. The keys of the
/// beside form ([`batch_messages_beside`]).
pub fn plain_language_name(tag: &str) -> String {
    let tag = tag.trim();
    revoice_text::language::of_tag(tag).map_or_else(|| tag.to_string(), |language| language.name.to_string())
}

/// The keys a batch's lines are written under in the beside form: the
/// source language's plain name and the target's (`English`, `Spanish`);
/// `None` when the two cannot be told apart (`en-US` into `en-GB`), or one
/// would be taken for the line's `id`.
pub fn beside_names(batch: &Batch) -> Option<(String, String)> {
    let (from, to) = (plain_language_name(&batch.from), plain_language_name(&batch.to));
    let usable = |name: &str| !name.is_empty() && !name.eq_ignore_ascii_case("id");
    (usable(&from) && usable(&to) && !from.eq_ignore_ascii_case(&to)).then_some((from, to))
}

/// Seconds to a tenth, as the prompts give them.
fn tenths(seconds: f64) -> f64 {
    (seconds * 10.0).round() / 10.0
}

/// The rules both prompts share: register, names kept, glossary, notes.
fn shared_rules(glossary: &[GlossaryTerm], keep: &[String], notes: &str) -> String {
    let mut rules = String::from(
        "- Write natural spoken dialogue, as an actor would say it, not written prose.\n\
         - Keep each speaker's register: formal or casual, polite or rude, as in the original.\n",
    );
    let keep: Vec<&str> = keep.iter().map(|k| k.trim()).filter(|k| !k.is_empty()).collect();
    if !keep.is_empty() {
        let quoted: Vec<String> = keep.iter().map(|k| json!(k).to_string()).collect();
        rules.push_str(&format!("- Keep these names exactly as written, untranslated: {}.\n", quoted.join(", ")));
    }
    let terms: Vec<&GlossaryTerm> = glossary.iter().filter(|t| !t.term.trim().is_empty() && !t.translation.trim().is_empty()).collect();
    if !terms.is_empty() {
        rules.push_str("- Translate these terms as given:\n");
        for t in terms {
            rules.push_str(&format!("  {} -> {}\n", json!(t.term.trim()), json!(t.translation.trim())));
        }
    }
    if !notes.trim().is_empty() {
        rules.push_str(&format!("- Follow the project's notes: {}\n", notes.trim()));
    }
    rules
}

fn line_json(line: &BatchLine, with_seconds: bool) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), json!(line.id));
    if let Some(speaker) = line.speaker.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        object.insert("speaker".into(), json!(speaker));
    }
    object.insert("text".into(), json!(line.text.trim()));
    if with_seconds {
        object.insert("seconds".into(), json!(tenths(line.seconds)));
    }
    Value::Object(object)
}

/// The messages that ask for a batch's translation: a system message with
/// the rules and the reply's form (`{"lines": [{"id", "text"}, …]}`, one
/// per line, same ids, same order), and a user message with the lines as
/// JSON (`translate`, and the context in `before` and `after`).
pub fn batch_messages(batch: &Batch) -> Vec<Message> {
    let (from, to) = (language_name(&batch.from), language_name(&batch.to));
    let system = format!(
        "You are the translator of a film's dubbing. Translate each numbered line in \"translate\" from {from} into {to}, \
         so that it can be spoken in about the same time as the original, in the slot the line has (\"seconds\": the slot's length).\n\
         Rules:\n\
         {rules}\
         - The lines in \"before\" and \"after\" are context only: do not translate them.\n\
         Reply ONLY with a JSON object {{\"lines\": [{{\"id\": <id>, \"text\": \"<translation>\"}}, ...]}}, one object for each line in \"translate\", \
         with the same ids in the same order, and nothing else: no notes, no explanations.",
        rules = shared_rules(&batch.glossary, &batch.keep, &batch.notes),
    );
    let mut user = Map::new();
    // The task again in the user's message: some servers' chat templates
    // (Gemma's in llama-cpp-python) drop the system message.
    user.insert(
        "task".into(),
        json!(format!("Translate each line in \"translate\" from {from} into {to}; reply only with {{\"lines\": [{{\"id\", \"text\"}}]}}, the text in {to}.")),
    );
    user.insert("from".into(), json!(from));
    user.insert("to".into(), json!(to));
    if !batch.before.is_empty() {
        user.insert("before".into(), Value::Array(batch.before.iter().map(|l| line_json(l, false)).collect()));
    }
    user.insert("translate".into(), Value::Array(batch.lines.iter().map(|l| line_json(l, true)).collect()));
    if !batch.after.is_empty() {
        user.insert("after".into(), Value::Array(batch.after.iter().map(|l| line_json(l, false)).collect()));
    }
    let user = serde_json::to_string_pretty(&Value::Object(user)).expect("JSON of strings and numbers");
    vec![Message::system(system), Message::user(user)]
}

/// The messages that ask for a batch's translation in the beside form, for
/// a translator whose reply to [`batch_messages`] could not be used: each
/// line is given under the source language's name (`{"id": 41, "English":
/// "…"}`) and answered with its source written again, then its translation
/// under the target language's name (`{"id": 41, "English": "…", "Spanish":
/// "…"}`). Small models, a base model without instruction tuning above all,
/// echo the source when asked for a bare `text`; made to write the source
/// first under its language's name, they go on in the other language. The
/// rules are those of [`batch_messages`]; the lines around the batch come
/// as context under the same name. `None` when [`beside_names`] has none.
pub fn batch_messages_beside(batch: &Batch) -> Option<Vec<Message>> {
    let (from, to) = beside_names(batch)?;
    let system = format!(
        "You are the translator of a film's dubbing. Translate each line in \"lines\" from {from} into {to}, \
         so that it can be spoken in about the same time as the original.\n\
         Rules:\n\
         {rules}\
         - The lines in \"before\" and \"after\" are context only: do not translate them.\n\
         Reply ONLY with a JSON object {{\"lines\": [{{\"id\": <id>, \"{from}\": \"<the {from} line as given>\", \"{to}\": \"<its {to} translation>\"}}, ...]}}, \
         one object for each line in \"lines\", with the same ids in the same order, and nothing else.",
        rules = shared_rules(&batch.glossary, &batch.keep, &batch.notes),
    );
    // Written by hand, not through a `Value` (whose keys come out sorted): the
    // order is the point, `id` then the source, the task before the lines.
    let text = |t: &str| serde_json::to_string(t.trim()).expect("a string's JSON");
    let lines = |key: &str, lines: &[BatchLine]| {
        let items: Vec<String> = lines.iter().map(|l| format!("    {{\"id\": {}, {}: {}}}", l.id, text(&from), text(&l.text))).collect();
        format!("  \"{key}\": [\n{}\n  ]", items.join(",\n"))
    };
    // The task in the user's message: some servers' chat templates (Gemma's) drop the system message.
    let mut parts = vec![format!("  \"task\": {}", text(&format!("Translate each line from {from} into {to}.")))];
    if !batch.before.is_empty() {
        parts.push(lines("before", &batch.before));
    }
    parts.push(lines("lines", &batch.lines));
    if !batch.after.is_empty() {
        parts.push(lines("after", &batch.after));
    }
    let user = format!("{{\n{}\n}}", parts.join(",\n"));
    Some(vec![Message::system(system), Message::user(user)])
}

/// The messages that ask for one line's translation said shorter, in about
/// `target_syllables` syllables with the same meaning; the reply's form is
/// `{"text": "…"}`.
pub fn shorten_messages(request: &Shorten) -> Vec<Message> {
    let (from, to) = (language_name(&request.from), language_name(&request.to));
    let (now, slot) = (tenths(request.current_seconds), tenths(request.line.seconds));
    let system = format!(
        "You are the translator of a film's dubbing. A line's {to} translation is too long for its slot: spoken, it takes {now} s, \
         and the slot is {slot} s. Say it shorter, in about {syllables} syllables, keeping its meaning.\n\
         Rules:\n\
         {rules}\
         Reply ONLY with a JSON object {{\"text\": \"<the shorter translation>\"}}, and nothing else.",
        syllables = request.target_syllables,
        rules = shared_rules(&request.glossary, &request.keep, &request.notes),
    );
    let mut user = Map::new();
    user.insert(
        "task".into(),
        json!(format!("Say the {to} translation shorter, in about {} syllables, keeping its meaning; reply only with {{\"text\"}}.", request.target_syllables)),
    );
    if let Some(speaker) = request.line.speaker.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        user.insert("speaker".into(), json!(speaker));
    }
    user.insert("original".into(), json!(request.line.text.trim()));
    user.insert("original_language".into(), json!(from));
    user.insert("translation".into(), json!(request.current.trim()));
    user.insert("translation_seconds".into(), json!(now));
    user.insert("slot_seconds".into(), json!(slot));
    user.insert("target_syllables".into(), json!(request.target_syllables));
    let user = serde_json::to_string_pretty(&Value::Object(user)).expect("JSON of strings and numbers");
    vec![Message::system(system), Message::user(user)]
}

/// The shape of a batch's reply as a JSON schema: `{"lines": [{"id",
/// "text"}]}` with exactly the batch's lines, each id one of the batch's.
/// (An object at the top, as strict schemas want; the reply is read
/// whether or not the server held the model to it.)
pub fn batch_schema(batch: &Batch) -> Value {
    let ids: Vec<i64> = batch.lines.iter().map(|l| l.id).collect();
    let item = json!({
        "type": "object",
        "properties": {"id": {"type": "integer", "enum": ids}, "text": {"type": "string", "minLength": 1}},
        "required": ["id", "text"],
        "additionalProperties": false
    });
    lines_schema(ids.len(), item)
}

/// `{"lines": [item, …]}` with exactly `count` items, as a JSON schema.
fn lines_schema(count: usize, item: Value) -> Value {
    json!({
        "type": "object",
        "properties": {"lines": {"type": "array", "minItems": count, "maxItems": count, "items": item}},
        "required": ["lines"],
        "additionalProperties": false
    })
}

/// The shape of a beside-form reply ([`batch_messages_beside`]) as a JSON
/// schema: `{"lines": [{"id", "<source language>", "<target language>"}]}`
/// with exactly the batch's lines, the keys required in that order (a
/// grammar-held model writes them so: the source first, then the
/// translation). `None` when [`beside_names`] has none.
pub fn batch_schema_beside(batch: &Batch) -> Option<Value> {
    let (from, to) = beside_names(batch)?;
    let ids: Vec<i64> = batch.lines.iter().map(|l| l.id).collect();
    let mut properties = Map::new();
    properties.insert("id".into(), json!({"type": "integer", "enum": ids}));
    properties.insert(from.clone(), json!({"type": "string", "minLength": 1}));
    properties.insert(to.clone(), json!({"type": "string", "minLength": 1}));
    let item = json!({"type": "object", "properties": properties, "required": ["id", from, to], "additionalProperties": false});
    Some(lines_schema(ids.len(), item))
}

/// The shape of a shortened line's reply: `{"text": "…"}`.
pub fn shorten_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"text": {"type": "string", "minLength": 1}},
        "required": ["text"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: i64, speaker: Option<&str>, text: &str, seconds: f64) -> BatchLine {
        BatchLine { id, speaker: speaker.map(str::to_string), text: text.into(), seconds }
    }

    fn batch() -> Batch {
        Batch {
            from: "en-US".into(),
            to: "es".into(),
            lines: vec![line(7, Some("Ana"), "Where is Marco?", 1.84), line(8, None, "At the Lighthouse.", 1.2)],
            before: vec![line(6, Some("Bo"), "Hello.", 0.8)],
            after: vec![line(9, Some("Ana"), "Let's go.", 0.9)],
            glossary: vec![GlossaryTerm { term: "Lighthouse".into(), translation: "el Faro".into() }],
            keep: vec!["Marco".into()],
            notes: "A children's cartoon: keep it gentle.".into(),
        }
    }

    #[test]
    fn languages_are_named_in_english() {
        assert_eq!(language_name("es"), "Spanish");
        assert_eq!(language_name("en-US"), "English (en-US)");
        assert_eq!(language_name("pt-BR"), "Portuguese (pt-BR)");
        assert_eq!(language_name("ja"), "Japanese");
        assert_eq!(language_name("tlh"), "tlh");
    }

    #[test]
    fn a_batch_prompt_carries_the_rules_and_the_lines_as_json() {
        let messages = batch_messages(&batch());
        assert_eq!(messages.len(), 2);
        assert_eq!((messages[0].role.as_str(), messages[1].role.as_str()), ("system", "user"));
        let system = &messages[0].content;
        for needle in [
            "dubbing",
            "from English (en-US) into Spanish",
            "same time",
            "register",
            "\"Marco\"",
            "\"Lighthouse\" -> \"el Faro\"",
            "children's cartoon",
            "context only",
            "ONLY with a JSON object {\"lines\"",
            "same order",
        ] {
            assert!(system.contains(needle), "{needle:?} missing from:\n{system}");
        }
        let user: Value = serde_json::from_str(&messages[1].content).unwrap();
        assert_eq!(
            user["translate"],
            json!([{"id": 7, "speaker": "Ana", "text": "Where is Marco?", "seconds": 1.8}, {"id": 8, "text": "At the Lighthouse.", "seconds": 1.2}])
        );
        assert_eq!(user["before"], json!([{"id": 6, "speaker": "Bo", "text": "Hello."}]));
        assert_eq!(user["after"][0]["id"], 9);
    }

    #[test]
    fn a_bare_batch_leaves_out_what_it_lacks() {
        let bare = Batch { before: vec![], after: vec![], glossary: vec![], keep: vec![], notes: String::new(), ..batch() };
        let messages = batch_messages(&bare);
        assert!(!messages[0].content.contains("names exactly"));
        assert!(!messages[0].content.contains("terms"));
        assert!(!messages[0].content.contains("project's notes"));
        let user: Value = serde_json::from_str(&messages[1].content).unwrap();
        assert!(user.get("before").is_none() && user.get("after").is_none());
    }

    #[test]
    fn the_beside_form_names_its_keys_by_plain_language_names() {
        assert_eq!(plain_language_name("pt-BR"), "Portuguese");
        assert_eq!(plain_language_name("tlh"), "tlh");
        assert_eq!(beside_names(&batch()), Some(("English".to_string(), "Spanish".to_string())));
        assert_eq!(beside_names(&Batch { to: "en-GB".into(), ..batch() }), None, "one name for both");
        assert_eq!(beside_names(&Batch { from: "tlh".into(), to: "TLH".into(), ..batch() }), None);
        assert!(batch_messages_beside(&Batch { to: "en".into(), ..batch() }).is_none() && batch_schema_beside(&Batch { to: "en".into(), ..batch() }).is_none());
    }

    #[test]
    fn a_beside_prompt_gives_each_line_under_its_language_with_the_rules_and_context() {
        let messages = batch_messages_beside(&batch()).unwrap();
        let system = &messages[0].content;
        for needle in [
            "dubbing",
            "from English into Spanish",
            "\"Marco\"",
            "\"Lighthouse\" -> \"el Faro\"",
            "children's cartoon",
            "context only",
            "\"English\": \"<the English line as given>\", \"Spanish\"",
        ] {
            assert!(system.contains(needle), "{needle:?} missing from:\n{system}");
        }
        let user = &messages[1].content;
        let parsed: Value = serde_json::from_str(user).unwrap();
        assert_eq!(parsed["task"], "Translate each line from English into Spanish.");
        assert_eq!(parsed["lines"], json!([{"id": 7, "English": "Where is Marco?"}, {"id": 8, "English": "At the Lighthouse."}]));
        assert_eq!(parsed["before"], json!([{"id": 6, "English": "Hello."}]));
        assert_eq!(parsed["after"], json!([{"id": 9, "English": "Let's go."}]));
        // In the order a model reads them: the task first, each line's id before its text.
        let at = |needle: &str| user.find(needle).unwrap_or_else(|| panic!("{needle:?} missing from:\n{user}"));
        assert!(at("\"task\"") < at("\"before\"") && at("\"before\"") < at("\"lines\"") && at("\"lines\"") < at("\"after\""), "{user}");
        assert!(user.contains("{\"id\": 7, \"English\": \"Where is Marco?\"}"), "{user}");
    }

    #[test]
    fn the_beside_schema_asks_the_source_then_the_translation() {
        let schema = batch_schema_beside(&batch()).unwrap();
        let items = &schema["properties"]["lines"]["items"];
        assert_eq!(items["required"], json!(["id", "English", "Spanish"]));
        assert_eq!(items["properties"]["id"]["enum"], json!([7, 8]));
        assert_eq!(items["properties"]["Spanish"]["type"], "string");
        assert_eq!(schema["properties"]["lines"]["maxItems"], 2);
    }

    #[test]
    fn a_shorten_prompt_gives_the_times_and_the_target() {
        let request = Shorten {
            from: "en".into(),
            to: "fr".into(),
            line: line(3, Some("Ana"), "We have to leave right now.", 1.5),
            current: "Nous devons partir immédiatement, tout de suite.".into(),
            current_seconds: 2.43,
            target_syllables: 8,
            glossary: vec![],
            keep: vec!["Ana".into()],
            notes: String::new(),
        };
        let messages = shorten_messages(&request);
        let system = &messages[0].content;
        for needle in ["French translation", "takes 2.4 s", "slot is 1.5 s", "about 8 syllables", "meaning", "\"Ana\"", "{\"text\""] {
            assert!(system.contains(needle), "{needle:?} missing from:\n{system}");
        }
        let user: Value = serde_json::from_str(&messages[1].content).unwrap();
        assert_eq!(user["original"], "We have to leave right now.");
        assert_eq!(user["translation"], "Nous devons partir immédiatement, tout de suite.");
        assert_eq!(user["target_syllables"], 8);
    }
}
