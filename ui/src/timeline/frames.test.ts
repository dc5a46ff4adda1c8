// The frame grid: exact NTSC rates, rounding to frames, timecode at a rate.
import { describe, expect, it } from "vitest";
import { exactFps, formatFrameTime, frameAtOrAfter, frameAtOrBefore, frameGrid, gridOfRate, roundToFrame } from "./frames";

describe("frame rates", () => {
  it("reads 23.976, 29.97 and 59.94 as the exact NTSC rates and whole rates as they are", () => {
    expect(exactFps(23.976)).toBe(24000 / 1001);
    expect(exactFps(29.97)).toBe(30000 / 1001);
    expect(exactFps(59.94)).toBe(60000 / 1001);
    expect(exactFps(25)).toBe(25);
    expect(exactFps(24)).toBe(24);
    expect(exactFps(12.5)).toBe(12.5);
    expect(exactFps(0)).toBe(25);
    expect(exactFps(Number.NaN)).toBe(25);
  });

  it("names the rate for timecode, keeping the project's drop-frame", () => {
    expect(frameGrid(23.976).rate).toBe("23.976");
    expect(frameGrid(29.97).rate).toBe("29.97");
    expect(frameGrid(29.97, "29.97df").rate).toBe("29.97df");
    expect(frameGrid(25, "29.97df").rate).toBe("25");
    expect(frameGrid(50).rate).toBeNull();
    expect(gridOfRate("29.97df").fps).toBe(30000 / 1001);
  });
});

describe("frame arithmetic", () => {
  it("rounds to the nearest frame", () => {
    expect(roundToFrame(10.019, 25)).toBe(10.0);
    expect(roundToFrame(10.021, 25)).toBe(251 / 25);
    const ntsc = exactFps(23.976);
    expect(roundToFrame(1.0, ntsc)).toBe(24 / ntsc);
  });

  it("finds the frames on either side of a time, a time on a frame being its own", () => {
    expect(frameAtOrBefore(1.03, 25)).toBe(25);
    expect(frameAtOrAfter(1.03, 25)).toBe(26);
    expect(frameAtOrBefore(26 / 25, 25)).toBe(26);
    expect(frameAtOrAfter(26 / 25, 25)).toBe(26);
  });

  it("writes timecode at the grid, also for a rate without a name", () => {
    expect(formatFrameTime(3661 + 12 / 25, gridOfRate("25"))).toBe("01:01:01:12");
    expect(formatFrameTime(-1, gridOfRate("25"))).toBe("00:00:00:00");
    expect(formatFrameTime(1 + 49 / 50, frameGrid(50))).toBe("00:00:01:49");
    // A frame boundary computed in floating point still names its frame.
    const ntsc = frameGrid(23.976);
    expect(formatFrameTime(1001 / ntsc.fps, ntsc)).toBe("00:00:41:17");
  });
});
