import { describe, expect, it } from "vitest";
import { MIN_MAJOR_PX, MIN_MINOR_PX, TICK_STEPS, formatTickLabel, formatTimecode, tickSpacing, tickTimes } from "./ruler";
import { ZOOM_LEVELS } from "./scale";

describe("ruler tick spacing", () => {
  it("keeps labels and minor ticks readable at every zoom level", () => {
    for (const pps of ZOOM_LEVELS) {
      const { major, minor } = tickSpacing(pps);
      expect(major * pps).toBeGreaterThanOrEqual(MIN_MAJOR_PX);
      // The smallest sufficient step: the one below it would crowd.
      const below = TICK_STEPS[TICK_STEPS.indexOf(major) - 1];
      if (below !== undefined) expect(below * pps).toBeLessThan(MIN_MAJOR_PX);
      expect(minor * pps).toBeGreaterThanOrEqual(Math.min(MIN_MINOR_PX, major * pps));
      expect(Math.abs(major / minor - Math.round(major / minor))).toBeLessThan(1e-6);
    }
  });

  it("picks round clock steps", () => {
    expect(tickSpacing(100)).toEqual({ major: 1, minor: 0.1 });
    expect(tickSpacing(10)).toEqual({ major: 10, minor: 1 });
    expect(tickSpacing(1)).toEqual({ major: 120, minor: 10 });
    expect(tickSpacing(1000)).toEqual({ major: 0.1, minor: 0.01 });
    expect(tickSpacing(0.25).major).toBe(600);
  });

  it("gets coarser as the view widens", () => {
    let previous = 0;
    for (const pps of [...ZOOM_LEVELS].reverse()) {
      const { major } = tickSpacing(pps);
      expect(major).toBeGreaterThanOrEqual(previous);
      previous = major;
    }
  });

  it("lists tick times as exact multiples inside the range", () => {
    expect(tickTimes(0.95, 1.5, 0.1)).toEqual([1, 1.1, 1.2, 1.3, 1.4, 1.5]);
    expect(tickTimes(59, 181, 60)).toEqual([60, 120, 180]);
    expect(tickTimes(1000.05, 1000.35, 0.1)).toEqual([1000.1, 1000.2, 1000.3]);
  });
});

describe("timecodes", () => {
  it("shows minutes and seconds, hours past the hour, fractions for fine ticks", () => {
    expect(formatTimecode(0)).toBe("0:00");
    expect(formatTimecode(65)).toBe("1:05");
    expect(formatTimecode(3725)).toBe("1:02:05");
    expect(formatTimecode(1.25, 2)).toBe("0:01.25");
    expect(formatTickLabel(90, 10)).toBe("1:30");
    expect(formatTickLabel(1.5, 0.5)).toBe("0:01.5");
    expect(formatTickLabel(1.05, 0.05)).toBe("0:01.05");
  });
});

describe("ruler labels at a frame rate", () => {
  it("labels each tick with the timecode of its nearest frame", () => {
    expect(formatTickLabel(90, 10, "25")).toBe("00:01:30:00");
    expect(formatTickLabel(1.05, 0.05, "25")).toBe("00:00:01:01");
    expect(formatTickLabel(3600, 600, "29.97df")).toBe("01:00:00;00");
    expect(formatTickLabel(60, 10, "29.97df")).toBe("00:00:59;28");
    // 23.976's timecode runs 1.001 times slower than the clock.
    expect(formatTickLabel(10, 10, "23.976")).toBe("00:00:10:00");
    expect(formatTickLabel(600, 60, "23.976")).toBe("00:09:59:10");
  });

  it("never labels two ticks with one frame, at the finest spacing and every rate", () => {
    for (const rate of ["23.976", "24", "25", "29.97df", "29.97", "30"] as const) {
      const labels = tickTimes(0, 10, 0.05).map((t) => formatTickLabel(t, 0.05, rate));
      expect(new Set(labels).size).toBe(labels.length);
    }
  });
});
