// Markers on the ruler: the list kept sorted by time, which of them a span
// of the view shows, and each one's flag (a small box hanging off its line
// in the ruler's lower half, as wide as its name up to a cap, the name
// clipped inside) so drawing and hit-testing agree on where a flag is. Pure.
import { lowerBound } from "./speech-bounds";

export interface Marker {
  id: number;
  /** Programme time, seconds. */
  at: number;
  name: string;
}

/** A flag is never wider than this, its name cut to fit. */
export const MARKER_FLAG_MAX_PX = 96;
/** The flag's height; it sits at the ruler's bottom. */
export const MARKER_FLAG_HEIGHT = 12;
/** The line itself can be grabbed this far to either side, the ruler's full height. */
export const MARKER_GRAB_PX = 4;
/** An estimate of the ruler font's average character width, so the flag's
 * width needs no text measuring (and hit-testing needs no canvas). */
const CHAR_PX = 6;

/** The markers sorted by time (a copy), and their times for binary search. */
export class MarkerList {
  readonly markers: readonly Marker[];
  readonly times: readonly number[];

  constructor(markers: readonly Marker[] = []) {
    this.markers = [...markers].sort((a, b) => a.at - b.at || a.id - b.id);
    this.times = this.markers.map((m) => m.at);
  }

  get length(): number {
    return this.markers.length;
  }

  byId(id: number): Marker | undefined {
    return this.markers.find((m) => m.id === id);
  }

  /** [first, last) of the markers whose flags may reach into [from, to]
   * seconds: those from `flagSeconds` before `from` up to `to`. */
  visibleRange(from: number, to: number, flagSeconds: number): [number, number] {
    const first = lowerBound(this.times, from - flagSeconds);
    let last = lowerBound(this.times, to);
    while (last < this.times.length && this.times[last] <= to) last++;
    return [first, last];
  }
}

/** A flag's width for a name. */
export function flagWidth(name: string): number {
  return Math.min(MARKER_FLAG_MAX_PX, 10 + CHAR_PX * name.length);
}

/** Whether (x, y), in the lanes area's pixels, is on the marker whose line
 * is at `markerX`: the flag at the ruler's bottom, or the line's grab zone. */
export function onMarker(x: number, y: number, markerX: number, name: string, rulerHeight: number): boolean {
  if (y < 0 || y >= rulerHeight) return false;
  if (Math.abs(x - markerX) <= MARKER_GRAB_PX) return true;
  const top = rulerHeight - 1 - MARKER_FLAG_HEIGHT;
  return y >= top && x >= markerX && x <= markerX + flagWidth(name);
}
