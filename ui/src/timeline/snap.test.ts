// Snapping: tolerance, priorities (edge, speech, playhead, tick), the targets in view.
import { describe, expect, it } from "vitest";
import { line } from "./synthetic";
import { tickSpacing } from "./ruler";
import { ZOOM_LEVELS } from "./scale";
import { SNAP_TOLERANCE_PX, snapMove, snapTargets, snapTime, tickGrid, type SnapTarget } from "./snap";

const edge = (time: number): SnapTarget => ({ time, kind: "edge" });

describe("snapping a time", () => {
  it("jumps to a target within the pixel tolerance and not beyond", () => {
    const targets = [edge(10)];
    // 100 px/s: 8 px is 0.08 s.
    expect(snapTime(10.07, targets, 100)).toEqual({ time: 10, target: edge(10) });
    expect(snapTime(10.09, targets, 100)).toEqual({ time: 10.09, target: null });
  });

  it("measures the tolerance in pixels, so it widens in time as the view widens", () => {
    const targets = [edge(10)];
    expect(snapTime(10.5, targets, 100).target).toBeNull();
    expect(snapTime(10.5, targets, 10).target).toEqual(edge(10));
  });

  it("takes the closest target, and a line's edge over a tick at the same place", () => {
    const targets: SnapTarget[] = [{ time: 5, kind: "tick" }, edge(5.05), { time: 5.02, kind: "playhead" }];
    expect(snapTime(5.03, targets, 100).target).toEqual({ time: 5.02, kind: "playhead" });
    const tie: SnapTarget[] = [{ time: 7, kind: "tick" }, { time: 7, kind: "playhead" }, edge(7)];
    expect(snapTime(7.01, tie, 100).target).toEqual(edge(7));
  });

  it("does nothing with no targets (snapping off)", () => {
    expect(snapTime(3.3333, [], 100)).toEqual({ time: 3.3333, target: null });
  });
});

describe("snapping a moved line", () => {
  it("snaps by whichever edge is closer and keeps the length", () => {
    const targets = [edge(10), edge(20)];
    // Start 10.06 is 6 px from 10; end 19.98 is 2 px from 20: the end wins.
    const moved = snapMove(10.06, 9.92, targets, 100);
    expect(moved.time).toBeCloseTo(10.08, 9);
    expect(moved.target).toEqual(edge(20));
    expect(snapMove(10.03, 5, targets, 100).time).toBe(10);
    expect(snapMove(12, 5, targets, 100).target).toBeNull();
  });
});

describe("snap targets", () => {
  it("has other lines' edges, the playhead and the ruler's ticks, not the dragged line's own edges", () => {
    const segments = [line({ id: 1, start: 1, end: 2 }), line({ id: 2, start: 3.33, end: 4.44 })];
    const targets = snapTargets({ segments, excludeId: 1, playhead: 2.5, pxPerSecond: 100, from: 0, to: 5 });
    const edges = targets.filter((t) => t.kind === "edge").map((t) => t.time);
    expect(edges).toEqual([3.33, 4.44]);
    expect(targets.filter((t) => t.kind === "playhead").map((t) => t.time)).toEqual([2.5]);
    // At 100 px/s 0.1 s ticks are 10 px apart, too close to snap to: half seconds.
    expect(targets.filter((t) => t.kind === "tick").map((t) => t.time)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]);
  });

  it("snaps to ticks far enough apart to leave room between their snap zones", () => {
    expect(tickGrid(100)).toBe(0.5);
    // At 300 px/s minor ticks (0.1 s) are 30 px apart: three tolerances.
    expect(tickGrid(300)).toBe(0.1);
    for (const pps of ZOOM_LEVELS) {
      expect(tickGrid(pps) * pps).toBeGreaterThanOrEqual(3 * SNAP_TOLERANCE_PX);
      const { major } = tickSpacing(pps);
      expect(Math.abs(major / tickGrid(pps) - Math.round(major / tickGrid(pps)))).toBeLessThan(1e-6);
    }
  });
});

describe("snapping to the original dialogue's speech", () => {
  it("ranks speech boundaries after lines' edges and before the playhead and ticks", () => {
    const tie: SnapTarget[] = [{ time: 7, kind: "tick" }, { time: 7, kind: "playhead" }, { time: 7, kind: "speech" }];
    expect(snapTime(7.01, tie, 100).target).toEqual({ time: 7, kind: "speech" });
    expect(snapTime(7.01, [...tie, edge(7)], 100).target).toEqual(edge(7));
  });

  it("takes the speech boundaries in the visible span only", () => {
    const targets = snapTargets({ segments: [], excludeId: null, playhead: null, pxPerSecond: 100, from: 2, to: 5, speech: [0.5, 1.9, 2, 3.25, 5, 5.1, 9] });
    expect(targets.filter((t) => t.kind === "speech").map((t) => t.time)).toEqual([2, 3.25, 5]);
  });
});
