// The script's row model: a track's lines in time order with their number
// in the track, the original's line for each (from the first track, or a
// translated track's own source line), characters per second, state
// badges, the filters, and the row under the playhead. Pure.
import type { LineTranslation, TrackTranslations } from "../engine";
import type { Project, Segment, Track } from "../model";
import { flagWords } from "../timeline/fit-problems";
import { linksByLine } from "./translations";

/** Reading speed above which a line is marked: characters per second, a
 * common subtitle limit. */
export const CPS_LIMIT = 17;

export interface ScriptRow {
  segment: Segment;
  /** 1, 2, 3… in time order within the whole track (filters keep it). */
  number: number;
  /** The original's text for this line; null when there is none. */
  original: string | null;
  /** The line's link to the source line it was translated from; null when it has none. */
  translation: LineTranslation | null;
  /** Characters per second over the slot; null for an empty slot. */
  cps: number | null;
}

export interface ScriptModel {
  rows: ScriptRow[];
  /** The original's language (`en`) when the Original column shows; null hides it. */
  originalLanguage: string | null;
  /** Whether the column holds the source the track was translated from. */
  translated: boolean;
}

/** Time order: start, then end, then id (the timeline's order). */
export function byTime(a: Segment, b: Segment): number {
  return a.start - b.start || a.end - b.end || a.id - b.id;
}

/** The track the original text comes from: the first track, when the
 * project has more than one and `trackId` is not it. */
export function originalTrack(project: Project, trackId: number): Track | null {
  const first = project.tracks[0];
  return project.tracks.length > 1 && first && first.id !== trackId ? first : null;
}

/** A lookup of the original line overlapping a slot most (the earlier on
 * a tie; null when none overlaps at all). Sorts once; each look-up is a
 * binary search plus a walk back over the lines still open. */
export function originalLookup(originals: readonly Segment[]): (start: number, end: number) => Segment | null {
  const sorted = [...originals].sort(byTime);
  const maxEnd = prefixMaxEnd(sorted, (s) => s.end);
  return (start, end) => {
    let best: Segment | null = null;
    let bestOverlap = 0;
    // Lines starting at or after `end` cannot overlap.
    for (let i = lastStartBefore(sorted, end); i >= 0 && maxEnd[i] > start; i--) {
      const o = sorted[i];
      const overlap = Math.min(end, o.end) - Math.max(start, o.start);
      if (overlap > 0 && overlap >= bestOverlap) {
        best = o;
        bestOverlap = overlap;
      }
    }
    return best;
  };
}

/** Characters per second of `text` over a slot: its characters (line
 * breaks and surrounding spaces not counted) over the slot's seconds. */
export function charsPerSecond(text: string, start: number, end: number): number | null {
  const seconds = end - start;
  if (!(seconds > 0)) return null;
  return Array.from(text.replace(/[\r\n]+/g, "").trim()).length / seconds;
}

/** One decimal, as the column shows it; a dash for an empty slot. */
export function formatCps(cps: number | null): string {
  return cps === null ? "–" : cps.toFixed(1);
}

/** Too fast to read (over CPS_LIMIT, as shown: 17.04 shows 17.0 and is not). */
export function overCps(cps: number | null): boolean {
  return cps !== null && Math.round(cps * 10) / 10 > CPS_LIMIT;
}

/** A track's rows: numbered in time order, with originals and cps. A
 * track translated from another (`translations` of this track, with its
 * source) takes each line's own source line as its original, and the
 * source track's line overlapping most for a line with no link. */
export function buildRows(project: Project, trackId: number, translations: TrackTranslations | null = null): ScriptModel {
  const track = project.tracks.find((t) => t.id === trackId);
  const segments = [...(track?.segments ?? [])].sort(byTime);
  const translated = translations !== null && translations.trackId === trackId && translations.sourceTrackId !== null;
  const links = translated ? linksByLine(translations) : new Map<number, LineTranslation>();
  const source = (translated && project.tracks.find((t) => t.id === translations.sourceTrackId)) || originalTrack(project, trackId);
  const lookup = source ? originalLookup(source.segments) : null;
  const rows = segments.map((segment, i) => {
    const translation = links.get(segment.id) ?? null;
    return {
      segment,
      number: i + 1,
      original: translation ? translation.sourceText : lookup ? lookup(segment.start, segment.end)?.text ?? null : null,
      translation,
      cps: charsPerSecond(segment.text, segment.start, segment.end),
    };
  });
  const language = translated ? translations.sourceLanguage ?? source?.language ?? null : source ? source.language : null;
  return { rows, originalLanguage: language, translated };
}

/** A new version of a row's line (same slot): cps worked out again. */
export function withSegment(row: ScriptRow, segment: Segment): ScriptRow {
  return { ...row, segment, cps: charsPerSecond(segment.text, segment.start, segment.end) };
}

// ---- state ----------------------------------------------------------------

export type BadgeKind = Segment["state"] | "flagged" | "qc";

export interface Badge {
  kind: BadgeKind;
  label: string;
  /** The longer story, for the tooltip. */
  title: string;
}

const STATE_TITLES: Record<Segment["state"], string> = {
  stale: "Stale: changed since its render",
  queued: "Queued to render",
  rendering: "Rendering now",
  ready: "Rendered and current",
  failed: "The render failed",
};

/** Whether its take was heard back and failed. */
export function failedCheck(segment: Segment): boolean {
  return Boolean(segment.check && !segment.check.passed);
}

/** The state badge, then "flagged" when it has flags and "QC" when its
 * take failed its check. */
export function stateBadges(segment: Segment): Badge[] {
  const badges: Badge[] = [
    { kind: segment.state, label: segment.state, title: segment.error ? `${STATE_TITLES[segment.state]}: ${segment.error}` : STATE_TITLES[segment.state] },
  ];
  if (segment.flags.length > 0) {
    badges.push({ kind: "flagged", label: "flagged", title: `Flagged: ${segment.flags.map(flagWords).join(", ")}` });
  }
  const check = segment.check;
  if (check && !check.passed) {
    badges.push({ kind: "qc", label: "QC", title: `Failed its check (heard "${check.heard}")${check.problems.length ? `: ${check.problems.join("; ")}` : ""}` });
  }
  return badges;
}

// ---- filters --------------------------------------------------------------

export type StateFilter = "all" | "stale" | "doesnt-fit" | "failed-qc" | "flagged" | "failed";
/** A speaker's id, "none" for lines without one, or "all". */
export type SpeakerFilter = "all" | "none" | number;

export interface RowFilter {
  speaker: SpeakerFilter;
  state: StateFilter;
}

export const NO_FILTER: RowFilter = { speaker: "all", state: "all" };

export const STATE_FILTERS: readonly [StateFilter, string][] = [
  ["all", "All states"],
  ["stale", "Stale"],
  ["doesnt-fit", "Doesn't fit"],
  ["failed-qc", "Failed QC"],
  ["flagged", "Flagged"],
  ["failed", "Failed"],
];

export function isFiltering(filter: RowFilter): boolean {
  return filter.speaker !== "all" || filter.state !== "all";
}

export function matchesState(segment: Segment, state: StateFilter): boolean {
  switch (state) {
    case "all":
      return true;
    case "stale":
      return segment.state === "stale";
    case "doesnt-fit":
      return segment.flags.some((f) => f.kind === "doesntFit");
    case "failed-qc":
      return failedCheck(segment) || segment.flags.some((f) => f.kind === "failedCheck");
    case "flagged":
      return segment.flags.length > 0;
    case "failed":
      return segment.state === "failed";
  }
}

export function matchesSpeaker(segment: Segment, speaker: SpeakerFilter): boolean {
  if (speaker === "all") return true;
  if (speaker === "none") return segment.speakerId === null;
  return segment.speakerId === speaker;
}

/** The rows the filter keeps, in order (the same array when none is on);
 * `keepId`'s row stays whatever the filter says (the line being edited). */
export function filterRows(rows: readonly ScriptRow[], filter: RowFilter, keepId: number | null = null): readonly ScriptRow[] {
  if (!isFiltering(filter)) return rows;
  return rows.filter((r) => r.segment.id === keepId || (matchesSpeaker(r.segment, filter.speaker) && matchesState(r.segment, filter.state)));
}

/** The speaker filter's choices: every speaker in project order, and "No
 * speaker" when a line has none. */
export function speakerChoices(project: Project, rows: readonly ScriptRow[]): [SpeakerFilter, string][] {
  const choices: [SpeakerFilter, string][] = [["all", "All speakers"]];
  for (const s of project.speakers) choices.push([s.id, s.name]);
  if (rows.some((r) => r.segment.speakerId === null)) choices.push(["none", "No speaker"]);
  return choices;
}

/** The filter value a select's option stands for. */
export function parseSpeakerFilter(value: string): SpeakerFilter {
  return value === "all" || value === "none" ? value : Number(value);
}

// ---- time -----------------------------------------------------------------

/** maxEnd[i]: the latest end among items[0..i] (never decreases, so a
 * walk back can stop at the first that ends before a time). */
export function prefixMaxEnd<T>(items: readonly T[], end: (item: T) => number): Float64Array {
  const out = new Float64Array(items.length);
  let latest = -Infinity;
  items.forEach((item, i) => {
    latest = Math.max(latest, end(item));
    out[i] = latest;
  });
  return out;
}

/** The index of the last line starting before `seconds` (-1 when none). */
function lastStartBefore(sorted: readonly Segment[], seconds: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid].start < seconds) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Where the playhead is in the rows (sorted by time, `maxEnd` their
 * prefixMaxEnd): `at`, the latest-starting row it is inside (-1: in a
 * gap), and `near`, the last row starting at or before it (-1: before the
 * first), which following keeps in view. */
export function playheadRow(rows: readonly ScriptRow[], maxEnd: Float64Array, seconds: number): { at: number; near: number } {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].segment.start <= seconds) lo = mid + 1;
    else hi = mid;
  }
  const near = lo - 1;
  for (let i = near; i >= 0 && maxEnd[i] > seconds; i--) {
    if (rows[i].segment.end > seconds) return { at: i, near };
  }
  return { at: -1, near };
}
