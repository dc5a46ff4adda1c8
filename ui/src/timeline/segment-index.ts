// The track's segments sorted by start, with what the timeline asks of them
// many times a frame: which are visible in a time range (binary search, not
// a scan of all 2,000), where a segment sits in the order, and its
// neighbours in time; a line's new state swapped in without sorting again.
// Pure.
import type { Segment } from "../model";
import { shownFit } from "./fit-problems";

export class SegmentIndex {
  /** Sorted by start, then end, then id. */
  readonly segments: readonly Segment[];
  /** The same array as `segments`, writable for `replace`. */
  private readonly order: Segment[];
  /** maxEnd[i]: the latest end among segments[0..i]; never decreases, so
   * it can be binary searched even though ends are not sorted. */
  private readonly maxEnd: Float64Array;
  private readonly position = new Map<number, number>();

  constructor(segments: readonly Segment[]) {
    this.order = [...segments].sort((a, b) => a.start - b.start || a.end - b.end || a.id - b.id);
    this.segments = this.order;
    this.maxEnd = new Float64Array(this.segments.length);
    let latest = -Infinity;
    this.segments.forEach((segment, i) => {
      latest = Math.max(latest, segment.end, shownFit(segment)?.end ?? -Infinity);
      this.maxEnd[i] = latest;
      this.position.set(segment.id, i);
    });
  }

  get length(): number {
    return this.segments.length;
  }

  byId(id: number): Segment | undefined {
    const i = this.position.get(id);
    return i === undefined ? undefined : this.segments[i];
  }

  /** Swaps in a new version of a line that has not moved (same slot and
   * placed audio: a new state or error), keeping its place in the order.
   * Returns false, changing nothing, when the id is not here or the line
   * moved: that needs a new index. */
  replace(segment: Segment): boolean {
    const i = this.position.get(segment.id);
    if (i === undefined) return false;
    const old = this.order[i];
    const samePlace =
      old.start === segment.start && old.end === segment.end && shownFit(old)?.start === shownFit(segment)?.start && shownFit(old)?.end === shownFit(segment)?.end;
    if (!samePlace) return false;
    this.order[i] = segment;
    return true;
  }

  indexOf(id: number): number {
    return this.position.get(id) ?? -1;
  }

  /** Half-open index range [from, to) holding every segment that shows
   * between `startSeconds` and `endSeconds` (its slot or its placed audio).
   * Some inside the range may not show (one ending early after a longer
   * one); `visible` checks each. */
  visibleRange(startSeconds: number, endSeconds: number): [number, number] {
    // First segment whose running max end reaches past the range start.
    let lo = 0;
    let hi = this.segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.maxEnd[mid] > startSeconds) hi = mid;
      else lo = mid + 1;
    }
    const from = lo;
    // First segment whose slot starts so late that not even audio placed
    // early could reach back into the range.
    const last = endSeconds + MAX_EARLY_FIT_SECONDS;
    hi = this.segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.segments[mid].start < last) lo = mid + 1;
      else hi = mid;
    }
    return [from, Math.max(from, lo)];
  }

  /** The segments that show between the two times. */
  visible(startSeconds: number, endSeconds: number): Segment[] {
    const [from, to] = this.visibleRange(startSeconds, endSeconds);
    const out: Segment[] = [];
    for (let i = from; i < to; i++) {
      const s = this.segments[i];
      if (visibleEnd(s) > startSeconds && visibleStart(s) < endSeconds) out.push(s);
    }
    return out;
  }

  /** The next segment in time after `id` for which `keep` holds. */
  next(id: number, keep: (s: Segment) => boolean = () => true): Segment | null {
    const i = this.indexOf(id);
    if (i < 0) return null;
    for (let j = i + 1; j < this.segments.length; j++) if (keep(this.segments[j])) return this.segments[j];
    return null;
  }

  /** The previous segment in time before `id` for which `keep` holds. */
  previous(id: number, keep: (s: Segment) => boolean = () => true): Segment | null {
    const i = this.indexOf(id);
    if (i < 0) return null;
    for (let j = i - 1; j >= 0; j--) if (keep(this.segments[j])) return this.segments[j];
    return null;
  }
}

/** How far before its slot placed audio may start and still be found
 * (segments are sorted by slot start). */
export const MAX_EARLY_FIT_SECONDS = 1;

/** Where a segment shows: its slot, widened by its placed audio. */
export function visibleStart(s: Segment): number {
  return Math.min(s.start, shownFit(s)?.start ?? Infinity);
}

export function visibleEnd(s: Segment): number {
  return Math.max(s.end, shownFit(s)?.end ?? -Infinity);
}
