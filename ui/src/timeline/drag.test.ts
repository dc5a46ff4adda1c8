// Dragging a line or a marker: travel, snapping, frame rounding, limits, click vs drag.
import { describe, expect, it } from "vitest";
import { MIN_SEGMENT_SECONDS, changed, dragPreview, dragTime, isDrag, type SegmentDrag } from "./drag";
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

describe("dragging at a frame rate", () => {
  it("rounds the moved edge to the nearest frame", () => {
    // 25 fps: frames are 0.04 s. 9.5 + 0.013 lands on frame 238 (9.52).
    expect(dragPreview(drag("start-edge"), 10.513, [], 100, 25)).toEqual({ start: 238 / 25, end: 12, snap: null });
    expect(dragPreview(drag("end-edge"), 11.255, [], 100, 25)).toEqual({ start: 10, end: 306 / 25, snap: null });
  });

  it("moves a line's start onto a frame, keeping its length", () => {
    const moved = dragPreview(drag("body"), 11.513, [], 100, 25);
    expect(moved.start).toBe(263 / 25);
    expect(moved.end - moved.start).toBeCloseTo(2, 9);
  });

  it("snaps to a target first, then to the frame nearest it, keeping the guide", () => {
    const speech: SnapTarget = { time: 12.31, kind: "speech" };
    const resized = dragPreview(drag("end-edge"), 11.28, [speech], 100, 25);
    expect(resized.end).toBe(308 / 25);
    expect(resized.snap).toEqual(speech);
    // A moved line that snapped by its end puts the end on the frame.
    const moved = dragPreview(drag("body"), 11.3, [speech], 100, 25);
    expect(moved.end).toBeCloseTo(308 / 25, 9);
    expect(moved.snap).toEqual(speech);
  });

  it("keeps the minimum length on the frame grid", () => {
    const start = dragPreview(drag("start-edge"), 20, [], 100, 25).start;
    expect(start).toBe(297 / 25);
    expect(12 - start).toBeGreaterThanOrEqual(MIN_SEGMENT_SECONDS);
    const end = dragPreview(drag("end-edge"), 0, [], 100, 25).end;
    expect(end).toBe(253 / 25);
  });
});

describe("dragging a single time (a marker)", () => {
  it("snaps, rounds to the frame and stays within the programme", () => {
    expect(dragTime(5.013, [], 100, 25, 60)).toEqual({ time: 5.0, target: null });
    expect(dragTime(5.05, [edge(5.11)], 100, 25, 60)).toEqual({ time: 128 / 25, target: edge(5.11) });
    expect(dragTime(5.013, [], 100, null, 60)).toEqual({ time: 5.013, target: null });
    expect(dragTime(-3, [], 100, 25, 60).time).toBe(0);
    expect(dragTime(70, [], 100, 25, 60).time).toBe(60);
  });
});
