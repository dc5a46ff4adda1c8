// The frame grid edits land on: a frame rate given as frames per second
// (23.976 read as 24000/1001, 29.97 as 30000/1001), times rounded to its
// nearest frame, whole-frame steps, and times written as timecode at it
// (hh:mm:ss:ff, drop-frame where the project's rate says so). Pure.
import { FRAME_RATES, fps as rateFps, formatFrame, type FrameRate } from "../timecode";

export interface FrameGrid {
  /** Frames per second of real time (exact for the NTSC rates). */
  fps: number;
  /** The named rate it is, for timecode labels; null for a rate the studio
   * does not name (e.g. 50), written with a nominal frame count. */
  rate: FrameRate | null;
}

/** The exact rate a typed one means: 23.976 → 24000/1001, 29.97 →
 * 30000/1001, 59.94 → 60000/1001; whole rates as they are. Anything not
 * finite and positive is 25. */
export function exactFps(fps: number): number {
  if (!Number.isFinite(fps) || fps <= 0) return 25;
  if (Number.isInteger(fps)) return fps;
  const whole = Math.round(fps * 1.001);
  const ntsc = (whole * 1000) / 1001;
  return Math.abs(ntsc - fps) < 0.005 ? ntsc : fps;
}

/** The grid for `fps` frames per second. `hint`, the project's named rate,
 * is kept when it runs at the same speed (so 29.97 stays drop-frame when
 * the project is). */
export function frameGrid(fps: number, hint?: FrameRate | null): FrameGrid {
  const exact = exactFps(fps);
  const same = (r: FrameRate) => Math.abs(rateFps(r) - exact) < 1e-6;
  const rate = hint && same(hint) ? hint : FRAME_RATES.find((r) => same(r) && r !== "29.97df") ?? null;
  return { fps: exact, rate };
}

/** The grid of a project's named rate. */
export function gridOfRate(rate: FrameRate): FrameGrid {
  return { fps: rateFps(rate), rate };
}

/** The nearest frame number to `seconds`. */
export function nearestFrame(seconds: number, fps: number): number {
  return Math.round(seconds * fps);
}

/** The time frame `frame` starts at. */
export function frameTime(frame: number, fps: number): number {
  return frame / fps;
}

/** `seconds` moved to the nearest frame boundary. */
export function roundToFrame(seconds: number, fps: number): number {
  return frameTime(nearestFrame(seconds, fps), fps);
}

/** The last frame boundary at or before `seconds`. */
export function frameAtOrBefore(seconds: number, fps: number): number {
  return Math.floor(seconds * fps + 1e-9);
}

/** The first frame boundary at or after `seconds`. */
export function frameAtOrAfter(seconds: number, fps: number): number {
  return Math.ceil(seconds * fps - 1e-9);
}

/** `seconds` as timecode at the grid: the frame it falls in (times on a
 * boundary, up to float error, count as that frame). */
export function formatFrameTime(seconds: number, grid: FrameGrid): string {
  const frame = seconds > 0 ? Math.floor(seconds * grid.fps + 1e-6) : 0;
  if (grid.rate) return formatFrame(frame, grid.rate);
  const perSecond = Math.max(1, Math.round(grid.fps));
  const total = Math.floor(frame / perSecond);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(total / 3600))}:${two(Math.floor(total / 60) % 60)}:${two(total % 60)}:${two(frame % perSecond)}`;
}
