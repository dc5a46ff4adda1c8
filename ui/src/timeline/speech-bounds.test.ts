// Finding the original dialogue's speech in its peaks: threshold against
// the loudest part, hangover across short gaps, minimum length.
import { describe, expect, it } from "vitest";
import type { Peaks } from "../model";
import { loudestLevel, lowerBound, speechBoundaries, speechSpans } from "./speech-bounds";

/** Peaks at 100 buckets a second from `start`, each `[from, to, level]` run
 * (seconds) at its level over a `floor` noise level. */
function peaks(runs: [number, number, number][], seconds: number, floor = 0.001, start = 0): Peaks {
  const n = Math.round(seconds * 100);
  const max = new Array<number>(n).fill(floor);
  for (const [from, to, level] of runs) for (let i = Math.round(from * 100); i < Math.round(to * 100); i++) max[i] = level;
  return { start, secondsPerBucket: 0.01, min: max.map((v) => -v), max };
}

const close = (spans: { start: number; end: number }[]) => spans.map((s) => [Number(s.start.toFixed(3)), Number(s.end.toFixed(3))]);

describe("speech spans", () => {
  it("finds where the dialogue is within the threshold of its loudest part", () => {
    const spans = speechSpans(peaks([[1, 2, 0.5], [3, 4.5, 0.3]], 6));
    expect(close(spans)).toEqual([[1, 2], [3, 4.5]]);
    expect(speechBoundaries(spans).map((t) => Number(t.toFixed(3)))).toEqual([1, 2, 3, 4.5]);
  });

  it("measures the threshold from the loudest part, so a quiet recording still has speech and its room tone none", () => {
    // Everything 40 dB down: speech at 0.005, room tone at 0.00005.
    expect(close(speechSpans(peaks([[1, 2, 0.005]], 3, 0.00005)))).toEqual([[1, 2]]);
    // A murmur 35 dB under the loudest line is not speech at the default -30 dB.
    expect(close(speechSpans(peaks([[1, 2, 0.5], [2.5, 3, 0.5 * 10 ** (-35 / 20)]], 4)))).toEqual([[1, 2]]);
    expect(close(speechSpans(peaks([[1, 2, 0.5], [2.5, 3, 0.5 * 10 ** (-35 / 20)]], 4), { thresholdDb: -40 }))).toEqual([[1, 2], [2.5, 3]]);
  });

  it("is not thrown by one click louder than everything", () => {
    const p = peaks([[1, 3, 0.2], [3.5, 5, 0.2], [5.5, 5.52, 1]], 8);
    expect(loudestLevel(p)).toBeLessThan(0.25);
    expect(close(speechSpans(p))).toEqual([[1, 3], [3.5, 5]]);
  });

  it("bridges gaps shorter than the hangover and splits at longer ones", () => {
    const p = peaks([[1, 1.5, 0.4], [1.6, 2, 0.4], [2.5, 3, 0.4]], 4);
    expect(close(speechSpans(p))).toEqual([[1, 2], [2.5, 3]]);
    expect(close(speechSpans(p, { hangoverSeconds: 0.05 }))).toEqual([[1, 1.5], [1.6, 2], [2.5, 3]]);
    expect(close(speechSpans(p, { hangoverSeconds: 0.6 }))).toEqual([[1, 3]]);
  });

  it("drops stretches shorter than the minimum speech length", () => {
    const p = peaks([[1, 2, 0.4], [2.6, 2.65, 0.4]], 4);
    expect(close(speechSpans(p))).toEqual([[1, 2]]);
    expect(close(speechSpans(p, { minSpeechSeconds: 0.05 }))).toEqual([[1, 2], [2.6, 2.65]]);
  });

  it("follows the peaks' start and has nothing for silence or no peaks", () => {
    expect(close(speechSpans(peaks([[1, 2, 0.4]], 3, 0.001, 10)))).toEqual([[11, 12]]);
    expect(speechSpans(peaks([], 3, 0))).toEqual([]);
    expect(speechSpans({ start: 0, secondsPerBucket: 0.01, min: [], max: [] })).toEqual([]);
  });

  it("runs to the end when speech does", () => {
    expect(close(speechSpans(peaks([[2, 3, 0.4]], 3)))).toEqual([[2, 3]]);
  });

  it("reads an hour of peaks quickly", () => {
    const n = 3600 * 100;
    const max = Array.from({ length: n }, (_, i) => (Math.floor(i / 150) % 2 === 0 ? 0.3 : 0.002));
    const started = performance.now();
    const spans = speechSpans({ start: 0, secondsPerBucket: 0.01, min: max.map((v) => -v), max });
    expect(spans.length).toBe(1200);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it("binary-searches sorted times", () => {
    expect(lowerBound([1, 2, 2, 5], 2)).toBe(1);
    expect(lowerBound([1, 2, 2, 5], 3)).toBe(3);
    expect(lowerBound([1, 2, 2, 5], 9)).toBe(4);
    expect(lowerBound([], 1)).toBe(0);
  });
});
