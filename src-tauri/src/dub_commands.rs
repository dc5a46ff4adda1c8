//! The editor's commands on dub projects: list, create, import a script,
//! open, rename, delete; edit lines and voices; render, preview, play;
//! undo and redo; export. Each translates its arguments into one engine
//! operation and answers with the project as the timeline shows it, or the
//! engine's message. Progress and line states arrive as `studio://event`
//! events.

use std::path::PathBuf;

use revoice_engine::audio::peaks::Peaks;
use revoice_engine::dub::export::{AudioDelivery, ExportFormat, ExportSelection};
use revoice_engine::dub::handoff::HandoffFormat;
use revoice_engine::dub::timing::TimingStrategy;
use revoice_engine::studio::session::{PlaybackView, StudioSession};
use revoice_engine::studio::view::{ExportedFile, ProjectSummary, ProjectView};
use revoice_engine::studio::voices::{voice_choices, VoiceChoice};
use revoice_engine::{ExportRequest, LineEdit};
use tauri::State;

use crate::studio::{blocking, report, Answer, Studio};

/// Projects, most recently edited first.
#[tauri::command]
pub async fn list_projects(studio: State<'_, Studio>) -> Answer<Vec<ProjectSummary>> {
    let engine = studio.engine()?;
    ProjectSummary::recent(&engine).await.map_err(report)
}

/// A new, empty project with one track in `language`.
#[tauri::command]
pub async fn create_project(studio: State<'_, Studio>, name: String, language: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    let (project, _) = session.engine().create_project(&name, &language).await.map_err(report)?;
    session.view(project.id).await.map_err(report)
}

/// The demo project (the lighthouse scene, voiced, over its bed), made anew.
#[tauri::command]
pub async fn create_demo_project(studio: State<'_, Studio>) -> Answer<ProjectView> {
    let session = studio.session()?;
    let project = session.engine().create_demo_project().await.map_err(report)?;
    session.view(project.id).await.map_err(report)
}

/// Adds a script's lines (SRT, WebVTT or plain text) to the project's track
/// in `language` (added if new; the first track when `None`).
#[tauri::command]
pub async fn import_script(studio: State<'_, Studio>, project_id: i64, path: PathBuf, language: Option<String>) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().import_script(project_id, &path, language.as_deref()).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// The project as the timeline shows it.
#[tauri::command]
pub async fn open_project(studio: State<'_, Studio>, project_id: i64) -> Answer<ProjectView> {
    studio.session()?.view(project_id).await.map_err(report)
}

/// Renames a project; its view, as the window shows it.
#[tauri::command]
pub async fn rename_project(studio: State<'_, Studio>, project_id: i64, name: String) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().rename_project(project_id, &name).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// Deletes a project (the window asks the user first).
#[tauri::command]
pub async fn delete_project(studio: State<'_, Studio>, project_id: i64) -> Answer<()> {
    studio.session()?.engine().delete_project(project_id).await.map_err(report)
}

/// Edits one line in one undoable step.
#[tauri::command]
pub async fn edit_segment(studio: State<'_, Studio>, segment_id: i64, edit: LineEdit) -> Answer<ProjectView> {
    let session = studio.session()?;
    let segment = session.engine().edit_line(segment_id, edit).await.map_err(report)?;
    view_of_track(&session, segment.track_id).await
}

/// Gives a speaker a voice, for all languages or (with `language`) one.
#[tauri::command]
pub async fn set_speaker_voice(studio: State<'_, Studio>, project_id: i64, speaker_id: i64, voice: String, language: Option<String>) -> Answer<ProjectView> {
    let session = studio.session()?;
    set_voice(&session, project_id, speaker_id, &voice, language.as_deref()).await
}

/// [`set_speaker_voice`] without Tauri's state (the shell's tests call it).
pub async fn set_voice(session: &StudioSession, project_id: i64, speaker_id: i64, voice: &str, language: Option<&str>) -> Answer<ProjectView> {
    session.engine().set_speaker_voice(project_id, speaker_id, voice, language).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// The stock voices, the library's (language "library"), and the voices
/// on remote engines (language "remote": each engine's own, then the
/// library's recordings cloned there).
#[tauri::command]
pub async fn stock_voices(studio: State<'_, Studio>) -> Answer<Vec<VoiceChoice>> {
    let engine = studio.engine()?;
    let library = engine.store().voices().await.map_err(report)?;
    let mut voices = voice_choices(&library);
    let asking = engine.clone();
    let engines = tokio::task::spawn_blocking(move || asking.remote().voice_lists()).await.map_err(|e| e.to_string())?;
    voices.extend(revoice_engine::studio::voices::remote_choices(&engines, &library));
    Ok(voices)
}

/// Sets the project's timing strategy (lines with their own keep theirs).
/// Only placement changes: nothing is synthesised again, except lines
/// whose strategy asks the model for a length (fit by re-synthesis).
#[tauri::command]
pub async fn set_project_strategy(studio: State<'_, Studio>, project_id: i64, strategy: TimingStrategy) -> Answer<ProjectView> {
    let session = studio.session()?;
    session.engine().set_strategy(project_id, strategy).await.map_err(report)?;
    let view = session.view(project_id).await.map_err(report)?;
    Ok(view)
}

/// Renders what is stale (only `segment_ids` when given) in the background.
#[tauri::command]
pub fn render_project(studio: State<'_, Studio>, project_id: i64, segment_ids: Option<Vec<i64>>) -> Answer<()> {
    studio.ready_to_speak()?;
    studio.session()?.render(project_id, segment_ids).map_err(report)
}

/// Listens back to every rendered line not heard yet, in the background.
#[tauri::command]
pub fn listen_project(studio: State<'_, Studio>, project_id: i64) -> Answer<()> {
    studio.session()?.listen(project_id).map_err(report)
}

/// Stops the render (or listening back) that runs; whether one was running.
#[tauri::command]
pub fn cancel_render(studio: State<'_, Studio>) -> Answer<bool> {
    Ok(studio.session()?.cancel_render())
}

/// Plays one line alone, streamed as it renders.
#[tauri::command]
pub fn preview_segment(studio: State<'_, Studio>, segment_id: i64) -> Answer<()> {
    studio.ready_to_speak()?;
    studio.session()?.preview(segment_id).map_err(report)
}

/// Plays a track from `from` seconds, looping `loop_from`..`loop_to` when both are given; `playback` events follow.
#[tauri::command]
pub async fn play(studio: State<'_, Studio>, project_id: i64, track_id: i64, from: f64, loop_from: Option<f64>, loop_to: Option<f64>) -> Answer<PlaybackView> {
    let session = studio.session()?;
    let looping = loop_from.zip(loop_to);
    let s = session.clone();
    blocking(move || s.play(project_id, track_id, from, looping)).await?;
    Ok(session.playback())
}

/// Pauses playback where it is.
#[tauri::command]
pub fn pause(studio: State<'_, Studio>) -> Answer<()> {
    studio.session()?.pause().map_err(report)
}

/// Plays on from where playback paused.
#[tauri::command]
pub fn resume(studio: State<'_, Studio>) -> Answer<()> {
    studio.session()?.resume().map_err(report)
}

/// Moves the playhead to `seconds`.
#[tauri::command]
pub fn seek(studio: State<'_, Studio>, seconds: f64) -> Answer<()> {
    studio.session()?.seek(seconds).map_err(report)
}

/// Stops playback and closes the output.
#[tauri::command]
pub fn stop(studio: State<'_, Studio>) -> Answer<()> {
    studio.session()?.stop().map_err(report)
}

/// Where playback stands now.
#[tauri::command]
pub fn playback_state(studio: State<'_, Studio>) -> Answer<PlaybackView> {
    Ok(studio.session()?.playback())
}

/// Undoes the last edit; the answer says what was undone.
#[tauri::command]
pub async fn undo(studio: State<'_, Studio>, project_id: i64) -> Answer<(Option<String>, ProjectView)> {
    let session = studio.session()?;
    let what = session.engine().undo(project_id).await.map_err(report)?;
    Ok((what, session.view(project_id).await.map_err(report)?))
}

/// Redoes the project's last undone edit: what it redid (none when there was nothing), and the project as it is now.
#[tauri::command]
pub async fn redo(studio: State<'_, Studio>, project_id: i64) -> Answer<(Option<String>, ProjectView)> {
    let session = studio.session()?;
    let what = session.engine().redo(project_id).await.map_err(report)?;
    Ok((what, session.view(project_id).await.map_err(report)?))
}

/// Exports the chosen tracks' mixes (every track when `languages` is
/// `None`), with stems and subtitles unless turned off (speaker tags in
/// the subtitles only when `speaker_tags`), the handoff files asked for
/// and the muxed picture when `with_video`, into `folder`, at
/// `sample_rate` (48000 unless 44100) and `bits` (24 unless 16); refused
/// while a chosen line is flagged when `strict`.
#[tauri::command]
#[allow(clippy::too_many_arguments)]
pub async fn export_project(
    studio: State<'_, Studio>,
    project_id: i64,
    folder: PathBuf,
    format: String,
    loudness: String,
    languages: Option<Vec<String>>,
    stems: Option<bool>,
    subtitles: Option<bool>,
    handoff: Option<Vec<HandoffFormat>>,
    with_video: Option<bool>,
    speaker_tags: Option<bool>,
    sample_rate: Option<u32>,
    bits: Option<u16>,
    strict: Option<bool>,
) -> Answer<Vec<ExportedFile>> {
    let engine = studio.engine()?;
    let format = ExportFormat::from_name(&format).map_err(report)?;
    let standard = AudioDelivery::default();
    let audio = AudioDelivery::new(sample_rate.unwrap_or(standard.sample_rate), bits.unwrap_or(standard.bits)).map_err(report)?;
    let selection = ExportSelection {
        languages,
        stems: stems.unwrap_or(true),
        subtitles: subtitles.unwrap_or(true),
        speaker_tags: speaker_tags.unwrap_or(false),
        handoff: handoff.unwrap_or_default(),
        with_video: with_video.unwrap_or(false),
        audio,
        refuse_flagged: strict.unwrap_or(false),
    };
    let loudness = revoice_engine::dub::export::LoudnessSpec::parse(&loudness).map_err(report)?;
    let request = ExportRequest { folder, format, loudness, selection };
    let tracks = blocking(move || engine.export_project(project_id, &request, &mut |_| {})).await?;
    Ok(ExportedFile::of(&tracks))
}

/// Splits a line at `at` seconds into two (the text divides at the nearest word).
#[tauri::command]
pub async fn split_segment(studio: State<'_, Studio>, segment_id: i64, at: f64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let parts = session.engine().split_line(segment_id, at).await.map_err(report)?;
    view_of_track(&session, parts[0].track_id).await
}

/// Joins two lines of one track into the first.
#[tauri::command]
pub async fn merge_segments(studio: State<'_, Studio>, first: i64, second: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let merged = session.engine().merge_lines(first, second).await.map_err(report)?;
    view_of_track(&session, merged.track_id).await
}

/// Adds a line at `at` seconds: two seconds long, or up to the next line.
#[tauri::command]
pub async fn insert_segment(studio: State<'_, Studio>, track_id: i64, at: f64, speaker_id: Option<i64>) -> Answer<(i64, ProjectView)> {
    let session = studio.session()?;
    let added = session.engine().insert_line(track_id, at, speaker_id).await.map_err(report)?;
    Ok((added.id, view_of_track(&session, track_id).await?))
}

/// Deletes a line (undo brings it back with its takes).
#[tauri::command]
pub async fn delete_segment(studio: State<'_, Studio>, segment_id: i64) -> Answer<ProjectView> {
    let session = studio.session()?;
    let track_id = session.engine().delete_line(segment_id).await.map_err(report)?;
    view_of_track(&session, track_id).await
}

async fn view_of_track(session: &StudioSession, track_id: i64) -> Answer<ProjectView> {
    let project_id = session.engine().project_of_track(track_id).await.map_err(report)?;
    session.view(project_id).await.map_err(report)
}

/// A rendered line's waveform as placed on the timeline (`None`: not rendered).
#[tauri::command]
pub async fn segment_peaks(studio: State<'_, Studio>, segment_id: i64) -> Answer<Option<Peaks>> {
    let session = studio.session()?;
    blocking(move || session.segment_peaks(segment_id)).await
}

/// The bed's waveform (`None`: no bed).
#[tauri::command]
pub async fn bed_peaks(studio: State<'_, Studio>, project_id: i64) -> Answer<Option<Peaks>> {
    let session = studio.session()?;
    blocking(move || session.bed_peaks(project_id)).await
}

/// The original dialogue's waveform (`None`: the project has none).
#[tauri::command]
pub async fn original_peaks(studio: State<'_, Studio>, project_id: i64) -> Answer<Option<Peaks>> {
    let session = studio.session()?;
    blocking(move || session.original_peaks(project_id)).await
}

/// A new project heard from a recording or video (lines timed, speakers
/// told apart, the file kept as its original dialogue); `studio://event`
/// `mediaHeard` events report the seconds heard.
#[tauri::command]
pub async fn create_project_from_media(studio: State<'_, Studio>, name: String, path: PathBuf) -> Answer<ProjectView> {
    studio.session()?.new_project_from_media(&name, &path).await.map_err(report)
}

/// Stops hearing a recording into a new project (nothing is kept).
#[tauri::command]
pub fn cancel_hearing(studio: State<'_, Studio>) -> Answer<bool> {
    Ok(studio.session()?.cancel_hearing())
}

#[cfg(test)]
mod tests {
    use super::set_voice;
    use crate::studio::test_scene::{harbour, Harbour};

    /// The rule's own words, as every face shows them (`revoice project voice` prints the same).
    fn rule(voice: &str, language: &str) -> String {
        revoice_engine::voice::VoiceSpec::parse_stock(voice).unwrap().check_speaks(language).unwrap_err().to_string()
    }

    #[test]
    fn the_app_refuses_a_voice_that_speaks_another_language_with_the_engines_message() {
        use tauri::async_runtime::block_on;
        let Harbour { session, project, ana, _dir } = harbour();
        let engine = session.engine().clone();

        let refused = block_on(set_voice(&session, project, ana, "ef_dora", None)).unwrap_err();
        assert_eq!(refused.message, rule("ef_dora", "en-US"));
        assert_eq!(refused.kind, revoice_engine::ErrorKind::InvalidInput, "the window can tell bad input from a failure");
        assert_eq!(refused.input.as_deref(), Some("voice \"ef_dora\""), "the input it names");
        let view = block_on(set_voice(&session, project, ana, "bf_emma", None)).unwrap();
        assert_eq!(view.speakers[0].voice, "bf_emma", "an English voice is taken");
        // On a Spanish track the Spanish voice is right, and the English one is refused there.
        block_on(engine.track_for(project, Some("es"))).unwrap();
        let refused = block_on(set_voice(&session, project, ana, "af_bella", Some("es"))).unwrap_err();
        assert_eq!(refused.message, rule("af_bella", "es"));
        let view = block_on(set_voice(&session, project, ana, "ef_dora", Some("es"))).unwrap();
        assert_eq!(view.speakers[0].language_voices.get("es").map(String::as_str), Some("ef_dora"));
    }
}
