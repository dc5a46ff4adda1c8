// What the delivery features send and say, from what a person chose: the
// export's files, rate and depth, a dictionary entry from its form, how an entry reads,
// what attaching a video did, a level typed in dB, a bed stem in words,
// and how the original dialogue is heard.
import { describe, expect, it } from "vitest";
import type { AttachedVideo } from "../engine";
import {
  attachedSummary,
  BED_LEVEL_DB,
  decibels,
  DELIVERY_BITS,
  DELIVERY_RATES,
  describeSaying,
  dictionaryEntry,
  exportChoice,
  type ExportForm,
  fileName,
  MONITOR_MODES,
  ORIGINAL_LEVEL_DB,
  originalMonitor,
  stemSummary,
} from "./delivery";

describe("an export's choice", () => {
  const form = (changes: Partial<ExportForm>): ExportForm => ({
    languages: ["en-US"],
    stems: true,
    subtitles: true,
    speakerTags: false,
    handoff: [],
    withVideo: false,
    sampleRate: 48000,
    bits: 24,
    strict: false,
    ...changes,
  });

  it("passes the ticked tracks, files, handoff formats, the muxed video, the rate and the depth", () => {
    expect(exportChoice(form({ languages: ["en-US", "de-DE"], stems: false, speakerTags: true, handoff: ["rpp", "edl"], withVideo: true, sampleRate: 44100, bits: 16, strict: true }))).toEqual({
      languages: ["en-US", "de-DE"],
      stems: false,
      subtitles: true,
      speakerTags: true,
      handoff: ["rpp", "edl"],
      withVideo: true,
      sampleRate: 44100,
      bits: 16,
      strict: true,
    });
  });

  it("offers 48 kHz and 24-bit first, the defaults", () => {
    expect([DELIVERY_RATES.map(([rate]) => rate), DELIVERY_BITS.map(([bits]) => bits)]).toEqual([
      [48000, 44100],
      [24, 16],
    ]);
  });

  it("asks for no handoff files when none is ticked", () => {
    expect(exportChoice(form({})).handoff).toBeNull();
  });

  it("refuses an export of no track, and a rate or depth not delivered", () => {
    expect(() => exportChoice(form({ languages: [], handoff: ["otio"] }))).toThrow("Choose at least one track to export.");
    expect(() => exportChoice(form({ sampleRate: 96000 }))).toThrow("A sample rate of 96000 Hz cannot be delivered: choose 48 kHz or 44.1 kHz.");
    expect(() => exportChoice(form({ bits: 32 }))).toThrow("A depth of 32 bits cannot be delivered: choose 24-bit or 16-bit.");
  });
});

describe("a dictionary entry from its form", () => {
  it("says the word as phonemes or as a respelling, trimmed", () => {
    expect(dictionaryEntry("  Kip ", "phonemes", " kˈɪp ")).toEqual({ word: "Kip", saying: { phonemes: "kˈɪp" } });
    expect(dictionaryEntry("Siobhan", "respelling", "shiv awn")).toEqual({ word: "Siobhan", saying: { respelling: "shiv awn" } });
  });

  it("says what is missing", () => {
    expect(() => dictionaryEntry(" ", "respelling", "keeper")).toThrow("Type the word or name to say differently.");
    expect(() => dictionaryEntry("Kip", "phonemes", "  ")).toThrow(/Type its phonemes/);
    expect(() => dictionaryEntry("Kip", "respelling", "")).toThrow(/another spelling/);
  });

  it("reads back as a person writes it", () => {
    expect(describeSaying({ phonemes: "kˈɪp" })).toBe("/kˈɪp/");
    expect(describeSaying({ respelling: "shiv awn" })).toBe("as “shiv awn”");
  });
});

describe("attaching a video", () => {
  const attached = (over: Partial<AttachedVideo> = {}): AttachedVideo => ({
    path: "/films/ep1/scene.mp4",
    info: { container: "mov,mp4", codec: "h264", width: 1920, height: 1080, frameRate: 25, durationS: 62.5, audio: [{ codec: "aac", channels: 2, language: "eng" }] },
    originalDialogue: true,
    bed: false,
    ...over,
  });

  it("says what the picture is and what its audio became", () => {
    expect(attachedSummary(attached())).toBe("Picture: scene.mp4 (h264 1920×1080, 25 fps); its audio is now the original dialogue");
    expect(attachedSummary(attached({ bed: true }))).toBe("Picture: scene.mp4 (h264 1920×1080, 25 fps); its audio is now the original dialogue and the bed");
    expect(attachedSummary(attached({ originalDialogue: false }))).toBe("Picture: scene.mp4 (h264 1920×1080, 25 fps)");
  });

  it("rounds a broadcast frame rate and says when there is no audio", () => {
    const silent = attached({ originalDialogue: false });
    silent.info = { ...silent.info, frameRate: 24000 / 1001, audio: [] };
    expect(attachedSummary(silent)).toBe("Picture: scene.mp4 (h264 1920×1080, 23.976 fps); it has no audio");
  });

  it("names the file at the end of a path, either slash", () => {
    expect(fileName("C:\\films\\scene.mkv")).toBe("scene.mkv");
    expect(fileName("scene.mkv")).toBe("scene.mkv");
  });
});

describe("levels in dB", () => {
  it("takes a typed number within the range, ends included", () => {
    expect(decibels("-6", BED_LEVEL_DB)).toBe(-6);
    expect(decibels(" 2.5 ", BED_LEVEL_DB)).toBe(2.5);
    expect(decibels("-60", BED_LEVEL_DB)).toBe(-60);
    expect(decibels("24", BED_LEVEL_DB)).toBe(24);
    expect(decibels("12", ORIGINAL_LEVEL_DB)).toBe(12);
  });

  it("refuses, in words, what is empty, not a number or out of range", () => {
    for (const typed of ["", "  ", "loud", "-61", "24.5"]) expect(() => decibels(typed, BED_LEVEL_DB)).toThrow("The level must be a number of dB from -60 to 24.");
    expect(() => decibels("13", ORIGINAL_LEVEL_DB)).toThrow("from -60 to 12");
  });

  it("says a bed stem in a few words", () => {
    expect(stemSummary({ file: "/music/theme.flac", gainDb: -6, ducked: true })).toBe("theme.flac at -6 dB, ducks under the voice");
    expect(stemSummary({ file: "fx.wav", gainDb: 0, ducked: false })).toBe("fx.wav at 0 dB, not ducked");
  });
});

describe("hearing the original dialogue", () => {
  it("sends the level only under the dub", () => {
    expect(originalMonitor("off", -12)).toEqual({ mode: "off" });
    expect(originalMonitor("under", -12)).toEqual({ mode: "under", gainDb: -12 });
    expect(originalMonitor("under", -3.5)).toEqual({ mode: "under", gainDb: -3.5 });
    expect(originalMonitor("solo", -12)).toEqual({ mode: "solo" });
  });

  it("offers off, under the dub and solo, off first", () => {
    expect(MONITOR_MODES).toEqual([
      ["off", "Original: off"],
      ["under", "Original under the dub"],
      ["solo", "Original solo"],
    ]);
  });
});
