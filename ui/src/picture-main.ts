// Boots the picture's own window (picture.html): the project's video,
// full-window, following the engine's playhead from its playback events
// and the editor's seeks. F or a double-click toggles full screen; Escape
// leaves it. The sound stays the engine's.
import "./styles.css";
import { listen } from "@tauri-apps/api/event";
import { getCurrentWindow } from "@tauri-apps/api/window";
import * as engine from "./engine";
import { frameRate } from "./timecode";
import { PicturePane } from "./views/picture";
import { PICTURE_FOLLOW_EVENT, pictureWindowParams, type PictureFollow } from "./views/picture-window";

const host = document.getElementById("picture-window")!;
const params = pictureWindowParams(location.search);
if (!params) {
  host.textContent = "This window shows a project's picture: open it from the editor.";
} else {
  const { projectId, name, rate, timecode } = params;
  const pane = new PicturePane();
  host.append(pane.element);
  pane.setTimecode(timecode ? frameRate(rate) : null);
  void pane.load(projectId, name);
  void engine.onStudioEvent((event) => {
    if (event.kind === "playback" && event.projectId === projectId) pane.follow(event.position, event.playing, event.length, event.looping);
  });
  void listen<PictureFollow>(PICTURE_FOLLOW_EVENT, ({ payload }) => {
    if (payload.projectId !== projectId) return;
    pane.follow(payload.position, payload.playing, payload.length, payload.looping);
    pane.setTimecode(payload.timecode === null ? null : frameRate(payload.timecode));
  });
  const fullScreen = async (on?: boolean) => {
    const window = getCurrentWindow();
    await window.setFullscreen(on ?? !(await window.isFullscreen()));
  };
  document.addEventListener("keydown", (e) => {
    if (e.key === "f" || e.key === "F") void fullScreen();
    else if (e.key === "Escape") void fullScreen(false);
  });
  pane.video.addEventListener("dblclick", () => void fullScreen());
  pane.video.title = "Double-click or press F for full screen";
}
