// @vitest-environment happy-dom
// The voice library shows a failure once, next to what caused it.
import { describe, expect, it, vi } from "vitest";
import { render } from "lit-html";

vi.mock("../engine", () => ({
  voiceLibrary: vi.fn(async () => ({
    stock: [
      { name: "af_heart", language: "en-US", gender: "female" },
      { name: "jf_alpha", language: "ja", gender: "female" },
    ],
    library: [],
  })),
  previewVoice: vi.fn(async (voice: string) => {
    if (voice === "jf_alpha") throw 'voice "jf_alpha": speaks ja, which the studio cannot read yet';
  }),
  playVoiceRecording: vi.fn(async () => {}),
}));

const { VoiceLibrary } = await import("./voices");

describe("the voice library", () => {
  it("shows a preview's failure once, beside the voice that failed", async () => {
    const host = document.createElement("div");
    document.body.replaceChildren(host);
    const library: InstanceType<typeof VoiceLibrary> = new VoiceLibrary(() => render(library.template(), host));
    await new Promise((r) => setTimeout(r, 0));
    host.querySelector<HTMLButtonElement>("li[data-voice='jf_alpha'] button")!.click();
    await new Promise((r) => setTimeout(r, 0));
    const alerts = host.querySelectorAll("[role=alert]");
    expect(alerts.length).toBe(1);
    expect(alerts[0]!.closest("li")?.dataset.voice).toBe("jf_alpha");
    expect(alerts[0]!.textContent).toContain("speaks ja");
    // Another preview clears it.
    host.querySelector<HTMLButtonElement>("li[data-voice='af_heart'] button")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(host.querySelectorAll("[role=alert]").length).toBe(0);
  });
});
