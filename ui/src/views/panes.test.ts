import { describe, expect, it } from "vitest";
import { clampScript, clampSide, DEFAULT_PANES, loadPanes, MIN_SCRIPT, MIN_SIDE, MIN_TIMELINE_HEIGHT, MIN_TIMELINE_WIDTH, savePanes } from "./panes";

describe("pane sizes", () => {
  it("keeps the side column to half the width unless dragged further", () => {
    expect(clampSide(900, 1280)).toBe(640);
    expect(clampSide(900, 1280, true)).toBe(900);
    expect(clampSide(1200, 1280, true)).toBe(1280 - MIN_TIMELINE_WIDTH);
    expect(clampSide(50, 1280, true)).toBe(MIN_SIDE);
  });

  it("keeps the timeline's height under the script", () => {
    expect(clampScript(240, 600)).toBe(240);
    expect(clampScript(580, 600)).toBe(600 - MIN_TIMELINE_HEIGHT);
    expect(clampScript(10, 600)).toBe(MIN_SCRIPT);
    expect(clampScript(400, 100)).toBe(MIN_SCRIPT);
    expect(clampScript(null, 1000)).toBe(420);
  });

  it("remembers sizes and ignores a damaged entry", () => {
    const kept = new Map<string, string>();
    const storage = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
    expect(loadPanes(storage)).toEqual(DEFAULT_PANES);
    savePanes({ side: 420, script: 300 }, storage);
    expect(loadPanes(storage)).toEqual({ side: 420, script: 300 });
    savePanes({ side: 420, script: null }, storage);
    expect(loadPanes(storage)).toEqual({ side: 420, script: null });
    for (const value of ["{", '{"side": -3, "script": "x"}']) {
      kept.set([...kept.keys()][0]!, value);
      expect(loadPanes(storage)).toEqual(DEFAULT_PANES);
    }
  });
});
