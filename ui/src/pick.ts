// The system's open dialog, for the places a path is typed: a script, a
// recording, a recording or video to hear, a bed, a project's video, an
// export folder. The typed field stays, so paths can be pasted and the
// end-to-end tests can type them.
import { open } from "@tauri-apps/plugin-dialog";
import { html, type TemplateResult } from "lit-html";

export type PickKind = "script" | "audio" | "media" | "video" | "folder";

/** Files a project can be heard from: audio, and video whose audio is read. */
export const MEDIA_EXTENSIONS = ["wav", "mp3", "flac", "ogg", "opus", "m4a", "aac", "mp4", "m4v", "mkv", "mov", "webm"];

/** Whether a path names a recording or video (by its extension). */
export function isMedia(path: string): boolean {
  const ext = path.split(".").pop()?.toLowerCase() ?? "";
  return MEDIA_EXTENSIONS.includes(ext);
}

/** Files a project's picture can be. */
export const VIDEO_EXTENSIONS = ["mp4", "mkv", "mov", "webm", "m4v", "avi"];

const FILTERS: Record<Exclude<PickKind, "folder">, { name: string; extensions: string[] }[]> = {
  script: [{ name: "Subtitles and scripts", extensions: ["srt", "vtt", "ass", "ssa", "txt", "json"] }],
  audio: [{ name: "Audio", extensions: ["wav", "mp3", "flac", "ogg", "opus", "m4a", "aac", "webm", "mp4"] }],
  media: [{ name: "Recordings and videos", extensions: MEDIA_EXTENSIONS }],
  video: [{ name: "Videos", extensions: VIDEO_EXTENSIONS }],
};

/** A "Browse…" button, placed right after the path's input: `picked` gets
 * the chosen path; when the dialog does not open, the input says why. */
export function browseButton(kind: PickKind, picked: (path: string) => void): TemplateResult {
  return html`<button class="link-button" type="button" @click=${(e: Event) => void browse(e.currentTarget as HTMLElement, kind, picked)}>Browse…</button>`;
}

async function browse(button: HTMLElement, kind: PickKind, picked: (path: string) => void): Promise<void> {
  try {
    const chosen = await open(kind === "folder" ? { directory: true } : { filters: FILTERS[kind] });
    if (typeof chosen === "string") picked(chosen);
  } catch (e) {
    const input = button.previousElementSibling;
    if (input instanceof HTMLInputElement) {
      input.setCustomValidity(`The file dialog did not open: ${e}`);
      input.reportValidity();
    }
  }
}
