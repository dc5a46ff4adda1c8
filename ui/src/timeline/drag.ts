// The arithmetic of dragging a line: moving it (its length kept), or
// resizing it by an edge (never shorter than MIN_SEGMENT_SECONDS, never
// before 0), with snapping applied and then, at a frame rate, the moved
// edge rounded to its nearest frame; dragging a single time (a marker)
// the same way; and when a press counts as a drag. Pure.
import { frameAtOrAfter, frameAtOrBefore, frameTime, roundToFrame } from "./frames";
import { snapMove, snapTime, type SnapResult, type SnapTarget } from "./snap";
import type { SegmentPart } from "./hit-test";

/** No line gets shorter than this by resizing. */
export const MIN_SEGMENT_SECONDS = 0.1;
/** A press that moves less than this is a click, not a drag. */
export const DRAG_THRESHOLD_PX = 3;

export interface SegmentDrag {
  id: number;
  part: SegmentPart;
  /** The slot when the drag began. */
  originStart: number;
  originEnd: number;
  /** Programme time under the pointer when the drag began. */
  pointerOrigin: number;
}

export interface DragPreview {
  start: number;
  end: number;
  /** What the dragged edge snapped to, for the guide line. */
  snap: SnapResult["target"];
}

/** Where the line would be with the pointer at `pointerTime`. `targets`
 * is empty when snapping is off; `fps`, when given, rounds the moved edge
 * (after snapping) to the nearest frame: the caller passes it only while
 * snapping is on. A moved line keeps its length: the edge that snapped (the
 * start when none did) lands on the frame. */
export function dragPreview(
  drag: SegmentDrag,
  pointerTime: number,
  targets: readonly SnapTarget[],
  pxPerSecond: number,
  fps: number | null = null,
): DragPreview {
  const delta = pointerTime - drag.pointerOrigin;
  const duration = drag.originEnd - drag.originStart;
  const onFrame = (t: number) => (fps ? roundToFrame(t, fps) : t);
  switch (drag.part) {
    case "body": {
      const snapped = snapMove(drag.originStart + delta, duration, targets, pxPerSecond);
      const byEnd = snapped.target !== null && Math.abs(snapped.target.time - (snapped.time + duration)) < 1e-9;
      const wanted = byEnd ? onFrame(snapped.time + duration) - duration : onFrame(snapped.time);
      const start = Math.max(0, wanted);
      return { start, end: start + duration, snap: start === wanted ? snapped.target : null };
    }
    case "start-edge": {
      const snapped = snapTime(drag.originStart + delta, targets, pxPerSecond);
      const wanted = onFrame(snapped.time);
      const limit = drag.originEnd - MIN_SEGMENT_SECONDS;
      const latest = fps && wanted > limit ? frameTime(frameAtOrBefore(limit, fps), fps) : limit;
      const start = Math.min(latest, Math.max(0, wanted));
      return { start, end: drag.originEnd, snap: start === wanted ? snapped.target : null };
    }
    case "end-edge": {
      const snapped = snapTime(drag.originEnd + delta, targets, pxPerSecond);
      const wanted = onFrame(snapped.time);
      const limit = drag.originStart + MIN_SEGMENT_SECONDS;
      const earliest = fps && wanted < limit ? frameTime(frameAtOrAfter(limit, fps), fps) : limit;
      const end = Math.max(earliest, wanted);
      return { start: drag.originStart, end, snap: end === wanted ? snapped.target : null };
    }
  }
}

/** A single time dragged (a marker): snapped, then rounded to the frame,
 * and kept within [0, `length`]. */
export function dragTime(
  time: number,
  targets: readonly SnapTarget[],
  pxPerSecond: number,
  fps: number | null,
  length: number,
): SnapResult {
  const snapped = snapTime(time, targets, pxPerSecond);
  const wanted = fps ? roundToFrame(snapped.time, fps) : snapped.time;
  const at = Math.max(0, Math.min(Math.max(0, length), wanted));
  return { time: at, target: at === wanted ? snapped.target : null };
}

/** Whether the pointer has gone far enough from where it was pressed. */
export function isDrag(dx: number, dy: number): boolean {
  return Math.hypot(dx, dy) >= DRAG_THRESHOLD_PX;
}

/** Whether a preview differs from where the line was (so the drop is an
 * intent and not a no-op). */
export function changed(drag: SegmentDrag, preview: DragPreview): boolean {
  return Math.abs(preview.start - drag.originStart) > 1e-6 || Math.abs(preview.end - drag.originEnd) > 1e-6;
}
