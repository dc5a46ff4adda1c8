import { describe, expect, it } from "vitest";
import { stateCounts } from "./render-panel";
import type { Segment } from "../model";

const line = (id: number, state: Segment["state"]): Segment => ({
  id, trackId: 1, start: id, end: id + 1, text: `Line ${id}`, speakerId: null, speed: 1, gainDb: 0, fadeIn: 0, fadeOut: 0, strategy: null, locked: false, state, error: null, fit: null, check: null,
});

describe("render panel counts", () => {
  it("counts every line once by its state", () => {
    const counts = stateCounts([line(1, "ready"), line(2, "ready"), line(3, "failed"), line(4, "queued"), line(5, "stale")]);
    expect(counts).toEqual({ ready: 2, failed: 1, queued: 1, stale: 1, rendering: 0 });
  });
});
