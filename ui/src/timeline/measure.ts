// The measurement hook for the 2,000-line requirement: given a mounted
// timeline, scrolls across the programme and then sweeps the zoom out and
// in, one step per animation frame, and reports how long the timeline took
// to draw each frame and how far apart the frames came. The end-to-end test
// and the bench page call it; nothing here asserts a time.
import { summarize, type TimingSummary } from "./frame-stats";
import { MAX_PX_PER_SECOND, MIN_PX_PER_SECOND } from "./scale";
import type { TimelineView } from "./timeline-view";

export interface MeasureOptions {
  /** Animation frames to run; half scrolling, half zooming. Default 600. */
  frames?: number;
  /** Zoom while scrolling, px per second. Default 20 (about 90 s and some
   * 60 lines with waveforms in a 1,900 px view). */
  scrollZoom?: number;
}

export interface TimelineFrameStats {
  frames: number;
  /** The timeline's own drawing per frame (script time inside the frame). */
  draw: TimingSummary;
  /** Time between consecutive animation frames: what a user sees as
   * smoothness (about 16.7 ms at 60 Hz when nothing is dropped). */
  interval: TimingSummary;
  /** From the last setProject to the end of its first draw, ms. */
  firstPaintMs: number | null;
  /** Frames whose interval exceeded 1.5 × the median interval. */
  droppedFrames: number;
  /** The same window's frame interval with nothing drawn, measured just
   * before the sweep: the browser's own pacing, the baseline to compare
   * `interval` with. */
  idleInterval: TimingSummary;
}

/** Runs the scroll-and-zoom sweep and returns its frame statistics. Leaves
 * the view scrolled and zoomed as it found it. */
export async function measureTimeline(view: TimelineView, options: MeasureOptions = {}): Promise<TimelineFrameStats> {
  const frames = Math.max(2, options.frames ?? 600);
  const firstPaintMs = await firstPaint(view);
  const idleInterval = summarize(await idleIntervals(Math.min(60, frames)));
  const saved = { zoom: view.zoom, scroll: view.scrollSeconds, follow: view.follow };
  view.setFollow(false);

  const scrollFrames = Math.floor(frames / 2);
  view.setZoom(options.scrollZoom ?? 20);
  view.setScroll(0);
  const end = Math.max(1, view.programmeLength);
  const draws: number[] = [];
  const intervals: number[] = [];
  let last: number | null = null;

  await new Promise<void>((resolve) => {
    let i = 0;
    const step = (now: number) => {
      if (last !== null) intervals.push(now - last);
      last = now;
      if (i < scrollFrames) {
        view.setScroll((end * i) / scrollFrames);
      } else {
        // Out from the closest zoom to the widest and back in, as a
        // triangle wave in log space, anchored on the middle of the programme.
        const phase = (i - scrollFrames) / Math.max(1, frames - scrollFrames);
        const t = phase < 0.5 ? phase * 2 : 2 - phase * 2;
        const logZoom = Math.log(MAX_PX_PER_SECOND) + t * (Math.log(MIN_PX_PER_SECOND) - Math.log(MAX_PX_PER_SECOND));
        view.setZoom(Math.exp(logZoom), end / 2);
      }
      draws.push(view.flush());
      i += 1;
      if (i < frames) requestAnimationFrame(step);
      else resolve();
    };
    requestAnimationFrame(step);
  });

  view.setZoom(saved.zoom);
  view.setScroll(saved.scroll);
  view.setFollow(saved.follow);

  const median = [...intervals].sort((a, b) => a - b)[Math.floor(intervals.length / 2)] ?? 0;
  return {
    frames,
    draw: summarize(draws),
    interval: summarize(intervals),
    firstPaintMs,
    droppedFrames: intervals.filter((ms) => ms > median * 1.5).length,
    idleInterval,
  };
}

/** Intervals between `frames` animation frames that draw nothing. */
async function idleIntervals(frames: number): Promise<number[]> {
  const intervals: number[] = [];
  let last: number | null = null;
  for (let i = 0; i < frames; i++) {
    const now = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
    if (last !== null) intervals.push(now - last);
    last = now;
  }
  return intervals;
}

/** Waits for the first draw after setProject, if it has not happened. */
async function firstPaint(view: TimelineView): Promise<number | null> {
  for (let i = 0; i < 10 && view.paintStats.firstPaintMs === null; i++) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  return view.paintStats.firstPaintMs;
}
