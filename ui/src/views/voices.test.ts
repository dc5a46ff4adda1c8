// @vitest-environment happy-dom
// The voice library shows a failure once, next to what caused it; a
// preview waits out a busy engine; the add form marks a refused field; a
// voice shows a fit per language, the fits running, and fits another
// language.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render } from "lit-html";
import type { FitFigures, FitInProgress, LibraryVoice } from "../engine";

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
  fitLibraryVoice: vi.fn(async () => {}),
  cancelLibraryVoiceFit: vi.fn(async () => true),
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

describe("a library voice's fits, one per language", () => {
  let host: HTMLElement;
  let library: InstanceType<typeof VoiceLibrary>;
  const $ = <T extends Element>(selector: string) => host.querySelector<T>(selector);
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const fit = (language: string, over: Partial<FitFigures> = {}): FitFigures => ({
    language,
    bestStock: "af_heart",
    bestStockSimilarity: 0.61,
    blendSimilarity: 0.66,
    fittedSimilarity: 0.78,
    styleOnlySimilarity: null,
    toneLargestDb: null,
    bestStockNaturalness: null,
    fittedNaturalness: null,
    generations: 40,
    seconds: 480,
    ...over,
  });
  const running = (language: string, generation: number | null): FitInProgress => ({ language, generation, seconds: 60, secondsLeft: 130, startSimilarity: 0.6, bestSimilarity: 0.7 });
  const voice = (over: Partial<LibraryVoice> = {}): LibraryVoice => ({
    name: "Ana",
    description: "",
    referenceText: "",
    consent: "Ana, 3 May",
    fileSize: 204800,
    mimeType: "audio/wav",
    createdAt: "2025-05-03T10:00:00Z",
    version: 1,
    quality: null,
    matches: [{ voice: "af_heart", similarity: 0.61 }],
    language: "en-US",
    blend: "af_heart:0.6,af_bella:0.4",
    kind: "matched",
    fits: [],
    fitting: [],
    ...over,
  });
  /** Opens the page on a library of the one voice `v`. */
  const open = async (v: LibraryVoice) => {
    vi.mocked(api.voiceLibrary).mockResolvedValue({ stock: [], library: [v] });
    host = document.createElement("div");
    document.body.replaceChildren(host);
    library = new VoiceLibrary(() => render(library.template(), host));
    await settle();
  };
  const options = () => [...host.querySelectorAll<HTMLOptionElement>("select.fit-language option")].map((o) => o.value);

  beforeEach(() => vi.clearAllMocks());
  afterEach(() => vi.useRealTimers());

  it("a voice not fitted speaks as the blend and offers Fit voice (its own language)", async () => {
    await open(voice());
    expect($("[data-voice='Ana'] [data-fit='matched'] button")!.textContent).toBe("Fit voice");
    expect($("[data-fit='matched']")!.textContent).not.toContain("5 minutes");
    expect(host.querySelectorAll("[data-fit='fitted'], [data-fit='running']").length).toBe(0);
    expect(options()).toEqual(["en-US", "en-GB", "es", "fr", "it", "pt-BR", "hi", "zh", "ja"]);
    $<HTMLButtonElement>("[data-fit='matched'] button")!.click();
    await settle();
    expect(api.fitLibraryVoice).toHaveBeenCalledWith("Ana", null);
    expect($("#voices-status")!.textContent).toBe("Fitting Ana");
  });

  it("a voice fitted to two languages shows a fitted block for each, named, with its meters", async () => {
    await open(
      voice({
        kind: "fitted",
        fits: [fit("en-US", { styleOnlySimilarity: 0.74, toneLargestDb: 3.2, bestStockNaturalness: 3.61, fittedNaturalness: 3.5 }), fit("es", { bestStock: "ef_dora" })],
      }),
    );
    const blocks = [...host.querySelectorAll<HTMLElement>("[data-voice='Ana'] [data-fit='fitted']")];
    expect(blocks.map((b) => b.dataset.fitLanguage)).toEqual(["en-US", "es"]);
    expect(blocks[0]!.textContent).toContain("Speaks English (US) as a fitted voice");
    expect(blocks[0]!.textContent).toContain("not a clone");
    expect(blocks[1]!.textContent).toContain("Speaks Spanish as a fitted voice");
    expect(blocks[1]!.textContent).toContain("Best stock voice (ef_dora)");
    expect([...blocks[0]!.querySelectorAll<HTMLElement>("[data-meter]")].map((m) => m.dataset.meter)).toEqual(["stock", "blend", "style", "fitted"]);
    expect([...blocks[1]!.querySelectorAll<HTMLElement>("[data-meter]")].map((m) => m.dataset.meter)).toEqual(["stock", "blend", "fitted"]);
    expect(blocks[0]!.textContent).toContain("up to 3.2 dB");
    expect(blocks[0]!.querySelector("[data-naturalness]")!.textContent).toBe("Naturalness on the same sentences (DNSMOS, 1 to 5): the fitted voice 3.50, the best stock voice 3.61.");
    expect(blocks[1]!.querySelector("[data-naturalness]")).toBeNull();
    expect(blocks[0]!.textContent).toContain("40 generations in 8 min");
    // Fitted in its own language: no blend block; the A/B row hears the fitted voice and its fit's best stock voice.
    expect($("[data-fit='matched']")).toBeNull();
    const compare = $("[data-compare-for='Ana']")!.textContent!;
    expect(compare).toContain("Fitted voice");
    expect(compare).toContain("Best stock voice (af_heart)");
    expect(options()).toEqual(["en-GB", "fr", "it", "pt-BR", "hi", "zh", "ja"]);
  });

  it("a voice fitted only to another language still speaks its own as the blend", async () => {
    await open(voice({ fits: [fit("es", { bestStock: "ef_dora" })] }));
    expect($("[data-fit='matched'] button")!.textContent).toBe("Fit voice");
    expect($("[data-fit='fitted']")!.getAttribute("data-fit-language")).toBe("es");
    const compare = $("[data-compare-for='Ana']")!.textContent!;
    expect(compare).toContain("This voice (blend)");
    expect(compare).toContain("Best stock voice (af_heart)");
    expect(compare).not.toContain("ef_dora");
  });

  it("running fits show their language and progress, one Cancel fit for the voice, and are polled", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    await open(voice({ fitting: [running("es", 3), running("fr", null)] }));
    const blocks = [...host.querySelectorAll<HTMLElement>("[data-voice='Ana'] [data-fit='running']")];
    expect(blocks.map((b) => b.dataset.fitLanguage)).toEqual(["es", "fr"]);
    expect(blocks[0]!.textContent).toContain("Fitting a voice to the recording to speak Spanish: generation 3, about 2 min 10 s left");
    expect(blocks[0]!.querySelectorAll("[data-meter]").length).toBe(2);
    expect(blocks[1]!.textContent).toContain("Fitting a voice to the recording to speak French: waiting for its turn…");
    expect(blocks[1]!.querySelectorAll("[data-meter]").length).toBe(0);
    // Its own language is not being fitted: it still offers Fit voice.
    expect($("[data-fit='matched']")).not.toBeNull();
    expect(options()).toEqual(["en-US", "en-GB", "it", "pt-BR", "hi", "zh", "ja"]);
    const cancels = host.querySelectorAll("[data-fit='running'] button");
    expect(cancels.length).toBe(1);
    // The progress is read again every 2 s while a fit runs.
    vi.mocked(api.voiceLibrary).mockResolvedValue({ stock: [], library: [voice({ fitting: [running("es", 4)] })] });
    await vi.advanceTimersByTimeAsync(2000);
    await settle();
    expect(api.voiceLibrary).toHaveBeenCalledTimes(2);
    expect($("[data-fit='running']")!.textContent).toContain("generation 4");
    $<HTMLButtonElement>("[data-voice='Ana'] [data-fit='running'] button")!.click();
    expect($("[data-fit='running'] button")!.textContent).toBe("Cancel fit");
    vi.mocked(api.voiceLibrary).mockResolvedValue({ stock: [], library: [voice()] });
    await settle();
    expect(api.cancelLibraryVoiceFit).toHaveBeenCalledWith("Ana");
    expect($("#voices-status")!.textContent).toBe("Stopping the fit of Ana; fitting again resumes it");
    expect($("[data-fit='running']")).toBeNull();
    // With none running, the poll stops.
    await vi.advanceTimersByTimeAsync(4000);
    expect(api.voiceLibrary).toHaveBeenCalledTimes(3);
  });

  it("a running fit of its own language takes the place of Fit voice", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    await open(voice({ fitting: [running("en-US", null)] }));
    expect($("[data-fit='matched']")).toBeNull();
    expect($("[data-fit='running']")!.textContent).toContain("to speak English (US): waiting for its turn…");
    expect(options()).not.toContain("en-US");
  });

  it("fits the voice for the language picked", async () => {
    await open(voice({ kind: "fitted", fits: [fit("en-US")] }));
    const select = $<HTMLSelectElement>("select.fit-language")!;
    expect(select.getAttribute("aria-label")).toBe("Language to fit");
    select.value = "pt-BR";
    select.dispatchEvent(new Event("change"));
    const button = [...host.querySelectorAll<HTMLButtonElement>("[data-voice='Ana'] button")].find((b) => b.textContent === "Fit for language")!;
    button.click();
    await settle();
    expect(api.fitLibraryVoice).toHaveBeenCalledWith("Ana", "pt-BR");
    expect($("#voices-status")!.textContent).toBe("Fitting Ana to speak Portuguese (BR)");
  });
});
