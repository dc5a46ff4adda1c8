// What is under the pointer: a line's body or one of its edge handles, a
// marker on the ruler, the ruler, an empty stretch of a lane, the bed
// strip, or a lane header and which of its controls (S, M, level). The
// selected line wins where blocks overlap, then the one drawn on top; the
// later marker wins where flags overlap. Pure.
import type { Segment } from "../model";
import { blockBox, laneAtY, laneControlAt, laneIndexOf, type LaneControl, type TimelineLayout } from "./layout";
import { MARKER_FLAG_MAX_PX, MARKER_GRAB_PX, onMarker, type MarkerList } from "./markers";
import { timeToX, xToTime, type TimeScale } from "./scale";
import type { SegmentIndex } from "./segment-index";

/** Width of the grab zone at each end of a block. */
export const EDGE_HANDLE_PX = 6;

export type SegmentPart = "body" | "start-edge" | "end-edge";

export type Hit =
  | { kind: "segment"; id: number; part: SegmentPart; laneIndex: number }
  | { kind: "marker"; id: number; at: number }
  | { kind: "ruler"; time: number }
  | { kind: "lane"; laneIndex: number; time: number }
  /** The waveform strips under the lanes (original dialogue, bed). */
  | { kind: "bed"; time: number }
  /** A lane's header; `control` the S, M or level control under the pointer. */
  | { kind: "header"; laneIndex: number; control: LaneControl | null }
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
  /** The markers on the ruler (none when absent). */
  markers?: MarkerList;
}

/** The marker under (laneX, y) on the ruler, the latest where flags overlap. */
export function markerAt(laneX: number, y: number, ctx: HitContext): { id: number; at: number } | null {
  const markers = ctx.markers;
  if (!markers || markers.length === 0) return null;
  const { scale, layout } = ctx;
  const from = xToTime(scale, laneX - MARKER_GRAB_PX);
  const to = xToTime(scale, laneX + MARKER_GRAB_PX);
  const [first, last] = markers.visibleRange(from, to, MARKER_FLAG_MAX_PX / scale.pxPerSecond);
  for (let i = last - 1; i >= first; i--) {
    const m = markers.markers[i];
    if (onMarker(laneX, y, timeToX(scale, m.at), m.name, layout.rulerHeight)) return { id: m.id, at: m.at };
  }
  return null;
}

/** What lies at (x, y) in the timeline's own pixels (x includes the lane
 * headers on the left). */
export function hitTest(x: number, y: number, ctx: HitContext): Hit {
  const { layout, scale } = ctx;
  const laneX = x - layout.headerWidth;
  if (y < 0 || y >= layout.height) return { kind: "none" };
  if (y < layout.rulerHeight) {
    if (laneX < 0) return { kind: "none" };
    const marker = markerAt(laneX, y, ctx);
    return marker ? { kind: "marker", ...marker } : { kind: "ruler", time: xToTime(scale, laneX) };
  }
  const laneIndex = laneAtY(layout, y);
  if (laneX < 0) {
    if (laneIndex < 0) return { kind: "none" };
    return { kind: "header", laneIndex, control: laneControlAt(layout.lanes[laneIndex], layout.headerWidth, x, y) };
  }
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
