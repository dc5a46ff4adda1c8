// The system's open dialog, for the places a path is typed: a script, a
// recording, a bed, an export folder. The typed field stays, so paths can
// be pasted and the end-to-end tests can type them.
import { open } from "@tauri-apps/plugin-dialog";
import { el } from "./dom";

export type PickKind = "script" | "audio" | "folder";

const FILTERS: Record<Exclude<PickKind, "folder">, { name: string; extensions: string[] }[]> = {
  script: [{ name: "Subtitles and scripts", extensions: ["srt", "vtt", "txt", "json"] }],
  audio: [{ name: "Audio", extensions: ["wav", "mp3", "flac", "ogg", "opus", "m4a", "aac", "webm", "mp4"] }],
};

/** A "Browse…" button that fills `input` with the chosen path. */
export function browseButton(input: HTMLInputElement, kind: PickKind, onPicked: () => void = () => {}): HTMLButtonElement {
  const button = el("button", { class: "link-button", type: "button" }, "Browse…") as HTMLButtonElement;
  button.addEventListener("click", async () => {
    try {
      const chosen = await open(kind === "folder" ? { directory: true } : { filters: FILTERS[kind] });
      if (typeof chosen === "string") {
        input.value = chosen;
        onPicked();
      }
    } catch (e) {
      input.setCustomValidity(`The file dialog did not open: ${e}`);
      input.reportValidity();
    }
  });
  return button;
}
