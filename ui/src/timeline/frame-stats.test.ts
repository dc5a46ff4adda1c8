import { describe, expect, it } from "vitest";
import { summarize } from "./frame-stats";

describe("frame timing summaries", () => {
  it("gives the mean, nearest-rank p95 and the worst frame", () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(summarize(samples)).toEqual({ count: 100, meanMs: 50.5, p95Ms: 95, maxMs: 100 });
  });

  it("does not depend on the order of the samples", () => {
    expect(summarize([9, 1, 5])).toEqual(summarize([1, 5, 9]));
    expect(summarize([9, 1, 5]).p95Ms).toBe(9);
  });

  it("is all zeros with no samples", () => {
    expect(summarize([])).toEqual({ count: 0, meanMs: 0, p95Ms: 0, maxMs: 0 });
  });
});
