// The editor's pane sizes: the side column's width (picture above the
// inspector) and the script's height above the timeline. Each is dragged by
// a splitter (or moved by its arrow keys), kept within its pane's minimum
// and the room the others need, and remembered per user in local storage.
// The clamping rules are pure; `splitter` makes the draggable element.
import { el } from "../dom";

/** Pane sizes in CSS pixels. */
export interface PaneSizes {
  /** The side column (picture and inspector). */
  side: number;
  /** The script, above the timeline; null until the user sets it (then
   * it takes SCRIPT_SHARE of the main column). */
  script: number | null;
}

export const DEFAULT_PANES: PaneSizes = { side: 360, script: null };
/** The share of the main column's height the script takes until it is dragged. */
export const SCRIPT_SHARE = 0.42;
/** The least each pane keeps, px. */
export const MIN_SIDE = 280;
export const MIN_SCRIPT = 96;
export const MIN_TIMELINE_WIDTH = 320;
export const MIN_TIMELINE_HEIGHT = 160;
/** How far one arrow key moves a splitter, px. */
export const KEY_STEP = 16;
const STORAGE_KEY = "revoice.editor.panes";

/** The side column's width in a body `bodyWidth` wide. Left alone, it never
 * takes more than half, so the timeline keeps at least half the width; a
 * width the user dragged to may go further, as long as the timeline keeps
 * its minimum. */
export function clampSide(side: number, bodyWidth: number, dragged = false): number {
  const most = dragged ? bodyWidth - MIN_TIMELINE_WIDTH : bodyWidth / 2;
  return Math.round(Math.max(MIN_SIDE, Math.min(side, Math.max(MIN_SIDE, most))));
}

/** The script's height in a main column `mainHeight` tall (null: its
 * share of the column): the timeline keeps its minimum. */
export function clampScript(script: number | null, mainHeight: number): number {
  script ??= mainHeight * SCRIPT_SHARE;
  return Math.round(Math.max(MIN_SCRIPT, Math.min(script, Math.max(MIN_SCRIPT, mainHeight - MIN_TIMELINE_HEIGHT))));
}

/** The sizes remembered for this user, or the defaults (a damaged entry is ignored). */
export function loadPanes(storage: Pick<Storage, "getItem"> | null = safeStorage()): PaneSizes {
  try {
    const saved = JSON.parse(storage?.getItem(STORAGE_KEY) ?? "null") as Partial<PaneSizes> | null;
    const size = <T>(value: unknown, fallback: T) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback);
    return { side: size(saved?.side, DEFAULT_PANES.side), script: saved?.script === undefined || saved.script === null ? null : size(saved.script, DEFAULT_PANES.script) };
  } catch {
    return { ...DEFAULT_PANES };
  }
}

/** Remembers the sizes for the next time the editor opens. */
export function savePanes(sizes: PaneSizes, storage: Pick<Storage, "setItem"> | null = safeStorage()): void {
  try {
    storage?.setItem(STORAGE_KEY, JSON.stringify(sizes));
  } catch {
    // A full or refused storage only loses the remembered sizes.
  }
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** A splitter between two panes. `axis` "x" resizes widths (a vertical
 * bar), "y" heights. `drag(delta)` gets the pointer's movement since the
 * press (px; positive right or down) and `done()` is called on release;
 * the arrow keys move it by KEY_STEP (a drag of one step, then done). */
export function splitter(axis: "x" | "y", label: string, drag: (delta: number) => void, done: () => void): HTMLElement {
  const bar = el("div", {
    class: `splitter splitter--${axis}`,
    role: "separator",
    tabindex: "0",
    "aria-label": label,
    "aria-orientation": axis === "x" ? "vertical" : "horizontal",
  });
  bar.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    const origin = axis === "x" ? e.clientX : e.clientY;
    bar.setPointerCapture?.(e.pointerId);
    bar.classList.add("splitter--dragging");
    const move = (m: PointerEvent) => drag((axis === "x" ? m.clientX : m.clientY) - origin);
    const up = () => {
      bar.removeEventListener("pointermove", move);
      bar.removeEventListener("pointerup", up);
      bar.removeEventListener("pointercancel", up);
      bar.classList.remove("splitter--dragging");
      done();
    };
    bar.addEventListener("pointermove", move);
    bar.addEventListener("pointerup", up);
    bar.addEventListener("pointercancel", up);
  });
  bar.addEventListener("keydown", (e) => {
    const back = axis === "x" ? "ArrowLeft" : "ArrowUp";
    const on = axis === "x" ? "ArrowRight" : "ArrowDown";
    if (e.key !== back && e.key !== on) return;
    e.preventDefault();
    e.stopPropagation();
    drag(e.key === on ? KEY_STEP : -KEY_STEP);
    done();
  });
  return bar;
}
