// @vitest-environment happy-dom
// "Voice every speaker" in a DOM, with the engine replaced by a stand-in:
// only the speakers given a clip are sent, with the shown track's language
// and the consent, and each speaker's outcome (or the engine's refusal) is
// shown.
import { describe, expect, it, vi } from "vitest";
import { html } from "lit-html";
import type { Project } from "../model";
import { testProject } from "./test-project";

const engine = vi.hoisted(() => ({ voiceSpeakers: vi.fn() }));
vi.mock("../engine", () => engine);
vi.mock("../pick", () => ({ browseButton: () => html`<button type="button">Browse…</button>` }));

const { castDialog } = await import("./cast-dialog");

const project = (): Project => testProject(["Ana", "Ben"]);

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

describe("voice every speaker", () => {
  it("sends the speakers given a clip and shows what became of each", async () => {
    const voiced = vi.fn();
    const after = { ...project(), name: "Harbour (voiced)" };
    engine.voiceSpeakers.mockResolvedValue([[{ speakerId: 1, speaker: "Ana", voice: "Harbour - Ana", fitting: true, note: null }], after]);
    const dialog = castDialog(project(), "en-US", voiced);
    document.body.append(dialog);
    expect([...dialog.querySelectorAll(".cast-row")].map((r) => r.getAttribute("data-speaker"))).toEqual(["Ana", "Ben"]);
    dialog.querySelector<HTMLInputElement>("#cast-clip-1")!.value = " /clips/ana.wav ";
    dialog.querySelector<HTMLInputElement>("#cast-consent")!.value = "Ana, by email, 1 Dec";
    dialog.querySelector<HTMLButtonElement>("#run-cast")!.click();
    await settle();
    expect(engine.voiceSpeakers).toHaveBeenCalledWith(7, "en-US", [{ speakerId: 1, recording: "/clips/ana.wav" }], "Ana, by email, 1 Dec");
    expect(voiced).toHaveBeenCalledWith(after);
    expect(dialog.querySelector("#cast-result")!.textContent).toBe('Ana speaks with "Harbour - Ana"; its fit is queued (progress on the Voices page)');
    dialog.remove();
  });

  it("shows the engine's refusal and lets the person try again", async () => {
    engine.voiceSpeakers.mockImplementation(async () => {
      throw "consent: say who consented to these voices being used";
    });
    const dialog = castDialog(project(), "en-US", vi.fn());
    document.body.append(dialog);
    dialog.querySelector<HTMLButtonElement>("#run-cast")!.click();
    await settle();
    expect(dialog.querySelector("[role=alert]")!.textContent).toContain("say who consented");
    expect(dialog.querySelector("#run-cast")!.hasAttribute("disabled")).toBe(false);
    dialog.remove();
  });
});
