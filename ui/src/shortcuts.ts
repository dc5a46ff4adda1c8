// The editor's keyboard shortcuts, listed once: shown by "?" in the editor
// and by Help → Keyboard Shortcuts (F1) from anywhere in the app.
import { el } from "./dom";

/** Each shortcut and what it does. */
export const SHORTCUTS: readonly [string, string][] = [
  ["Space", "Play / pause"],
  ["J / K / L", "Back 5 s / pause / play (again: ahead 5 s)"],
  ["← / →", "Previous / next line"],
  ["Ctrl+Z / Ctrl+Shift+Z", "Undo / redo"],
  [", / .", "Nudge the selected line a frame earlier / later (Shift: ten frames)"],
  ["Alt+, / Alt+.", "Nudge its in edge a frame"],
  ["Ctrl+, / Ctrl+.", "Nudge its out edge a frame"],
  ["M", "Add a marker at the playhead (renamed in the marker list)"],
  ["Delete", "Delete the selected line"],
  ["Escape", "Deselect the line (or close the dialog)"],
  ["Ctrl+Enter", "Render the selected line (all stale lines when none is selected)"],
  ["Ctrl+wheel", "Zoom under the pointer"],
  ["Lane header: S / M, wheel or drag on dB", "Solo / mute the lane, change its level (double-click: 0 dB)"],
  ["Picture window: F or double-click", "Full screen (Escape leaves it)"],
  ["Position field: a timecode, Enter", "Go there (Escape puts the playhead's back)"],
  ["? or F1", "This list"],
];

/** Shows the list over `root`, or takes it away when it is shown; a click on it closes it. */
export function toggleShortcuts(root: HTMLElement): void {
  const open = root.querySelector(".help-overlay");
  if (open) return open.remove();
  const overlay = el(
    "div",
    { class: "help-overlay", role: "dialog", "aria-label": "Keyboard shortcuts" },
    el("h2", {}, "Keyboard shortcuts"),
    el("table", {}, ...SHORTCUTS.map(([key, what]) => el("tr", {}, el("td", {}, el("kbd", {}, key)), el("td", {}, what)))),
  );
  overlay.addEventListener("click", () => overlay.remove());
  root.append(overlay);
}
