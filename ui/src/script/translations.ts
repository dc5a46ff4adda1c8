// A translated track's links to its source, as the script shows them: the
// source line's text beside its translation, marks for a source changed
// since, a translation edited by hand, and glossary terms the translator
// left out, with who translated it; and which source lines a selection
// asks to translate again. Pure.
import type { LineTranslation, TrackTranslations } from "../engine";

export type TranslationMarkKind = "source-changed" | "edited" | "dropped-terms";

/** A small badge beside the source text. */
export interface TranslationMark {
  kind: TranslationMarkKind;
  label: string;
  /** The longer story, for the tooltip. */
  title: string;
}

/** What a translated line's source cell shows. */
export interface SourceCell {
  /** The source line's text now. */
  text: string;
  /** Who translated it and when, for the cell's tooltip (with the text). */
  byline: string;
  marks: TranslationMark[];
}

/** The source cell of a line translated from `line.sourceText`. */
export function sourceCell(line: LineTranslation): SourceCell {
  const marks: TranslationMark[] = [];
  if (line.sourceChanged) {
    marks.push({ kind: "source-changed", label: "source changed", title: `The source changed after it was translated. Translated from: “${line.translatedFrom}”` });
  }
  if (line.edited) marks.push({ kind: "edited", label: "edited", title: "The translation was edited by hand since it was translated" });
  if (line.droppedTerms.length) {
    const terms = line.droppedTerms.join(", ");
    marks.push({ kind: "dropped-terms", label: `${line.droppedTerms.length === 1 ? "term" : "terms"} missing`, title: `Glossary ${line.droppedTerms.length === 1 ? "term" : "terms"} not in the translation: ${terms}` });
  }
  const when = line.translatedAt ? ` on ${whenWords(line.translatedAt)}` : "";
  return { text: line.sourceText, byline: `Translated by ${line.translator}${when}`, marks };
}

/** `2025-01-31 12:00 UTC` for the engine's `2025-01-31T12:00:00.000Z`; other text as it is. */
export function whenWords(at: string): string {
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(?::\d\d(?:\.\d+)?)?(Z)?$/.exec(at.trim());
  if (!m) return at;
  return `${m[1]} ${m[2]}${m[3] ? " UTC" : ""}`;
}

/** Each target line's translation link, by its id (lines with none are absent). */
export function linksByLine(translations: TrackTranslations | null): Map<number, LineTranslation> {
  return new Map((translations?.lines ?? []).map((l) => [l.segmentId, l]));
}

/** What translating a selection again asks of the engine. */
export interface AgainRequest {
  /** The source lines to translate again (the request's `again`), in the selection's order. */
  sourceIds: number[];
  /** The selected lines whose translation was edited by hand (target ids). */
  edited: number[];
  /** Selected lines with no translation link (not translated from the source). */
  unlinked: number[];
}

/** The source lines behind the selected lines (`selected`: the translated
 * track's line ids), each once, and which of them were edited by hand. */
export function againRequest(selected: readonly number[], links: ReadonlyMap<number, LineTranslation>): AgainRequest {
  const out: AgainRequest = { sourceIds: [], edited: [], unlinked: [] };
  const seen = new Set<number>();
  for (const id of selected) {
    const link = links.get(id);
    if (!link) {
      out.unlinked.push(id);
      continue;
    }
    if (seen.has(link.sourceSegmentId)) continue;
    seen.add(link.sourceSegmentId);
    out.sourceIds.push(link.sourceSegmentId);
    if (link.edited) out.edited.push(id);
  }
  return out;
}
