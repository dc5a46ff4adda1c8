// @vitest-environment happy-dom
// The engine's refusals as the window receives them (engine.ts over a
// stand-in for Tauri's invoke), and the pieces the views act on them with:
// waiting out a busy engine, marking a refused field, acting by kind.
import { afterEach, describe, expect, it, vi } from "vitest";
import { html, nothing, render } from "lit-html";
import type { ErrorReport } from "./engine-types";

const tauri = vi.hoisted(() => ({ invoke: vi.fn() }));
vi.mock("@tauri-apps/api/core", () => ({ invoke: tauri.invoke }));

const engine = await import("./engine");
const { actOn, BusyRetry, EngineError, engineError, FieldErrors, INVALID_FIELD, STOPPED } = await import("./errors");

type Refused = InstanceType<typeof EngineError>;
/** What a promise was refused with (and a failure when it was not). */
const refusal = (answer: Promise<unknown>): Promise<Refused> =>
  answer.then(
    () => {
      throw new Error("it was not refused");
    },
    (e: unknown) => e as Refused,
  );

const loading: ErrorReport = { kind: "busy", message: "the speech model: is still loading; try again in a few seconds", input: null };

afterEach(() => {
  vi.useRealTimers();
  tauri.invoke.mockReset();
});

describe("a refused command", () => {
  it("a plain string rejection becomes an internal EngineError whose String() is the text", async () => {
    tauri.invoke.mockRejectedValue("Command save_settings not found");
    const refused = await refusal(engine.saveSettings({ batchWidth: 4 }));
    expect(refused).toBeInstanceOf(EngineError);
    expect(refused).toBeInstanceOf(Error);
    expect(refused.kind).toBe("internal");
    expect(refused.input).toBeNull();
    expect(String(refused)).toBe("Command save_settings not found");
    expect(refused.message).toBe("Command save_settings not found");
    expect(`${refused}`).toBe("Command save_settings not found");
  });

  it("an engine's report keeps its kind, input and message", async () => {
    const report: ErrorReport = { kind: "invalidInput", message: 'voice name "A/B": use 1 to 64 letters', input: 'voice name "A/B"' };
    tauri.invoke.mockRejectedValue(report);
    const refused = await refusal(engine.addLibraryVoice("A/B", "/r.wav", "me", "", ""));
    expect(tauri.invoke).toHaveBeenCalledWith("add_library_voice", { name: "A/B", path: "/r.wav", consent: "me", description: "", referenceText: "" });
    expect([refused.kind, refused.input, String(refused)]).toEqual(["invalidInput", 'voice name "A/B"', 'voice name "A/B": use 1 to 64 letters']);
  });

  it("an answer is passed through untouched", async () => {
    tauri.invoke.mockResolvedValue("http://127.0.0.1:8880");
    await expect(engine.apiStatus()).resolves.toBe("http://127.0.0.1:8880");
  });

  it("reads anything else as internal: a thrown Error by its message, an unknown kind as text", () => {
    expect(engineError(new TypeError("fetch failed"))).toMatchObject({ kind: "internal", message: "fetch failed", input: null });
    expect(engineError({ kind: "sideways", message: "?" }).kind).toBe("internal");
    const same = new EngineError(loading);
    expect(engineError(same)).toBe(same);
  });
});

describe("waiting out a busy engine", () => {
  it("asks again every 1.5 s while busy, showing the engine's message with a spinner, and answers once it starts", async () => {
    vi.useFakeTimers();
    const drawn = vi.fn();
    const wait = new BusyRetry(drawn);
    const action = vi.fn().mockRejectedValueOnce(loading).mockRejectedValueOnce(new EngineError(loading)).mockResolvedValueOnce("started");
    const answer = wait.run("The preview", action);
    await vi.advanceTimersByTimeAsync(0);
    expect(wait.waiting).toBe(true);
    const host = document.createElement("div");
    render(wait.template(), host);
    expect(host.querySelector(".busy-wait[aria-busy='true'] .spinner")).not.toBeNull();
    expect(host.textContent).toContain("The preview is waiting: the speech model: is still loading");
    await vi.advanceTimersByTimeAsync(1499);
    expect(action).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(action).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1500);
    await expect(answer).resolves.toBe("started");
    expect(action).toHaveBeenCalledTimes(3);
    expect(wait.waiting).toBe(false);
    expect(wait.template()).toBe(nothing);
    expect(drawn).toHaveBeenCalled();
  });

  it("gives up after about a minute with the busy refusal, and passes any other refusal on at once", async () => {
    vi.useFakeTimers();
    const wait = new BusyRetry(() => {});
    const busy = vi.fn().mockRejectedValue(loading);
    const given = refusal(wait.run("The render", busy));
    await vi.advanceTimersByTimeAsync(60_000);
    const refused = await given;
    expect(refused.kind).toBe("busy");
    expect(busy).toHaveBeenCalledTimes(41);
    expect(wait.waiting).toBe(false);

    const conflict = vi.fn().mockRejectedValue({ kind: "conflict", message: "render of project 7: it is rendering already", input: "render of project 7" });
    const refusedAtOnce = await refusal(wait.run("The render", conflict));
    expect(refusedAtOnce.kind).toBe("conflict");
    expect(conflict).toHaveBeenCalledTimes(1);
  });

  it("stops when asked (its Stop button) or replaced by a new ask, answering STOPPED and asking no more", async () => {
    vi.useFakeTimers();
    const wait = new BusyRetry(() => {});
    const action = vi.fn().mockRejectedValue(loading);
    const answer = wait.run("The preview", action);
    await vi.advanceTimersByTimeAsync(0);
    const host = document.createElement("div");
    render(wait.template(), host);
    host.querySelector<HTMLButtonElement>(".busy-stop")!.click();
    await expect(answer).resolves.toBe(STOPPED);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(action).toHaveBeenCalledTimes(1);
    expect(wait.waiting).toBe(false);

    // A new ask replaces the one waiting: only the newest is asked again.
    const first = vi.fn().mockRejectedValue(loading);
    const replaced = wait.run("The preview", first);
    await vi.advanceTimersByTimeAsync(0);
    const second = vi.fn().mockResolvedValue("started");
    await expect(wait.run("The preview", second)).resolves.toBe("started");
    await expect(replaced).resolves.toBe(STOPPED);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(first).toHaveBeenCalledTimes(1);
  });
});

describe("a refused field", () => {
  it("is marked invalid with the message beside it, takes the focus once, and is cleared", async () => {
    const errors = new FieldErrors();
    const host = document.createElement("form");
    document.body.replaceChildren(host);
    const draw = () => render(html`<input id="speed" ${errors.on("speed")} />${errors.note("speed")}<input id="gain" ${errors.on("gain")} />`, host);
    draw();
    const speed = host.querySelector<HTMLInputElement>("#speed")!;
    expect(speed.hasAttribute("aria-invalid")).toBe(false);
    errors.mark("speed", "segment 2: speed 9 is outside 0.25 to 4.0");
    draw();
    await Promise.resolve();
    expect(speed.getAttribute("aria-invalid")).toBe("true");
    expect(speed.classList.contains(INVALID_FIELD)).toBe(true);
    expect(speed.getAttribute("aria-describedby")).toBe("speed-error");
    expect(host.querySelector("#speed-error")!.textContent).toBe("segment 2: speed 9 is outside 0.25 to 4.0");
    expect(document.activeElement).toBe(speed);
    expect(host.querySelector("#gain")!.hasAttribute("aria-invalid")).toBe(false);
    // Focus is taken once per mark, not on every draw.
    host.querySelector<HTMLInputElement>("#gain")!.focus();
    draw();
    await Promise.resolve();
    expect(document.activeElement!.id).toBe("gain");
    errors.clear("speed");
    draw();
    expect(speed.hasAttribute("aria-invalid")).toBe(false);
    expect(speed.classList.contains(INVALID_FIELD)).toBe(false);
    expect(host.querySelector("#speed-error")).toBeNull();
  });
});

describe("acting on a refusal by its kind", () => {
  it("marks the field an invalid input names, refreshes on not found, and banners the rest", () => {
    const fields = new FieldErrors();
    const banner = vi.fn();
    const refresh = vi.fn();
    const field = (e: Refused) => (e.input === "segment 2" ? "line-speed" : null);
    actOn({ kind: "invalidInput", message: "segment 2: speed 9 is outside 0.25 to 4.0", input: "segment 2" }, { banner, fields, field, refresh });
    expect(fields.message("line-speed")).toBe("segment 2: speed 9 is outside 0.25 to 4.0");
    expect(banner).not.toHaveBeenCalled();
    // An input the form does not show: the banner.
    actOn({ kind: "invalidInput", message: 'language "xx": unknown', input: 'language "xx"' }, { banner, fields, field, refresh });
    expect(banner).toHaveBeenLastCalledWith('language "xx": unknown');
    actOn({ kind: "notFound", message: "segment 9: there is no such segment", input: "segment 9" }, { banner, fields, field, refresh });
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(banner).toHaveBeenLastCalledWith("segment 9: there is no such segment");
    const kind = actOn("disk full", { banner, fields, field, refresh }).kind;
    expect(kind).toBe("internal");
    expect(banner).toHaveBeenLastCalledWith("disk full");
    expect(refresh).toHaveBeenCalledTimes(1);
  });
});
