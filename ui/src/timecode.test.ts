import { describe, expect, it } from "vitest";
import { FRAME_RATES, TimecodeError, formatFrame, formatTimecode, frameAt, frameRate, frameStart, parseTimecode } from "./timecode";

// The figures are the engine's (crates/engine/src/dub/timecode.rs tests).
describe("timecode", () => {
  it("writes every rate as hours, minutes, seconds and frames", () => {
    expect(formatTimecode(0, "25")).toBe("00:00:00:00");
    expect(formatTimecode(3723.5, "25")).toBe("01:02:03:12");
    expect(formatTimecode(47 / 24, "24")).toBe("00:00:01:23");
    expect(formatTimecode(10.5, "30")).toBe("00:00:10:15");
    expect(formatTimecode(-3, "25")).toBe("00:00:00:00");
    expect(formatTimecode(0.039, "25")).toBe("00:00:00:00");
    // 23.976: 24 frame numbers a second, each 1001/24000 s long.
    expect(formatTimecode(1, "23.976")).toBe("00:00:00:23");
    expect(formatTimecode(1.001, "23.976")).toBe("00:00:01:00");
    expect(formatTimecode(3600 * 1.001, "23.976")).toBe("01:00:00:00");
    expect(frameStart(24, "23.976")).toBe((24 * 1001) / 24000);
    // Non-drop 29.97 falls behind the clock.
    expect(formatTimecode(3600, "29.97")).toBe("00:59:56:12");
    expect(formatTimecode(3600 * 1.001, "29.97")).toBe("01:00:00:00");
    expect(formatFrame(1800, "29.97")).toBe("00:01:00:00");
  });

  it("skips two frame numbers a minute in drop-frame, but every tenth minute", () => {
    expect(formatFrame(1799, "29.97df")).toBe("00:00:59;29");
    expect(formatFrame(1800, "29.97df")).toBe("00:01:00;02");
    expect(formatFrame(3597, "29.97df")).toBe("00:01:59;29");
    expect(formatFrame(3598, "29.97df")).toBe("00:02:00;02");
    expect(formatFrame(17_981, "29.97df")).toBe("00:09:59;29");
    expect(formatFrame(17_982, "29.97df")).toBe("00:10:00;00");
    expect(formatFrame(17_983, "29.97df")).toBe("00:10:00;01");
    expect(formatFrame(19_782, "29.97df")).toBe("00:11:00;02");
    expect(formatFrame(107_892, "29.97df")).toBe("01:00:00;00");
    expect(formatTimecode(3600, "29.97df")).toBe("01:00:00;00");
    expect(parseTimecode("00:01:00;02", "29.97df")).toBe(frameStart(1800, "29.97df"));
    expect(parseTimecode("00:10:00;00", "29.97df")).toBe(frameStart(17_982, "29.97df"));
    for (const dropped of ["00:01:00;00", "00:01:00;01", "00:09:00:01", "01:21:00;00"]) {
      expect(() => parseTimecode(dropped, "29.97df")).toThrow(new RegExp(`"${dropped}".*drop-frame skips`));
    }
    expect(parseTimecode("00:01:00:00", "29.97")).toBe(frameStart(1800, "29.97"));
  });

  it("reads every frame back as itself at every rate", () => {
    for (const rate of FRAME_RATES) {
      for (let frame = 0; frame < 40_000; frame += 7) {
        const text = formatFrame(frame, rate);
        const seconds = parseTimecode(text, rate);
        expect(seconds).toBe(frameStart(frame, rate));
        expect(frameAt(seconds, rate)).toBe(frame);
        expect(formatTimecode(seconds, rate)).toBe(text);
      }
    }
  });

  it("reads typed times in every form", () => {
    expect(parseTimecode("01:02:03:12", "25")).toBe(3723.48);
    expect(parseTimecode("01:02:03;12", "25")).toBe(3723.48);
    expect(parseTimecode("02:03:12", "25")).toBe(123.48);
    expect(parseTimecode(" 12.5 ", "25")).toBe(12.5);
    expect(parseTimecode("90", "25")).toBe(90);
    expect(parseTimecode("00:00:10:29", "30")).toBe(329 / 30);
  });

  it("refuses bad timecode by name and reason", () => {
    const cases: [string, string, string][] = [
      ["00:00:00:25", "25", "frames run 0–24"],
      ["00:00:00:24", "23.976", "frames run 0–23"],
      ["00:00:00:30", "29.97df", "frames run 0–29"],
      ["00:61:00:00", "25", "minutes run"],
      ["00:00:60:00", "25", "seconds run"],
      ["1:2", "25", "2 fields"],
      ["00:00:01:xx", "25", "not a whole number"],
      ["soon", "25", "not a time"],
      ["-4", "25", "negative"],
      ["", "25", "empty"],
    ];
    for (const [text, rate, reason] of cases) {
      let error: unknown = null;
      try {
        parseTimecode(text, frameRate(rate));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TimecodeError);
      expect((error as Error).message).toContain(JSON.stringify(text));
      expect((error as Error).message).toContain(reason);
    }
  });

  it("reads the engine's rate names, the default for others", () => {
    for (const rate of FRAME_RATES) expect(frameRate(rate)).toBe(rate);
    expect(frameRate("50")).toBe("25");
    expect(frameRate(undefined)).toBe("25");
  });
});
