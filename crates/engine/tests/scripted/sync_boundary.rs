//! The sync/async boundary: an engine operation that blocks (predicting
//! lengths, rendering) works when a face calls it from an async task, as
//! the API and the app's commands do, instead of panicking there.

use std::sync::atomic::AtomicBool;

use revoice_engine::dub::pipeline::RenderScope;

use crate::Scene;

#[test]
fn a_blocking_engine_operation_called_inside_an_async_task_does_its_work() {
    let scene = Scene::new();
    let engine = scene.engine.clone();
    let project = scene.project;
    let fits = scene.run(async move { tokio::spawn(async move { engine.project_fits(project) }).await.expect("the task did not panic") }).unwrap();
    assert_eq!(fits.len(), 1);
    assert_eq!(fits[0].lines.len(), 3, "every line of the scene was predicted");
    let engine = scene.engine.clone();
    let summary = scene.run(async move {
        tokio::spawn(async move { engine.render_project(project, &RenderScope::default(), &AtomicBool::new(false), &mut |_| {}) })
            .await
            .expect("the task did not panic")
    });
    assert_eq!(summary.unwrap().rendered, 3);
}
