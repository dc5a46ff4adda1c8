//! Rendering and exporting projects, for every face: one render of a
//! project at a time in this process, over the one speech stack and
//! segment store, and the segment store cleaned after it (files no take
//! names removed, its byte budget kept); a single line streamed as it
//! renders; and exports of a project's tracks. All blocking: call them off
//! the async workers.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use crate::dub::export::{ExportFormat, ExportInputs, ExportSelection, ProjectExport};
use crate::dub::pipeline::{ProjectRenderer, RenderProgress, RenderScope, RenderSummary};
use crate::Engine;
use revoice_core::blocking::wait;
use revoice_core::error::{Error, Result};
use revoice_speech::SpeechStack;

/// An export as a person asks for it.
#[derive(Debug, Clone)]
pub struct ExportRequest {
    pub folder: PathBuf,
    pub format: ExportFormat,
    /// The loudness it is delivered at (a preset, or a target of one's own).
    pub loudness: crate::dub::export::LoudnessSpec,
    /// The files written, and the audio's sample rate and bit depth
    /// (`selection.audio`: 48 kHz, 24-bit by default).
    pub selection: ExportSelection,
}

/// Takes a project off the rendering list when the render ends, however it ends.
struct Rendering<'a> {
    engine: &'a Engine,
    project_id: i64,
}

impl Drop for Rendering<'_> {
    fn drop(&mut self) {
        self.engine.rendering.lock().unwrap_or_else(|p| p.into_inner()).retain(|&p| p != self.project_id);
    }
}

impl Engine {
    /// Whether this process is rendering `project_id` now.
    pub fn is_rendering(&self, project_id: i64) -> bool {
        self.rendering.lock().unwrap_or_else(|p| p.into_inner()).contains(&project_id)
    }

    /// The project renderer over the speech stack (for playback's feeder).
    pub fn project_renderer<'a>(&'a self, speech: &'a SpeechStack) -> ProjectRenderer<'a> {
        ProjectRenderer {
            runtime: self.runtime(),
            store: self.store(),
            speech,
            segments: self.segments(),
            voices: self.voice_artifacts(),
            remote: self.remote(),
            limits: self.fit_limits(),
        }
    }

    /// Renders what is stale in `project_id` that `scope` takes (loading
    /// the model first if needed), reporting progress; then removes files
    /// no take names and keeps the segment store within its budget.
    /// Refused while the project is already rendering.
    pub fn render_project(
        &self,
        project_id: i64,
        scope: &RenderScope,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(&RenderProgress),
    ) -> Result<RenderSummary> {
        let _rendering = self.start_rendering(project_id)?;
        let speech = self.speech()?;
        let summary = self.project_renderer(&speech).render_scope(project_id, scope, cancel, progress)?;
        self.clean_segments()?;
        Ok(summary)
    }

    fn start_rendering(&self, project_id: i64) -> Result<Rendering<'_>> {
        let mut rendering = self.rendering.lock().unwrap_or_else(|p| p.into_inner());
        if rendering.contains(&project_id) {
            return Err(Error::conflict(format!("render of project {project_id}"), "it is rendering already; cancel it or wait"));
        }
        rendering.push(project_id);
        Ok(Rendering { engine: self, project_id })
    }

    /// Removes rendered files no take names and keeps the store in budget.
    pub fn clean_segments(&self) -> Result<()> {
        let kept: std::collections::HashSet<String> = wait(self.runtime(), self.store().take_keys())?.into_iter().collect();
        self.segments().collect_garbage(&kept)?;
        self.segments().enforce_budget()?;
        Ok(())
    }

    /// Streams one line to `play` as it renders (or from the store when it
    /// is current), keeping it as its take; the line's samples.
    pub fn stream_line(&self, segment_id: i64, cancel: &AtomicBool, play: &mut dyn FnMut(&[f32]) -> Result<()>) -> Result<Vec<f32>> {
        let speech = self.speech()?;
        self.project_renderer(&speech).stream_segment(segment_id, cancel, play)
    }

    /// Exports the project's chosen tracks into `request.folder` (created
    /// if missing): mixes, stems and subtitles, handoff files and the
    /// muxed picture as asked, all or nothing.
    pub fn export_project(&self, project_id: i64, request: &ExportRequest, progress: &mut dyn FnMut(f32)) -> Result<ProjectExport> {
        let tracks = wait(self.runtime(), self.project_lines(project_id))?;
        let chosen: Vec<_> = tracks
            .iter()
            .filter(|t| request.selection.languages.as_ref().is_none_or(|l| l.iter().any(|l| l.eq_ignore_ascii_case(&t.track.language))))
            .cloned()
            .collect();
        let mut flagged = wait(self.runtime(), self.flagged_lines(&chosen))?;
        // Lines of a lane that does not sound are not exported, so not refused.
        let unheard: std::collections::HashSet<i64> =
            chosen.iter().flat_map(|t| t.lines.iter().filter(|l| !t.lanes.audible(l.segment.fields.speaker_id)).map(|l| l.segment.id)).collect();
        flagged.retain(|l| !unheard.contains(&l.segment_id));
        if request.selection.refuse_flagged && !flagged.is_empty() {
            let listed: Vec<String> = flagged
                .iter()
                .take(5)
                .map(|l| {
                    format!(
                        "line {} ({}, segment {}): {}",
                        l.number,
                        l.language,
                        l.segment_id,
                        l.flags.iter().map(|f| f.describe()).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            let more = if flagged.len() > 5 { format!("; and {} more", flagged.len() - 5) } else { String::new() };
            return Err(Error::invalid(
                format!("export of project {project_id}"),
                format!("{} lines are flagged: {}{more}; fix them, or export without refusing flagged lines", flagged.len(), listed.join("; ")),
            ));
        }
        let settings = request.loudness.mix_settings();
        // The EDL counts frames of the picture when there is one.
        // (Read only when the export needs it: ffprobe costs a process.)
        let needs_picture = request.selection.with_video || !request.selection.handoff.is_empty();
        let frame_rate = match needs_picture.then(|| self.project_video(project_id)) {
            Some(Ok(Some((_, info)))) => info.frame_rate.round().max(1.0) as u32,
            Some(Err(e)) if request.selection.with_video => return Err(e),
            _ => 25,
        };
        let markers = wait(self.runtime(), self.store().markers(project_id))?;
        let inputs = ExportInputs {
            segments: self.segments(),
            out_dir: &request.folder,
            format: request.format,
            settings: &settings,
            selection: &request.selection,
            frame_rate,
            markers: &markers,
        };
        let mut export = crate::dub::export::export_project(&tracks, &inputs, progress)?;
        export.flagged = flagged;
        Ok(export)
    }
}
