// Snapping while a line (or a marker) is dragged or resized: to other
// lines' edges, the original dialogue's speech onsets and offsets, the
// playhead and ruler ticks, within a pixel tolerance, and only when
// snapping is on. Pure.
import type { Segment } from "../model";
import { TICK_STEPS, divides, tickSpacing, tickTimes } from "./ruler";
import { lowerBound } from "./speech-bounds";

export type SnapKind = "edge" | "speech" | "playhead" | "tick";

export interface SnapTarget {
  time: number;
  kind: SnapKind;
}

/** Pixels within which a dragged edge jumps to a target. */
export const SNAP_TOLERANCE_PX = 8;

/** Ties go to the more meaningful target: a line's edge, then where the
 * original dialogue starts or stops speaking, then the playhead, then a tick. */
const PRIORITY: Record<SnapKind, number> = { edge: 0, speech: 1, playhead: 2, tick: 3 };

export interface SnapResult {
  time: number;
  /** The target snapped to; null when none was close enough. */
  target: SnapTarget | null;
}

/** The closest target to `time` within `tolerancePx` at this zoom, or
 * `time` unchanged. */
export function snapTime(
  time: number,
  targets: readonly SnapTarget[],
  pxPerSecond: number,
  tolerancePx = SNAP_TOLERANCE_PX,
): SnapResult {
  let best: SnapTarget | null = null;
  let bestPx = Infinity;
  for (const target of targets) {
    const px = Math.abs(target.time - time) * pxPerSecond;
    if (px > tolerancePx) continue;
    if (px < bestPx - 1e-9 || (Math.abs(px - bestPx) <= 1e-9 && best && PRIORITY[target.kind] < PRIORITY[best.kind])) {
      best = target;
      bestPx = px;
    }
  }
  return best ? { time: best.time, target: best } : { time, target: null };
}

/** Moving a whole line: whichever of its two edges lands closer to a
 * target decides; the line keeps its length. Returns the new start. */
export function snapMove(
  start: number,
  duration: number,
  targets: readonly SnapTarget[],
  pxPerSecond: number,
  tolerancePx = SNAP_TOLERANCE_PX,
): SnapResult {
  const byStart = snapTime(start, targets, pxPerSecond, tolerancePx);
  const byEnd = snapTime(start + duration, targets, pxPerSecond, tolerancePx);
  if (!byEnd.target) return byStart;
  if (!byStart.target) return { time: byEnd.time - duration, target: byEnd.target };
  const startPx = Math.abs(byStart.time - start);
  const endPx = Math.abs(byEnd.time - (start + duration));
  return endPx < startPx ? { time: byEnd.time - duration, target: byEnd.target } : byStart;
}

/** What a dragged line may snap to in the visible span: the edges of the
 * other lines (not the dragged one), the original dialogue's speech
 * boundaries (sorted times; only those in the span are taken), the
 * playhead, and the ruler's ticks on the grid `tickGrid` picks for this zoom. */
export function snapTargets(options: {
  segments: readonly Segment[];
  excludeId: number | null;
  playhead: number | null;
  pxPerSecond: number;
  from: number;
  to: number;
  speech?: readonly number[];
}): SnapTarget[] {
  const targets: SnapTarget[] = [];
  for (const s of options.segments) {
    if (s.id === options.excludeId) continue;
    targets.push({ time: s.start, kind: "edge" }, { time: s.end, kind: "edge" });
  }
  const speech = options.speech ?? [];
  for (let i = lowerBound(speech, options.from); i < speech.length && speech[i] <= options.to; i++) {
    targets.push({ time: speech[i], kind: "speech" });
  }
  if (options.playhead !== null) targets.push({ time: options.playhead, kind: "playhead" });
  const grid = tickGrid(options.pxPerSecond);
  for (const time of tickTimes(Math.max(0, options.from), options.to, grid)) targets.push({ time, kind: "tick" });
  return targets;
}

/** The ticks a line snaps to at a zoom, seconds apart: the finest round
 * step that divides the labelled spacing and is at least three tolerances
 * wide, so a drag can still land between them. */
export function tickGrid(pxPerSecond: number, tolerancePx = SNAP_TOLERANCE_PX): number {
  const { major } = tickSpacing(pxPerSecond);
  return TICK_STEPS.find((s) => s <= major && s * pxPerSecond >= 3 * tolerancePx && divides(s, major)) ?? major;
}
