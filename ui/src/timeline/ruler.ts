// The time ruler's arithmetic: which tick spacing to use at a zoom (major
// labelled ticks and minor ones between), the tick times in a range, and
// the labels (SMPTE timecode at the project's frame rate). Pure.

import { formatFrame, fps, type FrameRate } from "../timecode";

/** Spacings the ruler picks from, seconds: round numbers on a clock. */
export const TICK_STEPS: readonly number[] = [
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
  1800, 3600,
];

/** Labels need this much room. */
export const MIN_MAJOR_PX = 80;
/** Minor ticks closer than this would be a grey smear. */
export const MIN_MINOR_PX = 8;

export interface TickSpacing {
  /** Seconds between labelled ticks. */
  major: number;
  /** Seconds between unlabelled ticks (divides `major`). */
  minor: number;
}

/** Whether `major` is a whole number of `step`s. */
export function divides(step: number, major: number): boolean {
  const ratio = major / step;
  return Math.abs(ratio - Math.round(ratio)) < 1e-6;
}

/** The spacing for a zoom: the smallest round step whose labels are at
 * least MIN_MAJOR_PX apart, and the finest step dividing it that is at least
 * MIN_MINOR_PX apart. */
export function tickSpacing(pxPerSecond: number): TickSpacing {
  const major = TICK_STEPS.find((s) => s * pxPerSecond >= MIN_MAJOR_PX) ?? TICK_STEPS[TICK_STEPS.length - 1];
  const minor =
    TICK_STEPS.find((s) => s < major && s * pxPerSecond >= MIN_MINOR_PX && divides(s, major)) ?? major;
  return { major, minor };
}

/** Tick times from `from` to `to` (inclusive), every `step` seconds, as
 * whole multiples of the step so they never drift. */
export function tickTimes(from: number, to: number, step: number): number[] {
  const times: number[] = [];
  const first = Math.ceil(from / step - 1e-9);
  const last = Math.floor(to / step + 1e-9);
  for (let i = first; i <= last; i++) times.push(Number((i * step).toFixed(6)));
  return times;
}

/** A label for a tick: at a project's frame `rate`, the timecode of the
 * frame nearest it (the ticks are never closer than a frame: the finest
 * spacing, 0.05 s, is longer than a frame at every rate); without one,
 * `h:mm:ss`, `m:ss`, or with fractions when the spacing is under a second
 * (`0:01.5`, `0:01.25`). */
export function formatTickLabel(seconds: number, major: number, rate?: FrameRate): string {
  if (rate) return formatFrame(Math.max(0, Math.round(seconds * fps(rate))), rate);
  const decimals = major >= 1 ? 0 : major >= 0.1 ? 1 : major >= 0.01 ? 2 : 3;
  return formatTimecode(seconds, decimals);
}

/** `m:ss` (or `h:mm:ss`) with `decimals` digits after the seconds. */
export function formatTimecode(seconds: number, decimals = 0): string {
  const sign = seconds < 0 ? "-" : "";
  const scaled = Math.round(Math.abs(seconds) * 10 ** decimals);
  const whole = Math.floor(scaled / 10 ** decimals);
  const fraction = scaled % 10 ** decimals;
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const ss = String(s).padStart(2, "0");
  const frac = decimals > 0 ? `.${String(fraction).padStart(decimals, "0")}` : "";
  return h > 0
    ? `${sign}${h}:${String(m).padStart(2, "0")}:${ss}${frac}`
    : `${sign}${m}:${ss}${frac}`;
}
