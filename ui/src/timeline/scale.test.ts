import { describe, expect, it } from "vitest";
import {
  MAX_PX_PER_SECOND,
  MIN_PX_PER_SECOND,
  ZOOM_LEVELS,
  clampScroll,
  maxScroll,
  followScroll,
  timeToX,
  xToTime,
  zoomAround,
  zoomLevelIn,
  zoomLevelOut,
  zoomToFit,
} from "./scale";

describe("time and pixels", () => {
  it("map onto each other and back at every zoom level", () => {
    for (const pxPerSecond of ZOOM_LEVELS) {
      const scale = { pxPerSecond, scrollSeconds: 123.456 };
      for (const t of [0, 123.456, 130, 3599.99]) {
        expect(xToTime(scale, timeToX(scale, t))).toBeCloseTo(t, 6);
      }
      for (const x of [0, 1, 640, 1920]) {
        expect(timeToX(scale, xToTime(scale, x))).toBeCloseTo(x, 6);
      }
    }
  });

  it("puts the scroll time at x = 0 and a second pxPerSecond further on", () => {
    const scale = { pxPerSecond: 50, scrollSeconds: 10 };
    expect(timeToX(scale, 10)).toBe(0);
    expect(timeToX(scale, 11)).toBe(50);
    expect(timeToX(scale, 9)).toBe(-50);
  });

  it("has zoom levels from the widest to the closest, each a step apart", () => {
    expect(ZOOM_LEVELS[0]).toBe(MIN_PX_PER_SECOND);
    expect(ZOOM_LEVELS[ZOOM_LEVELS.length - 1]).toBeLessThanOrEqual(MAX_PX_PER_SECOND);
    for (let i = 1; i < ZOOM_LEVELS.length; i++) expect(ZOOM_LEVELS[i] / ZOOM_LEVELS[i - 1]).toBeCloseTo(Math.SQRT2, 6);
  });
});

describe("anchored zoom", () => {
  it("keeps the time under the pointer where it was, at every level", () => {
    let scale = { pxPerSecond: 100, scrollSeconds: 42 };
    const anchorX = 333;
    const anchored = xToTime(scale, anchorX);
    for (const level of [...ZOOM_LEVELS, ...[...ZOOM_LEVELS].reverse()]) {
      scale = zoomAround(scale, anchorX, level);
      expect(scale.pxPerSecond).toBe(level);
      expect(xToTime(scale, anchorX)).toBeCloseTo(anchored, 6);
    }
  });

  it("clamps the zoom to its range", () => {
    expect(zoomAround({ pxPerSecond: 100, scrollSeconds: 0 }, 0, 1e9).pxPerSecond).toBe(MAX_PX_PER_SECOND);
    expect(zoomAround({ pxPerSecond: 100, scrollSeconds: 0 }, 0, 0).pxPerSecond).toBe(MIN_PX_PER_SECOND);
  });

  it("steps in and out through the levels, also from between them", () => {
    expect(zoomLevelIn(ZOOM_LEVELS[3])).toBe(ZOOM_LEVELS[4]);
    expect(zoomLevelOut(ZOOM_LEVELS[3])).toBe(ZOOM_LEVELS[2]);
    const between = (ZOOM_LEVELS[5] + ZOOM_LEVELS[6]) / 2;
    expect(zoomLevelIn(between)).toBe(ZOOM_LEVELS[6]);
    expect(zoomLevelOut(between)).toBe(ZOOM_LEVELS[5]);
    expect(zoomLevelIn(MAX_PX_PER_SECOND * 2)).toBe(ZOOM_LEVELS[ZOOM_LEVELS.length - 1]);
    expect(zoomLevelOut(MIN_PX_PER_SECOND)).toBe(ZOOM_LEVELS[0]);
  });

  it("fits the whole programme into the width", () => {
    const pps = zoomToFit(3600, 1000);
    expect(3600 * pps).toBeLessThanOrEqual(1000);
    expect(3600 * pps).toBeGreaterThan(950);
  });
});

describe("scroll limits and following", () => {
  it("never scrolls before the start nor far past the end", () => {
    expect(clampScroll(-5, 10, 100)).toBe(0);
    expect(clampScroll(50, 10, 100)).toBe(50);
    expect(clampScroll(500, 10, 100)).toBe(92);
    expect(clampScroll(30, 200, 100)).toBe(0);
    expect(clampScroll(Infinity, 10, 100)).toBe(maxScroll(10, 100));
    expect(maxScroll(10, 100)).toBe(92);
    expect(clampScroll(NaN, 10, 100)).toBe(0);
  });

  it("pages when the playhead nears the right edge or leaves the view", () => {
    expect(followScroll(10, 20, 15)).toBe(10);
    expect(followScroll(10, 20, 29.5)).toBeCloseTo(29.5 - 1.6, 6);
    expect(followScroll(10, 20, 5)).toBeCloseTo(5 - 1.6, 6);
    expect(followScroll(10, 20, 0.5)).toBe(0);
  });
});
