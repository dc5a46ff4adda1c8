// The UI's only way to the engine: typed wrappers over Tauri commands and
// events. The shapes mirror revoice::Diagnosis (serde) field for field.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Peaks, Project, SegmentState } from "./model";

export type CheckStatus = "ok" | "warning" | "problem";

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  fix: string | null;
}

export interface ModelAssetStatus {
  asset: { id: string; name: string; purpose: string };
  dir: string;
  state: "installed" | "missing" | "damaged";
  files?: number;
  bytes?: number;
  reason?: string;
}

export interface OutputDevice {
  id: string;
  name: string;
  is_default: boolean;
  default_format: string | null;
}

export interface Diagnosis {
  engine_version: string;
  data_dir: string;
  config_file: string;
  log_dir: string;
  database: string;
  sqlite_version: string | null;
  models: ModelAssetStatus[];
  audio: { host: string; devices: OutputDevice[]; error: string | null };
  audio_output: string | null;
  checks: Check[];
  checked_at: string;
}

/** Runs the engine's health checks. Rejects with a message a person can read. */
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

/** Errors from menu actions that ran in the shell. */
export function onMenuError(handler: (message: string) => void): Promise<UnlistenFn> {
  return listen<string>("studio://menu-error", (event) => handler(event.payload));
}

// ---- Dub projects (the engine's studio session) ----

export interface ProjectSummary {
  id: number;
  name: string;
  updatedAt: string;
}

export interface PlaybackView {
  projectId: number | null;
  trackId: number | null;
  playing: boolean;
  position: number;
  length: number;
  looping: [number, number] | null;
  ended: boolean;
  firstSoundMs: number | null;
  firstVoiceMs: number | null;
  error: string | null;
}

export interface VoiceChoice {
  name: string;
  language: string;
  gender: string;
}

/** What the engine reports as it happens (render progress, line states, playback). */
export type StudioEvent =
  | { kind: "modelLoading"; loading: boolean }
  | { kind: "renderProgress"; projectId: number; done: number; total: number; rendered: number }
  | { kind: "segmentState"; segmentId: number; state: SegmentState; error: string | null }
  | { kind: "renderFinished"; projectId: number; rendered: number; fresh: number; failed: number; cancelled: boolean; error: string | null }
  | ({ kind: "playback" } & PlaybackView)
  | { kind: "previewFinished"; segmentId: number; firstSoundMs: number | null; error: string | null }
  | { kind: "voicePreviewFinished"; voice: string; firstSoundMs: number | null; error: string | null };

/** A line edit; absent fields stay as they are. `strategy: ""` clears the override. */
export interface SegmentEdit {
  text?: string;
  start?: number;
  end?: number;
  speakerId?: number;
  speed?: number;
  gainDb?: number;
  strategy?: string;
}

export const listProjects = () => invoke<ProjectSummary[]>("list_projects");
export const createProject = (name: string, language: string) => invoke<Project>("create_project", { name, language });
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
export const setSpeakerVoice = (projectId: number, speakerId: number, voice: string, language: string | null = null) =>
  invoke<Project>("set_speaker_voice", { projectId, speakerId, voice, language });
export const stockVoices = () => invoke<VoiceChoice[]>("stock_voices");
export const renderProject = (projectId: number, segmentIds: number[] | null = null) =>
  invoke<void>("render_project", { projectId, segmentIds });
export const cancelRender = () => invoke<boolean>("cancel_render");
export const previewSegment = (segmentId: number) => invoke<void>("preview_segment", { segmentId });
export const play = (projectId: number, trackId: number, from: number) =>
  invoke<PlaybackView>("play", { projectId, trackId, from, loopFrom: null, loopTo: null });
export const pause = () => invoke<void>("pause");
export const resume = () => invoke<void>("resume");
export const seek = (seconds: number) => invoke<void>("seek", { seconds });
export const stop = () => invoke<void>("stop");
export const playbackState = () => invoke<PlaybackView>("playback_state");
export const undo = (projectId: number) => invoke<[string | null, Project]>("undo", { projectId });
export const redo = (projectId: number) => invoke<[string | null, Project]>("redo", { projectId });
/** Which files an export writes: tracks by language (all when null), stems, subtitles. */
export interface ExportChoice {
  languages: string[] | null;
  stems: boolean;
  subtitles: boolean;
}

export const exportProject = (projectId: number, folder: string, format: "wav" | "flac" | "mp3", loudness: number, choice: ExportChoice = { languages: null, stems: true, subtitles: true }) =>
  invoke<{ path: string; seconds: number | null }[]>("export_project", { projectId, folder, format, loudness, ...choice });

/** One synthesis of a line. `current`: rendered from the line as it is now. */
export interface TakeView {
  id: number;
  seed: number;
  seconds: number;
  createdAt: string;
  active: boolean;
  current: boolean;
}

export const segmentTakes = (segmentId: number) => invoke<TakeView[]>("segment_takes", { segmentId });
/** Renders another take of the line with a fresh seed (earlier takes stay). */
export const newTake = (segmentId: number) => invoke<Project>("new_take", { segmentId });
/** Makes a take the line's audio (undoable). */
export const pickTake = (segmentId: number, takeId: number) => invoke<Project>("pick_take", { segmentId, takeId });
/** Plays a take as rendered; a previewFinished event follows. */
export const auditionTake = (segmentId: number, takeId: number) => invoke<void>("audition_take", { segmentId, takeId });
export const setProjectStrategy = (projectId: number, strategy: string) => invoke<Project>("set_project_strategy", { projectId, strategy });

// ---- The voice library ----

export interface QualityReport {
  seconds: number;
  speech_seconds: number;
  peak_dbfs: number;
  rms_dbfs: number;
  clipped_fraction: number;
  noise_floor_dbfs: number;
  snr_db: number;
  warnings: string[];
}

export interface LibraryVoice {
  name: string;
  description: string;
  referenceText: string;
  consent: string;
  fileSize: number;
  mimeType: string;
  createdAt: string;
  version: number;
  quality: QualityReport | null;
  /** The closest stock voices, most similar first (a match, not a clone). */
  matches: { voice: string; similarity: number }[];
  /** The blend of stock voices it speaks with. */
  blend: string;
}

export const voiceLibrary = () => invoke<{ stock: VoiceChoice[]; library: LibraryVoice[] }>("voice_library");
export const addLibraryVoice = (name: string, path: string, consent: string, description: string, referenceText: string) =>
  invoke<LibraryVoice>("add_library_voice", { name, path, consent, description, referenceText });
export const renameLibraryVoice = (name: string, newName: string) => invoke<LibraryVoice>("rename_library_voice", { name, newName });
export const deleteLibraryVoice = (name: string) => invoke<void>("delete_library_voice", { name });
/** Speaks a sample in a voice or blend; a voicePreviewFinished event follows. */
export const previewVoice = (voice: string) => invoke<void>("preview_voice", { voice });

// ---- Settings (config.toml; the engine reads it when it starts) ----

export interface SettingsView {
  dataDir: string;
  configFile: string;
  outputDevice: string;
  /** [id, name, is the default] */
  devices: [string, string, boolean][];
  devicesError: string | null;
  batchWidth: number;
  segmentStoreMb: number;
  renderCacheMb: number;
  apiPort: number;
  restartNeeded: boolean;
}

export interface SettingsEdit {
  outputDevice?: string;
  batchWidth?: number;
  segmentStoreMb?: number;
  renderCacheMb?: number;
  apiPort?: number;
}

export const settings = () => invoke<SettingsView>("settings");
export const saveSettings = (edit: SettingsEdit) => invoke<SettingsView>("save_settings", { edit });

/** Engine events for this window. */
export function onStudioEvent(handler: (event: StudioEvent) => void): Promise<UnlistenFn> {
  return listen<StudioEvent>("studio://event", (event) => handler(event.payload));
}

/** The local speech API's URL while it runs, else null. */
export const apiStatus = () => invoke<string | null>("api_status");
/** Starts or stops the local speech API (and saves the choice); its URL while it runs. */
export const setApiRunning = (running: boolean) => invoke<string | null>("set_api_running", { running });
