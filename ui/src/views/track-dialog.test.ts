// @vitest-environment happy-dom
// "Add a language track" in a DOM, with the engine replaced by a stand-in:
// the language offered first is one the project has no track in, an empty
// path never reaches the engine, a script goes to the engine with the
// chosen language and its answer to the editor, and a refusal is shown.
import { describe, expect, it, vi } from "vitest";
import { html } from "lit-html";
import type { Project } from "../model";
import { testProject } from "./test-project";

const engine = vi.hoisted(() => ({ importScript: vi.fn() }));
vi.mock("../engine", () => engine);
vi.mock("../pick", () => ({ browseButton: () => html`<button type="button">Browse…</button>` }));

const { defaultLanguage, trackDialog } = await import("./track-dialog");

const LANGUAGES = ["en-US", "en-GB", "es", "fr"];

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

function open(project: Project = testProject(), added = vi.fn()) {
  const dialog = trackDialog(project, LANGUAGES, added);
  document.body.replaceChildren(dialog);
  const $ = <T extends Element>(s: string) => dialog.querySelector<T>(s)!;
  return { dialog, added, path: $<HTMLInputElement>("#track-script-path"), language: $<HTMLSelectElement>("#track-language"), go: $<HTMLButtonElement>("#run-add-track") };
}

describe("add a language track", () => {
  it("offers first a language the project has no track in, and says when the lines join a track", () => {
    const { language, go } = open();
    expect([...language.options].map((o) => o.value)).toEqual(LANGUAGES);
    expect(language.value).toBe("es");
    expect(go.textContent).toBe("Add the track");
    language.value = "en-US";
    language.dispatchEvent(new Event("change"));
    expect(go.textContent).toBe("Add to the en-US track");
    const both = testProject();
    both.tracks.push({ id: 2, language: "es", segments: [] });
    expect(defaultLanguage(both, LANGUAGES)).toBe("fr");
  });

  it("refuses an empty path without asking the engine", async () => {
    engine.importScript.mockReset();
    const { dialog, path, go, added } = open();
    path.value = "   ";
    go.click();
    await settle();
    expect(engine.importScript).not.toHaveBeenCalled();
    expect(added).not.toHaveBeenCalled();
    expect(dialog.querySelector("[role=alert]")!.textContent).toBe("Choose the translated script");
    expect(go.disabled).toBe(false);
  });

  it("reads the script into the chosen language's track and hands the project on", async () => {
    const after = testProject();
    after.tracks.push({ id: 2, language: "es", segments: [] });
    engine.importScript.mockReset().mockResolvedValue(after);
    const { dialog, path, go, added } = open();
    path.value = " /scripts/harbour.es.srt ";
    go.click();
    expect(go.disabled).toBe(true);
    await settle();
    expect(engine.importScript).toHaveBeenCalledWith(7, "/scripts/harbour.es.srt", "es");
    expect(added).toHaveBeenCalledWith(after, "es");
    expect(dialog.isConnected).toBe(false);
  });

  it("shows the engine's refusal and lets the person try again", async () => {
    engine.importScript.mockReset().mockImplementation(async () => {
      throw "script: no such file /scripts/missing.srt";
    });
    const { dialog, path, go, added } = open();
    path.value = "/scripts/missing.srt";
    go.click();
    await settle();
    expect(dialog.querySelector("[role=alert]")!.textContent).toContain("no such file");
    expect(go.disabled).toBe(false);
    expect(added).not.toHaveBeenCalled();
    expect(dialog.isConnected).toBe(true);
  });
});
