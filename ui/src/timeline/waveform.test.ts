import { describe, expect, it } from "vitest";
import type { Peaks } from "../model";
import { PeaksPyramid, halve, peakColumns, peaksEnd } from "./waveform";

const peaks: Peaks = { start: 10, secondsPerBucket: 0.1, min: [-0.1, -0.5, -0.2, -0.9, -0.3], max: [0.2, 0.4, 0.8, 0.1, 0.3] };

describe("peak columns", () => {
  it("takes each pixel column's min and max over the buckets it covers", () => {
    const min = new Float32Array(3);
    const max = new Float32Array(3);
    peakColumns(peaks, 10, 0.2, 3, min, max);
    expect([...min].map((v) => Number(v.toFixed(2)))).toEqual([-0.5, -0.9, -0.3]);
    expect([...max].map((v) => Number(v.toFixed(2)))).toEqual([0.4, 0.8, 0.3]);
  });

  it("repeats a bucket over the columns it spans when zoomed in", () => {
    const min = new Float32Array(4);
    const max = new Float32Array(4);
    peakColumns(peaks, 10, 0.05, 4, min, max);
    expect([...max].map((v) => Number(v.toFixed(2)))).toEqual([0.2, 0.2, 0.4, 0.4]);
  });

  it("leaves columns outside the peaks empty", () => {
    const min = new Float32Array(3);
    const max = new Float32Array(3);
    peakColumns(peaks, 9.8, 0.1, 3, min, max);
    expect(Number.isNaN(max[0])).toBe(true);
    expect(Number.isNaN(max[1])).toBe(true);
    expect(max[2]).toBeCloseTo(0.2);
    expect(peaksEnd(peaks)).toBeCloseTo(10.5);
  });
});

describe("peaks pyramid", () => {
  it("halves the buckets keeping the extremes", () => {
    const half = halve(peaks);
    expect(half.secondsPerBucket).toBeCloseTo(0.2);
    expect(half.min).toEqual([-0.5, -0.9, -0.3]);
    expect(half.max).toEqual([0.4, 0.8, 0.3]);
  });

  it("picks the coarsest level with a bucket or more per pixel, and draws the same extremes from it", () => {
    const long: Peaks = { start: 0, secondsPerBucket: 0.01, min: [], max: [] };
    for (let i = 0; i < 10_000; i++) {
      long.max.push(Math.abs(Math.sin(i * 0.37)));
      long.min.push(-Math.abs(Math.cos(i * 0.11)));
    }
    const pyramid = new PeaksPyramid(long);
    expect(pyramid.levelFor(0.005).secondsPerBucket).toBe(0.01);
    const level = pyramid.levelFor(1);
    expect(level.secondsPerBucket).toBeLessThanOrEqual(1);
    expect(level.secondsPerBucket * 2).toBeGreaterThan(1);
    const fine = { min: new Float32Array(50), max: new Float32Array(50) };
    const coarse = { min: new Float32Array(50), max: new Float32Array(50) };
    peakColumns(long, 0, 1.28, 50, fine.min, fine.max);
    peakColumns(pyramid.levelFor(1.28), 0, 1.28, 50, coarse.min, coarse.max);
    expect([...coarse.max]).toEqual([...fine.max]);
    expect([...coarse.min]).toEqual([...fine.min]);
  });
});
