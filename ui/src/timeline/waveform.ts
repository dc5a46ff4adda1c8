// Waveforms from Peaks: a pyramid of coarser overviews (each level halves
// the buckets, keeping min and max) so a zoomed-out view reads a few
// buckets per pixel column instead of thousands, and the min/max of each
// pixel column for drawing. Pure.
import type { Peaks } from "../model";

/** Peaks at this and coarser resolutions, built on demand. */
export class PeaksPyramid {
  private readonly levels: Peaks[];

  constructor(readonly source: Peaks) {
    this.levels = [source];
  }

  /** The coarsest level that still has at least one bucket per pixel
   * column of `secondsPerPixel`. */
  levelFor(secondsPerPixel: number): Peaks {
    let level = this.levels[0];
    for (let i = 1; ; i++) {
      if (level.secondsPerBucket * 2 > secondsPerPixel || level.min.length < 2) return level;
      if (!this.levels[i]) this.levels[i] = halve(level);
      level = this.levels[i];
    }
  }
}

/** Every two buckets become one. */
export function halve(peaks: Peaks): Peaks {
  const n = Math.ceil(peaks.min.length / 2);
  const min = new Array<number>(n);
  const max = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const a = 2 * i;
    const b = Math.min(a + 1, peaks.min.length - 1);
    min[i] = Math.min(peaks.min[a], peaks.min[b]);
    max[i] = Math.max(peaks.max[a], peaks.max[b]);
  }
  return { start: peaks.start, secondsPerBucket: peaks.secondsPerBucket * 2, min, max };
}

/** Fills `min[c]`/`max[c]` for each of `columns` pixel columns, column c
 * covering [from + c·spp, from + (c+1)·spp). Columns outside the peaks get
 * NaN. */
export function peakColumns(
  peaks: Peaks,
  from: number,
  secondsPerPixel: number,
  columns: number,
  min: Float32Array,
  max: Float32Array,
): void {
  const count = peaks.min.length;
  for (let c = 0; c < columns; c++) {
    const t0 = from + c * secondsPerPixel;
    const first = Math.floor((t0 - peaks.start) / peaks.secondsPerBucket + 1e-9);
    const last = Math.max(first + 1, Math.ceil((t0 + secondsPerPixel - peaks.start) / peaks.secondsPerBucket - 1e-9));
    const i0 = Math.max(0, first);
    const i1 = Math.min(count, last);
    if (i0 >= i1) {
      min[c] = NaN;
      max[c] = NaN;
      continue;
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = i0; i < i1; i++) {
      if (peaks.min[i] < lo) lo = peaks.min[i];
      if (peaks.max[i] > hi) hi = peaks.max[i];
    }
    min[c] = lo;
    max[c] = hi;
  }
}

/** Where the peaks end on the timeline. */
export function peaksEnd(peaks: Peaks): number {
  return peaks.start + peaks.min.length * peaks.secondsPerBucket;
}
