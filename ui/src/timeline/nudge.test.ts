// Nudging a line by frames: body or edge, on the frame grid, within limits.
import { describe, expect, it } from "vitest";
import { MIN_SEGMENT_SECONDS } from "./drag";
import { exactFps } from "./frames";
import { nudgeSlot } from "./nudge";

describe("nudging by frames", () => {
  it("moves the body a whole number of frames, keeping its length", () => {
    expect(nudgeSlot({ start: 10, end: 12 }, "body", 1, 25)).toEqual({ start: 251 / 25, end: 251 / 25 + 2 });
    expect(nudgeSlot({ start: 10, end: 12 }, "body", -3, 25)).toEqual({ start: 247 / 25, end: 247 / 25 + 2 });
  });

  it("lands an edge off the grid on a frame", () => {
    // 10.01 s is frame 250.25 at 25: nearest 250, then one on.
    expect(nudgeSlot({ start: 10.01, end: 12 }, "start-edge", 1, 25)).toEqual({ start: 251 / 25, end: 12 });
    expect(nudgeSlot({ start: 10, end: 12.03 }, "end-edge", -1, 25)).toEqual({ start: 10, end: 300 / 25 });
  });

  it("is frame-exact at NTSC rates", () => {
    const fps = exactFps(23.976);
    const start = 240 / fps;
    expect(nudgeSlot({ start, end: start + 2 }, "start-edge", 2, fps)).toEqual({ start: 242 / fps, end: start + 2 });
    expect(nudgeSlot({ start, end: 300 / fps }, "end-edge", 1, fps)).toEqual({ start, end: 301 / fps });
  });

  it("never goes before 0", () => {
    expect(nudgeSlot({ start: 0.04, end: 1 }, "body", -5, 25)).toEqual({ start: 0, end: 0.96 });
    expect(nudgeSlot({ start: 0, end: 1 }, "body", -1, 25)).toBeNull();
    expect(nudgeSlot({ start: 0, end: 1 }, "start-edge", -1, 25)).toBeNull();
  });

  it("never makes the line shorter than the minimum, from either edge", () => {
    const slot = { start: 10, end: 10.2 };
    const fromStart = nudgeSlot(slot, "start-edge", 10, 25)!;
    expect(fromStart.start).toBe(252 / 25);
    expect(slot.end - fromStart.start).toBeGreaterThanOrEqual(MIN_SEGMENT_SECONDS - 1e-9);
    const fromEnd = nudgeSlot(slot, "end-edge", -10, 25)!;
    expect(fromEnd.end).toBe(253 / 25);
    expect(nudgeSlot({ start: 10, end: 10 + 3 / 25 }, "start-edge", 1, 25)).toBeNull();
  });

  it("does nothing for no frames, and never the other way against a limit", () => {
    expect(nudgeSlot({ start: 10, end: 12 }, "body", 0, 25)).toBeNull();
    // Already shorter than the minimum: narrowing does not flip into a
    // move back; widening goes far enough to reach the minimum.
    expect(nudgeSlot({ start: 10.0, end: 10.05 }, "start-edge", 1, 25)).toBeNull();
    expect(nudgeSlot({ start: 10.0, end: 10.05 }, "start-edge", -1, 25)).toEqual({ start: 248 / 25, end: 10.05 });
  });
});
