// What is under the pointer: blocks and their edges, markers, ruler, lanes, strips, header controls.
import { describe, expect, it } from "vitest";
import type { Speaker } from "../model";
import { EDGE_HANDLE_PX, blockPartAt, hitTest, type HitContext } from "./hit-test";
import { blockBox, laneControls, layoutLanes } from "./layout";
import { MARKER_FLAG_HEIGHT, MarkerList, flagWidth } from "./markers";
import { SegmentIndex } from "./segment-index";
import { line, speaker } from "./synthetic";

const speakers: Speaker[] = [speaker({ id: 1, name: "Ana" })];

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
    expect(hitTest(10, anaY, ctx)).toEqual({ kind: "header", laneIndex: 0, control: null });
    expect(hitTest(header + 10, ctx.layout.height + 5, ctx)).toEqual({ kind: "none" });
  });

  it("follows the scroll and zoom", () => {
    const scrolled: HitContext = { ...ctx, scale: { pxPerSecond: 10, scrollSeconds: 0.5 } };
    // Line 1 spans 1..3 s: x 5..25 at 10 px/s from 0.5 s.
    expect(hitTest(header + 15, anaY, scrolled)).toMatchObject({ kind: "segment", id: 1, part: "body" });
    expect(hitTest(header + 2, anaY, scrolled)).toMatchObject({ kind: "lane" });
  });
});

describe("hit-testing markers and lane controls", () => {
  const base = context();
  const header = base.layout.headerWidth;
  const markers = new MarkerList([
    { id: 10, at: 2, name: "Reel 1" },
    { id: 11, at: 2.3, name: "Door slam" },
  ]);
  const ctx: HitContext = { ...base, markers };
  const flagY = base.layout.rulerHeight - 1 - MARKER_FLAG_HEIGHT / 2;

  it("finds a marker by its line anywhere on the ruler, or by its flag at the ruler's foot", () => {
    // 100 px/s: marker 10's line at x 200, its flag to the right of it.
    expect(hitTest(header + 202, 3, ctx)).toEqual({ kind: "marker", id: 10, at: 2 });
    expect(hitTest(header + 215, flagY, ctx)).toEqual({ kind: "marker", id: 10, at: 2 });
    // Above the flag, away from the line: the ruler (seeking).
    expect(hitTest(header + 215, 3, ctx)).toEqual({ kind: "ruler", time: 2.15 });
    // Past the flag's end.
    expect(hitTest(header + 200 + flagWidth("Reel 1") + 2, flagY, { ...base, markers: new MarkerList([{ id: 10, at: 2, name: "Reel 1" }]) })).toMatchObject({ kind: "ruler" });
  });

  it("gives overlapping flags to the later marker, and ignores markers below the ruler", () => {
    expect(hitTest(header + 235, flagY, ctx)).toMatchObject({ kind: "marker", id: 11 });
    expect(hitTest(header + 250, base.layout.lanes[1].y + 30, { ...ctx, markers: new MarkerList([{ id: 12, at: 2.5, name: "x" }]) })).toMatchObject({ kind: "lane" });
    expect(hitTest(header + 215, flagY, base)).toMatchObject({ kind: "ruler" });
  });

  it("finds a lane header's S, M and level controls", () => {
    const lane = base.layout.lanes[1];
    const c = laneControls(lane, header);
    const at = (r: { x: number; y: number; width: number; height: number }) => hitTest(r.x + r.width / 2, r.y + r.height / 2, ctx);
    expect(at(c.solo)).toEqual({ kind: "header", laneIndex: 1, control: "solo" });
    expect(at(c.mute)).toEqual({ kind: "header", laneIndex: 1, control: "mute" });
    expect(at(c.level)).toEqual({ kind: "header", laneIndex: 1, control: "level" });
    expect(hitTest(c.solo.x - 3, c.solo.y + 2, ctx)).toEqual({ kind: "header", laneIndex: 1, control: null });
    // The controls sit inside the lane, clear of the name and the lane's foot.
    expect(c.solo.y).toBeGreaterThan(lane.y + 24);
    expect(c.level.y + c.level.height).toBeLessThanOrEqual(lane.y + lane.height - 4);
    expect(c.level.x + c.level.width).toBeLessThanOrEqual(header);
  });
});
