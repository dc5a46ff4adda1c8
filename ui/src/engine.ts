// The UI's only way to the engine: typed wrappers over Tauri commands and
// events. Every shape the engine sends or takes is generated from its Rust
// type (engine-types.ts), and every command's name, arguments and answer
// from the Rust command (engine-commands.ts); this module re-exports those
// and adds what the window wants on top (defaults, a friendlier argument
// shape). A command that fails rejects with an EngineError (errors.ts): the
// engine's message, its kind and the input it names.
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import * as commands from "./engine-commands";
import type { HandoffFormat, ReplaceOptions, StudioEvent } from "./engine-types";

export type * from "./engine-types";

// The commands the window calls as they are (see engine-commands.ts for each).
export {
  diagnose,
  revealFolder,
  openDataDir,
  listProjects,
  createProject,
  createProjectFromMedia,
  cancelHearing,
  createDemoProject,
  openProject,
  renameProject,
  deleteProject,
  editSegment,
  splitSegment,
  mergeSegments,
  insertSegment,
  deleteSegment,
  segmentPeaks,
  bedPeaks,
  originalPeaks,
  originalSpeakerClips,
  stockVoices,
  voiceSpeakers,
  cancelRender,
  listenProject,
  previewSegment,
  pause,
  resume,
  seek,
  stop,
  playbackState,
  setLaneMix,
  addMarker,
  renameMarker,
  moveMarker,
  removeMarker,
  undo,
  redo,
  segmentTakes,
  newTake,
  pickTake,
  auditionTake,
  setFrameRate,
  setProjectStrategy,
  saveCast,
  castSheets,
  createProjectFromCast,
  pronunciations,
  setPronunciation,
  removePronunciation,
  previewPronunciation,
  editBedStem,
  removeBedStem,
  setOriginalMonitor,
  voiceLibrary,
  addLibraryVoice,
  renameLibraryVoice,
  deleteLibraryVoice,
  fitLibraryVoice,
  cancelLibraryVoiceFit,
  previewVoice,
  playVoiceRecording,
  settings,
  saveSettings,
  remoteEngines,
  saveRemoteEngine,
  removeRemoteEngine,
  checkRemoteEngine,
  remoteStatus,
  apiStatus,
  setApiRunning,
  translators,
  saveTranslator,
  removeTranslator,
  checkTranslator,
  translateTrack,
  cancelTranslation,
  trackTranslations,
  glossary,
  setGlossaryTerm,
  removeGlossaryTerm,
} from "./engine-commands";

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

// ---- Commands with the window's defaults and argument shapes ----

export const importScript = (projectId: number, path: string, language: string | null = null) => commands.importScript(projectId, path, language);
export const setSpeakerVoice = (projectId: number, speakerId: number, voice: string, language: string | null = null) =>
  commands.setSpeakerVoice(projectId, speakerId, voice, language);
export const renderProject = (projectId: number, segmentIds: number[] | null = null) => commands.renderProject(projectId, segmentIds);
/** Plays the track from `from` seconds (no loop). */
export const play = (projectId: number, trackId: number, from: number) => commands.play(projectId, trackId, from, null, null);
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
  return commands.replaceText(trackId, find, replace, full);
};
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
) =>
  commands.exportProject(
    projectId,
    folder,
    format,
    loudness,
    choice.languages,
    choice.stems,
    choice.subtitles,
    choice.handoff,
    choice.withVideo,
    choice.speakerTags,
    choice.sampleRate,
    choice.bits,
    choice.strict,
  );

/** Attaches a video as the project's picture: its audio becomes the original
 * dialogue when the project has none, and the bed when `asBed`. */
export const attachVideo = (projectId: number, path: string, asBed = false) => commands.attachVideo(projectId, path, asBed);
/** The project's picture as the window plays it (null without a video): its
 * address on 127.0.0.1, what the video is, and whether it is a proxy. With
 * `proxy`, the engine first makes (once, with ffmpeg; it can take a while) a
 * VP8/WebM proxy the window can play. */
export const pictureSource = (projectId: number, proxy: boolean | null = null) => commands.pictureSource(projectId, proxy);
/** Adds a stem (music or effects, a recording or a video's audio) to the
 * project's bed, `gainDb` over the mix's bed level; `ducked`: it ducks
 * under the voice (off for effects that must stay). */
export const addBedStem = (projectId: number, path: string, gainDb = 0, ducked = true) => commands.addBedStem(projectId, path, gainDb, ducked);

// ---- Events ----

/** Engine events for this window. */
export function onStudioEvent(handler: (event: StudioEvent) => void): Promise<UnlistenFn> {
  return listen<StudioEvent>("studio://event", (event) => handler(event.payload));
}
