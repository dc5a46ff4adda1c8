// Lanes: order, stacking, unknown speakers, lane under a y, each lane's mix and dimming.
import { describe, expect, it } from "vitest";
import type { Speaker } from "../model";
import { DEFAULT_SIZES, blockBox, laneAtY, laneDimmed, laneIndexOf, layoutLanes } from "./layout";
import { line, speaker as makeSpeaker } from "./synthetic";

const speaker = (id: number, name: string): Speaker => makeSpeaker({ id, name });

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

  it("carries each speaker's mix and dims muted lanes, and unsoloed ones while any is soloed", () => {
    // Speakers as an older engine sends them, without `audible`: worked out here.
    const old = (s: Speaker, fields: object) => {
      const { audible: _, ...rest } = { ...s, ...fields };
      return rest as Speaker;
    };
    const mixed = [old(speaker(7, "Ana"), { muted: true }), old(speaker(3, "Bruno"), { levelDb: -4.5 })];
    const layout = layoutLanes(mixed, []);
    expect(layout.lanes.map((l) => l.mix)).toEqual([
      { muted: true, solo: false, levelDb: 0 },
      { muted: false, solo: false, levelDb: -4.5 },
      { muted: false, solo: false, levelDb: 0 },
    ]);
    expect(layout.anySolo).toBe(false);
    expect([0, 1, 2].map((i) => laneDimmed(layout, i))).toEqual([true, false, false]);
    const soloed = layoutLanes([old(speaker(7, "Ana"), {}), old(speaker(3, "Bruno"), { solo: true })], []);
    expect(soloed.anySolo).toBe(true);
    expect([0, 1, 2].map((i) => laneDimmed(soloed, i))).toEqual([true, false, true]);
  });

  it("takes the no-speaker lane's mix and the engine's audible flags from the project", () => {
    const layout = layoutLanes([makeSpeaker({ id: 1, name: "Ana", audible: false })], [], DEFAULT_SIZES, false, { muted: true, solo: false, levelDb: -2, audible: false });
    expect(layout.lanes[1].mix).toEqual({ muted: true, solo: false, levelDb: -2, audible: false });
    expect([0, 1].map((i) => laneDimmed(layout, i))).toEqual([true, true]);
  });
});
