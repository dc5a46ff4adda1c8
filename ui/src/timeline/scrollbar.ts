// The horizontal scrollbar's geometry: the thumb's position and width for
// the visible span of the programme, and the scroll a dragged thumb means.
// A drawn bar rather than a native one, since an hour at full zoom is far
// wider than any element a browser will lay out. Pure.

/** The thumb never gets narrower than this, so it can be grabbed. */
export const MIN_THUMB_PX = 24;

export interface Thumb {
  left: number;
  width: number;
}

/** The thumb for a view of `viewSecs` starting at `scrollSeconds` over a
 * scrollable span of `totalSeconds`, in a track `trackPx` wide. */
export function thumbGeometry(scrollSeconds: number, viewSecs: number, totalSeconds: number, trackPx: number): Thumb {
  const total = Math.max(totalSeconds, viewSecs, 1e-9);
  const width = Math.min(trackPx, Math.max(MIN_THUMB_PX, (viewSecs / total) * trackPx));
  const travel = trackPx - width;
  const scrollable = total - viewSecs;
  const left = scrollable > 0 ? (Math.min(Math.max(scrollSeconds, 0), scrollable) / scrollable) * travel : 0;
  return { left, width };
}

/** The scroll for a thumb whose left edge is at `left`. */
export function scrollForThumb(left: number, viewSecs: number, totalSeconds: number, trackPx: number): number {
  const { width } = thumbGeometry(0, viewSecs, totalSeconds, trackPx);
  const travel = trackPx - width;
  const scrollable = Math.max(0, Math.max(totalSeconds, viewSecs) - viewSecs);
  if (travel <= 0) return 0;
  return (Math.min(Math.max(left, 0), travel) / travel) * scrollable;
}
