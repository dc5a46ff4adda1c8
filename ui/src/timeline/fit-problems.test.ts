import { describe, expect, it } from "vitest";
import type { Fit } from "../model";
import { RATE_CAP, fitProblems, isShippable, problemLabel, problemSentence, shownFit, slotOverlaps, stateWords } from "./fit-problems";
import { line } from "./synthetic";

const fit = (over: Partial<Fit> = {}): Fit => ({ start: 0, end: 1, rate: 1, trimmed: false, overlap: null, strategy: "smart_fit", gapUsed: 0, cut: null, overflow: 0, ...over });

describe("fit problems", () => {
  it("marks a line whose take failed when heard back, and not one that passed", () => {
    const failed = { passed: false, heard: "Fine. I'll", problems: ["lost its last words: check"], wordErrorRate: 0.33 };
    const problems = fitProblems(line({ id: 1, start: 0, end: 1, fit: fit(), check: failed }), null);
    expect(problems).toEqual([{ kind: "heard", heard: "Fine. I'll", problems: ["lost its last words: check"] }]);
    expect(problemLabel(problems[0])).toBe("QC");
    expect(problemSentence(problems[0])).toContain("lost its last words: check");
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit(), check: { ...failed, passed: true, problems: [] } }), null)).toEqual([]);
  });

  it("flags a line its voice cannot read, naming the script, the letters and the voice", () => {
    const flag = { kind: "unreadable" as const, script: "Han (Chinese characters)", letters: "灯塔", voice: "af_heart" };
    const problems = fitProblems(line({ id: 1, start: 0, end: 1, flags: [flag] }), null);
    expect(problems).toEqual([{ kind: "unreadable", script: flag.script, letters: "灯塔", voice: "af_heart" }]);
    expect(problemLabel(problems[0])).toBe("can't read");
    expect(problemSentence(problems[0])).toContain("af_heart cannot read Han (Chinese characters) script (\"灯塔\")");
  });

  it("finds none on a line that fits, nor on one not rendered", () => {
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit(), state: "ready" }), line({ id: 2, start: 1, end: 2 }))).toEqual([]);
    expect(fitProblems(line({ id: 1, start: 0, end: 1 }), null)).toEqual([]);
  });

  it("flags a line that doesn't fit before it renders, from its predicted fit", () => {
    const planned = fit({ start: 0, end: 1.6, overlap: 0.4 });
    const long = line({ id: 1, start: 0, end: 1, planned, spoken: 2.0, flags: [{ kind: "doesntFit", seconds: 0.5 }] });
    const problems = fitProblems(long, line({ id: 2, start: 1.2, end: 2 }));
    expect(problems).toEqual([
      { kind: "doesnt-fit", seconds: 0.5 },
      { kind: "runs-into-next", seconds: expect.closeTo(0.4, 9), nextId: 2 },
    ]);
    expect(problemLabel(problems[0])).toBe("long 0.50s");
    expect(problemSentence(problems[0])).toContain("0.50 s too long");
    // Its old take's fit is not what it will be: the planned one is drawn until it renders again.
    expect(shownFit({ ...long, fit: fit({ end: 0.9 }) })).toBe(planned);
    expect(shownFit({ ...long, state: "ready", fit: fit({ end: 0.9 }) })?.end).toBe(0.9);
  });

  it("never calls a flagged line ready", () => {
    const words = { stale: "Stale", queued: "Queued", rendering: "Rendering", ready: "Ready", failed: "Failed" };
    const ok = line({ id: 1, start: 0, end: 1, state: "ready", fit: fit() });
    expect(stateWords(ok, words)).toBe("Ready");
    expect(isShippable(ok)).toBe(true);
    const flagged = { ...ok, flags: [{ kind: "doesntFit" as const, seconds: 0.3 }, { kind: "failedCheck" as const }] };
    expect(stateWords(flagged, words)).toBe("Rendered, flagged: doesn't fit (0.30 s too long), failed its check");
    expect(stateWords(flagged, words)).not.toMatch(/^Ready/);
    expect(isShippable(flagged)).toBe(false);
  });

  it("flags a render sped up past the cap, and not one at the cap", () => {
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ rate: RATE_CAP }) }), null)).toEqual([]);
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ rate: 1.31 }) }), null)).toEqual([
      { kind: "sped-up", rate: 1.31 },
    ]);
  });

  it("flags a cut render", () => {
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ trimmed: true, cut: 0.4 }) }), null)).toEqual([{ kind: "trimmed", seconds: 0.4 }]);
    expect(problemSentence({ kind: "trimmed", seconds: 0.4 })).toBe("Words cut: strict slot cuts its last 0.40 s");
  });

  it("flags a render running into the next line, by the engine's overlap or by the next line's start", () => {
    const next = line({ id: 2, start: 1.2, end: 2 });
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ end: 1.5 }) }), next)).toEqual([
      { kind: "runs-into-next", seconds: expect.closeTo(0.3, 9), nextId: 2 },
    ]);
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ end: 1.1, overlap: 0.4 }) }), next)).toEqual([
      { kind: "runs-into-next", seconds: 0.4, nextId: 2 },
    ]);
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ end: 1.19 }) }), next)).toEqual([]);
  });

  it("counts only what goes past its own slot when the script overlaps the lines", () => {
    // The next line starts at 0.8, inside this slot (cross-talk in the script).
    const crossTalk = line({ id: 2, start: 0.8, end: 2 });
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ end: 1 }) }), crossTalk)).toEqual([]);
    expect(fitProblems(line({ id: 1, start: 0, end: 1, fit: fit({ end: 1.25 }) }), crossTalk)).toEqual([
      { kind: "runs-into-next", seconds: expect.closeTo(0.25, 9), nextId: 2 },
    ]);
  });

  it("labels problems briefly and in words", () => {
    expect(problemLabel({ kind: "sped-up", rate: 1.314 })).toBe("×1.31");
    expect(problemLabel({ kind: "trimmed", seconds: null })).toBe("cut");
    expect(problemLabel({ kind: "runs-into-next", seconds: 0.4, nextId: 2 })).toBe("+0.40s");
    expect(problemSentence({ kind: "runs-into-next", seconds: 0.4, nextId: 2 })).toBe("Runs 0.40 s into the next line");
  });
});

describe("slot overlaps", () => {
  const lane = (s: { speakerId: number | null }) => s.speakerId ?? 0;

  it("finds lines overlapping in the same lane, with the span, on both lines", () => {
    const segments = [
      line({ id: 1, start: 0, end: 2, speakerId: 1 }),
      line({ id: 2, start: 1.5, end: 3, speakerId: 1 }),
      line({ id: 3, start: 3, end: 4, speakerId: 1 }),
    ];
    const overlaps = slotOverlaps(segments, lane);
    expect(overlaps.get(1)).toEqual([{ withId: 2, start: 1.5, end: 2 }]);
    expect(overlaps.get(2)).toEqual([{ withId: 1, start: 1.5, end: 2 }]);
    expect(overlaps.has(3)).toBe(false);
  });

  it("does not count speakers talking over each other in different lanes", () => {
    const segments = [line({ id: 1, start: 0, end: 2, speakerId: 1 }), line({ id: 2, start: 1, end: 3, speakerId: 2 })];
    expect(slotOverlaps(segments, lane).size).toBe(0);
  });

  it("finds a short line inside a long one, even after other lines started", () => {
    const segments = [
      line({ id: 1, start: 0, end: 10, speakerId: 1 }),
      line({ id: 2, start: 2, end: 3, speakerId: 2 }),
      line({ id: 3, start: 5, end: 6, speakerId: 1 }),
    ];
    expect(slotOverlaps(segments, lane).get(3)).toEqual([{ withId: 1, start: 5, end: 6 }]);
  });
});
