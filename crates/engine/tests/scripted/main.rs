//! The engine's logic on the scripted model, in seconds and without the
//! real one: what a render takes and in what order (`render_scope`), how a
//! track is assembled (`assembly`), what the editor's view says about each
//! line (`view`), the editor's session (`session`), and the project
//! editing rules every face shares (`editing`), and the timeline's own
//! edits: lanes, markers, find and replace (`timeline`). The same engine code runs
//! over Kokoro in `tests/` at the repository root.

mod assembly;
mod editing;
mod render_scope;
mod session;
mod sync_boundary;
mod timeline;
mod translating;
mod view;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use revoice_engine::dub::pipeline::{RenderProgress, RenderScope, RenderSummary};
use revoice_engine::subtitles::parse_srt;
use revoice_engine::testing::{scripted_engine, ScriptedModel};
use revoice_engine::Engine;

/// Three lines, two speakers, natural timing: the scene every test starts from.
pub const SCENE: &str = "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Light the lamp.\n\n3\n00:00:05,500 --> 00:00:07,500\n[Ana] It is lit.\n";

/// An engine over the scripted model with the scene imported; its
/// runtime, the model, the project and track ids, and the folder guard.
pub struct Scene {
    pub runtime: tokio::runtime::Runtime,
    pub model: Arc<ScriptedModel>,
    pub engine: Arc<Engine>,
    pub project: i64,
    pub track: i64,
    _dir: tempfile::TempDir,
}

impl Default for Scene {
    fn default() -> Scene {
        Scene::with_model(ScriptedModel::new())
    }
}

impl Scene {
    pub fn new() -> Scene {
        Scene::default()
    }

    pub fn with_model(model: ScriptedModel) -> Scene {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let model = Arc::new(model);
        let (engine, dir) = runtime.block_on(scripted_engine(model.clone())).unwrap();
        let engine = Arc::new(engine);
        let (project, track) = runtime.block_on(engine.create_project("Harbour", "en-US")).unwrap();
        runtime.block_on(engine.store().import_cues(&track, &parse_srt(SCENE, "scene.srt").unwrap())).unwrap();
        runtime.block_on(engine.store().set_initial_timing_strategy(project.id, "natural")).unwrap();
        Scene { runtime, model, engine, project: project.id, track: track.id, _dir: dir }
    }

    /// Runs an engine future to its end.
    pub fn run<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    /// The track's line ids in time order.
    pub fn lines(&self) -> Vec<i64> {
        self.run(self.engine.store().segments(self.track)).unwrap().iter().map(|s| s.id).collect()
    }

    /// Renders what `scope` takes; the summary and every progress report.
    pub fn render_scope(&self, scope: &RenderScope) -> (RenderSummary, Vec<RenderProgress>) {
        let mut reports = Vec::new();
        let summary = self.engine.render_project(self.project, scope, &AtomicBool::new(false), &mut |p| reports.push(p.clone())).unwrap();
        (summary, reports)
    }

    /// Renders everything stale.
    pub fn render(&self) -> RenderSummary {
        self.render_scope(&RenderScope::default()).0
    }

    /// Changes a line's text (one undoable edit).
    pub fn retype(&self, line: i64, text: &str) {
        let edit = revoice_engine::LineEdit { text: Some(text.into()), ..Default::default() };
        self.run(self.engine.edit_line(line, edit)).unwrap();
    }
}
