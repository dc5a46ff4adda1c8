import { describe, expect, it } from "vitest";
import type { Speaker } from "../model";
import { EDGE_HANDLE_PX, blockPartAt, hitTest, type HitContext } from "./hit-test";
import { blockBox, layoutLanes } from "./layout";
import { SegmentIndex } from "./segment-index";
import { line } from "./synthetic";

const speakers: Speaker[] = [{ id: 1, name: "Ana", voice: "v", languageVoices: {} }];

function context(selectedId: number | null = null): HitContext {
  const segments = [
    line({ id: 1, start: 1, end: 3, speakerId: 1 }),
    line({ id: 2, start: 2.5, end: 4, speakerId: 1 }),
    line({ id: 3, start: 1, end: 2, speakerId: null }),
  ];
  return {
    layout: layoutLanes(speakers, segments),
    scale: { pxPerSecond: 100, scrollSeconds: 0 },
    index: new SegmentIndex(segments),
    selectedId,
  };
}

describe("block parts", () => {
  it("has edge handles at both ends and the body between", () => {
    expect(blockPartAt(100, 100, 300)).toBe("start-edge");
    expect(blockPartAt(100 + EDGE_HANDLE_PX, 100, 300)).toBe("start-edge");
    expect(blockPartAt(100 + EDGE_HANDLE_PX + 1, 100, 300)).toBe("body");
    expect(blockPartAt(200, 100, 300)).toBe("body");
    expect(blockPartAt(300 - EDGE_HANDLE_PX, 100, 300)).toBe("end-edge");
    expect(blockPartAt(300, 100, 300)).toBe("end-edge");
    expect(blockPartAt(99, 100, 300)).toBeNull();
    expect(blockPartAt(301, 100, 300)).toBeNull();
  });

  it("narrows the handles on a small block so its body can still be grabbed", () => {
    expect(blockPartAt(104.5, 100, 109)).toBe("body");
    expect(blockPartAt(101, 100, 109)).toBe("start-edge");
    expect(blockPartAt(108, 100, 109)).toBe("end-edge");
  });
});

describe("hit-testing the timeline", () => {
  const ctx = context();
  const header = ctx.layout.headerWidth;
  const anaY = blockBox(ctx.layout.lanes[0]).y + 10;
  const noSpeakerY = blockBox(ctx.layout.lanes[1]).y + 10;

  it("finds a line's body and edges under the pointer, in its speaker's lane", () => {
    expect(hitTest(header + 150, anaY, ctx)).toEqual({ kind: "segment", id: 1, part: "body", laneIndex: 0 });
    expect(hitTest(header + 101, anaY, ctx)).toEqual({ kind: "segment", id: 1, part: "start-edge", laneIndex: 0 });
    expect(hitTest(header + 399, anaY, ctx)).toEqual({ kind: "segment", id: 2, part: "end-edge", laneIndex: 0 });
    expect(hitTest(header + 150, noSpeakerY, ctx)).toEqual({ kind: "segment", id: 3, part: "body", laneIndex: 1 });
  });

  it("prefers the later line where blocks overlap, and the selected one above all", () => {
    expect(hitTest(header + 280, anaY, ctx)).toMatchObject({ kind: "segment", id: 2 });
    expect(hitTest(header + 280, anaY, context(1))).toMatchObject({ kind: "segment", id: 1, part: "body" });
  });

  it("tells empty lane, ruler, bed and header apart, with the time under the pointer", () => {
    expect(hitTest(header + 50, anaY, ctx)).toEqual({ kind: "lane", laneIndex: 0, time: 0.5 });
    expect(hitTest(header + 250, 5, ctx)).toEqual({ kind: "ruler", time: 2.5 });
    expect(hitTest(header + 250, ctx.layout.bed.y + 5, ctx)).toEqual({ kind: "bed", time: 2.5 });
    expect(hitTest(10, anaY, ctx)).toEqual({ kind: "header", laneIndex: 0 });
    expect(hitTest(header + 10, ctx.layout.height + 5, ctx)).toEqual({ kind: "none" });
  });

  it("follows the scroll and zoom", () => {
    const scrolled: HitContext = { ...ctx, scale: { pxPerSecond: 10, scrollSeconds: 0.5 } };
    // Line 1 spans 1..3 s: x 5..25 at 10 px/s from 0.5 s.
    expect(hitTest(header + 15, anaY, scrolled)).toMatchObject({ kind: "segment", id: 1, part: "body" });
    expect(hitTest(header + 2, anaY, scrolled)).toMatchObject({ kind: "lane" });
  });
});
