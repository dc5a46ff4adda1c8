// Translation links as the engine sends them, for the unit tests: a line
// translated by "llama (gemma)" from its source line, nothing changed since
// unless a test says so.
import type { LineTranslation } from "../engine";

/** Line `segmentId` translated from `sourceSegmentId` (`Source 1.`), with `over` on top. */
export function link(over: Partial<LineTranslation> & { segmentId: number; sourceSegmentId: number }): LineTranslation {
  return {
    sourceText: `Source ${over.sourceSegmentId}.`,
    translatedFrom: `Source ${over.sourceSegmentId}.`,
    sourceChanged: false,
    edited: false,
    translator: "llama (gemma)",
    translatedAt: "2026-12-05T20:10:00.000Z",
    droppedTerms: [],
    ...over,
  };
}
