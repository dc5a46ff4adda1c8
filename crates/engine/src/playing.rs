//! What playback reads from the engine (`dub::player::PlaybackSource`):
//! the store, the segment store, the output device, a track's lines and
//! renders, so the one playback operation serves the app's session and the
//! CLI alike without the dub module naming the engine.

use std::sync::atomic::AtomicBool;

use crate::dub::lines::TrackLines;
use crate::dub::pipeline::{RenderProgress, RenderScope, RenderSummary};
use crate::dub::player::PlaybackSource;
use crate::Engine;
use revoice_core::blocking::wait;
use revoice_core::error::Result;

/// The engine as playback reads and renders through it, for every face.
impl PlaybackSource for Engine {
    fn runtime(&self) -> &tokio::runtime::Handle {
        Engine::runtime(self)
    }

    fn store(&self) -> &revoice_store::Store {
        Engine::store(self)
    }

    fn segments(&self) -> &crate::dub::segment_store::SegmentStore {
        Engine::segments(self)
    }

    fn output_device(&self) -> String {
        self.config().settings.audio.output_device.clone()
    }

    fn read_track(&self, track_id: i64) -> Result<TrackLines> {
        wait(Engine::runtime(self), self.track_lines(track_id))
    }

    fn render(&self, project_id: i64, scope: &RenderScope, cancel: &AtomicBool, progress: &mut dyn FnMut(&RenderProgress)) -> Result<RenderSummary> {
        self.render_project(project_id, scope, cancel, progress)
    }
}
