// Find and replace in the script's text: where a search matches a line
// (case-sensitive or not, whole words or not), how many matches in how
// many lines, and the replacement as the engine is asked to make it. The
// search is literal text, never a pattern. Pure.

export interface FindOptions {
  matchCase: boolean;
  wholeWord: boolean;
}

/** A match: [start, end) in UTF-16 units of the text. */
export type Range = readonly [number, number];

/** Letters, digits and underscore in any script: a whole-word match has
 * none of them right before or right after it. */
const WORD_BEFORE = /[\p{L}\p{N}\p{M}_]$/u;
const WORD_AFTER = /^[\p{L}\p{N}\p{M}_]/u;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A compiled search. (Whole words are checked by hand, not with a
 * look-behind, which older WebKit does not have.) */
export class Matcher {
  private readonly pattern: RegExp;

  constructor(
    readonly find: string,
    readonly options: FindOptions,
  ) {
    this.pattern = new RegExp(escapeRegExp(find), options.matchCase ? "gu" : "giu");
  }

  /** Non-overlapping matches in `text`, left to right. */
  ranges(text: string): Range[] {
    const out: Range[] = [];
    const re = this.pattern;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (this.options.wholeWord && !isWholeWord(text, start, end)) {
        // Try again one character on (a match may start inside this one).
        re.lastIndex = start + 1;
        continue;
      }
      out.push([start, end]);
    }
    return out;
  }

  count(text: string): number {
    return this.ranges(text).length;
  }

  /** `text` with every match replaced by `replacement` (taken literally). */
  replace(text: string, replacement: string): string {
    const ranges = this.ranges(text);
    if (ranges.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of ranges) {
      out += text.slice(at, start) + replacement;
      at = end;
    }
    return out + text.slice(at);
  }
}

function isWholeWord(text: string, start: number, end: number): boolean {
  return !WORD_BEFORE.test(text.slice(Math.max(0, start - 2), start)) && !WORD_AFTER.test(text.slice(end, end + 2));
}

/** The search for `find`, or null when there is nothing to find. */
export function matcher(find: string, options: FindOptions): Matcher | null {
  return find === "" ? null : new Matcher(find, options);
}

export interface MatchSummary {
  /** Matches in all the lines searched. */
  matches: number;
  /** Lines with at least one. */
  lines: number;
  /** The matching lines' ids, in the order searched. */
  ids: number[];
}

/** Counts the matches in lines' text. */
export function summarizeMatches(lines: Iterable<{ id: number; text: string }>, search: Matcher | null): MatchSummary {
  const summary: MatchSummary = { matches: 0, lines: 0, ids: [] };
  if (!search) return summary;
  for (const line of lines) {
    const n = search.count(line.text);
    if (n > 0) {
      summary.matches += n;
      summary.lines += 1;
      summary.ids.push(line.id);
    }
  }
  return summary;
}

/** "3 matches in 2 lines", "1 match in 1 line", "No matches". */
export function matchesSentence(summary: MatchSummary): string {
  if (summary.matches === 0) return "No matches";
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("h") ? "es" : "s"}`;
  return `${plural(summary.matches, "match")} in ${plural(summary.lines, "line")}`;
}

/** The next of `matching` (indexes, ascending) after `from`, wrapping
 * round; backwards when `back`. -1 when there is none. */
export function nextMatch(matching: readonly number[], from: number, back = false): number {
  if (matching.length === 0) return -1;
  if (back) {
    for (let i = matching.length - 1; i >= 0; i--) if (matching[i] < from) return matching[i];
    return matching[matching.length - 1];
  }
  for (const i of matching) if (i > from) return i;
  return matching[0];
}

/** Text split into plain and matched runs, for highlighting. */
export function splitRuns(text: string, ranges: readonly Range[]): { text: string; match: boolean }[] {
  const runs: { text: string; match: boolean }[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) runs.push({ text: text.slice(at, start), match: false });
    runs.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  if (at < text.length || runs.length === 0) runs.push({ text: text.slice(at), match: false });
  return runs;
}
