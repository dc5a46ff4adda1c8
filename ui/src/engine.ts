// The UI's only way to the engine: typed wrappers over Tauri commands and
// events. The shapes mirror revoice::Diagnosis (serde) field for field.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

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
