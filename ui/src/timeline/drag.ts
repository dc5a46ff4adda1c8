// The arithmetic of dragging a line: moving it (its length kept), or
// resizing it by an edge (never shorter than MIN_SEGMENT_SECONDS, never
// before 0), with snapping applied; and when a press counts as a drag.
// Pure.
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
 * is empty when snapping is off. */
export function dragPreview(
  drag: SegmentDrag,
  pointerTime: number,
  targets: readonly SnapTarget[],
  pxPerSecond: number,
): DragPreview {
  const delta = pointerTime - drag.pointerOrigin;
  const duration = drag.originEnd - drag.originStart;
  switch (drag.part) {
    case "body": {
      const snapped = snapMove(drag.originStart + delta, duration, targets, pxPerSecond);
      const start = Math.max(0, snapped.time);
      return { start, end: start + duration, snap: start === snapped.time ? snapped.target : null };
    }
    case "start-edge": {
      const snapped = snapTime(drag.originStart + delta, targets, pxPerSecond);
      const start = Math.min(drag.originEnd - MIN_SEGMENT_SECONDS, Math.max(0, snapped.time));
      return { start, end: drag.originEnd, snap: start === snapped.time ? snapped.target : null };
    }
    case "end-edge": {
      const snapped = snapTime(drag.originEnd + delta, targets, pxPerSecond);
      const end = Math.max(drag.originStart + MIN_SEGMENT_SECONDS, snapped.time);
      return { start: drag.originStart, end, snap: end === snapped.time ? snapped.target : null };
    }
  }
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
