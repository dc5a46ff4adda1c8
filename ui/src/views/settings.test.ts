// @vitest-environment happy-dom
// The Settings page's remote engines: the add form's URL list and a
// check's report in words, and the section in a DOM with the engine
// replaced by a stand-in (rows, the add form, its checks and refusals,
// a check's report under its row, removal), and the translation engines'
// section below them (translators.test.ts tests it on its own).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render } from "lit-html";
import type { Capabilities, EngineReport, NodeReport, RemoteEngineSettings, SettingsView } from "../engine";

const engine = vi.hoisted(() => ({
  settings: vi.fn(),
  saveSettings: vi.fn(),
  openDataDir: vi.fn(),
  remoteEngines: vi.fn(),
  saveRemoteEngine: vi.fn(),
  removeRemoteEngine: vi.fn(),
  checkRemoteEngine: vi.fn(),
  translators: vi.fn(),
  saveTranslator: vi.fn(),
  removeTranslator: vi.fn(),
  checkTranslator: vi.fn(),
}));
vi.mock("../engine", () => engine);

const { capabilitiesText, engineSummary, nodeState, nodeSummary, parseUrls } = await import("./remote-engines");
const { SettingsPage } = await import("./settings");

const none: Capabilities = { formats: [], batch: false, streaming: false, voiceUpload: false, cloning: false };
const node = (over: Partial<NodeReport> = {}): NodeReport => ({
  url: "http://10.0.0.2:8880",
  reachable: true,
  ready: true,
  version: "0.3.0",
  model: "kokoro-82m",
  speakMs: 411.6,
  capabilities: { formats: ["wav", "mp3"], batch: true, streaming: true, voiceUpload: false, cloning: false },
  problem: null,
  ...over,
});

describe("parseUrls", () => {
  it("splits on spaces, commas and new lines, each URL once, in order", () => {
    expect(parseUrls(" http://a:8880, http://b:8880\nhttp://c:8880,,http://a:8880 ")).toEqual(["http://a:8880", "http://b:8880", "http://c:8880"]);
    expect(parseUrls("http://a:8880,http://b:8880")).toEqual(["http://a:8880", "http://b:8880"]);
  });

  it("finds none in blank text", () => {
    expect(parseUrls("")).toEqual([]);
    expect(parseUrls(" ,  \n ")).toEqual([]);
  });
});

describe("a check in words", () => {
  it("says capabilities as the engine does", () => {
    expect(capabilitiesText({ formats: ["wav"], batch: true, streaming: false, voiceUpload: true, cloning: true })).toBe("wav; batch, voice upload, cloning from ref_audio");
    expect(capabilitiesText({ ...none, formats: ["wav", "pcm"] })).toBe("wav, pcm");
    expect(capabilitiesText(none)).toBe("no format");
  });

  it("says each server's state, version, model, speed and problem", () => {
    expect(nodeSummary(node())).toBe("ready · version 0.3.0 · model kokoro-82m · says Hi. in 412 ms");
    const loading = node({ ready: false, model: null, speakMs: null, capabilities: none, problem: "its model is still loading" });
    expect(nodeState(loading)).toBe("not ready");
    expect(nodeSummary(loading)).toBe("not ready · version 0.3.0 · its model is still loading");
    const gone = node({ reachable: false, ready: false, version: null, model: null, speakMs: null, capabilities: none, problem: "not reachable: Connection refused" });
    expect(nodeState(gone)).toBe("unreachable");
    expect(nodeSummary(gone)).toBe("unreachable · Connection refused");
  });

  it("says how many servers are ready and what the engine can do", () => {
    const report = (nodes: NodeReport[], capabilities = none): EngineReport => ({ name: "fleet", model: "", nodes, capabilities });
    const gone = node({ reachable: false, ready: false, problem: "not reachable: timed out" });
    expect(engineSummary(report([node(), gone], { ...none, formats: ["wav"], batch: true }))).toBe("1 of 2 servers ready. The engine can do: wav; batch.");
    expect(engineSummary(report([gone]))).toBe("0 of 1 server ready: the engine can do nothing until one is.");
  });
});

describe("the remote engines section", () => {
  const view: SettingsView = {
    dataDir: "/data/revoice",
    configFile: "/data/revoice/config.toml",
    outputDevice: "",
    devices: [],
    devicesError: null,
    batchWidth: 0,
    segmentStoreMb: 4096,
    renderCacheMb: 512,
    listenBack: false,
    resynthesizeMaxSpeed: 1.25,
    fitMinutes: 8,
    apiPort: 8880,
    restartNeeded: false,
  };
  const fleet: RemoteEngineSettings = { name: "fleet", urls: ["http://10.0.0.2:8880", "http://10.0.0.3:8880"], api_key: "secret", model: "" };
  const clone: RemoteEngineSettings = { name: "clone", urls: ["http://gpu:9000"], api_key: "", model: "qwen3-tts" };
  let root: HTMLElement;
  let page: InstanceType<typeof SettingsPage>;
  const draw = () => render(page.template(), root);
  const $ = <T extends Element>(selector: string) => root.querySelector<T>(selector)!;
  const type = (id: string, value: string) => {
    const input = $<HTMLInputElement>(`#${id}`);
    input.value = value;
    input.dispatchEvent(new Event("input"));
  };
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
  };

  beforeEach(async () => {
    for (const f of Object.values(engine)) f.mockReset();
    engine.settings.mockResolvedValue(view);
    engine.remoteEngines.mockResolvedValue([fleet, clone]);
    engine.translators.mockResolvedValue([]);
    root = document.createElement("div");
    document.body.replaceChildren(root);
    page = new SettingsPage(draw);
    await settle();
  });

  afterEach(() => vi.unstubAllGlobals());

  it("lists each engine with its URLs, key and model, and says how a voice on one is written", () => {
    const rows = [...root.querySelectorAll("#remote-engines [data-engine]")];
    expect(rows.map((r) => r.getAttribute("data-engine"))).toEqual(["fleet", "clone"]);
    const first = rows[0].textContent!;
    expect(first).toContain("http://10.0.0.2:8880");
    expect(first).toContain("http://10.0.0.3:8880");
    expect(first).toContain("with an API key");
    expect(first).not.toContain("secret");
    expect(rows[1].textContent).not.toContain("with an API key");
    expect(rows[1].textContent).toContain("model qwen3-tts");
    expect($("#remote-engines-note").textContent).toContain("ENGINE/@Name");
    expect($<HTMLInputElement>("#engine-api-key").type).toBe("password");
  });

  it("checks an engine, saying Checking… until its report shows under its row", async () => {
    let answer!: (r: EngineReport) => void;
    engine.checkRemoteEngine.mockReturnValue(new Promise<EngineReport>((r) => (answer = r)));
    $<HTMLButtonElement>("#check-engine-fleet").click();
    expect(engine.checkRemoteEngine).toHaveBeenCalledWith("fleet");
    expect($("#check-engine-fleet").textContent).toBe("Checking…");
    const gone = node({ url: "http://10.0.0.3:8880", reachable: false, ready: false, version: null, model: null, speakMs: null, capabilities: none, problem: "not reachable: Connection refused" });
    answer({ name: "fleet", model: "", nodes: [node(), gone], capabilities: node().capabilities });
    await settle();
    expect($("#check-engine-fleet").textContent).toBe("Check");
    const report = $('[data-engine="fleet"] .engine-report');
    expect(report.textContent).toContain("1 of 2 servers ready. The engine can do: wav, mp3; batch, streaming.");
    const servers = [...report.querySelectorAll(".engine-node")].map((n) => n.textContent);
    expect(servers).toEqual(["http://10.0.0.2:8880 ready · version 0.3.0 · model kokoro-82m · says Hi. in 412 ms", "http://10.0.0.3:8880 unreachable · Connection refused"]);
    expect(root.querySelector('[data-engine="clone"] .engine-report')).toBeNull();
  });

  it("adds an engine from the form and clears it; refuses an empty name or URL list in the page's error", async () => {
    type("engine-urls", "http://gpu:9000");
    $<HTMLButtonElement>("#engine-add").click();
    expect($('[role="alert"]').textContent).toContain("name");
    type("engine-name", "solo");
    type("engine-urls", " , ");
    $<HTMLButtonElement>("#engine-add").click();
    expect($('[role="alert"]').textContent).toContain("URL");
    expect(engine.saveRemoteEngine).not.toHaveBeenCalled();

    const solo: RemoteEngineSettings = { name: "solo", urls: ["http://a:8880", "http://b:8880"], api_key: "k", model: "m" };
    engine.saveRemoteEngine.mockResolvedValue([fleet, clone, solo]);
    type("engine-urls", "http://a:8880, http://b:8880");
    type("engine-api-key", " k ");
    type("engine-model", "m");
    $<HTMLButtonElement>("#engine-add").click();
    await settle();
    expect(engine.saveRemoteEngine).toHaveBeenCalledWith(solo);
    expect(root.querySelector('[role="alert"]')).toBeNull();
    expect(root.querySelector('[data-engine="solo"]')).not.toBeNull();
    expect($<HTMLInputElement>("#engine-name").value).toBe("");
    expect($<HTMLInputElement>("#engine-urls").value).toBe("");
  });

  it("shows the engine's refusal and keeps what was typed", async () => {
    engine.saveRemoteEngine.mockRejectedValue("The engine was not saved: \"local\" is the studio's own engine");
    type("engine-name", "local");
    type("engine-urls", "http://a:8880");
    $<HTMLButtonElement>("#engine-add").click();
    await settle();
    expect($('[role="alert"]').textContent).toBe("The engine was not saved: \"local\" is the studio's own engine");
    expect($<HTMLInputElement>("#engine-name").value).toBe("local");
  });

  it("shows the translation engines after the remote engines, each with where its lines go", async () => {
    engine.translators.mockResolvedValue([{ name: "llama", url: "http://127.0.0.1:8080", model: "", host: "127.0.0.1:8080", local: true, hasApiKey: false }]);
    page = new SettingsPage(draw);
    await settle();
    const headings = [...root.querySelectorAll("h2")].map((h) => h.textContent);
    expect(headings).toEqual(["Remote engines", "Translation engines"]);
    expect(engine.translators).toHaveBeenCalled();
    expect($('[data-translator="llama"] .translator-where').textContent).toBe("lines go to 127.0.0.1:8080 — this machine");
    expect($("#add-translator").textContent).toBe("Add translation engine");
    expect(root.querySelector('[role="alert"]')).toBeNull();
  });

  it("removes an engine once confirmed", async () => {
    const confirm = vi.fn(() => true);
    vi.stubGlobal("confirm", confirm);
    engine.removeRemoteEngine.mockResolvedValue([clone]);
    $<HTMLButtonElement>("#remove-engine-fleet").click();
    await settle();
    expect(confirm).toHaveBeenCalled();
    expect(engine.removeRemoteEngine).toHaveBeenCalledWith("fleet");
    expect([...root.querySelectorAll("[data-engine]")].map((r) => r.getAttribute("data-engine"))).toEqual(["clone"]);
  });
});

describe("a setting the engine refuses", () => {
  const view: SettingsView = {
    dataDir: "/data/revoice",
    configFile: "/data/revoice/config.toml",
    outputDevice: "",
    devices: [],
    devicesError: null,
    batchWidth: 0,
    segmentStoreMb: 4096,
    renderCacheMb: 512,
    listenBack: false,
    resynthesizeMaxSpeed: 1.25,
    fitMinutes: 8,
    apiPort: 8880,
    restartNeeded: false,
  };
  let root: HTMLElement;
  let page: InstanceType<typeof SettingsPage>;
  const $ = <T extends Element>(selector: string) => root.querySelector<T>(selector);
  const change = (id: string, value: string) => {
    const input = $<HTMLInputElement>(`#${id}`)!;
    input.value = value;
    input.dispatchEvent(new Event("change"));
  };
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
  };

  beforeEach(async () => {
    for (const f of Object.values(engine)) f.mockReset();
    engine.settings.mockResolvedValue(view);
    engine.remoteEngines.mockResolvedValue([]);
    engine.translators.mockResolvedValue([]);
    root = document.createElement("div");
    document.body.replaceChildren(root);
    page = new SettingsPage(() => render(page.template(), root));
    await settle();
  });

  it("an error of kind invalidInput marks its field (aria-invalid, message beside it, focus), not the banner", async () => {
    const message = "The settings were not saved: config file /data/revoice/config.toml: [dub] segment_store_mb must be at least 1 MiB";
    engine.saveSettings.mockRejectedValue({ kind: "invalidInput", message, input: "[dub] segment_store_mb" });
    change("setting-segment-store", "2");
    await settle();
    expect(engine.saveSettings).toHaveBeenCalledWith({ segmentStoreMb: 2 });
    const field = $<HTMLInputElement>("#setting-segment-store")!;
    expect(field.getAttribute("aria-invalid")).toBe("true");
    expect(field.classList.contains("field-invalid")).toBe(true);
    expect(field.value).toBe("4096");
    expect($("#setting-segment-store-error")!.textContent).toBe(message);
    expect(field.closest("label")!.contains($("#setting-segment-store-error"))).toBe(true);
    expect(document.activeElement).toBe(field);
    expect($(".error-banner")).toBeNull();
    expect($("#setting-render-cache")!.hasAttribute("aria-invalid")).toBe(false);

    // Saved at last: the mark goes.
    engine.saveSettings.mockResolvedValue({ ...view, segmentStoreMb: 2048 });
    change("setting-segment-store", "2048");
    await settle();
    expect($("#setting-segment-store")!.hasAttribute("aria-invalid")).toBe(false);
    expect($("#setting-segment-store-error")).toBeNull();
  });

  it("marks a number out of the field's range on the field without asking the engine", async () => {
    change("setting-batch-width", "65");
    await settle();
    expect(engine.saveSettings).not.toHaveBeenCalled();
    expect($("#setting-batch-width")!.getAttribute("aria-invalid")).toBe("true");
    expect($("#setting-batch-width-error")!.textContent).toBe("Batch width must be a whole number from 0 to 64.");
  });

  it("shows the voice fit budget and saves it in minutes; refuses one out of 0.1 to 120 on the field", async () => {
    const field = $<HTMLInputElement>("#setting-fit-minutes")!;
    expect(field.value).toBe("8");
    expect(field.closest("label")!.textContent).toContain("Voice fit budget (minutes)");
    engine.saveSettings.mockResolvedValue({ ...view, fitMinutes: 2.5 });
    change("setting-fit-minutes", "2.5");
    await settle();
    expect(engine.saveSettings).toHaveBeenCalledWith({ fitMinutes: 2.5 });
    expect($<HTMLInputElement>("#setting-fit-minutes")!.value).toBe("2.5");

    engine.saveSettings.mockClear();
    for (const out of ["0.05", "121", ""]) {
      change("setting-fit-minutes", out);
      await settle();
      expect($("#setting-fit-minutes")!.getAttribute("aria-invalid")).toBe("true");
      expect($("#setting-fit-minutes-error")!.textContent).toBe("Voice fit budget (minutes) must be from 0.1 to 120.");
    }
    expect(engine.saveSettings).not.toHaveBeenCalled();

    // The engine's own refusal of it lands on the field too.
    const message = "The settings were not saved: config file /c: [voices] fit_minutes 200 must be from 0.1 to 120 minutes";
    engine.saveSettings.mockRejectedValue({ kind: "invalidInput", message, input: "[voices] fit_minutes" });
    change("setting-fit-minutes", "60");
    await settle();
    expect($("#setting-fit-minutes-error")!.textContent).toBe(message);
    expect($(".error-banner")).toBeNull();
  });

  it("a refusal naming a setting the page does not show, or another kind, is the banner", async () => {
    engine.saveSettings.mockRejectedValue({ kind: "invalidInput", message: "The settings were not saved: config file /c: [log] filter \"x(\" is not a tracing filter", input: "[log] filter" });
    change("setting-api-port", "8881");
    await settle();
    expect($(".error-banner")!.textContent).toContain("[log] filter");
    expect(root.querySelector("[aria-invalid]")).toBeNull();
    engine.saveSettings.mockRejectedValue("disk full");
    change("setting-api-port", "8882");
    await settle();
    expect($(".error-banner")!.textContent).toBe("disk full");
  });
});
