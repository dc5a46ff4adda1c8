// The system's open dialog, for the places a path is typed: a script, a
// recording, a bed, an export folder. The typed field stays, so paths can
// be pasted and the end-to-end tests can type them.
import { open } from "@tauri-apps/plugin-dialog";
import { html, type TemplateResult } from "lit-html";

export type PickKind = "script" | "audio" | "folder";

const FILTERS: Record<Exclude<PickKind, "folder">, { name: string; extensions: string[] }[]> = {
  script: [{ name: "Subtitles and scripts", extensions: ["srt", "vtt", "txt", "json"] }],
  audio: [{ name: "Audio", extensions: ["wav", "mp3", "flac", "ogg", "opus", "m4a", "aac", "webm", "mp4"] }],
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
