import { describe, expect, it } from "vitest";
import type { Speaker } from "../model";
import { DEFAULT_SIZES, blockBox, laneAtY, laneIndexOf, layoutLanes } from "./layout";
import { line } from "./synthetic";

const speaker = (id: number, name: string): Speaker => ({ id, name, voice: "v", languageVoices: {} });

describe("lane layout", () => {
  const speakers = [speaker(7, "Ana"), speaker(3, "Bruno")];

  it("has one lane per speaker in the project's order, then one for lines without a speaker", () => {
    const layout = layoutLanes(speakers, [line({ id: 1, start: 0, end: 1, speakerId: 3 })]);
    expect(layout.lanes.map((l) => [l.speakerId, l.name])).toEqual([
      [7, "Ana"],
      [3, "Bruno"],
      [null, "No speaker"],
    ]);
  });

  it("stacks the lanes under the ruler and puts the bed strip under them", () => {
    const layout = layoutLanes(speakers, []);
    const { rulerHeight, laneHeight, bedHeight } = DEFAULT_SIZES;
    expect(layout.lanes.map((l) => l.y)).toEqual([rulerHeight, rulerHeight + laneHeight, rulerHeight + 2 * laneHeight]);
    expect(layout.bed.y).toBe(rulerHeight + 3 * laneHeight);
    expect(layout.height).toBe(layout.bed.y + bedHeight);
  });

  it("gives a lane to a speaker a line names but the project does not list", () => {
    const layout = layoutLanes(speakers, [line({ id: 1, start: 0, end: 1, speakerId: 99 })]);
    expect(layout.lanes.map((l) => l.name)).toEqual(["Ana", "Bruno", "Speaker 99", "No speaker"]);
    expect(laneIndexOf(layout, 99)).toBe(2);
  });

  it("finds a speaker's lane and the lane under a y", () => {
    const layout = layoutLanes(speakers, []);
    expect(laneIndexOf(layout, 3)).toBe(1);
    expect(laneIndexOf(layout, null)).toBe(2);
    expect(laneAtY(layout, 0)).toBe(-1);
    expect(laneAtY(layout, layout.lanes[0].y)).toBe(0);
    expect(laneAtY(layout, layout.lanes[1].y - 1)).toBe(0);
    expect(laneAtY(layout, layout.lanes[2].y + 10)).toBe(2);
    expect(laneAtY(layout, layout.bed.y + 1)).toBe(-1);
  });

  it("insets blocks inside their lane", () => {
    const layout = layoutLanes(speakers, []);
    const box = blockBox(layout.lanes[1]);
    expect(box.y).toBeGreaterThan(layout.lanes[1].y);
    expect(box.y + box.height).toBeLessThan(layout.lanes[2].y);
  });
});
