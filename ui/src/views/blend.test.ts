import { describe, expect, it } from "vitest";
import { blendSpec, parseBlend } from "./blend";

describe("blend specs", () => {
  it("normalises weights to one and drops empty or silent parts", () => {
    expect(blendSpec([{ voice: "af_heart", weight: 0.6 }, { voice: "af_bella", weight: 0.2 }, { voice: "", weight: 0.5 }])).toBe("af_heart:0.750,af_bella:0.250");
    expect(blendSpec([{ voice: "af_heart", weight: 0.3 }, { voice: "am_adam", weight: 0 }])).toBe("af_heart");
    expect(blendSpec([{ voice: "", weight: 1 }])).toBeNull();
    expect(blendSpec([{ voice: "af_heart", weight: 0 }])).toBeNull();
  });

  it("reads back what it writes, and a plain name as one full part", () => {
    expect(parseBlend("af_heart:0.750,af_bella:0.250")).toEqual([{ voice: "af_heart", weight: 0.75 }, { voice: "af_bella", weight: 0.25 }]);
    expect(parseBlend("am_adam")).toEqual([{ voice: "am_adam", weight: 1 }]);
    expect(blendSpec(parseBlend("af_heart:0.7,af_bella:0.3"))).toBe("af_heart:0.700,af_bella:0.300");
  });
});
