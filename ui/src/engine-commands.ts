// Generated from the shell's Tauri commands (`#[tauri::command]` in src-tauri/src/*.rs,
// registered in lib.rs) by src-tauri/tests/ui_commands.rs: one function per command.
// Do not edit: change the Rust command, then run
// `REVOICE_WRITE_UI_COMMANDS=1 cargo test -p revoice-studio --test ui_commands`.
import { invoke } from "./invoke";
import type { AttachedVideo, CastSheet, Diagnosis, EngineReport, EngineStatus, ExportedFile, GlossaryEntry, HandoffFormat, LaneMixEdit, LibraryVoice, OriginalMonitor, Peaks, PictureSource, PlaybackView, ProgrammeClip, Project, ProjectSummary, Pronunciation, RemoteEngineSettings, ReplaceOptions, Saying, SegmentEdit, SettingsEdit, SettingsView, SpeakerClip, SpeakerVoiced, TakeView, TimingStrategy, TrackTranslations, TranslateReport, TranslateRequest, TranslatorCheck, TranslatorSettings, TranslatorView, VoiceChoice, VoiceLibraryView } from "./engine-types";

// ---- src-tauri/src/commands.rs ----

/** The engine's health report: version, data folder, database, models, audio. */
export function diagnose(): Promise<Diagnosis> {
  return invoke<Diagnosis>("diagnose");
}

/** Shows the data folder in the system's file manager. */
export function openDataDir(): Promise<void> {
  return invoke<void>("open_data_dir");
}

/** Shows a folder the user chose (an export's) in the file manager. */
export function revealFolder(path: string): Promise<void> {
  return invoke<void>("reveal_folder", { path });
}

/** The local speech API's URL while it runs. */
export function apiStatus(): Promise<string | null> {
  return invoke<string | null>("api_status");
}

/**
 * Starts (true) or stops (false) the local speech API, and saves the
 * choice (`[api] enabled`) so the next start does the same; its URL while
 * it runs.
 */
export function setApiRunning(running: boolean): Promise<string | null> {
  return invoke<string | null>("set_api_running", { running });
}

// ---- src-tauri/src/delivery_commands.rs ----

/**
 * Attaches a video as the project's picture (its audio the original
 * dialogue when there is none, the bed when `as_bed`).
 */
export function attachVideo(projectId: number, path: string, asBed: boolean | null): Promise<[AttachedVideo, Project]> {
  return invoke<[AttachedVideo, Project]>("attach_video", { projectId, path, asBed });
}

/**
 * Sets the rate the project's timecode runs at (`"25"`, `"29.97df"`…), an
 * undoable edit; with a picture only drop-frame or not is left to choose.
 */
export function setFrameRate(projectId: number, rate: string): Promise<Project> {
  return invoke<Project>("set_frame_rate", { projectId, rate });
}

/** Saves the project's speakers and voices on cast sheet `name`. */
export function saveCast(projectId: number, name: string): Promise<CastSheet> {
  return invoke<CastSheet>("save_cast", { projectId, name });
}

/** Every cast sheet. */
export function castSheets(): Promise<CastSheet[]> {
  return invoke<CastSheet[]>("cast_sheets");
}

/** A new project whose speakers take their voices from cast sheet `cast`. */
export function createProjectFromCast(name: string, language: string, cast: string): Promise<Project> {
  return invoke<Project>("create_project_from_cast", { name, language, cast });
}

/** The dictionary the project's lines render with (its own entries over the global ones). */
export function pronunciations(projectId: number): Promise<Pronunciation[]> {
  return invoke<Pronunciation[]>("pronunciations", { projectId });
}

/**
 * Says `word` as `saying` in the project's dictionary (the global one when
 * `global`); the project as it now stands (lines using the word are stale).
 */
export function setPronunciation(projectId: number, word: string, saying: Saying, global: boolean | null): Promise<Project> {
  return invoke<Project>("set_pronunciation", { projectId, word, saying, global });
}

/** Removes `word` from the project's dictionary (or the global one). */
export function removePronunciation(projectId: number, word: string, global: boolean | null): Promise<Project> {
  return invoke<Project>("remove_pronunciation", { projectId, word, global });
}

/**
 * Speaks `sentence` in `voice` with the project's dictionary and the entry
 * `word` = `saying` over it (not saved); the phonemes it said.
 */
export function previewPronunciation(projectId: number, sentence: string, voice: string, word: string | null, saying: Saying | null): Promise<string> {
  return invoke<string>("preview_pronunciation", { projectId, sentence, voice, word, saying });
}

/**
 * The project's picture as the window plays it (its proxy when `proxy`
 * and one has been made), or `None` without a video.
 */
export function pictureSource(projectId: number, proxy: boolean | null): Promise<PictureSource | null> {
  return invoke<PictureSource | null>("picture_source", { projectId, proxy });
}

/**
 * Adds a bed stem (music, effects, ambience) at `gain_db`, ducking under
 * the voice or not; the project.
 */
export function addBedStem(projectId: number, path: string, gainDb: number | null, ducked: boolean | null): Promise<Project> {
  return invoke<Project>("add_bed_stem", { projectId, path, gainDb, ducked });
}

/** Changes a bed stem's level and ducking; the project. */
export function editBedStem(projectId: number, stemId: number, gainDb: number, ducked: boolean): Promise<Project> {
  return invoke<Project>("edit_bed_stem", { projectId, stemId, gainDb, ducked });
}

/** Removes a bed stem; the project. */
export function removeBedStem(projectId: number, stemId: number): Promise<Project> {
  return invoke<Project>("remove_bed_stem", { projectId, stemId });
}

/** How the original dialogue is heard while the dub plays: off, under it at a level, or alone. */
export function setOriginalMonitor(monitor: OriginalMonitor): Promise<void> {
  return invoke<void>("set_original_monitor", { monitor });
}

// ---- src-tauri/src/dub_commands.rs ----

/** Projects, most recently edited first. */
export function listProjects(): Promise<ProjectSummary[]> {
  return invoke<ProjectSummary[]>("list_projects");
}

/** A new, empty project with one track in `language`. */
export function createProject(name: string, language: string): Promise<Project> {
  return invoke<Project>("create_project", { name, language });
}

/** The demo project (the lighthouse scene, voiced, over its bed), made anew. */
export function createDemoProject(): Promise<Project> {
  return invoke<Project>("create_demo_project");
}

/**
 * Adds a script's lines (SRT, WebVTT or plain text) to the project's track
 * in `language` (added if new; the first track when `None`).
 */
export function importScript(projectId: number, path: string, language: string | null): Promise<Project> {
  return invoke<Project>("import_script", { projectId, path, language });
}

/** The project as the timeline shows it. */
export function openProject(projectId: number): Promise<Project> {
  return invoke<Project>("open_project", { projectId });
}

/** Renames a project; its view, as the window shows it. */
export function renameProject(projectId: number, name: string): Promise<Project> {
  return invoke<Project>("rename_project", { projectId, name });
}

/** Deletes a project (the window asks the user first). */
export function deleteProject(projectId: number): Promise<void> {
  return invoke<void>("delete_project", { projectId });
}

/** Edits one line in one undoable step. */
export function editSegment(segmentId: number, edit: SegmentEdit): Promise<Project> {
  return invoke<Project>("edit_segment", { segmentId, edit });
}

/** Gives a speaker a voice, for all languages or (with `language`) one. */
export function setSpeakerVoice(projectId: number, speakerId: number, voice: string, language: string | null): Promise<Project> {
  return invoke<Project>("set_speaker_voice", { projectId, speakerId, voice, language });
}

/**
 * The stock voices, the library's (language "library"), and the voices
 * on remote engines (language "remote": each engine's own, then the
 * library's recordings cloned there).
 */
export function stockVoices(): Promise<VoiceChoice[]> {
  return invoke<VoiceChoice[]>("stock_voices");
}

/**
 * Sets the project's timing strategy (lines with their own keep theirs).
 * Only placement changes: nothing is synthesised again, except lines
 * whose strategy asks the model for a length (fit by re-synthesis).
 */
export function setProjectStrategy(projectId: number, strategy: TimingStrategy): Promise<Project> {
  return invoke<Project>("set_project_strategy", { projectId, strategy });
}

/** Renders what is stale (only `segment_ids` when given) in the background. */
export function renderProject(projectId: number, segmentIds: number[] | null): Promise<void> {
  return invoke<void>("render_project", { projectId, segmentIds });
}

/** Listens back to every rendered line not heard yet, in the background. */
export function listenProject(projectId: number): Promise<void> {
  return invoke<void>("listen_project", { projectId });
}

/** Stops the render (or listening back) that runs; whether one was running. */
export function cancelRender(): Promise<boolean> {
  return invoke<boolean>("cancel_render");
}

/** Plays one line alone, streamed as it renders. */
export function previewSegment(segmentId: number): Promise<void> {
  return invoke<void>("preview_segment", { segmentId });
}

/** Plays a track from `from` seconds, looping `loop_from`..`loop_to` when both are given; `playback` events follow. */
export function play(projectId: number, trackId: number, from: number, loopFrom: number | null, loopTo: number | null): Promise<PlaybackView> {
  return invoke<PlaybackView>("play", { projectId, trackId, from, loopFrom, loopTo });
}

/** Pauses playback where it is. */
export function pause(): Promise<void> {
  return invoke<void>("pause");
}

/** Plays on from where playback paused. */
export function resume(): Promise<void> {
  return invoke<void>("resume");
}

/** Moves the playhead to `seconds`. */
export function seek(seconds: number): Promise<void> {
  return invoke<void>("seek", { seconds });
}

/** Stops playback and closes the output. */
export function stop(): Promise<void> {
  return invoke<void>("stop");
}

/** Where playback stands now. */
export function playbackState(): Promise<PlaybackView> {
  return invoke<PlaybackView>("playback_state");
}

/** Undoes the last edit; the answer says what was undone. */
export function undo(projectId: number): Promise<[string | null, Project]> {
  return invoke<[string | null, Project]>("undo", { projectId });
}

/** Redoes the project's last undone edit: what it redid (none when there was nothing), and the project as it is now. */
export function redo(projectId: number): Promise<[string | null, Project]> {
  return invoke<[string | null, Project]>("redo", { projectId });
}

/**
 * Exports the chosen tracks' mixes (every track when `languages` is
 * `None`), with stems and subtitles unless turned off (speaker tags in
 * the subtitles only when `speaker_tags`), the handoff files asked for
 * and the muxed picture when `with_video`, into `folder`, at
 * `sample_rate` (48000 unless 44100) and `bits` (24 unless 16); refused
 * while a chosen line is flagged when `strict`.
 */
export function exportProject(projectId: number, folder: string, format: string, loudness: string, languages: string[] | null, stems: boolean | null, subtitles: boolean | null, handoff: HandoffFormat[] | null, withVideo: boolean | null, speakerTags: boolean | null, sampleRate: number | null, bits: number | null, strict: boolean | null): Promise<ExportedFile[]> {
  return invoke<ExportedFile[]>("export_project", { projectId, folder, format, loudness, languages, stems, subtitles, handoff, withVideo, speakerTags, sampleRate, bits, strict });
}

/** Splits a line at `at` seconds into two (the text divides at the nearest word). */
export function splitSegment(segmentId: number, at: number): Promise<Project> {
  return invoke<Project>("split_segment", { segmentId, at });
}

/** Joins two lines of one track into the first. */
export function mergeSegments(first: number, second: number): Promise<Project> {
  return invoke<Project>("merge_segments", { first, second });
}

/** Adds a line at `at` seconds: two seconds long, or up to the next line. */
export function insertSegment(trackId: number, at: number, speakerId: number | null): Promise<[number, Project]> {
  return invoke<[number, Project]>("insert_segment", { trackId, at, speakerId });
}

/** Deletes a line (undo brings it back with its takes). */
export function deleteSegment(segmentId: number): Promise<Project> {
  return invoke<Project>("delete_segment", { segmentId });
}

/** A rendered line's waveform as placed on the timeline (`None`: not rendered). */
export function segmentPeaks(segmentId: number): Promise<Peaks | null> {
  return invoke<Peaks | null>("segment_peaks", { segmentId });
}

/** The bed's waveform (`None`: no bed). */
export function bedPeaks(projectId: number): Promise<Peaks | null> {
  return invoke<Peaks | null>("bed_peaks", { projectId });
}

/** The original dialogue's waveform (`None`: the project has none). */
export function originalPeaks(projectId: number): Promise<Peaks | null> {
  return invoke<Peaks | null>("original_peaks", { projectId });
}

/**
 * A new project heard from a recording or video (lines timed, speakers
 * told apart, the file kept as its original dialogue); `studio://event`
 * `mediaHeard` events report the seconds heard.
 */
export function createProjectFromMedia(name: string, path: string): Promise<Project> {
  return invoke<Project>("create_project_from_media", { name, path });
}

/** Stops hearing a recording into a new project (nothing is kept). */
export function cancelHearing(): Promise<boolean> {
  return invoke<boolean>("cancel_hearing");
}

// ---- src-tauri/src/playback_commands.rs ----

/**
 * The lines the playing programme holds now, in time order (empty when
 * nothing plays). The player answers over a channel, so this waits off
 * the async workers.
 */
export function playingProgramme(): Promise<ProgrammeClip[]> {
  return invoke<ProgrammeClip[]>("playing_programme");
}

// ---- src-tauri/src/settings_commands.rs ----

/** The settings a person can change, with their limits. */
export function settings(): Promise<SettingsView> {
  return invoke<SettingsView>("settings");
}

/** Saves the changed settings to `config.toml` (out-of-limit values refused naming the setting); the settings as saved. */
export function saveSettings(edit: SettingsEdit): Promise<SettingsView> {
  return invoke<SettingsView>("save_settings", { edit });
}

/**
 * The servers of the remote engines this window has rendered through:
 * in rotation or out (and why), lines done, pace, lines in flight.
 */
export function remoteStatus(): Promise<EngineStatus[]> {
  return invoke<EngineStatus[]>("remote_status");
}

/** The remote engines in `config.toml`. */
export function remoteEngines(): Promise<RemoteEngineSettings[]> {
  return invoke<RemoteEngineSettings[]>("remote_engines");
}

/** Adds a remote engine (or replaces the one of its name); the engines. */
export function saveRemoteEngine(remote: RemoteEngineSettings): Promise<RemoteEngineSettings[]> {
  return invoke<RemoteEngineSettings[]>("save_remote_engine", { remote });
}

/** Removes a remote engine; the engines left. */
export function removeRemoteEngine(name: string): Promise<RemoteEngineSettings[]> {
  return invoke<RemoteEngineSettings[]>("remove_remote_engine", { name });
}

/** Asks each server of a remote engine what it is and can do. */
export function checkRemoteEngine(name: string): Promise<EngineReport> {
  return invoke<EngineReport>("check_remote_engine", { name });
}

// ---- src-tauri/src/take_commands.rs ----

/** The line's takes, oldest first. */
export function segmentTakes(segmentId: number): Promise<TakeView[]> {
  return invoke<TakeView[]>("segment_takes", { segmentId });
}

/** Renders another take of the line with a fresh seed (the earlier takes stay). */
export function newTake(segmentId: number): Promise<Project> {
  return invoke<Project>("new_take", { segmentId });
}

/** Makes one of the line's takes its audio (undoable). */
export function pickTake(segmentId: number, takeId: number): Promise<Project> {
  return invoke<Project>("pick_take", { segmentId, takeId });
}

/**
 * Plays one take as it was rendered.
 * A `previewFinished` event says when it is done.
 */
export function auditionTake(segmentId: number, takeId: number): Promise<void> {
  return invoke<void>("audition_take", { segmentId, takeId });
}

// ---- src-tauri/src/timeline_commands.rs ----

/**
 * Mutes, solos or levels a speaker's lane (`speaker_id` `None`: the lane
 * of lines without a speaker); heard at once by playback that is running.
 */
export function setLaneMix(projectId: number, speakerId: number | null, mix: LaneMixEdit): Promise<Project> {
  return invoke<Project>("set_lane_mix", { projectId, speakerId, mix });
}

/** Adds a marker at `at` seconds. */
export function addMarker(projectId: number, at: number, name: string): Promise<Project> {
  return invoke<Project>("add_marker", { projectId, at, name });
}

/** Renames a marker (one undoable step); the project as it is now. */
export function renameMarker(markerId: number, name: string): Promise<Project> {
  return invoke<Project>("rename_marker", { markerId, name });
}

/** Moves a marker to `at` seconds. */
export function moveMarker(markerId: number, at: number): Promise<Project> {
  return invoke<Project>("move_marker", { markerId, at });
}

/** Removes a marker (one undoable step); the project as it is now. */
export function removeMarker(markerId: number): Promise<Project> {
  return invoke<Project>("remove_marker", { markerId });
}

/**
 * Replaces `find` with `replace` in a track's lines as one undoable
 * step; how many lines changed, and the project.
 */
export function replaceText(trackId: number, find: string, replace: string, options: ReplaceOptions): Promise<[number, Project]> {
  return invoke<[number, Project]>("replace_text", { trackId, find, replace, options });
}

// ---- src-tauri/src/translate_commands.rs ----

/** The translators in `config.toml`, each with where its lines go. */
export function translators(): Promise<TranslatorView[]> {
  return invoke<TranslatorView[]>("translators");
}

/** Adds a translator (or replaces the one of its name); the translators. */
export function saveTranslator(translator: TranslatorSettings): Promise<TranslatorView[]> {
  return invoke<TranslatorView[]>("save_translator", { translator });
}

/** Removes a translator; the translators left. */
export function removeTranslator(name: string): Promise<TranslatorView[]> {
  return invoke<TranslatorView[]>("remove_translator", { name });
}

/** Asks a translator for its models and to translate "Good morning." into Spanish. */
export function checkTranslator(name: string): Promise<TranslatorCheck> {
  return invoke<TranslatorCheck>("check_translator", { name });
}

/**
 * Translates a track into another language through a translator (its
 * track made when missing), with `translating` events as lines are
 * written; what it did, and the project.
 */
export function translateTrack(request: TranslateRequest): Promise<[TranslateReport, Project]> {
  return invoke<[TranslateReport, Project]>("translate_track", { request });
}

/** Stops the running translation after its batch (what was written stays); whether one was running. */
export function cancelTranslation(): Promise<boolean> {
  return invoke<boolean>("cancel_translation");
}

/**
 * A track's translated lines beside their source lines: what changed
 * since, what was edited by hand, who translated each, and the glossary
 * terms each leaves out.
 */
export function trackTranslations(trackId: number): Promise<TrackTranslations> {
  return invoke<TrackTranslations>("track_translations", { trackId });
}

/**
 * A project's glossary; for a language, the entries that apply to lines
 * translated into it (its own and its primary language's).
 */
export function glossary(projectId: number, language: string | null): Promise<GlossaryEntry[]> {
  return invoke<GlossaryEntry[]>("glossary", { projectId, language });
}

/**
 * Says a term is translated into a language one way in a project
 * (replacing that term's entry); the entry.
 */
export function setGlossaryTerm(projectId: number, language: string, term: string, translation: string): Promise<GlossaryEntry> {
  return invoke<GlossaryEntry>("set_glossary_term", { projectId, language, term, translation });
}

/** Removes an entry of a project's glossary. */
export function removeGlossaryTerm(projectId: number, id: number): Promise<void> {
  return invoke<void>("remove_glossary_term", { projectId, id });
}

// ---- src-tauri/src/voice_commands.rs ----

/** The voice library: every voice with its kind, figures and recording, and the fits running. */
export function voiceLibrary(): Promise<VoiceLibraryView> {
  return invoke<VoiceLibraryView>("voice_library");
}

/**
 * Matches a recording against the stock voices and registers it (a name
 * already in the library is overwritten).
 */
export function addLibraryVoice(name: string, path: string, consent: string, description: string, referenceText: string): Promise<LibraryVoice> {
  return invoke<LibraryVoice>("add_library_voice", { name, path, consent, description, referenceText });
}

/** Renames a library voice; the speakers that use it follow. */
export function renameLibraryVoice(name: string, newName: string): Promise<LibraryVoice> {
  return invoke<LibraryVoice>("rename_library_voice", { name, newName });
}

/** Deletes a library voice, its recording when no other voice uses it, and its fitted voice. */
export function deleteLibraryVoice(name: string): Promise<void> {
  return invoke<void>("delete_library_voice", { name });
}

/**
 * Speaks a sample sentence in `voice` (stock, blend or library voice).
 * A `voicePreviewFinished` event says when it is done.
 */
export function previewVoice(voice: string): Promise<void> {
  return invoke<void>("preview_voice", { voice });
}

/**
 * Plays a library voice's own recording (its first seconds), to compare
 * with the voice that speaks for it.
 */
export function playVoiceRecording(name: string): Promise<void> {
  return invoke<void>("play_voice_recording", { name });
}

/**
 * Voice every speaker: each clip's speaker gets a library voice made from
 * it on the track in `language`, with a fit queued (fits run one after
 * another); what became of each speaker, and the project.
 */
export function voiceSpeakers(projectId: number, language: string | null, clips: SpeakerClip[], consent: string): Promise<[SpeakerVoiced[], Project]> {
  return invoke<[SpeakerVoiced[], Project]>("voice_speakers", { projectId, language, clips, consent });
}

/**
 * Each speaker's own lines cut from the project's original dialogue into
 * one recording each, with what they say: the clips for `voice_speakers`.
 */
export function originalSpeakerClips(projectId: number): Promise<SpeakerClip[]> {
  return invoke<SpeakerClip[]>("original_speaker_clips", { projectId });
}

/**
 * Starts fitting a library voice to its recording in the background, to
 * speak `language` (its own when `null`): a search for a fitted voice, not
 * a clone. The library view shows its progress, and the voice speaks that
 * language as the fitted voice once it is done (the settings' budget).
 */
export function fitLibraryVoice(name: string, language: string | null): Promise<void> {
  return invoke<void>("fit_library_voice", { name, language });
}

/** Stops a library voice's fits after their generation (fitting again resumes). */
export function cancelLibraryVoiceFit(name: string): Promise<boolean> {
  return invoke<boolean>("cancel_library_voice_fit", { name });
}
