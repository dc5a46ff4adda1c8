import { describe, expect, it } from "vitest";
import { MIN_SEGMENT_SECONDS, changed, dragPreview, isDrag, type SegmentDrag } from "./drag";
import type { SnapTarget } from "./snap";

const drag = (part: SegmentDrag["part"]): SegmentDrag => ({ id: 1, part, originStart: 10, originEnd: 12, pointerOrigin: 11 });
const edge = (time: number): SnapTarget => ({ time, kind: "edge" });

describe("dragging a line", () => {
  it("moves it by the pointer's travel, keeping its length", () => {
    expect(dragPreview(drag("body"), 11.5, [], 100)).toEqual({ start: 10.5, end: 12.5, snap: null });
  });

  it("snaps a moved line to a nearby edge", () => {
    const preview = dragPreview(drag("body"), 11.53, [edge(12.5)], 100);
    expect(preview.start).toBeCloseTo(10.5, 9);
    expect(preview.end).toBeCloseTo(12.5, 9);
    expect(preview.snap).toEqual(edge(12.5));
  });

  it("never moves a line before the programme's start", () => {
    expect(dragPreview(drag("body"), 0, [], 100)).toMatchObject({ start: 0, end: 2 });
  });

  it("resizes by the start or end edge, leaving the other where it was", () => {
    expect(dragPreview(drag("start-edge"), 10.5, [], 100)).toEqual({ start: 9.5, end: 12, snap: null });
    expect(dragPreview(drag("end-edge"), 11.25, [], 100)).toEqual({ start: 10, end: 12.25, snap: null });
    expect(dragPreview(drag("end-edge"), 11.27, [edge(12.3)], 100)).toEqual({ start: 10, end: 12.3, snap: edge(12.3) });
  });

  it("never makes a line shorter than the minimum, from either edge", () => {
    expect(dragPreview(drag("start-edge"), 20, [], 100).start).toBeCloseTo(12 - MIN_SEGMENT_SECONDS, 9);
    expect(dragPreview(drag("end-edge"), 0, [], 100).end).toBeCloseTo(10 + MIN_SEGMENT_SECONDS, 9);
  });

  it("counts small pointer wobble as a click and unchanged drops as no change", () => {
    expect(isDrag(1, 1)).toBe(false);
    expect(isDrag(3, 0)).toBe(true);
    expect(changed(drag("body"), { start: 10, end: 12, snap: null })).toBe(false);
    expect(changed(drag("body"), { start: 10.01, end: 12.01, snap: null })).toBe(true);
  });
});
