// Markers: kept sorted, the ones a span shows, flags and where they are.
import { describe, expect, it } from "vitest";
import { MARKER_FLAG_HEIGHT, MARKER_FLAG_MAX_PX, MARKER_GRAB_PX, MarkerList, flagWidth, onMarker } from "./markers";

describe("marker list", () => {
  const list = new MarkerList([
    { id: 3, at: 30, name: "c" },
    { id: 1, at: 10, name: "a" },
    { id: 2, at: 20, name: "b" },
    { id: 4, at: 20, name: "b2" },
  ]);

  it("sorts by time (then id) and finds by id", () => {
    expect(list.markers.map((m) => m.id)).toEqual([1, 2, 4, 3]);
    expect(list.byId(3)?.name).toBe("c");
    expect(list.byId(9)).toBeUndefined();
  });

  it("gives the markers in a span, and those just before it whose flags reach in", () => {
    const ids = (range: [number, number]) => list.markers.slice(...range).map((m) => m.id);
    expect(ids(list.visibleRange(15, 25, 0))).toEqual([2, 4]);
    expect(ids(list.visibleRange(20, 30, 0))).toEqual([2, 4, 3]);
    expect(ids(list.visibleRange(21, 29, 2))).toEqual([2, 4]);
    expect(ids(list.visibleRange(31, 40, 0))).toEqual([]);
  });
});

describe("marker flags", () => {
  it("are as wide as the name, up to a cap", () => {
    expect(flagWidth("A")).toBeLessThan(flagWidth("Act two"));
    expect(flagWidth("A very long marker name that goes on")).toBe(MARKER_FLAG_MAX_PX);
  });

  it("are hit on the line over the ruler's height, or on the flag at its foot", () => {
    const ruler = 28;
    const flagY = ruler - 1 - MARKER_FLAG_HEIGHT / 2;
    expect(onMarker(100 + MARKER_GRAB_PX, 2, 100, "Cue", ruler)).toBe(true);
    expect(onMarker(100 - MARKER_GRAB_PX - 1, 2, 100, "Cue", ruler)).toBe(false);
    expect(onMarker(100 + flagWidth("Cue") - 1, flagY, 100, "Cue", ruler)).toBe(true);
    expect(onMarker(100 + flagWidth("Cue") + 1, flagY, 100, "Cue", ruler)).toBe(false);
    expect(onMarker(110, 2, 100, "Cue", ruler)).toBe(false);
    expect(onMarker(100, ruler + 1, 100, "Cue", ruler)).toBe(false);
  });
});
