// What is wrong with a line, as the blocks show it: its render sped up
// past the cap, trimmed to fit, or running into the next line; its take
// failing when the engine listened back to it; and slots that overlap
// another line of the same speaker. Pure.
import type { Segment } from "../model";

/** Past this playback rate a sped-up line sounds rushed. */
export const RATE_CAP = 1.25;
/** Overlaps shorter than this are rounding, not a problem. */
export const OVERLAP_EPSILON = 0.005;

export type FitProblem =
  | { kind: "sped-up"; rate: number }
  | { kind: "trimmed" }
  | { kind: "runs-into-next"; seconds: number; nextId: number | null }
  | { kind: "heard"; heard: string; problems: string[] };

/** The fit problems of a rendered line. `next` is the line after it in the
 * track (any speaker). The engine's `overlap` is trusted; when the next line
 * has moved since the render, the placed audio is checked against it too:
 * it runs into the next line when it goes past its own slot's end and past
 * the next line's start (slots the script itself overlaps are cross-talk,
 * not a fit problem). */
export function fitProblems(segment: Segment, next: Segment | null): FitProblem[] {
  const fit = segment.fit;
  if (!fit) return [];
  const problems: FitProblem[] = [];
  if (segment.check && !segment.check.passed) problems.push({ kind: "heard", heard: segment.check.heard, problems: segment.check.problems });
  if (fit.rate > RATE_CAP + 1e-9) problems.push({ kind: "sped-up", rate: fit.rate });
  if (fit.trimmed) problems.push({ kind: "trimmed" });
  const intoNext = next ? fit.end - Math.max(next.start, segment.end) : 0;
  const seconds = Math.max(fit.overlap ?? 0, intoNext);
  if (seconds > OVERLAP_EPSILON) problems.push({ kind: "runs-into-next", seconds, nextId: next?.id ?? null });
  return problems;
}

/** A short badge for a problem: `×1.31`, `trim`, `+0.42s`, `QC`. */
export function problemLabel(problem: FitProblem): string {
  switch (problem.kind) {
    case "sped-up":
      return `×${problem.rate.toFixed(2)}`;
    case "trimmed":
      return "trim";
    case "runs-into-next":
      return `+${problem.seconds.toFixed(2)}s`;
    case "heard":
      return "QC";
  }
}

/** A sentence for the tooltip. */
export function problemSentence(problem: FitProblem): string {
  switch (problem.kind) {
    case "sped-up":
      return `Sped up ×${problem.rate.toFixed(2)}, past the ×${RATE_CAP.toFixed(2)} cap`;
    case "trimmed":
      return "Trimmed to fit its slot";
    case "runs-into-next":
      return `Runs ${problem.seconds.toFixed(2)} s into the next line`;
    case "heard":
      return `Failed its check (heard "${problem.heard}"): ${problem.problems.join("; ")}`;
  }
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
