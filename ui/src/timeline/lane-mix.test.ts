// A lane's mix: read from a speaker, silence, level steps, wheel and label.
import { describe, expect, it } from "vitest";
import { speaker } from "./synthetic";
import { LEVEL_DRAG_PX, LEVEL_MAX_DB, LEVEL_MIN_DB, LEVEL_WHEEL_PX, WheelSteps, clampLevel, dragLevel, formatLevel, laneSilent, speakerMix, stepLevel } from "./lane-mix";

const ana = speaker({ id: 1, name: "Ana" });

describe("a lane's mix", () => {
  it("reads solo, mute, level and audible from the speaker, neutral where it has none", () => {
    expect(speakerMix(ana)).toEqual({ muted: false, solo: false, levelDb: 0, audible: true });
    expect(speakerMix(null)).toEqual({ muted: false, solo: false, levelDb: 0 });
    // An older engine's speaker, without the fields.
    expect(speakerMix({ id: 1, name: "Ana", voice: "v", languageVoices: {} })).toEqual({ muted: false, solo: false, levelDb: 0 });
    expect(speakerMix({ ...ana, muted: true, solo: true, levelDb: -6, audible: false })).toEqual({ muted: true, solo: true, levelDb: -6, audible: false });
    expect(speakerMix({ ...ana, levelDb: Number.NaN }).levelDb).toBe(0);
  });

  it("is silent when muted, or not soloed while another lane is", () => {
    const mix = { muted: false, solo: false, levelDb: 0 };
    expect(laneSilent(mix, false)).toBe(false);
    expect(laneSilent(mix, true)).toBe(true);
    expect(laneSilent({ ...mix, solo: true }, true)).toBe(false);
    expect(laneSilent({ ...mix, muted: true }, false)).toBe(true);
  });

  it("takes the engine's word on whether a lane sounds when it gives one", () => {
    expect(laneSilent({ muted: false, solo: false, levelDb: 0, audible: true }, true)).toBe(false);
    expect(laneSilent({ muted: false, solo: false, levelDb: 0, audible: false }, false)).toBe(true);
  });
});

describe("a lane's level", () => {
  it("steps by half a dB within its limits", () => {
    expect(stepLevel(0, 1)).toBe(0.5);
    expect(stepLevel(-3, -4)).toBe(-5);
    expect(stepLevel(LEVEL_MAX_DB, 3)).toBe(LEVEL_MAX_DB);
    expect(stepLevel(LEVEL_MIN_DB, -3)).toBe(LEVEL_MIN_DB);
    expect(clampLevel(-2.74)).toBe(-2.5);
    expect(Object.is(clampLevel(-0.1), 0)).toBe(true);
  });

  it("goes up as the pointer drags up", () => {
    expect(dragLevel(0, -LEVEL_DRAG_PX * 3)).toBe(1.5);
    expect(dragLevel(0, LEVEL_DRAG_PX * 2 + 1)).toBe(-1);
    expect(dragLevel(-6, 1)).toBe(-6);
  });

  it("takes a mouse notch as a step and adds up a trackpad's small deltas", () => {
    const wheel = new WheelSteps();
    expect(wheel.add(-100, 0)).toBe(1);
    expect(wheel.add(3, 1)).toBe(-1);
    expect(wheel.add(-20, 0)).toBe(0);
    expect(wheel.add(-20, 0)).toBe(0);
    expect(wheel.add(-LEVEL_WHEEL_PX + 40, 0)).toBe(1);
    expect(wheel.add(0, 0)).toBe(0);
  });

  it("reads as signed dB", () => {
    expect(formatLevel(0)).toBe("0.0 dB");
    expect(formatLevel(-3.5)).toBe("−3.5 dB");
    expect(formatLevel(2)).toBe("+2.0 dB");
  });
});
