// The script's measurement hook: given a mounted script view, scrolls it
// from the first row to the last, one step per animation frame, and
// reports how long the view took to draw each frame, how far apart the
// frames came and how many row elements the DOM held. The bench page and
// the end-to-end test call it; nothing here asserts a time.
import { summarize, type TimingSummary } from "../timeline/frame-stats";
import type { ScriptView } from "./script-view";

export interface ScriptMeasureOptions {
  /** Animation frames to run. Default 600. */
  frames?: number;
}

export interface ScriptFrameStats {
  frames: number;
  /** Rows scrolled through. */
  rows: number;
  /** Scrolled per frame, px. */
  pxPerFrame: number;
  /** The view's own drawing per frame (script time inside the frame). */
  draw: TimingSummary;
  /** Time between consecutive animation frames (about 16.7 ms at 60 Hz
   * when nothing is dropped). */
  interval: TimingSummary;
  /** From the last setProject to the end of its first draw, ms. */
  firstPaintMs: number | null;
  /** Frames whose interval exceeded 1.5 × the median interval. */
  droppedFrames: number;
  /** The same window's frame interval with nothing drawn: the baseline. */
  idleInterval: TimingSummary;
  /** The most row elements in the DOM at once during the sweep. */
  maxDomRows: number;
}

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));

/** Scrolls top to bottom over `frames` frames and returns the frame
 * statistics; scrolls back where it was and turns following back on if it
 * was (which brings the playhead's row into view again). */
export async function measureScript(view: ScriptView, options: ScriptMeasureOptions = {}): Promise<ScriptFrameStats> {
  const frames = Math.max(2, options.frames ?? 600);
  const firstPaintMs = await firstPaint(view);
  const idle: number[] = [];
  let last = await nextFrame();
  for (let i = 1; i < Math.min(60, frames); i++) {
    const now = await nextFrame();
    idle.push(now - last);
    last = now;
  }
  const saved = { top: view.scrollTop, follow: view.follow };
  view.setFollow(false);
  const end = view.maxScroll;
  const draws: number[] = [];
  const intervals: number[] = [];
  let maxDomRows = 0;
  let previous: number | null = null;
  for (let i = 0; i < frames; i++) {
    const now = await nextFrame();
    if (previous !== null) intervals.push(now - previous);
    previous = now;
    view.scrollTo((end * i) / (frames - 1));
    draws.push(view.flush());
    maxDomRows = Math.max(maxDomRows, view.paintStats.domRows);
  }
  view.scrollTo(saved.top);
  view.setFollow(saved.follow);

  const median = [...intervals].sort((a, b) => a - b)[Math.floor(intervals.length / 2)] ?? 0;
  return {
    frames,
    rows: view.rowCount,
    pxPerFrame: Math.round((end / (frames - 1)) * 10) / 10,
    draw: summarize(draws),
    interval: summarize(intervals),
    firstPaintMs,
    droppedFrames: intervals.filter((ms) => ms > median * 1.5).length,
    idleInterval: summarize(idle),
    maxDomRows,
  };
}

/** Waits for the first draw after setProject, if it has not happened. */
async function firstPaint(view: ScriptView): Promise<number | null> {
  for (let i = 0; i < 10 && view.paintStats.firstPaintMs === null; i++) await nextFrame();
  return view.paintStats.firstPaintMs;
}
