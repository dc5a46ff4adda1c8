// The UI's only way to the engine: typed wrappers over Tauri commands and
// events. Every shape the engine sends or takes is generated from its Rust
// type (engine-types.ts); only the wrappers' argument lists live here. A
// command that fails rejects with an EngineError (errors.ts): the engine's
// message, its kind and the input it names.
import { invoke as invokeCommand, type InvokeArgs } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { engineError } from "./errors";
import type {
  AttachedVideo,
  CastSheet,
  Diagnosis,
  EngineReport,
  EngineStatus,
  ExportedFile,
  HandoffFormat,
  LaneMixEdit,
  LibraryVoice,
  OriginalMonitor,
  PictureSource,
  PlaybackView,
  ProjectSummary,
  Pronunciation,
  RemoteEngineSettings,
  ReplaceOptions,
  Saying,
  SegmentEdit,
  SettingsEdit,
  SettingsView,
  SpeakerClip,
  SpeakerVoiced,
  StudioEvent,
  TakeView,
  TimingStrategy,
  VoiceChoice,
  VoiceLibraryView,
} from "./engine-types";
import type { Peaks, Project } from "./model";

export type * from "./engine-types";

/** Runs a command; a refusal (the engine's report, or Tauri's own text) rejects as an EngineError. */
function invoke<T>(command: string, args?: InvokeArgs): Promise<T> {
  return invokeCommand<T>(command, args).catch((rejection: unknown) => {
    throw engineError(rejection);
  });
}

/** Runs the engine's health checks. Rejects with an EngineError a person can read. */
export function diagnose(): Promise<Diagnosis> {
  return invoke<Diagnosis>("diagnose");
}

/** Shows a folder (an export's) in the file manager. */
export function revealFolder(path: string): Promise<void> {
  return invoke<void>("reveal_folder", { path });
}

/** Shows the data folder in the file manager. */
export function openDataDir(): Promise<void> {
  return invoke<void>("open_data_dir");
}

/** The menu's "Check Engine Again". */
export function onCheckEngineRequested(handler: () => void): Promise<UnlistenFn> {
  return listen("studio://check-engine", () => handler());
}

/** The menu's Help → Keyboard Shortcuts. */
export function onShortcutsRequested(handler: () => void): Promise<UnlistenFn> {
  return listen("studio://shortcuts", () => handler());
}

/** Errors from menu actions that ran in the shell. */
export function onMenuError(handler: (message: string) => void): Promise<UnlistenFn> {
  return listen<string>("studio://menu-error", (event) => handler(event.payload));
}

// ---- Dub projects (the engine's studio session) ----

export const listProjects = () => invoke<ProjectSummary[]>("list_projects");
export const createProject = (name: string, language: string) => invoke<Project>("create_project", { name, language });
/** A project heard from a recording or video (`mediaHeard` events report progress). */
export const createProjectFromMedia = (name: string, path: string) => invoke<Project>("create_project_from_media", { name, path });
export const cancelHearing = () => invoke<boolean>("cancel_hearing");
/** The demo project (the lighthouse scene, voiced, over its bed). */
export const createDemoProject = () => invoke<Project>("create_demo_project");
export const importScript = (projectId: number, path: string, language: string | null = null) =>
  invoke<Project>("import_script", { projectId, path, language });
export const openProject = (projectId: number) => invoke<Project>("open_project", { projectId });
export const renameProject = (projectId: number, name: string) => invoke<Project>("rename_project", { projectId, name });
export const deleteProject = (projectId: number) => invoke<void>("delete_project", { projectId });
export const editSegment = (segmentId: number, edit: SegmentEdit) => invoke<Project>("edit_segment", { segmentId, edit });
export const splitSegment = (segmentId: number, at: number) => invoke<Project>("split_segment", { segmentId, at });
export const mergeSegments = (first: number, second: number) => invoke<Project>("merge_segments", { first, second });
export const insertSegment = (trackId: number, at: number, speakerId: number | null) =>
  invoke<[number, Project]>("insert_segment", { trackId, at, speakerId });
export const deleteSegment = (segmentId: number) => invoke<Project>("delete_segment", { segmentId });
export const segmentPeaks = (segmentId: number) => invoke<Peaks | null>("segment_peaks", { segmentId });
export const bedPeaks = (projectId: number) => invoke<Peaks | null>("bed_peaks", { projectId });
export const originalPeaks = (projectId: number) => invoke<Peaks | null>("original_peaks", { projectId });
/** Each speaker's own lines cut from the original dialogue, with their text. */
export const originalSpeakerClips = (projectId: number) => invoke<SpeakerClip[]>("original_speaker_clips", { projectId });
export const setSpeakerVoice = (projectId: number, speakerId: number, voice: string, language: string | null = null) =>
  invoke<Project>("set_speaker_voice", { projectId, speakerId, voice, language });
export const stockVoices = () => invoke<VoiceChoice[]>("stock_voices");
/** Voice every speaker: a library voice per clip, given to its speaker on the track in `language`, with a fit queued. */
export const voiceSpeakers = (projectId: number, language: string | null, clips: SpeakerClip[], consent: string) =>
  invoke<[SpeakerVoiced[], Project]>("voice_speakers", { projectId, language, clips, consent });
export const renderProject = (projectId: number, segmentIds: number[] | null = null) =>
  invoke<void>("render_project", { projectId, segmentIds });
export const cancelRender = () => invoke<boolean>("cancel_render");
/** Listens back to every rendered line not heard yet (events report it). */
export const listenProject = (projectId: number) => invoke<void>("listen_project", { projectId });
export const previewSegment = (segmentId: number) => invoke<void>("preview_segment", { segmentId });
export const play = (projectId: number, trackId: number, from: number) =>
  invoke<PlaybackView>("play", { projectId, trackId, from, loopFrom: null, loopTo: null });
export const pause = () => invoke<void>("pause");
export const resume = () => invoke<void>("resume");
export const seek = (seconds: number) => invoke<void>("seek", { seconds });
export const stop = () => invoke<void>("stop");
export const playbackState = () => invoke<PlaybackView>("playback_state");
/** Mutes, solos or levels a speaker's lane (`speakerId` null: the lines without a speaker); undoable, heard at once. */
export const setLaneMix = (projectId: number, speakerId: number | null, mix: LaneMixEdit) =>
  invoke<Project>("set_lane_mix", { projectId, speakerId, mix });
/** Markers: named points in time on the project (each change undoable). */
export const addMarker = (projectId: number, at: number, name: string) => invoke<Project>("add_marker", { projectId, at, name });
export const renameMarker = (markerId: number, name: string) => invoke<Project>("rename_marker", { markerId, name });
export const moveMarker = (markerId: number, at: number) => invoke<Project>("move_marker", { markerId, at });
export const removeMarker = (markerId: number) => invoke<Project>("remove_marker", { markerId });
/** Replaces `find` with `replace` in a track's lines (only those in `only` when given) as one undoable step;
 * how many lines changed, and the project. Any case and anywhere unless asked. */
export const replaceText = (
  trackId: number,
  find: string,
  replace: string,
  options: { matchCase?: boolean; wholeWord?: boolean; only?: number[] } = {},
) => {
  const full: ReplaceOptions = { matchCase: options.matchCase ?? false, wholeWord: options.wholeWord ?? false };
  if (options.only) full.only = options.only;
  return invoke<[number, Project]>("replace_text", { trackId, find, replace, options: full });
};
export const undo = (projectId: number) => invoke<[string | null, Project]>("undo", { projectId });
export const redo = (projectId: number) => invoke<[string | null, Project]>("redo", { projectId });
/** Which files an export writes: tracks by language (all when null), stems,
 * subtitles (speaker tags in them or not), handoff files for an editor
 * (none when null), and the project's video with the dub muxed in; and
 * the audio's sample rate and bit depth (48000 Hz and 24 when null). */
export interface ExportChoice {
  languages: string[] | null;
  stems: boolean;
  subtitles: boolean;
  speakerTags: boolean;
  handoff: HandoffFormat[] | null;
  withVideo: boolean | null;
  sampleRate: number | null;
  bits: number | null;
  /** Refuse the export while any chosen line is flagged. */
  strict: boolean | null;
}

export const exportProject = (
  projectId: number,
  folder: string,
  format: "wav" | "flac" | "mp3",
  loudness: string,
  choice: ExportChoice = { languages: null, stems: true, subtitles: true, speakerTags: false, handoff: null, withVideo: null, sampleRate: null, bits: null, strict: null },
) => invoke<ExportedFile[]>("export_project", { projectId, folder, format, loudness, ...choice });

export const segmentTakes = (segmentId: number) => invoke<TakeView[]>("segment_takes", { segmentId });
/** Renders another take of the line with a fresh seed (earlier takes stay). */
export const newTake = (segmentId: number) => invoke<Project>("new_take", { segmentId });
/** Makes a take the line's audio (undoable). */
export const pickTake = (segmentId: number, takeId: number) => invoke<Project>("pick_take", { segmentId, takeId });
/** Plays a take as rendered; a previewFinished event follows. */
export const auditionTake = (segmentId: number, takeId: number) => invoke<void>("audition_take", { segmentId, takeId });
/** Sets the project's timecode rate (`"25"`, `"29.97df"`…): an undoable edit. */
export const setFrameRate = (projectId: number, rate: string) => invoke<Project>("set_frame_rate", { projectId, rate });
export const setProjectStrategy = (projectId: number, strategy: TimingStrategy) => invoke<Project>("set_project_strategy", { projectId, strategy });

// ---- Picture, cast sheets and the pronunciation dictionary ----

/** Attaches a video as the project's picture: its audio becomes the original
 * dialogue when the project has none, and the bed when `asBed`. */
export const attachVideo = (projectId: number, path: string, asBed = false) =>
  invoke<[AttachedVideo, Project]>("attach_video", { projectId, path, asBed });
/** The project's picture as the window plays it (null without a video): its
 * address on 127.0.0.1, what the video is, and whether it is a proxy. With
 * `proxy`, the engine first makes (once, with ffmpeg; it can take a while) a
 * VP8/WebM proxy the window can play. */
export const pictureSource = (projectId: number, proxy: boolean | null = null) =>
  invoke<PictureSource | null>("picture_source", { projectId, proxy });
/** Saves the project's speakers and voices on cast sheet `name` (the project then follows it). */
export const saveCast = (projectId: number, name: string) => invoke<CastSheet>("save_cast", { projectId, name });
export const castSheets = () => invoke<CastSheet[]>("cast_sheets");
/** A new project whose speakers take their voices from cast sheet `cast` as they appear. */
export const createProjectFromCast = (name: string, language: string, cast: string) =>
  invoke<Project>("create_project_from_cast", { name, language, cast });
/** The dictionary the project's lines render with: its own entries and the global ones (`global`). */
export const pronunciations = (projectId: number) => invoke<Pronunciation[]>("pronunciations", { projectId });
/** Says `word` as `saying` (in the global dictionary when `global`); lines using the word become stale. */
export const setPronunciation = (projectId: number, word: string, saying: Saying, global: boolean) =>
  invoke<Project>("set_pronunciation", { projectId, word, saying, global });
export const removePronunciation = (projectId: number, word: string, global: boolean) =>
  invoke<Project>("remove_pronunciation", { projectId, word, global });
/** Speaks `sentence` in `voice` with the project's dictionary and the entry
 * `word` = `saying` over it (not saved); the phonemes it said. */
export const previewPronunciation = (projectId: number, sentence: string, voice: string, word: string | null, saying: Saying | null) =>
  invoke<string>("preview_pronunciation", { projectId, sentence, voice, word, saying });

// ---- The bed (music and effects stems) and hearing the original dialogue ----

/** Adds a stem (music or effects, a recording or a video's audio) to the
 * project's bed, `gainDb` over the mix's bed level; `ducked`: it ducks
 * under the voice (off for effects that must stay). */
export const addBedStem = (projectId: number, path: string, gainDb = 0, ducked = true) =>
  invoke<Project>("add_bed_stem", { projectId, path, gainDb, ducked });
export const editBedStem = (projectId: number, stemId: number, gainDb: number, ducked: boolean) =>
  invoke<Project>("edit_bed_stem", { projectId, stemId, gainDb, ducked });
export const removeBedStem = (projectId: number, stemId: number) => invoke<Project>("remove_bed_stem", { projectId, stemId });
/** How the original dialogue is heard while the dub plays (in what plays now and what plays next). */
export const setOriginalMonitor = (monitor: OriginalMonitor) => invoke<void>("set_original_monitor", { monitor });

// ---- The voice library ----

export const voiceLibrary = () => invoke<VoiceLibraryView>("voice_library");
export const addLibraryVoice = (name: string, path: string, consent: string, description: string, referenceText: string) =>
  invoke<LibraryVoice>("add_library_voice", { name, path, consent, description, referenceText });
export const renameLibraryVoice = (name: string, newName: string) => invoke<LibraryVoice>("rename_library_voice", { name, newName });
export const deleteLibraryVoice = (name: string) => invoke<void>("delete_library_voice", { name });
/** Starts fitting a library voice to its recording in the background (a fitted voice, not a clone). */
export const fitLibraryVoice = (name: string) => invoke<void>("fit_library_voice", { name });
/** Stops a library voice's fit after its generation; fitting again resumes it. */
export const cancelLibraryVoiceFit = (name: string) => invoke<boolean>("cancel_library_voice_fit", { name });
/** Speaks a sample in a voice or blend; a voicePreviewFinished event follows. */
export const previewVoice = (voice: string) => invoke<void>("preview_voice", { voice });
/** Plays a library voice's own recording (its first seconds); a voicePreviewFinished event for `recording:<name>` follows. */
export const playVoiceRecording = (name: string) => invoke<void>("play_voice_recording", { name });

// ---- Settings (config.toml; the engine reads it when it starts) ----

export const settings = () => invoke<SettingsView>("settings");
export const saveSettings = (edit: SettingsEdit) => invoke<SettingsView>("save_settings", { edit });

// ---- Remote engines (config.toml's [[engines]]: kept, checked, rendered through) ----

export const remoteEngines = () => invoke<RemoteEngineSettings[]>("remote_engines");
/** Adds a remote engine, or replaces the one of its name; the engines. */
export const saveRemoteEngine = (remote: RemoteEngineSettings) => invoke<RemoteEngineSettings[]>("save_remote_engine", { remote });
/** Removes a remote engine; the engines left. */
export const removeRemoteEngine = (name: string) => invoke<RemoteEngineSettings[]>("remove_remote_engine", { name });
/** Asks each server of the engine what it is and can do (one after another: seconds). */
export const checkRemoteEngine = (name: string) => invoke<EngineReport>("check_remote_engine", { name });

/** The servers of the remote engines renders went through, as they stand. */
export const remoteStatus = () => invoke<EngineStatus[]>("remote_status");

/** Engine events for this window. */
export function onStudioEvent(handler: (event: StudioEvent) => void): Promise<UnlistenFn> {
  return listen<StudioEvent>("studio://event", (event) => handler(event.payload));
}

/** The local speech API's URL while it runs, else null. */
export const apiStatus = () => invoke<string | null>("api_status");
/** Starts or stops the local speech API (and saves the choice); its URL while it runs. */
export const setApiRunning = (running: boolean) => invoke<string | null>("set_api_running", { running });
