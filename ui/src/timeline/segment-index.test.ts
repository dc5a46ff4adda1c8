import { describe, expect, it } from "vitest";
import type { Segment } from "../model";
import { SegmentIndex } from "./segment-index";
import { line, syntheticProject } from "./synthetic";

/** What a scan of every segment says is visible, for comparison. */
function scanVisible(segments: readonly Segment[], from: number, to: number): number[] {
  return segments
    .filter((s) => Math.max(s.end, s.fit?.end ?? -Infinity) > from && Math.min(s.start, s.fit?.start ?? Infinity) < to)
    .map((s) => s.id)
    .sort((a, b) => a - b);
}

describe("visible-range search", () => {
  const { project } = syntheticProject(2000);
  const segments = project.tracks[0].segments;
  const index = new SegmentIndex(segments);

  it("finds exactly the lines a full scan finds, anywhere in 2,000 lines", () => {
    for (const [from, to] of [
      [0, 5],
      [100, 130],
      [1234.5, 1240],
      [project.length - 20, project.length],
      [0, project.length],
      [-10, -1],
      [project.length + 10, project.length + 20],
    ]) {
      const found = index.visible(from, to).map((s) => s.id).sort((a, b) => a - b);
      expect(found).toEqual(scanVisible(segments, from, to));
    }
  });

  it("looks at a handful of lines for a narrow view, not all of them", () => {
    const [from, to] = index.visibleRange(1000, 1030);
    expect(to - from).toBeLessThan(40);
    expect(to - from).toBeGreaterThan(0);
  });

  it("still finds a long line that started well before the view", () => {
    const long = new SegmentIndex([
      line({ id: 1, start: 0, end: 100 }),
      ...Array.from({ length: 50 }, (_, i) => line({ id: i + 2, start: i + 1, end: i + 1.5 })),
    ]);
    expect(long.visible(80, 81).map((s) => s.id)).toEqual([1]);
  });

  it("counts audio placed past the slot as visible", () => {
    const placed = new SegmentIndex([
      line({ id: 1, start: 0, end: 1, fit: { start: 0, end: 3, rate: 1, trimmed: false, overlap: 2, strategy: "natural", gapUsed: 2, cut: null, overflow: 2 } }),
    ]);
    expect(placed.visible(2, 4).map((s) => s.id)).toEqual([1]);
  });
});

describe("order and neighbours", () => {
  const index = new SegmentIndex([
    line({ id: 3, start: 5, end: 6, speakerId: 1 }),
    line({ id: 1, start: 0, end: 1, speakerId: 1 }),
    line({ id: 2, start: 2, end: 3, speakerId: 2 }),
  ]);

  it("sorts by start and finds lines by id", () => {
    expect(index.segments.map((s) => s.id)).toEqual([1, 2, 3]);
    expect(index.byId(2)?.start).toBe(2);
    expect(index.indexOf(3)).toBe(2);
    expect(index.byId(9)).toBeUndefined();
  });

  it("finds the next and previous line, optionally of the same speaker", () => {
    expect(index.next(1)?.id).toBe(2);
    expect(index.next(1, (s) => s.speakerId === 1)?.id).toBe(3);
    expect(index.previous(3)?.id).toBe(2);
    expect(index.previous(1)).toBeNull();
    expect(index.next(3)).toBeNull();
  });
});

describe("replacing a line that has not moved", () => {
  it("swaps in the new state in place and keeps the order and search", () => {
    const segments = [line({ id: 3, start: 4, end: 5 }), line({ id: 1, start: 0, end: 1 }), line({ id: 2, start: 2, end: 3 })];
    const index = new SegmentIndex(segments);
    const rendering = { ...index.byId(2)!, state: "rendering" as const };
    expect(index.replace(rendering)).toBe(true);
    expect(index.byId(2)).toBe(rendering);
    expect(index.segments.map((s) => s.id)).toEqual([1, 2, 3]);
    expect(index.visible(2.5, 2.6)).toEqual([rendering]);
    // The caller's array and objects are left as they were.
    expect(segments[2].state).toBe("stale");
  });

  it("refuses a line it does not hold, or one whose slot or placed audio moved", () => {
    const index = new SegmentIndex([line({ id: 1, start: 0, end: 1 }), line({ id: 2, start: 2, end: 3 })]);
    expect(index.replace(line({ id: 9, start: 0, end: 1 }))).toBe(false);
    expect(index.replace(line({ id: 1, start: 0.5, end: 1 }))).toBe(false);
    expect(index.replace(line({ id: 2, start: 2, end: 3, fit: { start: 2, end: 3.4, rate: 1, trimmed: false, overlap: null, strategy: "smart_fit", gapUsed: 0.4, cut: null, overflow: 0.4 } }))).toBe(false);
    expect(index.byId(1)!.start).toBe(0);
    expect(index.byId(2)!.fit).toBeNull();
  });
});
