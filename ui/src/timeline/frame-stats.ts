// Summaries of frame timings for the benchmark: mean, 95th percentile and
// worst of a list of milliseconds. Pure.

export interface TimingSummary {
  count: number;
  meanMs: number;
  p95Ms: number;
  maxMs: number;
}

/** Mean, p95 (nearest rank) and max; zeros for no samples. */
export function summarize(samples: readonly number[]): TimingSummary {
  if (samples.length === 0) return { count: 0, meanMs: 0, p95Ms: 0, maxMs: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(0, Math.ceil(0.95 * sorted.length) - 1);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  return { count: sorted.length, meanMs: round(mean), p95Ms: round(sorted[rank]), maxMs: round(sorted[sorted.length - 1]) };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
