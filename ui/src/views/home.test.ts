// @vitest-environment happy-dom
// The home screen's views drawn with lit-html in a DOM (happy-dom): what is
// typed survives redraws, the API switch shows where the API really is,
// and the ids and words the end-to-end test looks for are there.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { render } from "lit-html";
import type { Diagnosis } from "../engine";
import { apiSwitchView, type ApiSwitchState } from "./api-switch";
import { enginePanelView } from "./engine-panel";
import { emptyMediaForm, emptyProjectForm, projectsView, type ProjectsState } from "./projects";
import { isMedia } from "../pick";
import { statusBarView } from "./status-bar";

vi.mock("@tauri-apps/plugin-dialog", () => ({ open: vi.fn(async () => null) }));

const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;

/** A fresh element to draw into (lit owns what it draws: no reuse after clearing). */
function mount(): HTMLElement {
  const root = document.createElement("div");
  document.body.replaceChildren(root);
  return root;
}

function report(): Diagnosis {
  return {
    engine_version: "0.1.0",
    data_dir: "/data/revoice",
    config_file: "/data/revoice/config.toml",
    log_dir: "/data/revoice/logs",
    database: "/data/revoice/studio.db",
    sqlite_version: "3.45.1",
    models: [],
    audio: { host: "null", devices: [], error: null },
    audio_output: null,
    checks: [{ name: "Kokoro-82M v1.0", status: "problem", detail: "not installed", fix: "revoice install" }],
    checked_at: "2026-01-01T00:00:00Z",
  };
}

describe("the projects form", () => {
  let state: ProjectsState;
  let root: HTMLElement;
  const draw = () => render(projectsView(state, { open() {}, rename() {}, remove() {}, createFromScript: create, createFromMedia: hear, cancelHearing: cancel, openDemo: demo, changed: draw }), root);
  const create = vi.fn();
  const demo = vi.fn();
  const hear = vi.fn();
  const cancel = vi.fn();
  beforeEach(() => {
    root = mount();
    state = { projects: [], casts: [], busy: false, error: null, form: emptyProjectForm(), media: emptyMediaForm(), hearing: null };
    create.mockClear();
    hear.mockClear();
    cancel.mockClear();
  });

  it("offers the demo while there are no projects", () => {
    draw();
    $<HTMLButtonElement>("#open-demo").click();
    expect(demo).toHaveBeenCalled();
    state.projects = [{ id: 1, name: "Older", updatedAt: "2026-01-01T10:00:00" }];
    draw();
    expect(document.querySelector("#open-demo")).toBeNull();
  });

  it("keeps a typed path and name across redraws and creates from them", () => {
    draw();
    const path = $<HTMLInputElement>("#new-script-path");
    path.focus();
    path.value = "/scripts/harbour.srt";
    path.dispatchEvent(new Event("input"));
    expect($<HTMLInputElement>("#new-project-name").placeholder).toBe("harbour");
    state.projects = [{ id: 1, name: "Older", updatedAt: "2026-01-01T10:00:00" }];
    state.busy = true;
    draw();
    state.busy = false;
    draw();
    expect($("#new-script-path")).toBe(path);
    expect(document.activeElement).toBe(path);
    expect(path.value).toBe("/scripts/harbour.srt");
    expect($(".project-open").textContent).toBe("Older");
    $<HTMLButtonElement>("#create-from-script").click();
    expect(create).toHaveBeenCalledWith("harbour", "/scripts/harbour.srt", "en-US", null);
    // A new, empty form (as after a project is made) clears the fields.
    state.form = emptyProjectForm();
    draw();
    expect(path.value).toBe("");
  });

  it("offers the cast sheets and creates from the one chosen", () => {
    state.casts = [{ id: 3, name: "Keepers", members: [{ speaker: "Ana", voice: "af_heart", languageVoices: {} }], updatedAt: "2026-01-01T00:00:00Z" }];
    draw();
    const cast = $<HTMLSelectElement>("#new-project-cast");
    expect([...cast.options].map((o) => o.textContent)).toEqual(["No cast sheet", "Keepers (1 speaker)"]);
    expect(cast.value).toBe("");
    cast.value = "Keepers";
    cast.dispatchEvent(new Event("change"));
    state.form.path = "/scripts/ep2.srt";
    draw();
    expect($<HTMLSelectElement>("#new-project-cast").value).toBe("Keepers");
    $<HTMLButtonElement>("#create-from-script").click();
    expect(create).toHaveBeenCalledWith("ep2", "/scripts/ep2.srt", "en-US", "Keepers");
  });
});

describe("a project from a recording or video", () => {
  it("hears a typed or dropped file into a project named after it, with progress and a cancel", () => {
    const root = mount();
    const hear = vi.fn();
    const cancel = vi.fn();
    const state: ProjectsState = { projects: [], casts: [], busy: false, error: null, form: emptyProjectForm(), media: emptyMediaForm(), hearing: null };
    const draw = () => render(projectsView(state, { open() {}, rename() {}, remove() {}, createFromScript() {}, createFromMedia: hear, cancelHearing: cancel, openDemo() {}, changed: draw }), root);
    draw();
    expect(isMedia("/films/Scene 4.MKV") && isMedia("/a/b.mp4") && !isMedia("/a/b.srt")).toBe(true);
    state.media.path = "/films/scene4.mkv";
    draw();
    expect($<HTMLInputElement>("#new-media-name").placeholder).toBe("scene4");
    $<HTMLButtonElement>("#create-from-media").click();
    expect(hear).toHaveBeenCalledWith("scene4", "/films/scene4.mkv");
    state.busy = true;
    state.hearing = { seconds: 42.4 };
    draw();
    expect($("#media-progress").textContent).toMatch(/42 s heard/);
    expect($<HTMLButtonElement>("#create-from-media").disabled).toBe(true);
    $<HTMLButtonElement>("#cancel-hearing").click();
    expect(cancel).toHaveBeenCalled();
  });
});

describe("the API switch", () => {
  it("shows the box off again when a start fails", () => {
    const root = mount();
    const state: ApiSwitchState = { url: null, busy: false, error: null };
    const draw = () => render(apiSwitchView(state, () => {}), root);
    draw();
    const box = $<HTMLInputElement>("#api-switch");
    box.click();
    expect(box.checked).toBe(true);
    state.busy = true;
    draw();
    expect(box.checked).toBe(true);
    expect(box.disabled).toBe(true);
    state.busy = false;
    state.error = "the port is taken";
    draw();
    expect(box.checked).toBe(false);
    expect($("#api-detail").textContent).toMatch(/^Off/);
    state.url = "http://127.0.0.1:8880";
    state.error = null;
    draw();
    expect(box.checked).toBe(true);
    expect($("#api-url").textContent).toBe("http://127.0.0.1:8880");
  });
});

describe("the engine report and the status bar", () => {
  it("say what the end-to-end test reads, by the same ids", () => {
    render(enginePanelView({ report: report(), error: null, busy: false }, { checkAgain() {}, openDataDir() {} }), mount());
    expect($("#fact-engine-version").textContent).toBe("0.1.0");
    expect($("#fact-sqlite-version").textContent).toBe("3.45.1");
    expect($("#fact-data-dir").textContent).toBe("/data/revoice Open folder");
    expect($('[data-check="Kokoro-82M v1.0"]').textContent).toMatch(/^Problem/);
    expect($("#check-again").textContent).toBe("Check again");
    const bar = document.createElement("footer");
    render(statusBarView({ report: report(), error: null, busy: false }), bar);
    expect(bar.querySelector("#status-engine")!.textContent).toBe("Engine 0.1.0");
    render(statusBarView({ report: null, error: "no engine", busy: false }), bar);
    expect(bar.querySelector("#status-engine")!.textContent).toBe("Engine not running");
  });
});
