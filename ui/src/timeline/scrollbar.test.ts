import { describe, expect, it } from "vitest";
import { MIN_THUMB_PX, scrollForThumb, thumbGeometry } from "./scrollbar";

describe("scrollbar", () => {
  it("sizes the thumb to the visible share and places it by the scroll", () => {
    expect(thumbGeometry(0, 100, 400, 800)).toEqual({ left: 0, width: 200 });
    expect(thumbGeometry(300, 100, 400, 800)).toEqual({ left: 600, width: 200 });
    expect(thumbGeometry(150, 100, 400, 800)).toEqual({ left: 300, width: 200 });
  });

  it("keeps a grabbable thumb for an hour zoomed in close", () => {
    const thumb = thumbGeometry(1800, 1, 3600, 800);
    expect(thumb.width).toBe(MIN_THUMB_PX);
    expect(thumb.left).toBeCloseTo((1800 / 3599) * (800 - MIN_THUMB_PX), 6);
  });

  it("fills the track when everything is visible", () => {
    expect(thumbGeometry(0, 500, 400, 800)).toEqual({ left: 0, width: 800 });
    expect(scrollForThumb(100, 500, 400, 800)).toBe(0);
  });

  it("turns a thumb position back into the scroll it shows", () => {
    for (const scroll of [0, 17, 1800, 3599]) {
      const { left } = thumbGeometry(scroll, 1, 3600, 800);
      expect(scrollForThumb(left, 1, 3600, 800)).toBeCloseTo(scroll, 6);
    }
    expect(scrollForThumb(-50, 100, 400, 800)).toBe(0);
    expect(scrollForThumb(5000, 100, 400, 800)).toBe(300);
  });
});
