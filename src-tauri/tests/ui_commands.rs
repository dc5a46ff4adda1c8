//! The editor's command wrappers are generated from the shell's Tauri
//! commands, so a command's name, arguments and answer cannot drift from
//! what the window calls: `ui/src/engine-commands.ts` must be exactly what
//! the `#[tauri::command]` functions of `src-tauri/src/*.rs` generate. This
//! test fails when it is stale; to regenerate it, run
//! `REVOICE_WRITE_UI_COMMANDS=1 cargo test -p revoice-studio --test ui_commands`.
//!
//! It reads the sources (syn), not the compiled commands:
//! - every `#[tauri::command]` function must be registered in lib.rs's
//!   `tauri::generate_handler![...]`, and every one registered must be found;
//! - one TypeScript function per command, in camelCase, takes the
//!   command's arguments in order with camelCase names (Tauri's default
//!   key conversion; `rename_all = "snake_case"` keeps them) and leaves out
//!   what Tauri injects (`State`, `AppHandle`, `Window`, `WebviewWindow`,
//!   `Webview`); it answers `Promise<T>` for `Answer<T>`, `Result<T, _>`
//!   or `T`, and carries the command's doc comment as JSDoc;
//! - Rust types map to TypeScript: numbers, `bool`, strings and paths,
//!   `Option<T>` as `T | null`, `Vec<T>` as `T[]`, tuples as `[A, B]`,
//!   maps keyed by strings as `Record<string, V>`, `()` as `void`;
//! - any other type is named as ts-rs names it in `ui/src/engine-types.ts`:
//!   the test reads every `#[derive(TS)]` struct and enum under `crates/*/src`
//!   and takes its `#[ts(rename = "...")]` (or container `#[serde(rename)]`,
//!   which ts-rs follows) or else its Rust name (`ProjectView` is `Project`,
//!   `LineEdit` is `SegmentEdit`). Reading the attributes keeps no second
//!   list of types here; a Rust name that two types derive under different
//!   TypeScript names fails, as does a name engine-types.ts does not export
//!   (add the type to `crates/engine/tests/ui_types.rs`).
//!
//! The generated functions call `invoke` from `ui/src/invoke.ts`, which turns
//! every refusal into an EngineError.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Attribute, Expr, FnArg, GenericArgument, Item, Lit, Meta, PathArguments, ReturnType, Token, Type};

const SHELL: &str = env!("CARGO_MANIFEST_DIR");
const WRITE_VAR: &str = "REVOICE_WRITE_UI_COMMANDS";
const HOW: &str = "REVOICE_WRITE_UI_COMMANDS=1 cargo test -p revoice-studio --test ui_commands";

/// Arguments Tauri fills in itself; the window never passes them.
const INJECTED: &[&str] = &["State", "AppHandle", "Window", "WebviewWindow", "Webview"];

fn workspace() -> PathBuf {
    Path::new(SHELL).parent().expect("src-tauri sits in the workspace").to_path_buf()
}

fn parse_file(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()))
}

/// The `.rs` files of a folder, sorted (recursively when `deep`).
fn rust_files(dir: &Path, deep: bool) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() && deep {
            found.extend(rust_files(&path, true));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// One `#[tauri::command]` function as the window calls it.
struct Command {
    /// `dub_commands::play` (the path generate_handler names it by; the
    /// bare name for lib.rs).
    path: String,
    name: String,
    docs: Vec<String>,
    /// The arguments the window passes: their key and Rust type.
    args: Vec<(String, Type)>,
    /// The Rust return type (`None`: `()`).
    answer: Option<Type>,
}

/// The text of `#[doc]` attributes, a line each.
fn docs(attrs: &[Attribute]) -> Vec<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta {
            if let (true, Expr::Lit(lit)) = (nv.path.is_ident("doc"), &nv.value) {
                if let Lit::Str(s) = &lit.lit {
                    let text = s.value();
                    lines.extend(text.lines().map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_string()));
                }
            }
        }
    }
    lines
}

/// `#[tauri::command]` (or `#[command]`): whether the arguments keep their
/// snake_case names (`rename_all = "snake_case"`), else `None` when the
/// attribute is not there.
fn command_attr(attrs: &[Attribute]) -> Result<Option<bool>, String> {
    let Some(attr) = attrs.iter().find(|a| {
        let segments: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
        segments == ["tauri", "command"] || segments == ["command"]
    }) else {
        return Ok(None);
    };
    let mut snake = false;
    if let Meta::List(_) = attr.meta {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                let case: syn::LitStr = meta.value()?.parse()?;
                snake = match case.value().as_str() {
                    "snake_case" => true,
                    "camelCase" => false,
                    other => return Err(meta.error(format!("rename_all = {other:?} is not one the generator knows"))),
                };
            } else if !meta.path.is_ident("async") {
                return Err(meta.error("an option the generator does not know"));
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    }
    Ok(Some(snake))
}

fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Reference(r) => last_ident(&r.elem),
        _ => None,
    }
}

/// The `#[tauri::command]` functions of one file (`module` is its name; empty for lib.rs).
fn commands_in(file: &syn::File, module: &str, problems: &mut Vec<String>) -> Vec<Command> {
    let mut found = Vec::new();
    for item in &file.items {
        let Item::Fn(f) = item else { continue };
        let name = f.sig.ident.to_string();
        let path = if module.is_empty() { name.clone() } else { format!("{module}::{name}") };
        let snake = match command_attr(&f.attrs) {
            Ok(None) => continue,
            Ok(Some(snake)) => snake,
            Err(e) => {
                problems.push(format!("command {path}: its #[tauri::command]: {e}"));
                continue;
            }
        };
        let mut args = Vec::new();
        for input in &f.sig.inputs {
            let FnArg::Typed(arg) = input else {
                problems.push(format!("command {path} takes self"));
                continue;
            };
            if last_ident(&arg.ty).is_some_and(|t| INJECTED.contains(&t.as_str())) {
                continue;
            }
            let syn::Pat::Ident(id) = &*arg.pat else {
                problems.push(format!("command {path}: an argument is a pattern, not a name"));
                continue;
            };
            let rust = id.ident.to_string();
            args.push((if snake { rust } else { camel(&rust) }, (*arg.ty).clone()));
        }
        let answer = match &f.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };
        found.push(Command { path, name, docs: docs(&f.attrs), args, answer });
    }
    found
}

/// The paths `tauri::generate_handler![...]` registers, in order.
fn registered(lib: &syn::File) -> Vec<String> {
    struct Handler(Option<Vec<String>>);
    impl<'ast> Visit<'ast> for Handler {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if mac.path.segments.last().is_some_and(|s| s.ident == "generate_handler") {
                let paths = mac.parse_body_with(Punctuated::<syn::Path, Token![,]>::parse_terminated).expect("generate_handler! lists paths");
                let names =
                    paths.iter().map(|p| p.segments.iter().map(|s| s.ident.to_string()).filter(|s| s != "crate" && s != "self").collect::<Vec<_>>().join("::"));
                self.0 = Some(names.collect());
            }
            syn::visit::visit_macro(self, mac);
        }
    }
    let mut handler = Handler(None);
    handler.visit_file(lib);
    handler.0.expect("lib.rs calls tauri::generate_handler![...]")
}

/// snake_case to camelCase, as Tauri converts argument keys.
fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.trim_start_matches("r#").chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Every `#[derive(TS)]` struct and enum under crates/*/src: its Rust name
/// and the TypeScript name ts-rs gives it.
fn ts_names() -> BTreeMap<String, BTreeSet<String>> {
    struct Names(BTreeMap<String, BTreeSet<String>>);
    impl Names {
        fn item(&mut self, ident: &syn::Ident, attrs: &[Attribute]) {
            let derives_ts = attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| {
                let paths = a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated).unwrap_or_default();
                paths.iter().any(|p| p.segments.last().is_some_and(|s| s.ident == "TS"))
            });
            if !derives_ts {
                return;
            }
            let rename = |tool: &str| {
                attrs.iter().filter(|a| a.path().is_ident(tool)).find_map(|a| {
                    let metas = a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated).ok()?;
                    metas.iter().find_map(|m| match m {
                        Meta::NameValue(nv) if nv.path.is_ident("rename") => match &nv.value {
                            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    })
                })
            };
            let name = rename("ts").or_else(|| rename("serde")).unwrap_or_else(|| ident.to_string());
            self.0.entry(ident.to_string()).or_default().insert(name);
        }
    }
    impl<'ast> Visit<'ast> for Names {
        fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
            self.item(&i.ident, &i.attrs);
        }
        fn visit_item_enum(&mut self, i: &'ast syn::ItemEnum) {
            self.item(&i.ident, &i.attrs);
        }
    }
    let mut names = Names(BTreeMap::new());
    for krate in std::fs::read_dir(workspace().join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        for file in rust_files(&src, true) {
            if std::fs::read_to_string(&file).is_ok_and(|t| t.contains("TS")) {
                names.visit_file(&parse_file(&file));
            }
        }
    }
    names.0
}

/// The type names ui/src/engine-types.ts exports.
fn exported_types() -> BTreeSet<String> {
    let text = std::fs::read_to_string(workspace().join("ui/src/engine-types.ts")).expect("ui/src/engine-types.ts");
    text.lines()
        .filter_map(|l| l.strip_prefix("export type ").or_else(|| l.strip_prefix("export interface ")))
        .map(|l| l.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect()
}

/// Maps Rust types to TypeScript, collecting the engine types it names.
struct Types<'a> {
    ts_names: &'a BTreeMap<String, BTreeSet<String>>,
    exported: &'a BTreeSet<String>,
    used: BTreeSet<String>,
}

impl Types<'_> {
    fn ts(&mut self, ty: &Type) -> Result<String, String> {
        match ty {
            Type::Reference(r) => self.ts(&r.elem),
            Type::Paren(p) => self.ts(&p.elem),
            Type::Group(g) => self.ts(&g.elem),
            Type::Tuple(t) if t.elems.is_empty() => Ok("void".into()),
            Type::Tuple(t) => Ok(format!("[{}]", t.elems.iter().map(|e| self.ts(e)).collect::<Result<Vec<_>, _>>()?.join(", "))),
            Type::Slice(s) => Ok(array(self.ts(&s.elem)?)),
            Type::Array(a) => Ok(array(self.ts(&a.elem)?)),
            Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last().ok_or("an empty path")?;
                let name = last.ident.to_string();
                let params: Vec<&Type> = match &last.arguments {
                    PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .filter_map(|g| match g {
                            GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let one = |types: &mut Self| match params.as_slice() {
                    [t] => types.ts(t),
                    _ => Err(format!("{name} with other than one type parameter")),
                };
                Ok(match name.as_str() {
                    "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "f32" | "f64" => "number".into(),
                    "bool" => "boolean".into(),
                    "String" | "str" | "char" | "PathBuf" | "Path" => "string".into(),
                    "Option" => format!("{} | null", one(self)?),
                    "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => array(one(self)?),
                    "Box" | "Arc" | "Rc" => one(self)?,
                    "HashMap" | "BTreeMap" => match params.as_slice() {
                        [k, v] if self.ts(k)? == "string" => format!("Record<string, {}>", self.ts(v)?),
                        _ => return Err(format!("{name} not keyed by strings")),
                    },
                    "Channel" => return Err("a tauri Channel (the generator does not pass one yet)".into()),
                    _ if !params.is_empty() => return Err(format!("the generic type {name}")),
                    _ => self.engine_type(&name)?,
                })
            }
            _ => Err("a type the generator cannot read".into()),
        }
    }

    /// A type from engine-types.ts, by the name ts-rs gives it.
    fn engine_type(&mut self, rust: &str) -> Result<String, String> {
        let names = self.ts_names.get(rust).ok_or_else(|| {
            format!("{rust}, which is no #[derive(TS)] type under crates/*/src (derive ts_rs::TS on it and add it to crates/engine/tests/ui_types.rs)")
        })?;
        let (Some(name), 1) = (names.first(), names.len()) else {
            return Err(format!("{rust}, which types under crates/*/src derive under several TypeScript names ({names:?})"));
        };
        if !self.exported.contains(name) {
            return Err(format!(
                "{rust} (TypeScript {name}), which ui/src/engine-types.ts does not export: add it to crates/engine/tests/ui_types.rs and regenerate that file"
            ));
        }
        self.used.insert(name.clone());
        Ok(name.clone())
    }

    /// The value the window receives for a Rust return type.
    fn answer(&mut self, ty: Option<&Type>) -> Result<String, String> {
        let Some(ty) = ty else { return Ok("void".into()) };
        if let Type::Path(p) = ty {
            let last = p.path.segments.last().ok_or("an empty path")?;
            if last.ident == "Answer" || last.ident == "Result" {
                if let PathArguments::AngleBracketed(a) = &last.arguments {
                    if let Some(GenericArgument::Type(t)) = a.args.first() {
                        return self.ts(t);
                    }
                }
            }
        }
        self.ts(ty)
    }
}

/// `T[]`, with parentheses around an `Option`'s union.
fn array(element: String) -> String {
    if element.ends_with(" | null") {
        format!("({element})[]")
    } else {
        format!("{element}[]")
    }
}

fn jsdoc(lines: &[String]) -> String {
    let lines: Vec<String> = lines.iter().map(|l| l.replace("*/", "*\\/")).collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => format!("/** {one} */\n"),
        many => format!("/**\n{} */\n", many.iter().map(|l| if l.is_empty() { " *\n".to_string() } else { format!(" * {l}\n") }).collect::<String>()),
    }
}

/// The generated file, or every problem found on the way.
fn generated() -> Result<String, Vec<String>> {
    let src = Path::new(SHELL).join("src");
    let mut problems = Vec::new();
    let mut commands = Vec::new();
    for file in rust_files(&src, false) {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let module = if stem == "lib" || stem == "main" { String::new() } else { stem };
        commands.extend(commands_in(&parse_file(&file), &module, &mut problems));
    }
    let registered = registered(&parse_file(&src.join("lib.rs")));

    let found: BTreeSet<&str> = commands.iter().map(|c| c.path.as_str()).collect();
    let listed: BTreeSet<&str> = registered.iter().map(String::as_str).collect();
    for path in found.difference(&listed) {
        problems.push(format!("command {path} is a #[tauri::command] but generate_handler! in src-tauri/src/lib.rs does not register it"));
    }
    for path in listed.difference(&found) {
        problems.push(format!("command {path} is registered in generate_handler! but no #[tauri::command] fn {path} is in src-tauri/src/*.rs"));
    }
    let mut names = BTreeSet::new();
    for c in &commands {
        if !names.insert(&c.name) {
            problems.push(format!("command {} has the name of another command", c.path));
        }
    }

    let ts_names = ts_names();
    let exported = exported_types();
    let mut types = Types { ts_names: &ts_names, exported: &exported, used: BTreeSet::new() };
    let mut body = String::new();
    let mut file_of = String::new();
    // By file (sorted), then in each file's order.
    for c in &commands {
        let mut params = Vec::new();
        let mut keys = Vec::new();
        for (key, ty) in &c.args {
            match types.ts(ty) {
                Ok(ts) => params.push(format!("{key}: {ts}")),
                Err(e) => problems.push(format!("command {}: argument {key} is {e}", c.path)),
            }
            keys.push(key.clone());
        }
        let answer = types.answer(c.answer.as_ref()).unwrap_or_else(|e| {
            problems.push(format!("command {} answers {e}", c.path));
            String::new()
        });
        let module = c.path.rsplit_once("::").map_or("lib", |(m, _)| m);
        if module != file_of {
            let _ = write!(body, "\n// ---- src-tauri/src/{module}.rs ----\n");
            file_of = module.to_string();
        }
        let args = if keys.is_empty() { String::new() } else { format!(", {{ {} }}", keys.join(", ")) };
        let _ = write!(
            body,
            "\n{}export function {}({}): Promise<{answer}> {{\n  return invoke<{answer}>(\"{}\"{args});\n}}\n",
            jsdoc(&c.docs),
            camel(&c.name),
            params.join(", "),
            c.name,
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut out = String::from(
        "// Generated from the shell's Tauri commands (`#[tauri::command]` in src-tauri/src/*.rs,\n\
         // registered in lib.rs) by src-tauri/tests/ui_commands.rs: one function per command.\n\
         // Do not edit: change the Rust command, then run\n",
    );
    let _ = writeln!(out, "// `{HOW}`.");
    out.push_str("import { invoke } from \"./invoke\";\n");
    if !types.used.is_empty() {
        let used: Vec<&str> = types.used.iter().map(String::as_str).collect();
        let _ = writeln!(out, "import type {{ {} }} from \"./engine-types\";", used.join(", "));
    }
    out.push_str(&body);
    Ok(out)
}

#[test]
fn the_uis_engine_commands_are_the_ones_the_tauri_commands_generate() {
    let want = match generated() {
        Ok(text) => text,
        Err(problems) => panic!("ui/src/engine-commands.ts cannot be generated:\n- {}", problems.join("\n- ")),
    };
    let file = workspace().join("ui/src/engine-commands.ts");
    if std::env::var_os(WRITE_VAR).is_some() {
        std::fs::write(&file, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&file).unwrap_or_default();
    if have != want {
        let first = have.lines().zip(want.lines()).position(|(h, w)| h != w).unwrap_or_else(|| have.lines().count().min(want.lines().count()));
        panic!(
            "ui/src/engine-commands.ts is stale (or missing): run `{HOW}`, then fix what `npx tsc --noEmit -p ui` reports.\n\
             First difference, line {}:\n  file:      {}\n  generated: {}",
            first + 1,
            have.lines().nth(first).unwrap_or("(end of file)"),
            want.lines().nth(first).unwrap_or("(end of file)"),
        );
    }
}
