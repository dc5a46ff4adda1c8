// Where the original dialogue speaks: onsets and offsets found in its
// waveform peaks, for snapping a line's edges to them. A bucket counts as
// speech when its level is within `thresholdDb` of the loudest part (a
// high percentile of the levels, so one click does not set it); gaps
// shorter than the hangover are bridged (a breath between words), and
// stretches shorter than the minimum length dropped (a click, a door).
// Linear in the peaks' length, no sort. Pure.
import type { Peaks } from "../model";

export interface SpeechSpan {
  start: number;
  end: number;
}

export interface SpeechOptions {
  /** Speech is louder than the loudest part less this many dB. Default -30. */
  thresholdDb: number;
  /** Which level counts as "the loudest part": this percentile of the
   * buckets' levels. Default 0.99. */
  loudestPercentile: number;
  /** Quieter stretches shorter than this are bridged, seconds. Default 0.25. */
  hangoverSeconds: number;
  /** Speech shorter than this is dropped, seconds. Default 0.12. */
  minSpeechSeconds: number;
  /** Below this level (linear, 0..1) a recording counts as silent. Default 1e-4 (-80 dBFS). */
  silenceFloor: number;
}

export const DEFAULT_SPEECH_OPTIONS: SpeechOptions = {
  thresholdDb: -30,
  loudestPercentile: 0.99,
  hangoverSeconds: 0.25,
  minSpeechSeconds: 0.12,
  silenceFloor: 1e-4,
};

/** The level histogram's bins: 0.25 dB each from -100 dBFS to 0. */
const HIST_FLOOR_DB = -100;
const HIST_BINS = 400;

/** A bucket's level: the larger of its peaks' magnitudes. */
function level(peaks: Peaks, i: number): number {
  return Math.max(Math.abs(peaks.min[i] ?? 0), Math.abs(peaks.max[i] ?? 0));
}

/** The level at a percentile of the buckets' levels, read off a dB
 * histogram (0.25 dB fine). */
export function loudestLevel(peaks: Peaks, percentile = DEFAULT_SPEECH_OPTIONS.loudestPercentile): number {
  const n = peaks.max.length;
  if (n === 0) return 0;
  const bins = new Uint32Array(HIST_BINS + 1);
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const v = level(peaks, i);
    if (v > peak) peak = v;
    const db = v > 0 ? 20 * Math.log10(v) : -Infinity;
    const bin = db <= HIST_FLOOR_DB ? 0 : Math.min(HIST_BINS, Math.floor(((db - HIST_FLOOR_DB) / -HIST_FLOOR_DB) * HIST_BINS));
    bins[bin] += 1;
  }
  const rank = Math.min(n - 1, Math.floor(percentile * n));
  let seen = 0;
  for (let b = 0; b <= HIST_BINS; b++) {
    seen += bins[b];
    if (seen > rank) {
      if (b === 0) return 0;
      // The bin's upper edge, but never above the true peak.
      return Math.min(peak, 10 ** ((HIST_FLOOR_DB + ((b + 1) * -HIST_FLOOR_DB) / HIST_BINS) / 20));
    }
  }
  return peak;
}

/** The stretches of speech in `peaks`, in time order. */
export function speechSpans(peaks: Peaks, options: Partial<SpeechOptions> = {}): SpeechSpan[] {
  const o = { ...DEFAULT_SPEECH_OPTIONS, ...options };
  const n = Math.min(peaks.min.length, peaks.max.length);
  const spb = peaks.secondsPerBucket;
  if (n === 0 || !(spb > 0)) return [];
  const loudest = loudestLevel(peaks, o.loudestPercentile);
  if (loudest < o.silenceFloor) return [];
  const threshold = Math.max(o.silenceFloor, loudest * 10 ** (o.thresholdDb / 20));
  const hangover = Math.max(0, Math.round(o.hangoverSeconds / spb));

  // Runs of loud buckets [from, to), with short gaps bridged.
  const runs: [number, number][] = [];
  let runStart = -1;
  let lastLoud = -1;
  for (let i = 0; i < n; i++) {
    if (level(peaks, i) < threshold) continue;
    const gap = i - (lastLoud + 1);
    if (runStart >= 0 && gap > 0 && gap >= hangover) {
      runs.push([runStart, lastLoud + 1]);
      runStart = -1;
    }
    if (runStart < 0) runStart = i;
    lastLoud = i;
  }
  if (runStart >= 0) runs.push([runStart, lastLoud + 1]);

  const spans: SpeechSpan[] = [];
  for (const [from, to] of runs) {
    if ((to - from) * spb + 1e-9 < o.minSpeechSeconds) continue;
    spans.push({ start: peaks.start + from * spb, end: peaks.start + to * spb });
  }
  return spans;
}

/** The spans' onsets and offsets as one sorted list of times (snap targets). */
export function speechBoundaries(spans: readonly SpeechSpan[]): number[] {
  const times: number[] = [];
  for (const s of spans) times.push(s.start, s.end);
  return times;
}

/** The index of the first of the sorted `times` at or after `t`. */
export function lowerBound(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
