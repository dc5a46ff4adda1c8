// A translated line's source cell (its source text, marks and who
// translated it), and the source lines a selection asks to translate again.
import { describe, expect, it } from "vitest";
import { link } from "./test-translations";
import { againRequest, linksByLine, sourceCell, whenWords } from "./translations";

describe("a translated line's source cell", () => {
  it("shows the source text and who translated it, with no marks when nothing happened since", () => {
    const cell = sourceCell(link({ segmentId: 11, sourceSegmentId: 1, sourceText: "Where is the harbour?" }));
    expect(cell.text).toBe("Where is the harbour?");
    expect(cell.byline).toBe("Translated by llama (gemma) on 2026-12-05 20:10 UTC");
    expect(cell.marks).toEqual([]);
  });

  it("marks a source changed since (naming the text it was translated from), a hand edit and glossary terms left out", () => {
    const cell = sourceCell(
      link({ segmentId: 11, sourceSegmentId: 1, sourceText: "Where is the port?", translatedFrom: "Where is the harbour?", sourceChanged: true, edited: true, droppedTerms: ["harbour", "Ana's boat"], translatedAt: "" }),
    );
    expect(cell.text).toBe("Where is the port?");
    expect(cell.byline).toBe("Translated by llama (gemma)");
    expect(cell.marks.map((m) => [m.kind, m.label])).toEqual([
      ["source-changed", "source changed"],
      ["edited", "edited"],
      ["dropped-terms", "terms missing"],
    ]);
    expect(cell.marks[0].title).toBe("The source changed after it was translated. Translated from: “Where is the harbour?”");
    expect(cell.marks[2].title).toBe("Glossary terms not in the translation: harbour, Ana's boat");
    expect(sourceCell(link({ segmentId: 11, sourceSegmentId: 1, droppedTerms: ["harbour"] })).marks.map((m) => [m.label, m.title])).toEqual([
      ["term missing", "Glossary term not in the translation: harbour"],
    ]);
  });
});

describe("when a line was translated", () => {
  it("reads the engine's time to the minute, and keeps any other text", () => {
    expect(whenWords("2025-01-31T12:05:59.123Z")).toBe("2025-01-31 12:05 UTC");
    expect(whenWords("2025-01-31 12:05:59")).toBe("2025-01-31 12:05");
    expect(whenWords("yesterday")).toBe("yesterday");
  });
});

describe("translating a selection again", () => {
  const links = linksByLine({
    trackId: 2,
    sourceTrackId: 1,
    sourceLanguage: "en",
    lines: [link({ segmentId: 11, sourceSegmentId: 1 }), link({ segmentId: 12, sourceSegmentId: 2, edited: true }), link({ segmentId: 13, sourceSegmentId: 3 })],
  });

  it("asks for the selected lines' source lines, in the selection's order, and names the ones edited by hand", () => {
    expect(againRequest([13, 12], links)).toEqual({ sourceIds: [3, 2], edited: [12], unlinked: [] });
    expect(againRequest([11], links)).toEqual({ sourceIds: [1], edited: [], unlinked: [] });
  });

  it("leaves out lines with no link to a source, and asks for a source line once", () => {
    expect(againRequest([99, 11, 11], links)).toEqual({ sourceIds: [1], edited: [], unlinked: [99] });
    expect(againRequest([], links)).toEqual({ sourceIds: [], edited: [], unlinked: [] });
    expect(againRequest([11], linksByLine(null))).toEqual({ sourceIds: [], edited: [], unlinked: [11] });
  });
});
