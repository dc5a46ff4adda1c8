// @vitest-environment happy-dom
// Settings → Translation engines in a DOM, with the engine replaced by a
// stand-in: each translator listed with where its lines go (this machine,
// or another one, as a warning), the add form's fields sent as typed (and
// its refusals on the form), a check's answer or error under its row, and
// removal once confirmed.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render } from "lit-html";
import type { TranslatorCheck, TranslatorView } from "../engine";

const engine = vi.hoisted(() => ({
  translators: vi.fn(),
  saveTranslator: vi.fn(),
  removeTranslator: vi.fn(),
  checkTranslator: vi.fn(),
}));
vi.mock("../engine", () => engine);

const { TranslatorsSection, checkWords, whereLinesGo } = await import("./translators");

const llama: TranslatorView = { name: "llama", url: "http://127.0.0.1:8080", model: "gemma-3-270m", host: "127.0.0.1:8080", local: true, hasApiKey: false };
const hosted: TranslatorView = { name: "hosted", url: "https://api.example.com/v1", model: "", host: "api.example.com", local: false, hasApiKey: true };

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

describe("translation engines in words", () => {
  it("says where the lines go", () => {
    expect(whereLinesGo("127.0.0.1:8080", true)).toBe("lines go to 127.0.0.1:8080 — this machine");
    expect(whereLinesGo("api.example.com", false)).toBe("lines go to api.example.com — another machine: the script leaves this computer");
  });

  it("says what a check heard", () => {
    expect(checkWords({ models: ["gemma-3-270m"], answered: "Buenos días.", seconds: 3.21 })).toBe("Answered “Buenos días.” in 3.2 s; models: gemma-3-270m");
    expect(checkWords({ models: [], answered: "Buenos días.", seconds: 12 })).toBe("Answered “Buenos días.” in 12.0 s; it lists no models");
  });
});

describe("the translation engines section", () => {
  let root: HTMLElement;
  let section: InstanceType<typeof TranslatorsSection>;
  const $ = <T extends Element>(selector: string) => root.querySelector<T>(selector)!;
  const type = (id: string, value: string) => {
    const input = $<HTMLInputElement>(`#${id}`);
    input.value = value;
    input.dispatchEvent(new Event("input"));
  };
  const row = (name: string) => $(`[data-translator="${name}"]`);

  beforeEach(async () => {
    for (const f of Object.values(engine)) f.mockReset();
    engine.translators.mockResolvedValue([llama, hosted]);
    root = document.createElement("div");
    document.body.replaceChildren(root);
    section = new TranslatorsSection(() => render(section.template(), root));
    await settle();
  });

  afterEach(() => vi.unstubAllGlobals());

  it("lists each translator with its URL, model and where its lines go; another machine is a warning", () => {
    expect([...root.querySelectorAll("#translators [data-translator]")].map((r) => r.getAttribute("data-translator"))).toEqual(["llama", "hosted"]);
    expect(row("llama").textContent).toContain("http://127.0.0.1:8080");
    expect(row("llama").textContent).toContain("model gemma-3-270m");
    expect(row("llama").querySelector(".translator-where")!.textContent).toBe("lines go to 127.0.0.1:8080 — this machine");
    expect(row("llama").querySelector(".translator-where")!.classList.contains("status-warning")).toBe(false);
    const away = row("hosted").querySelector(".translator-where")!;
    expect(away.textContent).toBe("lines go to api.example.com — another machine: the script leaves this computer");
    expect(away.classList.contains("status-warning")).toBe(true);
    expect(row("hosted").textContent).toContain("the server's default model");
    expect(row("hosted").textContent).toContain("with an API key");
    expect($("#translators-help").textContent).toContain("llama-server -m model.gguf --port 8080");
    expect($("#translators-help").textContent).toContain("http://127.0.0.1:11434");
    expect($<HTMLInputElement>("#translator-key").type).toBe("password");
    expect($<HTMLInputElement>("#translator-url").placeholder).toBe("http://127.0.0.1:8080");
  });

  it("says None yet. without translators", async () => {
    engine.translators.mockResolvedValue([]);
    section = new TranslatorsSection(() => render(section.template(), root));
    await settle();
    expect($("#translators").textContent).toBe("None yet.");
  });

  it("adds a translator with the fields as typed and clears the form", async () => {
    const added: TranslatorView = { name: "ollama", url: "http://127.0.0.1:11434", model: "qwen2.5:3b", host: "127.0.0.1:11434", local: true, hasApiKey: true };
    engine.saveTranslator.mockResolvedValue([llama, hosted, added]);
    type("translator-name", " ollama ");
    type("translator-url", "http://127.0.0.1:11434");
    type("translator-model", "qwen2.5:3b");
    type("translator-key", "k");
    $<HTMLButtonElement>("#add-translator").click();
    await settle();
    expect(engine.saveTranslator).toHaveBeenCalledWith({ name: "ollama", url: "http://127.0.0.1:11434", model: "qwen2.5:3b", api_key: "k" });
    expect(row("ollama")).not.toBeNull();
    expect($("#translators-message").textContent).toBe("Saved the translation engine ollama");
    expect($<HTMLInputElement>("#translator-name").value).toBe("");
    expect($<HTMLInputElement>("#translator-key").value).toBe("");
  });

  it("marks an empty name or URL without asking the engine", async () => {
    type("translator-url", "http://127.0.0.1:8080");
    $<HTMLButtonElement>("#add-translator").click();
    expect($("#translator-name").getAttribute("aria-invalid")).toBe("true");
    expect($("#translator-name-error").textContent).toContain("name");
    type("translator-name", "llama2");
    type("translator-url", "  ");
    $<HTMLButtonElement>("#add-translator").click();
    expect($("#translator-url").getAttribute("aria-invalid")).toBe("true");
    expect(root.querySelector("#translator-name-error")).toBeNull();
    expect(engine.saveTranslator).not.toHaveBeenCalled();
  });

  it("shows the engine's refusal on the form: on the field it names, else above the form; what was typed stays", async () => {
    const message = 'The translator was not saved: [[translators]] x: "127.0.0.1:8080" is not an http:// or https:// address';
    engine.saveTranslator.mockRejectedValue({ kind: "invalidInput", message, input: 'translator "x"' });
    type("translator-name", "x");
    type("translator-url", "127.0.0.1:8080");
    $<HTMLButtonElement>("#add-translator").click();
    await settle();
    expect($("#translator-url").getAttribute("aria-invalid")).toBe("true");
    expect($("#translator-url-error").textContent).toBe(message);
    expect($<HTMLInputElement>("#translator-url").value).toBe("127.0.0.1:8080");

    engine.saveTranslator.mockRejectedValue("config.toml: permission denied");
    type("translator-url", "http://127.0.0.1:8080");
    $<HTMLButtonElement>("#add-translator").click();
    await settle();
    expect($("#translator-error").textContent).toBe("config.toml: permission denied");
    expect($("#translator-error").getAttribute("role")).toBe("alert");
    expect(root.querySelector("#translator-url-error")).toBeNull();
    expect($<HTMLInputElement>("#translator-name").value).toBe("x");
  });

  it("checks a translator, saying Checking… until its answer shows under its row; or its error", async () => {
    let answer!: (c: TranslatorCheck) => void;
    engine.checkTranslator.mockReturnValue(new Promise<TranslatorCheck>((r) => (answer = r)));
    $<HTMLButtonElement>("#check-translator-llama").click();
    expect(engine.checkTranslator).toHaveBeenCalledWith("llama");
    expect($("#check-translator-llama").textContent).toBe("Checking…");
    answer({ models: ["gemma-3-270m"], answered: "Buenos días.", seconds: 3.2 });
    await settle();
    expect($("#check-translator-llama").textContent).toBe("Check");
    expect(row("llama").querySelector(".translator-check")!.textContent).toBe("Answered “Buenos días.” in 3.2 s; models: gemma-3-270m");
    expect(row("hosted").querySelector(".translator-check")).toBeNull();

    engine.checkTranslator.mockRejectedValue("translator hosted: api.example.com did not answer: connection refused");
    $<HTMLButtonElement>("#check-translator-hosted").click();
    await settle();
    const error = row("hosted").querySelector(".translator-check")!;
    expect(error.textContent).toContain("connection refused");
    expect(error.getAttribute("role")).toBe("alert");
  });

  it("removes a translator once confirmed, and not otherwise", async () => {
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    $<HTMLButtonElement>("#remove-translator-hosted").click();
    expect(engine.removeTranslator).not.toHaveBeenCalled();
    confirm.mockReturnValue(true);
    engine.removeTranslator.mockResolvedValue([llama]);
    $<HTMLButtonElement>("#remove-translator-hosted").click();
    await settle();
    expect(confirm).toHaveBeenCalledTimes(2);
    expect(engine.removeTranslator).toHaveBeenCalledWith("hosted");
    expect([...root.querySelectorAll("[data-translator]")].map((r) => r.getAttribute("data-translator"))).toEqual(["llama"]);
  });
});
