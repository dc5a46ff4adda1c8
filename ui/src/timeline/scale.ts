// Time ↔ pixels for the timeline: the zoom (pixels per second), the scroll
// (the programme time at the lanes' left edge), zoom steps, zoom anchored
// under the pointer, scroll limits and the playhead-follow rule. Pure.

/** How the lanes area maps programme seconds onto pixels. x = 0 is the
 * lanes area's left edge (right of the lane headers). */
export interface TimeScale {
  pxPerSecond: number;
  /** Programme seconds at x = 0. */
  scrollSeconds: number;
}

/** A whole hour fits in about 900 px; at the top, a frame of 48 kHz audio
 * is a few pixels wide. */
export const MIN_PX_PER_SECOND = 0.25;
export const MAX_PX_PER_SECOND = 2000;
/** Zoom buttons step by this factor. */
export const ZOOM_STEP = Math.SQRT2;

/** Every zoom level the buttons stop at, from the widest view in. */
export const ZOOM_LEVELS: readonly number[] = (() => {
  const levels: number[] = [];
  for (let pps = MIN_PX_PER_SECOND; pps <= MAX_PX_PER_SECOND * 1.0001; pps *= ZOOM_STEP) {
    levels.push(Number(pps.toPrecision(12)));
  }
  return levels;
})();

export function clampZoom(pxPerSecond: number): number {
  if (!Number.isFinite(pxPerSecond)) return MIN_PX_PER_SECOND;
  return Math.min(MAX_PX_PER_SECOND, Math.max(MIN_PX_PER_SECOND, pxPerSecond));
}

export function timeToX(scale: TimeScale, seconds: number): number {
  return (seconds - scale.scrollSeconds) * scale.pxPerSecond;
}

export function xToTime(scale: TimeScale, x: number): number {
  return scale.scrollSeconds + x / scale.pxPerSecond;
}

/** A duration in pixels at this zoom. */
export function secondsToPx(scale: TimeScale, seconds: number): number {
  return seconds * scale.pxPerSecond;
}

/** Changes the zoom so the time under `anchorX` stays under it. */
export function zoomAround(scale: TimeScale, anchorX: number, pxPerSecond: number): TimeScale {
  const anchorTime = xToTime(scale, anchorX);
  const zoom = clampZoom(pxPerSecond);
  return { pxPerSecond: zoom, scrollSeconds: anchorTime - anchorX / zoom };
}

/** The next zoom level in from `pxPerSecond` (or the closest, at the top). */
export function zoomLevelIn(pxPerSecond: number): number {
  for (const level of ZOOM_LEVELS) if (level > pxPerSecond * 1.001) return level;
  return ZOOM_LEVELS[ZOOM_LEVELS.length - 1];
}

/** The next zoom level out from `pxPerSecond`. */
export function zoomLevelOut(pxPerSecond: number): number {
  for (let i = ZOOM_LEVELS.length - 1; i >= 0; i--) {
    if (ZOOM_LEVELS[i] < pxPerSecond / 1.001) return ZOOM_LEVELS[i];
  }
  return ZOOM_LEVELS[0];
}

/** Ctrl+wheel: a continuous zoom factor for a wheel delta in pixels
 * (negative deltaY, wheel pushed away, zooms in). */
export function wheelZoomFactor(deltaY: number): number {
  return Math.exp(-deltaY * 0.0025);
}

/** Seconds the lanes area shows at this zoom. */
export function viewSeconds(scale: TimeScale, widthPx: number): number {
  return widthPx / scale.pxPerSecond;
}

/** Keeps the view inside the programme: no scrolling before 0, nor past the
 * end (plus a little room to drop lines after the last one). */
export function clampScroll(scrollSeconds: number, viewSecs: number, lengthSeconds: number): number {
  if (Number.isNaN(scrollSeconds)) return 0;
  return Math.min(maxScroll(viewSecs, lengthSeconds), Math.max(0, scrollSeconds));
}

/** The furthest the view may scroll: the programme's end plus a little
 * room, at the view's right edge. */
export function maxScroll(viewSecs: number, lengthSeconds: number): number {
  const room = Math.max(2, viewSecs * 0.1);
  return Math.max(0, lengthSeconds + room - viewSecs);
}

/** The zoom that fits the whole programme into `widthPx`. */
export function zoomToFit(lengthSeconds: number, widthPx: number): number {
  if (lengthSeconds <= 0 || widthPx <= 0) return clampZoom(100);
  return clampZoom(widthPx / (lengthSeconds * 1.02));
}

/** Following playback: when the playhead leaves the view (or nears its
 * right edge), the view pages so the playhead sits near its left side.
 * Returns the scroll to use, unchanged while the playhead is in view. */
export function followScroll(scrollSeconds: number, viewSecs: number, playhead: number): number {
  const right = scrollSeconds + viewSecs * 0.92;
  if (playhead >= scrollSeconds && playhead <= right) return scrollSeconds;
  return Math.max(0, playhead - viewSecs * 0.08);
}
