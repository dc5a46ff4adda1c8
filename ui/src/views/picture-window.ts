// The picture in a window of its own (a second screen): the editor opens
// and closes it, and tells it each seek the editor makes; the window itself
// follows the engine's playback events, as the editor's pane does. Window
// label, page and event names live here, for both sides.
import { emitTo } from "@tauri-apps/api/event";
import { WebviewWindow } from "@tauri-apps/api/webviewWindow";

/** The picture window's label (the capability names it too). */
export const PICTURE_WINDOW = "picture";
/** The editor's word to the picture window: where the playhead is (a seek), and the timecode overlay. */
export const PICTURE_FOLLOW_EVENT = "studio://picture-follow";

/** What the editor tells the picture window. */
export interface PictureFollow {
  projectId: number;
  position: number;
  playing: boolean;
  length: number;
  looping: [number, number] | null;
  /** The timecode overlay's rate, or null for none. */
  timecode: string | null;
}

/** The picture page's address for a project (its video's name and the project's rate travel with it). */
export function pictureWindowUrl(projectId: number, name: string, rate: string, timecode: boolean): string {
  const query = new URLSearchParams({ project: String(projectId), name, rate, timecode: timecode ? "1" : "0" });
  return `picture.html?${query}`;
}

/** What a picture page's address asks for; null when it names no project. */
export function pictureWindowParams(search: string): { projectId: number; name: string; rate: string; timecode: boolean } | null {
  const query = new URLSearchParams(search);
  const projectId = Number(query.get("project"));
  if (!Number.isInteger(projectId) || projectId <= 0) return null;
  return { projectId, name: query.get("name") ?? "", rate: query.get("rate") ?? "25", timecode: query.get("timecode") === "1" };
}

/** Opens the picture's window (or brings the open one forward); `closed` is
 * called when it goes, however it was closed. */
export async function openPictureWindow(url: string, title: string, closed: () => void): Promise<void> {
  const open = await WebviewWindow.getByLabel(PICTURE_WINDOW);
  if (open) {
    await open.setFocus();
    return;
  }
  const window = new WebviewWindow(PICTURE_WINDOW, { url, title, width: 960, height: 560, minWidth: 320, minHeight: 200 });
  await new Promise<void>((resolve, reject) => {
    void window.once("tauri://created", () => resolve());
    void window.once<string>("tauri://error", (e) => reject(new Error(`The picture's window could not be opened: ${e.payload}`)));
  });
  await window.once("tauri://destroyed", () => closed());
}

/** Closes the picture's window, if it is open. */
export async function closePictureWindow(): Promise<void> {
  await (await WebviewWindow.getByLabel(PICTURE_WINDOW))?.close();
}

/** Tells the picture window where the playhead is. */
export function followInWindow(follow: PictureFollow): void {
  void emitTo(PICTURE_WINDOW, PICTURE_FOLLOW_EVENT, follow).catch(() => {});
}
