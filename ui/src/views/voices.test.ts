// @vitest-environment happy-dom
// The voice library shows a failure once, next to what caused it; a
// preview waits out a busy engine; the add form marks a refused field.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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
  addLibraryVoice: vi.fn(),
}));

const { VoiceLibrary } = await import("./voices");
const api = await import("../engine");

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

describe("the voice library and the engine's refusals by kind", () => {
  let host: HTMLElement;
  let library: InstanceType<typeof VoiceLibrary>;
  const $ = <T extends Element>(selector: string) => host.querySelector<T>(selector);
  const open = async () => {
    host = document.createElement("div");
    document.body.replaceChildren(host);
    library = new VoiceLibrary(() => render(library.template(), host));
    await new Promise((r) => setTimeout(r, 0));
  };
  const type = (id: string, value: string) => {
    const input = $<HTMLInputElement>(`#${id}`)!;
    input.value = value;
    input.dispatchEvent(new Event("input"));
  };

  beforeEach(() => vi.clearAllMocks());
  afterEach(() => vi.useRealTimers());

  it("an error of kind busy shows the preview waiting beside its voice (no error) and asks again until it starts", async () => {
    await open();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const loading = { kind: "busy", message: "the speech model: is still loading; try again in a few seconds", input: null };
    vi.mocked(api.previewVoice).mockRejectedValueOnce(loading);
    $<HTMLButtonElement>("li[data-voice='af_heart'] button")!.click();
    await vi.advanceTimersByTimeAsync(0);
    const waiting = $("li[data-voice='af_heart'] .busy-wait[aria-busy='true']");
    expect(waiting?.querySelector(".spinner")).not.toBeNull();
    expect(waiting!.textContent).toContain("is still loading");
    expect(host.querySelectorAll("[role=alert]").length).toBe(0);
    await vi.advanceTimersByTimeAsync(1500);
    expect(api.previewVoice).toHaveBeenCalledTimes(2);
    expect(api.previewVoice).toHaveBeenLastCalledWith("af_heart");
    expect($(".busy-wait")).toBeNull();
    expect(host.querySelectorAll("[role=alert]").length).toBe(0);
  });

  it("an error of kind invalidInput marks the add form's field it names, and typing there clears it", async () => {
    await open();
    const message = 'voice name "Ana/2": use 1 to 64 letters, digits, spaces, \'-\', \'_\' or \'.\', without leading or trailing spaces';
    vi.mocked(api.addLibraryVoice).mockRejectedValueOnce({ kind: "invalidInput", message, input: 'voice name "Ana/2"' });
    type("voice-file", "/takes/ana.wav");
    type("voice-name", "Ana/2");
    type("voice-consent", "Ana, 3 May");
    $<HTMLButtonElement>("#add-voice")!.click();
    await new Promise((r) => setTimeout(r, 0));
    const name = $<HTMLInputElement>("#voice-name")!;
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.classList.contains("field-invalid")).toBe(true);
    expect($("#voice-name-error")!.textContent).toBe(message);
    expect(document.activeElement).toBe(name);
    expect($("#voice-file")!.hasAttribute("aria-invalid")).toBe(false);
    expect(name.value).toBe("Ana/2");
    type("voice-name", "Ana 2");
    expect($("#voice-name")!.hasAttribute("aria-invalid")).toBe(false);
    expect($("#voice-name-error")).toBeNull();

    // A recording the engine refuses is named by its path: the file field.
    vi.mocked(api.addLibraryVoice).mockRejectedValueOnce({ kind: "invalidInput", message: "/takes/ana.wav: holds no audio: there is nothing to match", input: "/takes/ana.wav" });
    $<HTMLButtonElement>("#add-voice")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect($("#voice-file")!.getAttribute("aria-invalid")).toBe("true");
    expect($("#voice-file-error")!.textContent).toBe("/takes/ana.wav: holds no audio: there is nothing to match");
  });
});
