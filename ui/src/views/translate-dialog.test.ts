// @vitest-environment happy-dom
// "Translate track" in a DOM, with the engine replaced by a stand-in: no
// translation engine means no run and a hint where to add one; a run sends
// the shown track, the chosen language and engine and the notes; progress
// events move its text; the report is said in sentences (lines that failed
// and glossary terms left out too); a refusal, or a cancel, is shown with
// the button back. On a translated track, only the selected lines go again
// from their source, after asking about lines edited by hand; the target
// language's glossary is shown and follows the language chosen.
import { describe, expect, it, vi } from "vitest";
import type { Segment, TrackTranslations, TranslateReport, TranslatorView } from "../engine";
import type { Project } from "../model";
import { link } from "../script/test-translations";
import { line } from "../timeline/synthetic";
import { testProject } from "./test-project";

const engine = vi.hoisted(() => ({ translators: vi.fn(), translateTrack: vi.fn(), cancelTranslation: vi.fn(), glossary: vi.fn(), setGlossaryTerm: vi.fn(), removeGlossaryTerm: vi.fn() }));
vi.mock("../engine", () => engine);

const { reportWords, translateDialog, STOPPED_WORDS } = await import("./translate-dialog");
type TranslateSelection = import("./translate-dialog").TranslateSelection;

const LANGUAGES = ["en-US", "en-GB", "es", "fr"];
const llama: TranslatorView = { name: "llama", url: "http://127.0.0.1:8080", model: "gemma", host: "127.0.0.1:8080", local: true, hasApiKey: false };
const hosted: TranslatorView = { name: "hosted", url: "https://api.example.com/v1", model: "", host: "api.example.com", local: false, hasApiKey: true };

const lines = (ids: number[], trackId = 1): Segment[] => ids.map((id, i) => ({ ...line({ id, start: i * 2, end: i * 2 + 1.5, text: `Line ${id}.`, speakerId: 1 }), trackId }));

function project(): Project {
  return testProject(["Ana"], lines([1, 2, 3]));
}

function translated(): Project {
  const after = project();
  after.tracks.push({ id: 2, language: "es", segments: lines([11, 12, 13], 2) });
  return after;
}

const report = (over: Partial<TranslateReport> = {}): TranslateReport => ({
  translator: "llama (gemma)",
  host: "127.0.0.1:8080",
  local: true,
  from: "en-US",
  trackId: 2,
  translated: 3,
  already: 0,
  sourceChanged: [],
  keptEdited: [],
  fitBefore: 1,
  fitAfter: 2,
  sized: 3,
  shortened: [12],
  tooLong: [13],
  notSized: null,
  glossaryDropped: [],
  failed: [],
  ...over,
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

async function open(translators: TranslatorView[] = [llama, hosted], shown = project(), trackId = 1, selection: TranslateSelection | null = null) {
  engine.translators.mockReset().mockResolvedValue(translators);
  engine.translateTrack.mockReset();
  engine.cancelTranslation.mockReset().mockResolvedValue(true);
  engine.glossary.mockReset().mockResolvedValue([]);
  const on = { translated: vi.fn(), stopped: vi.fn() };
  const dialog = translateDialog(shown, trackId, LANGUAGES, on, selection);
  document.body.replaceChildren(dialog.element);
  await settle();
  const $ = <T extends Element>(s: string) => dialog.element.querySelector<T>(s)!;
  return { dialog, on, $, go: $<HTMLButtonElement>("#run-translate") };
}

describe("translate track", () => {
  it("without a translation engine, says where to add one and cannot run", async () => {
    const { $, go } = await open([]);
    expect($<HTMLElement>("#translate-none").hidden).toBe(false);
    expect($("#translate-none").textContent).toBe("No translation engine is set up: add one in Settings → Translation engines");
    expect(go.disabled).toBe(true);
    go.click();
    await settle();
    expect(engine.translateTrack).not.toHaveBeenCalled();
  });

  it("shows the source track, offers the other languages, and says where each engine's lines go", async () => {
    const { $, go } = await open();
    expect($("#translate-from").textContent).toBe("From: en-US (3 lines)");
    const to = $<HTMLSelectElement>("#translate-to");
    expect([...to.options].map((o) => o.value)).toEqual(["en-GB", "es", "fr"]);
    expect(to.value).toBe("es");
    expect($<HTMLElement>("#translate-none").hidden).toBe(true);
    expect(go.disabled).toBe(false);
    const using = $<HTMLSelectElement>("#translate-with");
    expect([...using.options].map((o) => o.textContent)).toEqual(["llama (gemma)", "hosted"]);
    expect($("#translate-where").textContent).toBe("Lines go to 127.0.0.1:8080 — this machine.");
    using.value = "hosted";
    using.dispatchEvent(new Event("change"));
    expect($("#translate-where").textContent).toBe("Lines go to api.example.com — another machine: the script leaves this computer.");
    expect($("#translate-where").classList.contains("status-warning")).toBe(true);
    expect($<HTMLTextAreaElement>("#translate-notes").placeholder).toBe("Register, audience, how to say names…");
  });

  it("translates the shown track with the choices made, shows its progress, then the report", async () => {
    const { $, go, on, dialog } = await open();
    let answer!: (a: [TranslateReport, Project]) => void;
    engine.translateTrack.mockReturnValue(new Promise((r) => (answer = r)));
    $<HTMLSelectElement>("#translate-to").value = "fr";
    $<HTMLTextAreaElement>("#translate-notes").value = " Informal; Ana stays Ana ";
    go.click();
    expect(engine.translateTrack).toHaveBeenCalledWith({ projectId: 7, from: "en-US", to: "fr", translator: "llama", again: [], overwriteEdited: false, notes: "Informal; Ana stays Ana" });
    expect(go.disabled).toBe(true);
    dialog.progress(8, 24);
    expect($("#translate-progress-text").textContent).toBe("Translated 8 of 24 lines…");
    expect($<HTMLProgressElement>("#translate-progress").value).toBe(8);
    dialog.progress(24, 24);
    expect($("#translate-progress-text").textContent).toBe("Translated 24 of 24 lines; fitting them to their slots…");
    const after = translated();
    answer([report(), after]);
    await settle();
    expect(on.translated).toHaveBeenCalledWith(report(), after);
    expect($("#translate-report").textContent).toBe(
      "Translated 3 lines with llama (gemma) at 127.0.0.1:8080. 1 of 3 fit their slots as first translated; 2 after asking for shorter ones. Still too long: line 3.",
    );
    expect(dialog.element.querySelector("#cancel-translate")).toBeNull();
    expect(go.disabled).toBe(false);
  });

  it("stops on Cancel after the batch in flight, and says what was kept", async () => {
    const { $, go, on } = await open();
    let refuse!: (e: unknown) => void;
    engine.translateTrack.mockReturnValue(new Promise((_, r) => (refuse = r)));
    go.click();
    $<HTMLButtonElement>("#cancel-translate").click();
    expect(engine.cancelTranslation).toHaveBeenCalledTimes(1);
    expect($("#cancel-translate").hasAttribute("disabled")).toBe(true);
    refuse({ kind: "cancelled", message: "translation into es stopped after 8 of 24 lines: the same request goes on from there", input: null });
    await settle();
    expect($("[role=alert]").textContent).toBe(STOPPED_WORDS);
    expect(STOPPED_WORDS).toBe("Stopped: the lines translated so far are kept; Translate again goes on from there.");
    expect(on.stopped).toHaveBeenCalledWith(STOPPED_WORDS, true);
    expect(go.disabled).toBe(false);
  });

  it("shows the engine's refusal and lets the person try again", async () => {
    const { $, go, on } = await open();
    engine.translateTrack.mockRejectedValue({ kind: "internal", message: "translator llama: 127.0.0.1:8080 did not answer: connection refused", input: null });
    go.click();
    await settle();
    expect($("[role=alert]").textContent).toContain("connection refused");
    expect($("[role=alert]").classList.contains("error-banner")).toBe(true);
    expect(on.stopped).toHaveBeenCalledWith("translator llama: 127.0.0.1:8080 did not answer: connection refused", false);
    expect(on.translated).not.toHaveBeenCalled();
    expect(go.disabled).toBe(false);
  });
});

describe("translating selected lines again", () => {
  /** The Spanish track (2) translated from the English one: line 12 edited by hand since, 13 not linked. */
  const links: TrackTranslations = {
    trackId: 2,
    sourceTrackId: 1,
    sourceLanguage: "en-US",
    lines: [link({ segmentId: 11, sourceSegmentId: 1 }), link({ segmentId: 12, sourceSegmentId: 2, edited: true })],
  };
  const onSpanish = (selected: number[], onlySelected = true) => open([llama], translated(), 2, { translations: links, selected, onlySelected });
  const request = (over: object) => ({ projectId: 7, from: "en-US", to: "es", translator: "llama", notes: "", ...over });

  it("sends the selected lines' source lines, from the source track into this one", async () => {
    const { $, go } = await onSpanish([11, 13]);
    const only = $<HTMLInputElement>("#translate-only-selected");
    expect(only.checked).toBe(true);
    expect(only.parentElement!.textContent).toBe("Only the selected lines (1), again from en-US");
    expect($("#translate-from").textContent).toBe("From: en-US, 1 selected line into the es track");
    const to = $<HTMLSelectElement>("#translate-to");
    expect([...to.options].map((o) => o.value)).toEqual(["es"]);
    expect(to.disabled).toBe(true);
    engine.translateTrack.mockResolvedValue([report({ translated: 1, trackId: 2 }), translated()]);
    go.click();
    await settle();
    expect(engine.translateTrack).toHaveBeenCalledWith(request({ again: [1], overwriteEdited: false }));
    expect($("#translate-overwrite-ask")).toBeNull();
    // Off: the shown track itself, into another language, as before.
    only.checked = false;
    only.dispatchEvent(new Event("change"));
    expect($("#translate-from").textContent).toBe("From: es (3 lines)");
    expect(to.disabled).toBe(false);
    expect([...to.options].map((o) => o.value)).toEqual(["en-US", "en-GB", "fr"]);
  });

  it("asks first about lines edited by hand: overwrite them, keep them, or not now", async () => {
    const { $, go } = await onSpanish([11, 12]);
    engine.translateTrack.mockResolvedValue([report({ translated: 1, keptEdited: [2], trackId: 2 }), translated()]);
    go.click();
    await settle();
    expect(engine.translateTrack).not.toHaveBeenCalled();
    expect($("#translate-overwrite-ask").getAttribute("role")).toBe("alertdialog");
    expect($("#translate-ask-words").textContent).toBe(
      "One selected line was edited by hand since it was translated. Translate it again over the edits, or keep the edits and translate only the others?",
    );
    expect(go.disabled).toBe(true);
    $<HTMLButtonElement>("#cancel-overwrite").click();
    await settle();
    expect($("#translate-overwrite-ask")).toBeNull();
    expect(engine.translateTrack).not.toHaveBeenCalled();
    expect(go.disabled).toBe(false);

    go.click();
    await settle();
    $<HTMLButtonElement>("#keep-edited").click();
    await settle();
    expect(engine.translateTrack).toHaveBeenLastCalledWith(request({ again: [1, 2], overwriteEdited: false }));
    expect($("#translate-report").textContent).toContain("Kept as edited by hand: the translation of line 2.");

    go.click();
    await settle();
    $<HTMLButtonElement>("#overwrite-edited").click();
    await settle();
    expect(engine.translateTrack).toHaveBeenLastCalledWith(request({ again: [1, 2], overwriteEdited: true }));
  });

  it("is offered unchecked from the Translate button, and not at all without a source or a link", async () => {
    const { $ } = await onSpanish([11], false);
    expect($<HTMLInputElement>("#translate-only-selected").checked).toBe(false);
    expect($("#translate-from").textContent).toBe("From: es (3 lines)");
    const unlinked = await onSpanish([13]);
    expect(unlinked.$<HTMLInputElement>("#translate-only-selected").disabled).toBe(true);
    expect(unlinked.$<HTMLInputElement>("#translate-only-selected").checked).toBe(false);
    const plain = await open([llama], translated(), 2, { translations: { ...links, sourceTrackId: null, lines: [] }, selected: [11], onlySelected: true });
    expect(plain.$("#translate-only-selected")).toBeNull();
  });
});

describe("the glossary in the dialog", () => {
  it("shows the glossary of the language chosen", async () => {
    const { $ } = await open();
    expect(engine.glossary).toHaveBeenLastCalledWith(7, "es");
    expect($("#glossary-heading").textContent).toBe("Glossary (es)");
    const to = $<HTMLSelectElement>("#translate-to");
    to.value = "fr";
    to.dispatchEvent(new Event("change"));
    await settle();
    expect(engine.glossary).toHaveBeenLastCalledWith(7, "fr");
    expect($("#glossary-heading").textContent).toBe("Glossary (fr)");
  });
});

describe("the report in words", () => {
  it("says what was left, what changed, what was kept, and why nothing was sized", () => {
    const words = reportWords(report({ translated: 1, already: 2, sourceChanged: [2], keptEdited: [1, 3], notSized: "the speech model could not load", tooLong: [], shortened: [], host: "api.example.com", local: false }), translated());
    expect(words).toBe(
      "Translated 1 line with llama (gemma) at api.example.com (another machine). 2 lines translated before were left as they were. The en-US text of line 2 changed after it was translated: the translation stays until translated again. Kept as edited by hand: the translation of lines 1, 3. Not fitted to their slots: the speech model could not load.",
    );
    expect(reportWords(report({ translated: 0, already: 3, sized: 0, shortened: [], tooLong: [] }), translated())).toBe(
      "Nothing new to translate with llama (gemma) at 127.0.0.1:8080. 3 lines translated before were left as they were.",
    );
    expect(reportWords(report({ fitBefore: 3, fitAfter: 3, shortened: [], tooLong: [] }), translated())).toBe(
      "Translated 3 lines with llama (gemma) at 127.0.0.1:8080. 3 of 3 fit their slots as first translated.",
    );
  });

  it("names the lines the engine could not translate, with why, and the glossary terms it left out", () => {
    const words = reportWords(
      report({
        translated: 1,
        sized: 0,
        shortened: [],
        tooLong: [],
        failed: [
          { sourceSegmentId: 2, reason: "the answer had 7 lines for 8" },
          { sourceSegmentId: 404, reason: "timed out" },
        ],
        glossaryDropped: [{ segmentId: 13, term: "harbour", translation: "puerto" }],
      }),
      translated(),
    );
    expect(words).toBe(
      "Translated 1 line with llama (gemma) at 127.0.0.1:8080. Not translated, the engine could not answer for 2 lines: line 2 (the answer had 7 lines for 8); a line (timed out). Glossary term left out: “harbour” → “puerto” in line 3.",
    );
  });
});
