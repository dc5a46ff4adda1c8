// What is wrong with a line, as the blocks show it: too long for its
// slot even at the fastest rate (known before any render, from its
// predicted length), sped up past the cap, cut by strict slot, running
// into the next line; its take failing when the engine listened back to
// it; text in a script its voice cannot read; and slots that overlap
// another line of the same speaker. The engine flags a line (`flags`); this turns its flags and fit into badges. Pure.
import type { LineFlag } from "../engine-types";
import type { Fit, Segment } from "../model";

/** Past this playback rate a sped-up line sounds rushed. */
export const RATE_CAP = 1.25;
/** Overlaps shorter than this are rounding, not a problem. */
export const OVERLAP_EPSILON = 0.005;

export type FitProblem =
  | { kind: "doesnt-fit"; seconds: number }
  | { kind: "sped-up"; rate: number }
  | { kind: "trimmed"; seconds: number | null }
  | { kind: "runs-into-next"; seconds: number; nextId: number | null }
  | { kind: "heard"; heard: string; problems: string[] }
  | { kind: "unreadable"; script: string; letters: string; voice: string };

/** Where a line lands as the timeline draws it: its take's fit while the
 * take is current, else where it will land once rendered (predicted),
 * else its old take's fit. */
export function shownFit(segment: Segment): Fit | null {
  if (segment.state === "ready") return segment.fit;
  return segment.planned ?? segment.fit;
}

/** The fit problems of a line, rendered or not. `next` is the line after
 * it in the track (any speaker). The engine's flags are trusted; when the
 * next line has moved since the engine placed this one, the placed audio
 * is checked against it too: it runs into the next line when it goes past
 * its own slot's end and past the next line's start (slots the script
 * itself overlaps are cross-talk, not a fit problem). */
export function fitProblems(segment: Segment, next: Segment | null): FitProblem[] {
  const problems: FitProblem[] = [];
  const flags = segment.flags;
  for (const flag of flags) {
    if (flag.kind === "unreadable") problems.push({ kind: "unreadable", script: flag.script, letters: flag.letters, voice: flag.voice });
    if (flag.kind === "doesntFit") problems.push({ kind: "doesnt-fit", seconds: flag.seconds });
  }
  if (segment.check && !segment.check.passed) problems.push({ kind: "heard", heard: segment.check.heard, problems: segment.check.problems });
  const fit = shownFit(segment);
  if (!fit) return problems;
  if (fit.rate > RATE_CAP + 1e-9) problems.push({ kind: "sped-up", rate: fit.rate });
  if (fit.trimmed) problems.push({ kind: "trimmed", seconds: fit.cut });
  const intoNext = next ? fit.end - Math.max(next.start, segment.end) : 0;
  const seconds = Math.max(fit.overlap ?? 0, intoNext);
  if (seconds > OVERLAP_EPSILON) problems.push({ kind: "runs-into-next", seconds, nextId: next?.id ?? null });
  return problems;
}

/** A short badge for a problem: `long 0.42s`, `×1.31`, `cut`, `+0.42s`, `QC`. */
export function problemLabel(problem: FitProblem): string {
  switch (problem.kind) {
    case "doesnt-fit":
      return `long ${problem.seconds.toFixed(2)}s`;
    case "sped-up":
      return `×${problem.rate.toFixed(2)}`;
    case "trimmed":
      return "cut";
    case "runs-into-next":
      return `+${problem.seconds.toFixed(2)}s`;
    case "heard":
      return "QC";
    case "unreadable":
      return "can't read";
  }
}

/** A sentence for the tooltip, the inspector and the render panel. */
export function problemSentence(problem: FitProblem): string {
  switch (problem.kind) {
    case "doesnt-fit":
      return `Doesn't fit: ${problem.seconds.toFixed(2)} s too long for its slot even at ×${RATE_CAP.toFixed(2)} with the gaps around it`;
    case "sped-up":
      return `Sped up ×${problem.rate.toFixed(2)}, past the ×${RATE_CAP.toFixed(2)} cap`;
    case "trimmed":
      return problem.seconds !== null && problem.seconds > 0.005 ? `Words cut: strict slot cuts its last ${problem.seconds.toFixed(2)} s` : "Cut to its slot";
    case "runs-into-next":
      return `Runs ${problem.seconds.toFixed(2)} s into the next line`;
    case "heard":
      return `Failed its check (heard "${problem.heard}"): ${problem.problems.join("; ")}`;
    case "unreadable":
      return `Can't be read: its voice ${problem.voice} cannot read ${problem.script} script ("${problem.letters}"); choose a voice that speaks the line's language, or write it in letters the voice reads`;
  }
}

/** Whether a line can ship as it stands: rendered, current and with no
 * flag (never called ready while it doesn't fit, is cut, or failed its check). */
export function isShippable(segment: Segment): boolean {
  return segment.state === "ready" && (segment.flags).length === 0;
}

/** A flag in a few words. */
export function flagWords(flag: LineFlag): string {
  switch (flag.kind) {
    case "doesntFit":
      return `doesn't fit (${flag.seconds.toFixed(2)} s too long)`;
    case "cut":
      return "words cut";
    case "overlap":
      return `overlaps the next line by ${flag.seconds.toFixed(2)} s`;
    case "unreadable":
      return `${flag.voice} cannot read its ${flag.script} script`;
    default:
      return "failed its check";
  }
}

/** A line's state in words, with its flags: "Ready" only when it can ship. */
export function stateWords(segment: Segment, plain: Record<Segment["state"], string>): string {
  const flags = segment.flags;
  if (flags.length === 0) return plain[segment.state];
  const words = flags.map(flagWords);
  const base = segment.state === "ready" ? "Rendered" : plain[segment.state];
  return `${base}, flagged: ${words.join(", ")}`;
}

export interface SlotOverlap {
  /** The other line. */
  withId: number;
  start: number;
  end: number;
}

/** Lines whose slots overlap another line in the same lane (the same
 * speaker talking over themselves), as a map from segment id to the
 * overlapping spans. `segments` must be sorted by start. One sweep per lane,
 * keeping the lines still open at each start. */
export function slotOverlaps(
  segments: readonly Segment[],
  laneOf: (s: Segment) => number,
): Map<number, SlotOverlap[]> {
  const result = new Map<number, SlotOverlap[]>();
  const open = new Map<number, Segment[]>();
  const add = (a: Segment, b: Segment, start: number, end: number) => {
    const list = result.get(a.id) ?? [];
    list.push({ withId: b.id, start, end });
    result.set(a.id, list);
  };
  for (const segment of segments) {
    const lane = laneOf(segment);
    const still = (open.get(lane) ?? []).filter((o) => o.end > segment.start + OVERLAP_EPSILON);
    for (const other of still) {
      const start = segment.start;
      const end = Math.min(segment.end, other.end);
      if (end - start > OVERLAP_EPSILON) {
        add(segment, other, start, end);
        add(other, segment, start, end);
      }
    }
    still.push(segment);
    open.set(lane, still);
  }
  return result;
}
