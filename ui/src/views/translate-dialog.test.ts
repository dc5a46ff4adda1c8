// @vitest-environment happy-dom
// "Translate track" in a DOM, with the engine replaced by a stand-in: no
// translation engine means no run and a hint where to add one; a run sends
// the shown track, the chosen language and engine and the notes; progress
// events move its text; the report is said in sentences; a refusal, or a
// cancel, is shown with the button back.
import { describe, expect, it, vi } from "vitest";
import type { Segment, TranslateReport, TranslatorView } from "../engine";
import type { Project } from "../model";
import { line } from "../timeline/synthetic";
import { testProject } from "./test-project";

const engine = vi.hoisted(() => ({ translators: vi.fn(), translateTrack: vi.fn(), cancelTranslation: vi.fn() }));
vi.mock("../engine", () => engine);

const { reportWords, translateDialog, STOPPED_WORDS } = await import("./translate-dialog");

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
  ...over,
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

async function open(translators: TranslatorView[] = [llama, hosted]) {
  engine.translators.mockReset().mockResolvedValue(translators);
  engine.translateTrack.mockReset();
  engine.cancelTranslation.mockReset().mockResolvedValue(true);
  const on = { translated: vi.fn(), stopped: vi.fn() };
  const dialog = translateDialog(project(), 1, LANGUAGES, on);
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
});
