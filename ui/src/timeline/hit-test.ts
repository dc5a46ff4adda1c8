// What is under the pointer: a line's body or one of its edge handles, the
// ruler, an empty stretch of a lane, the bed strip or a lane header. The
// selected line wins where blocks overlap, then the one drawn on top. Pure.
import type { Segment } from "../model";
import { blockBox, laneAtY, laneIndexOf, type TimelineLayout } from "./layout";
import { timeToX, xToTime, type TimeScale } from "./scale";
import type { SegmentIndex } from "./segment-index";

/** Width of the grab zone at each end of a block. */
export const EDGE_HANDLE_PX = 6;

export type SegmentPart = "body" | "start-edge" | "end-edge";

export type Hit =
  | { kind: "segment"; id: number; part: SegmentPart; laneIndex: number }
  | { kind: "ruler"; time: number }
  | { kind: "lane"; laneIndex: number; time: number }
  /** The waveform strips under the lanes (original dialogue, bed). */
  | { kind: "bed"; time: number }
  | { kind: "header"; laneIndex: number }
  | { kind: "none" };

/** The part of a block at `x`, given the block's left and right pixels:
 * handles of EDGE_HANDLE_PX at each end, narrowed to a third each on small
 * blocks so the body can still be grabbed. Null when `x` is outside. */
export function blockPartAt(x: number, left: number, right: number): SegmentPart | null {
  if (x < left || x > right) return null;
  const handle = Math.min(EDGE_HANDLE_PX, (right - left) / 3);
  if (x <= left + handle) return "start-edge";
  if (x >= right - handle) return "end-edge";
  return "body";
}

export interface HitContext {
  layout: TimelineLayout;
  scale: TimeScale;
  index: SegmentIndex;
  selectedId: number | null;
}

/** What lies at (x, y) in the timeline's own pixels (x includes the lane
 * headers on the left). */
export function hitTest(x: number, y: number, ctx: HitContext): Hit {
  const { layout, scale } = ctx;
  const laneX = x - layout.headerWidth;
  if (y < 0 || y >= layout.height) return { kind: "none" };
  if (y < layout.rulerHeight) return laneX < 0 ? { kind: "none" } : { kind: "ruler", time: xToTime(scale, laneX) };
  const laneIndex = laneAtY(layout, y);
  if (laneX < 0) return laneIndex >= 0 ? { kind: "header", laneIndex } : { kind: "none" };
  const time = xToTime(scale, laneX);
  if (laneIndex < 0) return y >= layout.bed.y ? { kind: "bed", time } : { kind: "none" };

  const box = blockBox(layout.lanes[laneIndex]);
  if (y >= box.y && y < box.y + box.height) {
    const slack = EDGE_HANDLE_PX / scale.pxPerSecond;
    const inLane = (s: Segment) => laneIndexOf(layout, s.speakerId) === laneIndex;
    const candidates = ctx.index.visible(time - slack, time + slack).filter(inLane);
    const ordered = [
      ...candidates.filter((s) => s.id === ctx.selectedId),
      ...candidates.filter((s) => s.id !== ctx.selectedId).reverse(),
    ];
    for (const s of ordered) {
      const part = blockPartAt(laneX, timeToX(scale, s.start), timeToX(scale, s.end));
      if (part) return { kind: "segment", id: s.id, part, laneIndex };
    }
  }
  return { kind: "lane", laneIndex, time };
}
