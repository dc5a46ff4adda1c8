// The script's row model: numbering in time order, the original's line,
// characters per second, badges, filters and the row under the playhead.
import { describe, expect, it } from "vitest";
import type { Project, Segment, Track } from "../model";
import { line, syntheticProject } from "../timeline/synthetic";
import {
  CPS_LIMIT,
  buildRows,
  charsPerSecond,
  filterRows,
  formatCps,
  originalLookup,
  originalTrack,
  overCps,
  playheadRow,
  prefixMaxEnd,
  speakerChoices,
  stateBadges,
} from "./rows";
import { link } from "./test-translations";

function project(tracks: Track[]): Project {
  const base = syntheticProject(1).project;
  return { ...base, tracks };
}

const track = (id: number, language: string, segments: Segment[]): Track => ({ id, language, segments: segments.map((s) => ({ ...s, trackId: id })) });

describe("rows", () => {
  it("numbers lines in time order, not by id", () => {
    const p = project([track(1, "en", [line({ id: 9, start: 5, end: 6 }), line({ id: 3, start: 1, end: 2 }), line({ id: 4, start: 3, end: 4 })])]);
    const { rows, originalLanguage } = buildRows(p, 1);
    expect(rows.map((r) => [r.segment.id, r.number])).toEqual([[3, 1], [4, 2], [9, 3]]);
    expect(originalLanguage).toBeNull();
    expect(rows.every((r) => r.original === null)).toBe(true);
  });

  it("takes the original from the first track's line overlapping most, only for a later track", () => {
    const en = track(1, "en", [
      line({ id: 1, start: 0, end: 2, text: "Hello there" }),
      line({ id: 2, start: 1.5, end: 6, text: "How are you" }),
      line({ id: 3, start: 10, end: 12, text: "Far away" }),
    ]);
    const fr = track(2, "fr", [line({ id: 11, start: 0, end: 1.8, text: "Bonjour" }), line({ id: 12, start: 2, end: 5, text: "Ça va" }), line({ id: 13, start: 7, end: 8, text: "Rien" })]);
    const p = project([en, fr]);
    expect(originalTrack(p, 1)).toBeNull();
    expect(originalTrack(p, 2)?.language).toBe("en");
    const { rows, originalLanguage } = buildRows(p, 2);
    expect(originalLanguage).toBe("en");
    expect(rows.map((r) => r.original)).toEqual(["Hello there", "How are you", null]);
    expect(buildRows(p, 1).originalLanguage).toBeNull();
    expect(buildRows(project([fr]), 2).originalLanguage).toBeNull();
  });

  it("on a translated track, takes each line's own source line, and the source track's overlap for a line with no link", () => {
    const en = track(1, "en", [line({ id: 1, start: 0, end: 2, text: "First" })]);
    const es = track(2, "es", [line({ id: 5, start: 0, end: 2, text: "Primero" }), line({ id: 6, start: 3, end: 4, text: "Uno" }), line({ id: 7, start: 5, end: 6, text: "Dos" })]);
    const fr = track(3, "fr", [line({ id: 21, start: 0, end: 2, text: "Premier" }), line({ id: 22, start: 3, end: 4, text: "Un" }), line({ id: 23, start: 5, end: 6, text: "Deux" })]);
    const p = project([en, es, fr]);
    const links = { trackId: 3, sourceTrackId: 2, sourceLanguage: "es", lines: [link({ segmentId: 22, sourceSegmentId: 6, sourceText: "Uno (now)" })] };
    const model = buildRows(p, 3, links);
    expect(model.originalLanguage).toBe("es");
    expect(model.translated).toBe(true);
    expect(model.rows.map((r) => [r.segment.id, r.original, r.translation?.sourceSegmentId ?? null])).toEqual([
      [21, "Primero", null],
      [22, "Uno (now)", 6],
      [23, "Dos", null],
    ]);
    // Links of another track, or a track made by no translation: the first track's original.
    for (const other of [{ ...links, trackId: 2 }, { ...links, sourceTrackId: null, sourceLanguage: null, lines: [] }]) {
      const plain = buildRows(p, 3, other);
      expect(plain.translated).toBe(false);
      expect(plain.originalLanguage).toBe("en");
      expect(plain.rows.map((r) => [r.original, r.translation])).toEqual([["First", null], [null, null], [null, null]]);
    }
  });

  it("finds the most-overlapping original behind a long earlier line", () => {
    const lookup = originalLookup([line({ id: 1, start: 0, end: 100 }), line({ id: 2, start: 50, end: 51 }), line({ id: 3, start: 52, end: 53 })]);
    expect(lookup(50.5, 51)?.id).toBe(1); // both overlap 0.5: the earlier one wins
    expect(lookup(52, 60)?.id).toBe(1);
    expect(lookup(100, 101)).toBeNull();
    expect(lookup(-2, -1)).toBeNull();
    const inside = originalLookup([line({ id: 1, start: 0, end: 100 }), line({ id: 2, start: 50, end: 60 })]);
    expect(inside(49, 61)?.id).toBe(1);
  });

  it("works out characters per second and marks them above the limit", () => {
    expect(charsPerSecond("abcdefghij", 0, 2)).toBe(5);
    expect(charsPerSecond(" ab\ncd ", 0, 1)).toBe(4);
    expect(charsPerSecond("é🙂", 0, 1)).toBe(2);
    expect(charsPerSecond("text", 3, 3)).toBeNull();
    expect(formatCps(12.345)).toBe("12.3");
    expect(formatCps(null)).toBe("–");
    expect(CPS_LIMIT).toBe(17);
    expect(overCps(17)).toBe(false);
    expect(overCps(17.04)).toBe(false);
    expect(overCps(17.06)).toBe(true);
    expect(overCps(null)).toBe(false);
    const p = project([track(1, "en", [line({ id: 1, start: 0, end: 1, text: "x".repeat(20) })])]);
    expect(buildRows(p, 1).rows[0].cps).toBe(20);
  });

  it("badges the state, flags and a failed check", () => {
    expect(stateBadges(line({ id: 1, start: 0, end: 1, state: "ready" })).map((b) => b.label)).toEqual(["ready"]);
    const flagged = line({ id: 1, start: 0, end: 1, state: "ready", flags: [{ kind: "doesntFit", seconds: 0.5 }, { kind: "failedCheck" }], check: { passed: false, heard: "hm", problems: ["lost a word"], wordErrorRate: 0.5 } });
    const badges = stateBadges(flagged);
    expect(badges.map((b) => b.kind)).toEqual(["ready", "flagged", "qc"]);
    expect(badges[1].title).toContain("doesn't fit");
    expect(badges[2].title).toContain("lost a word");
    const failed = stateBadges(line({ id: 1, start: 0, end: 1, state: "failed", error: "out of memory" }));
    expect(failed[0].title).toContain("out of memory");
  });

  it("filters by speaker and state and keeps the track's numbering", () => {
    const segments = [
      line({ id: 1, start: 0, end: 1, speakerId: 1, state: "stale" }),
      line({ id: 2, start: 1, end: 2, speakerId: 2, state: "failed" }),
      line({ id: 3, start: 2, end: 3, speakerId: 1, state: "ready", flags: [{ kind: "doesntFit", seconds: 1 }] }),
      line({ id: 4, start: 3, end: 4, speakerId: null, state: "ready", check: { passed: false, heard: "", problems: [], wordErrorRate: 1 }, flags: [{ kind: "failedCheck" }] }),
      line({ id: 5, start: 4, end: 5, speakerId: 1, state: "ready", flags: [{ kind: "cut", seconds: 0.2 }] }),
    ];
    const p = project([track(1, "en", segments)]);
    const { rows } = buildRows(p, 1);
    const ids = (speaker: "all" | "none" | number, state: Parameters<typeof filterRows>[1]["state"]) => filterRows(rows, { speaker, state }).map((r) => r.segment.id);
    expect(filterRows(rows, { speaker: "all", state: "all" })).toBe(rows);
    expect(ids(1, "all")).toEqual([1, 3, 5]);
    expect(ids("none", "all")).toEqual([4]);
    expect(ids("all", "stale")).toEqual([1]);
    expect(ids("all", "failed")).toEqual([2]);
    expect(ids("all", "doesnt-fit")).toEqual([3]);
    expect(ids("all", "failed-qc")).toEqual([4]);
    expect(ids("all", "flagged")).toEqual([3, 4, 5]);
    expect(ids(1, "flagged")).toEqual([3, 5]);
    expect(filterRows(rows, { speaker: 1, state: "flagged" }).map((r) => r.number)).toEqual([3, 5]);
    expect(filterRows(rows, { speaker: 2, state: "all" }, 1).map((r) => r.segment.id)).toEqual([1, 2]);
    expect(speakerChoices(p, rows).map(([value]) => value)).toEqual(["all", ...p.speakers.map((s) => s.id), "none"]);
  });

  it("finds the row under the playhead, and the last before it in a gap", () => {
    const p = project([track(1, "en", [line({ id: 1, start: 0, end: 10 }), line({ id: 2, start: 2, end: 3 }), line({ id: 3, start: 12, end: 13 })])]);
    const { rows } = buildRows(p, 1);
    const maxEnd = prefixMaxEnd(rows, (r) => r.segment.end);
    expect(playheadRow(rows, maxEnd, 2.5)).toEqual({ at: 1, near: 1 });
    expect(playheadRow(rows, maxEnd, 5)).toEqual({ at: 0, near: 1 });
    expect(playheadRow(rows, maxEnd, 11)).toEqual({ at: -1, near: 1 });
    expect(playheadRow(rows, maxEnd, -1)).toEqual({ at: -1, near: -1 });
    expect(playheadRow(rows, maxEnd, 12)).toEqual({ at: 2, near: 2 });
  });

  it("builds 2,000 rows with originals quickly", () => {
    const { project: p } = syntheticProject(2000);
    const en = p.tracks[0];
    const fr: Track = { id: 2, language: "fr", segments: en.segments.map((s) => ({ ...s, id: s.id + 10000, trackId: 2, start: s.start + 0.1 })) };
    const both = { ...p, tracks: [en, fr] };
    const started = performance.now();
    const { rows } = buildRows(both, 2);
    expect(performance.now() - started).toBeLessThan(200);
    expect(rows).toHaveLength(2000);
    expect(rows.every((r) => r.original !== null)).toBe(true);
  });
});
