// @vitest-environment happy-dom
// The editor in a DOM (happy-dom), with the engine and the canvas timeline
// replaced by stand-ins: what is typed survives the engine's events, saving
// sends it, and a render's flood of line states reaches the timeline once
// per frame without rebuilding its index.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Project, Segment } from "../model";
import type { StudioEvent } from "../engine";
import { line } from "../timeline/synthetic";
import { testProject } from "./test-project";

/** The timeline stand-in: records what the editor hands it. */
const timelines = vi.hoisted(() => {
  class FakeTimeline {
    static last: FakeTimeline | null = null;
    setProjectCalls = 0;
    updates: number[][] = [];
    selection: number | null = null;
    constructor(
      container: HTMLElement,
      readonly callbacks: { select(id: number | null): void },
    ) {
      container.append(document.createElement("canvas"));
      FakeTimeline.last = this;
    }
    setProject() {
      this.setProjectCalls += 1;
    }
    updateSegments(changed: { id: number }[]) {
      this.updates.push(changed.map((s) => s.id));
      return true;
    }
    setPeaks() {}
    bedPeaks: unknown[] = [];
    setBedPeaks(peaks: unknown) {
      this.bedPeaks.push(peaks);
    }
    setOriginalPeaks() {}
    playheads: number[] = [];
    setPlayhead(seconds: number) {
      this.playheads.push(seconds);
    }
    markers: unknown[] = [];
    setMarkers(markers: unknown[]) {
      this.markers = markers;
    }
    nudges: [string, number][] = [];
    nudgeSelected(part: string, frames: number) {
      this.nudges.push([part, frames]);
      return true;
    }
    scrolledTo: number[] = [];
    scrollToTime(seconds: number) {
      this.scrolledTo.push(seconds);
    }
    selectNext() {}
    selectPrevious() {}
    deleteSelected() {}
    destroy() {}
  }
  return { FakeTimeline };
});
vi.mock("../timeline/timeline-view", () => ({ TimelineView: timelines.FakeTimeline }));

const engine = vi.hoisted(() => ({
  state: { project: null as unknown as Project },
}));
vi.mock("../engine", () => {
  const copy = () => structuredClone(engine.state.project);
  return {
    editSegment: vi.fn(async (id: number, edit: { text?: string; speed?: number }) => {
      const s = engine.state.project.tracks[0].segments.find((x) => x.id === id)!;
      Object.assign(s, edit, { state: "stale" });
      return copy();
    }),
    openProject: vi.fn(async () => copy()),
    segmentTakes: vi.fn(async () => []),
    remoteStatus: vi.fn(async () => []),
    stockVoices: vi.fn(async () => [
      { name: "af_heart", language: "en-US", gender: "female" },
      { name: "bm_george", language: "en-GB", gender: "male" },
      { name: "ef_dora", language: "es", gender: "female" },
      { name: "Harbour - Ana", language: "library", gender: "" },
    ]),
    importScript: vi.fn(async (_project: number, _path: string, language: string) => {
      const lines = [11, 12].map((id) => line({ id, start: id - 10, end: id - 9, text: `Línea ${id}.`, speakerId: 1 }));
      engine.state.project.tracks.push({ id: 2, language, segments: lines });
      return copy();
    }),
    translators: vi.fn(async () => [{ name: "llama", url: "http://127.0.0.1:8080", model: "gemma", host: "127.0.0.1:8080", local: true, hasApiKey: false }]),
    translateTrack: vi.fn(async (request: { to: string }) => {
      const lines = [21, 22, 23].map((id) => line({ id, trackId: 3, start: id - 20, end: id - 19, text: `Ligne ${id}.`, speakerId: 1 }));
      engine.state.project.tracks.push({ id: 3, language: request.to, segments: lines });
      const report = { translator: "llama (gemma)", host: "127.0.0.1:8080", local: true, from: "en-US", trackId: 3, translated: 3, already: 0, sourceChanged: [], keptEdited: [], fitBefore: 3, fitAfter: 3, sized: 3, shortened: [], tooLong: [], notSized: null, failed: [], glossaryDropped: [] };
      return [report, copy()];
    }),
    cancelTranslation: vi.fn(async () => true),
    bedPeaks: vi.fn(async () => null),
    originalPeaks: vi.fn(async () => null),
    setOriginalMonitor: vi.fn(async () => {}),
    editBedStem: vi.fn(async (_project: number, stemId: number, gainDb: number, ducked: boolean) => {
      Object.assign(engine.state.project.beds.find((s) => s.id === stemId)!, { gainDb, ducked });
      return copy();
    }),
    segmentPeaks: vi.fn(async () => null),
    addMarker: vi.fn(async (_project: number, at: number, name: string) => {
      engine.state.project.markers.push({ id: 40 + engine.state.project.markers.length, at, name });
      return copy();
    }),
    removeMarker: vi.fn(async (id: number) => {
      engine.state.project.markers = engine.state.project.markers.filter((m) => m.id !== id);
      return copy();
    }),
    setFrameRate: vi.fn(async (_project: number, rate: string) => {
      engine.state.project.frameRate = rate;
      return copy();
    }),
    setSpeakerVoice: vi.fn(async (_project: number, speaker: number, voice: string) => {
      engine.state.project.speakers.find((s) => s.id === speaker)!.voice = voice;
      return copy();
    }),
    stop: vi.fn(async () => {}),
    seek: vi.fn(async () => {}),
    play: vi.fn(async () => null),
    previewVoice: vi.fn(async () => {}),
    previewSegment: vi.fn(async () => {}),
    renderProject: vi.fn(async () => {}),
    cancelRender: vi.fn(async () => false),
    exportProject: vi.fn(async () => []),
    revealFolder: vi.fn(async () => {}),
    pictureSource: vi.fn(async () => ({
      url: "http://127.0.0.1:4000/picture/a.mp4",
      info: { container: "mov,mp4,m4a,3gp,3g2,mj2", codec: "h264", width: 1920, height: 1080, frameRate: 25, durationS: 60, audio: [] },
      proxy: false,
    })),
  };
});

const { Editor, fitReadout, renderLabel } = await import("./editor");
const api = await import("../engine");
const { EngineError } = await import("../errors");

/** Animation frames the test runs by hand. */
let frames: (() => void)[] = [];
function frame(): void {
  const now = frames;
  frames = [];
  for (const callback of now) callback();
}
/** Lets the engine stand-in's answers arrive, then draws the frame. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
  frame();
}

function project(): Project {
  const segments: Segment[] = [1, 2, 3].map((id) => line({ id, start: id * 2, end: id * 2 + 1.5, text: `Line ${id} as stored.`, speakerId: 1 }));
  return testProject(["Ana"], segments);
}

const playback = (position: number): StudioEvent => ({
  kind: "playback",
  projectId: 7,
  trackId: 1,
  playing: true,
  position,
  length: 10,
  looping: null,
  ended: false,
  firstSoundMs: null,
  firstVoiceMs: null,
  error: null,
});

const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector);

describe("the editor's inspector while the engine talks", () => {
  let host: HTMLElement;
  let editor: InstanceType<typeof Editor>;
  let timeline: InstanceType<typeof timelines.FakeTimeline>;

  beforeEach(async () => {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    engine.state.project = project();
    host = document.createElement("section");
    document.body.replaceChildren(host);
    editor = new Editor(host, structuredClone(engine.state.project), () => {});
    timeline = timelines.FakeTimeline.last!;
    await settle();
    timeline.callbacks.select(2);
    await settle();
  });

  afterEach(() => {
    editor.destroy();
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("keeps the script's selection and the timeline's together, both ways", async () => {
    const row = (id: number) => $<HTMLElement>(`.script-row[data-segment-id='${id}']`);
    expect(row(2)?.getAttribute("aria-selected")).toBe("true");
    row(3)!.querySelector<HTMLElement>(".script-text")!.click();
    await settle();
    expect(timeline.selection).toBe(3);
    expect(timeline.scrolledTo).toContain(6);
    expect($("#line-slot")!.textContent).toContain("00:00:06:00");
    expect(row(3)?.getAttribute("aria-selected")).toBe("true");
    expect(row(2)?.getAttribute("aria-selected")).toBe("false");
  });

  it("nudges the selected line or its edges by a frame from the keyboard, ten with Shift", () => {
    const key = (code: string, mods: KeyboardEventInit = {}) => document.dispatchEvent(new KeyboardEvent("keydown", { code, key: code === "Comma" ? "," : ".", bubbles: true, ...mods }));
    key("Period");
    key("Comma", { shiftKey: true });
    key("Comma", { altKey: true });
    key("Period", { ctrlKey: true });
    expect(timeline.nudges).toEqual([["body", 1], ["body", -10], ["start-edge", -1], ["end-edge", 1]]);
  });

  it("adds a marker at the playhead with M, lists it with no line selected, and removes it", async () => {
    editor.handle({ ...playback(4.5), playing: false } as StudioEvent);
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "m", bubbles: true }));
    await settle();
    expect(api.addMarker).toHaveBeenCalledWith(7, 4.5, "Marker 1");
    expect(timeline.markers).toEqual([{ id: 40, at: 4.5, name: "Marker 1" }]);
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    const row = $<HTMLElement>("#marker-list [data-marker='40']")!;
    expect(row.querySelector(".marker-at")!.textContent).toBe("00:00:04:12");
    expect(row.querySelector<HTMLInputElement>(".marker-name")!.value).toBe("Marker 1");
    row.querySelector<HTMLButtonElement>("button[aria-label='Remove Marker 1']")!.click();
    await settle();
    expect($("#marker-list")).toBeNull();
  });

  it("sets the timecode rate from the transport, and the position reads at it", async () => {
    const select = $<HTMLSelectElement>("#frame-rate")!;
    expect([...select.options].map((o) => o.value)).toEqual(["23.976", "24", "25", "29.97df", "29.97", "30"]);
    select.value = "30";
    select.dispatchEvent(new Event("change"));
    await settle();
    expect(api.setFrameRate).toHaveBeenCalledWith(7, "30");
    expect($("#line-slot")!.textContent).toContain("00:00:04:00");
  });

  /** Types into the focused textarea as a person would (value, caret, input event). */
  function type(area: HTMLTextAreaElement, text: string): void {
    area.focus();
    area.value = text;
    area.setSelectionRange(5, 5);
    area.dispatchEvent(new Event("input", { bubbles: true }));
  }

  it("keeps the typed draft, the textarea element, its focus and caret across playback and line-state events", async () => {
    const area = $<HTMLTextAreaElement>("#line-text")!;
    expect(area.value).toBe("Line 2 as stored.");
    type(area, "Light the lamp, qu");
    for (let i = 0; i < 200; i++) {
      editor.handle(playback(i * 0.05));
      editor.handle({ kind: "segmentState", segmentId: (i % 3) + 1, state: i % 2 ? "rendering" : "queued", error: null });
      editor.handle({ kind: "renderProgress", projectId: 7, done: i, total: 200, rendered: i });
      if (i % 7 === 0) frame();
    }
    // The render ends: the engine's project comes again, and in it the
    // line's stored text has changed meanwhile (another window, the API).
    engine.state.project.tracks[0].segments[1].text = "Changed elsewhere.";
    editor.handle({ kind: "renderFinished", projectId: 7, rendered: 3, fresh: 0, failed: 0, cancelled: false, error: null });
    await settle();

    expect($("#line-text")).toBe(area);
    expect(document.activeElement).toBe(area);
    expect(area.value).toBe("Light the lamp, qu");
    expect(area.selectionStart).toBe(5);
    expect($("#line-unsaved")?.textContent).toContain("Unsaved");
    expect($("#position")?.textContent).toBe("00:00:09:23");
    expect($("#length")?.textContent).toBe("00:00:10:00");
    expect($("#editor-status")?.textContent).toBe("Rendered 3 lines");
  });

  const lastPlayhead = () => timeline.playheads[timeline.playheads.length - 1];

  /** Types `text` into the position field and presses `key` there. */
  function typePosition(text: string, key: string): HTMLElement {
    const field = $<HTMLElement>("#position")!;
    field.textContent = text;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    field.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    return field;
  }

  it("seeks to a typed timecode or seconds on Enter, at the project's rate", async () => {
    typePosition("00:00:04:12", "Enter");
    await settle();
    expect(lastPlayhead()).toBe(4.48);
    expect($("#position")?.textContent).toBe("00:00:04:12");
    typePosition("6.5", "Enter");
    await settle();
    expect(lastPlayhead()).toBe(6.5);
    expect($("#position")?.textContent).toBe("00:00:06:12");
    // Playing, the engine is asked to seek.
    editor.handle(playback(1));
    typePosition("02:00", "Enter");
    await settle();
    expect($("#editor-status")?.textContent).toContain('timecode "02:00" has 2 fields');
    typePosition("00:00:08:00", "Enter");
    await settle();
    expect(api.seek).toHaveBeenCalledWith(8);
  });

  it("reads the timecode at 29.97 drop-frame, and refuses a dropped frame number", async () => {
    engine.state.project.frameRate = "29.97df";
    engine.state.project.length = 120;
    editor.destroy();
    editor = new Editor(host, structuredClone(engine.state.project), () => {});
    timeline = timelines.FakeTimeline.last!;
    await settle();
    expect($("#position")?.textContent).toBe("00:00:00;00");
    expect($("#length")?.textContent).toBe("00:01:59;28");
    typePosition("00:01:00;02", "Enter");
    await settle();
    expect(lastPlayhead()).toBe(1800 / (30000 / 1001));
    expect($("#position")?.textContent).toBe("00:01:00;02");
    typePosition("00:01:00;00", "Enter");
    await settle();
    expect($("#editor-status")?.textContent).toContain("drop-frame skips");
    expect(lastPlayhead()).toBe(1800 / (30000 / 1001));
  });

  it("puts the playhead's timecode back on Escape, and keeps its keys from the editor", async () => {
    const field = typePosition("00:00:0", "Escape");
    await settle();
    expect(field.textContent).toBe("00:00:00:00");
    // The editor's Escape (deselect) and Space (play) do not fire from the field.
    expect($("#line-text")).not.toBeNull();
    typePosition("1 2", " ");
    expect(api.play).not.toHaveBeenCalled();
  });

  it("shows the selected line's slot in timecode", () => {
    expect($("#line-slot")?.textContent).toMatch(/^Slot 00:00:04:00–00:00:05:12\./);
  });

  it("Save text sends the draft and clears it; the field keeps its element", async () => {
    const area = $<HTMLTextAreaElement>("#line-text")!;
    type(area, "Light the lamp, quickly.");
    editor.handle(playback(1));
    frame();
    $<HTMLButtonElement>("#save-line")!.click();
    await settle();

    expect(api.editSegment).toHaveBeenCalledTimes(1);
    expect(api.editSegment).toHaveBeenCalledWith(2, { text: "Light the lamp, quickly." });
    expect($("#line-text")).toBe(area);
    expect(area.value).toBe("Light the lamp, quickly.");
    expect($("#line-unsaved")).toBeNull();
    expect($("#line-state")?.textContent).toMatch(/^Not rendered/);
    expect($("#editor-status")?.textContent).toBe("Changed the text; saved");
  });

  it("keeps each line's draft when another line is selected, and shows it on coming back", async () => {
    type($<HTMLTextAreaElement>("#line-text")!, "A draft for line 2");
    timeline.callbacks.select(1);
    await settle();
    expect($<HTMLTextAreaElement>("#line-text")!.value).toBe("Line 1 as stored.");
    expect($("#line-unsaved")).toBeNull();
    timeline.callbacks.select(2);
    await settle();
    expect($<HTMLTextAreaElement>("#line-text")!.value).toBe("A draft for line 2");
    expect($("#line-unsaved")).not.toBeNull();
    expect(api.editSegment).not.toHaveBeenCalled();
  });

  it("leaves a number being typed, and the blend sliders, as they are across events", async () => {
    const speed = $<HTMLInputElement>("#line-speed")!;
    speed.focus();
    speed.value = "1.3";
    const details = $<HTMLDetailsElement>("details.blend")!;
    details.open = true;
    const slider = $<HTMLInputElement>('[aria-label="Blend weight 2"]')!;
    slider.value = "40";
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    for (let i = 0; i < 50; i++) {
      editor.handle(playback(i * 0.05));
      editor.handle({ kind: "segmentState", segmentId: 2, state: "rendering", error: null });
      frame();
    }
    expect($("#line-speed")).toBe(speed);
    expect(document.activeElement).toBe(speed);
    expect(speed.value).toBe("1.3");
    expect($('[aria-label="Blend weight 2"]')).toBe(slider);
    expect(slider.value).toBe("40");
    expect(details.open).toBe(true);
    expect(api.editSegment).not.toHaveBeenCalled();
  });
});

describe("the editor acting on the engine's refusals by kind", () => {
  let host: HTMLElement;
  let editor: InstanceType<typeof Editor>;
  const loading = () => new EngineError({ kind: "busy", message: "the speech model: is still loading; try again in a few seconds", input: null });
  /** Lets answers and timers due now arrive (timers are fake here), then draws the frame. */
  const flush = async () => {
    await vi.advanceTimersByTimeAsync(0);
    frame();
  };
  const banner = () => document.querySelector(".editor-status .status-error, .editor-status [role='alert']");

  beforeEach(async () => {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    engine.state.project = project();
    host = document.createElement("section");
    document.body.replaceChildren(host);
    editor = new Editor(host, structuredClone(engine.state.project), () => {});
    await settle();
    timelines.FakeTimeline.last!.callbacks.select(2);
    await settle();
    // Timers only: frames stay the test's own (requestAnimationFrame above).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });

  afterEach(() => {
    editor.destroy();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    // Answers a test queued and did not use go too; each stand-in keeps its own answer.
    vi.resetAllMocks();
  });

  it("an error of kind busy shows as busy (spinner, no error banner) and the preview is asked for again until it starts", async () => {
    vi.mocked(api.previewSegment).mockRejectedValueOnce(loading()).mockRejectedValueOnce(loading());
    $<HTMLButtonElement>("#preview-line")!.click();
    await flush();
    const waiting = $("#editor-status .busy-wait[aria-busy='true']");
    expect(waiting).not.toBeNull();
    expect(waiting!.querySelector(".spinner")).not.toBeNull();
    expect(waiting!.textContent).toContain("The preview is waiting: the speech model: is still loading");
    expect(banner()).toBeNull();
    expect(api.previewSegment).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(1500);
    frame();
    expect(api.previewSegment).toHaveBeenCalledTimes(2);
    expect($("#editor-status .busy-wait")).not.toBeNull();
    expect(banner()).toBeNull();

    await vi.advanceTimersByTimeAsync(1500);
    frame();
    expect(api.previewSegment).toHaveBeenCalledTimes(3);
    expect(api.previewSegment).toHaveBeenLastCalledWith(2);
    expect($("#editor-status .busy-wait")).toBeNull();
    expect(banner()).toBeNull();
  });

  it("a render waiting for a busy engine keeps its progress until Stop, and gives up after a minute with the engine's message", async () => {
    vi.mocked(api.renderProject).mockRejectedValue(loading());
    const renderSelected = () => document.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    renderSelected();
    await flush();
    expect(api.renderProject).toHaveBeenCalledWith(7, [2]);
    expect($("#render-progress")).not.toBeNull();
    expect($("#editor-status .busy-wait")!.textContent).toContain("The render is waiting");
    expect(banner()).toBeNull();
    // Cancel stops the waiting: nothing is asked again, and nothing renders.
    $<HTMLButtonElement>("#cancel-render")!.click();
    await flush();
    expect($("#editor-status .busy-wait")).toBeNull();
    expect($("#render-progress")).toBeNull();
    expect(api.cancelRender).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.renderProject).toHaveBeenCalledTimes(1);

    renderSelected();
    await vi.advanceTimersByTimeAsync(60_000);
    frame();
    expect(api.renderProject).toHaveBeenCalledTimes(1 + 41);
    expect($("#editor-status .busy-wait")).toBeNull();
    expect(banner()!.textContent).toBe("the speech model: is still loading; try again in a few seconds");
    expect($("#render-progress")).toBeNull();
  });

  it("an error of kind invalidInput marks the inspector field the edit changed (aria-invalid, message beside it, focus)", async () => {
    const message = "segment 2: speed 9 is outside 0.25 to 4.0";
    vi.mocked(api.editSegment).mockRejectedValueOnce(new EngineError({ kind: "invalidInput", message, input: "segment 2" }));
    const typed = $<HTMLInputElement>("#line-speed")!;
    typed.value = "9";
    typed.dispatchEvent(new Event("change"));
    await flush();
    expect(api.editSegment).toHaveBeenCalledWith(2, { speed: 9 });
    const speed = $<HTMLInputElement>("#line-speed")!;
    expect(speed.getAttribute("aria-invalid")).toBe("true");
    expect(speed.classList.contains("field-invalid")).toBe(true);
    expect(speed.value).toBe("1");
    expect($("#line-speed-error")!.textContent).toBe(message);
    expect(speed.closest("label")!.contains($("#line-speed-error"))).toBe(true);
    expect(document.activeElement).toBe(speed);
    expect($("#line-gain")!.hasAttribute("aria-invalid")).toBe(false);
    expect(banner()).toBeNull();

    // The next edit the engine takes clears the mark.
    const gain = $<HTMLInputElement>("#line-gain")!;
    gain.value = "-3";
    gain.dispatchEvent(new Event("change"));
    await flush();
    expect($("#line-speed")!.hasAttribute("aria-invalid")).toBe(false);
    expect($("#line-speed-error")).toBeNull();
    expect($("#editor-status")!.textContent).toBe("Gain -3 dB; saved");
  });

  it("a refused text marks the text; a refusal naming another line is the status line's error", async () => {
    vi.mocked(api.editSegment)
      .mockRejectedValueOnce(new EngineError({ kind: "invalidInput", message: "segment 2: its text is empty", input: "segment 2" }))
      .mockRejectedValueOnce(new EngineError({ kind: "invalidInput", message: "segment 3: ends (6.000 s) before it starts (7.000 s)", input: "segment 3" }));
    const area = $<HTMLTextAreaElement>("#line-text")!;
    area.value = " ";
    area.dispatchEvent(new Event("input"));
    $<HTMLButtonElement>("#save-line")!.click();
    await flush();
    expect($("#line-text")!.getAttribute("aria-invalid")).toBe("true");
    expect($("#line-text-error")!.textContent).toBe("segment 2: its text is empty");
    expect(document.activeElement).toBe($("#line-text"));
    const dragged = timelines.FakeTimeline.last!.callbacks as unknown as { resize(id: number, start: number, end: number): void };
    dragged.resize(3, 7, 6);
    await flush();
    expect(banner()!.textContent).toBe("segment 3: ends (6.000 s) before it starts (7.000 s)");
    expect($("#line-slot")!.hasAttribute("aria-invalid")).toBe(false);
  });

  it("an error of kind notFound reads the project again and says what is gone", async () => {
    vi.mocked(api.editSegment).mockRejectedValueOnce(new EngineError({ kind: "notFound", message: "segment 2: there is no such segment", input: "segment 2" }));
    vi.mocked(api.openProject).mockClear();
    const speed = $<HTMLInputElement>("#line-speed")!;
    speed.value = "1.5";
    speed.dispatchEvent(new Event("change"));
    await flush();
    expect(api.openProject).toHaveBeenCalledWith(7);
    expect(banner()!.textContent).toBe("segment 2: there is no such segment");
    expect($("#line-speed")!.hasAttribute("aria-invalid")).toBe(false);
  });
});

describe("the editor's choices", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("show what the engine holds, and follow its answer", async () => {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    engine.state.project = project();
    const host = document.createElement("section");
    document.body.replaceChildren(host);
    const editor = new Editor(host, structuredClone(engine.state.project), () => {});
    await settle();
    timelines.FakeTimeline.last!.callbacks.select(3);
    await settle();
    expect($<HTMLSelectElement>("#project-strategy")!.value).toBe("natural");
    expect($<HTMLSelectElement>("#line-speaker")!.value).toBe("1");
    expect($<HTMLSelectElement>("#line-strategy")!.value).toBe("");
    const voice = $<HTMLSelectElement>("#speaker-voice")!;
    expect(voice.value).toBe("af_heart");
    voice.value = "bm_george";
    voice.dispatchEvent(new Event("change"));
    await settle();
    expect(api.setSpeakerVoice).toHaveBeenCalledWith(7, 1, "bm_george", null);
    expect($("#editor-status")?.textContent).toBe("Ana now speaks with bm_george; saved");
    expect($<HTMLSelectElement>("#speaker-voice")!.value).toBe("bm_george");
    // Undone elsewhere: the engine's answer moves the choice back.
    engine.state.project.speakers[0].voice = "af_heart";
    editor.handle({ kind: "previewFinished", segmentId: 3, firstSoundMs: 5, error: null });
    await settle();
    expect($<HTMLSelectElement>("#speaker-voice")!.value).toBe("af_heart");
    // Timing: a strategy by its typed name; "Project's timing" clears the line's own (null).
    const timing = $<HTMLSelectElement>("#line-strategy")!;
    expect([...timing.options].map((o) => o.value)).toEqual(["", "natural", "strict_slot", "smart_fit", "resynthesize"]);
    timing.value = "resynthesize";
    timing.dispatchEvent(new Event("change"));
    await settle();
    expect(api.editSegment).toHaveBeenLastCalledWith(3, { strategy: "resynthesize" });
    $<HTMLSelectElement>("#line-strategy")!.value = "";
    $<HTMLSelectElement>("#line-strategy")!.dispatchEvent(new Event("change"));
    await settle();
    expect(api.editSegment).toHaveBeenLastCalledWith(3, { strategy: null });
    editor.destroy();
  });
});

describe("the editor and the timeline during a render", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("2,000 line states in one frame reach the timeline once, with no new index; project answers once per frame", async () => {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    const big = project();
    big.tracks[0].segments = Array.from({ length: 2000 }, (_, i) => line({ id: i + 1, start: i * 3, end: i * 3 + 2 }));
    engine.state.project = big;
    const host = document.createElement("section");
    document.body.replaceChildren(host);
    const editor = new Editor(host, structuredClone(big), () => {});
    const timeline = timelines.FakeTimeline.last!;
    await settle();
    const mounted = timeline.setProjectCalls;
    expect(mounted).toBe(1);

    for (let id = 1; id <= 2000; id++) editor.handle({ kind: "segmentState", segmentId: id, state: "ready", error: null });
    expect(frames.length).toBe(1);
    frame();
    expect(timeline.setProjectCalls).toBe(mounted);
    expect(timeline.updates.length).toBe(1);
    expect(timeline.updates[0].length).toBe(2000);
    expect(host.querySelector(".render-track")?.textContent).toContain("2000/2000 ready");

    // Several project answers before one frame: one setProject.
    for (let i = 0; i < 5; i++) editor.handle({ kind: "previewFinished", segmentId: 1, firstSoundMs: 10, error: null });
    await settle();
    expect(api.openProject).toHaveBeenCalledTimes(5);
    expect(timeline.setProjectCalls).toBe(mounted + 1);
    editor.destroy();
  });
});

describe("the editor's delivery", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  async function open(over: Partial<Project>): Promise<{ editor: InstanceType<typeof Editor>; host: HTMLElement }> {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    engine.state.project = { ...project(), ...over };
    const host = document.createElement("section");
    document.body.replaceChildren(host);
    const editor = new Editor(host, structuredClone(engine.state.project), () => {});
    await settle();
    return { editor, host };
  }

  it("shows the project's video and cast sheet by the buttons for them", async () => {
    const { editor } = await open({ video: "/films/ep1/scene.mp4", cast: "Keepers" });
    expect($("#attach-video")?.textContent).toBe("Attach video…");
    expect($("#project-video")?.textContent).toBe("scene.mp4");
    expect($("#project-video")?.getAttribute("title")).toBe("/films/ep1/scene.mp4");
    expect($("#project-cast")?.textContent).toBe("Cast: Keepers");
    expect($<HTMLButtonElement>("#save-cast")!.disabled).toBe(false);
    expect($("#open-dictionary")).not.toBeNull();
    editor.destroy();
  });

  it("exports the handoff files ticked, and no video until one is attached", async () => {
    const { editor } = await open({});
    expect($("#project-video")).toBeNull();
    expect($("#project-cast")).toBeNull();
    $<HTMLButtonElement>("#open-export")!.click();
    const video = $<HTMLInputElement>("#export-with-video")!;
    expect(video.disabled).toBe(true);
    expect(video.closest("label")?.title).toBe("Attach a video first");
    expect(["#export-rpp", "#export-otio", "#export-edl"].map((id) => $<HTMLInputElement>(id)!.checked)).toEqual([false, false, false]);
    $<HTMLInputElement>("#export-rpp")!.checked = true;
    $<HTMLInputElement>("#export-edl")!.checked = true;
    $<HTMLInputElement>("#export-folder")!.value = "/out";
    $<HTMLButtonElement>("#run-export")!.click();
    await settle();
    expect(api.exportProject).toHaveBeenCalledWith(7, "/out", "wav", "ebu", { languages: ["en-US"], stems: true, subtitles: true, speakerTags: false, handoff: ["rpp", "edl"], withVideo: false, sampleRate: 48000, bits: 24, strict: false });
    editor.destroy();
  });

  it("muxes the dub into the project's video when asked", async () => {
    const { editor } = await open({ video: "/films/scene.mp4" });
    $<HTMLButtonElement>("#open-export")!.click();
    const video = $<HTMLInputElement>("#export-with-video")!;
    expect(video.disabled).toBe(false);
    expect(video.checked).toBe(false);
    video.checked = true;
    $<HTMLInputElement>("#export-folder")!.value = "/out";
    $<HTMLButtonElement>("#run-export")!.click();
    await settle();
    expect(api.exportProject).toHaveBeenCalledWith(7, "/out", "wav", "ebu", { languages: ["en-US"], stems: true, subtitles: true, speakerTags: false, handoff: null, withVideo: true, sampleRate: 48000, bits: 24, strict: false });
    editor.destroy();
  });

  it("opens one modal dialog at a time, which Escape closes; Escape then deselects the line", async () => {
    const { editor } = await open({});
    $<HTMLButtonElement>("#attach-video")!.click();
    $<HTMLButtonElement>("#attach-video")!.click();
    expect(document.querySelectorAll(".dialog").length).toBe(1);
    expect(document.querySelector(".modal-backdrop .dialog")).not.toBeNull();
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    await settle();
    expect(document.querySelectorAll(".dialog, .modal-backdrop").length).toBe(0);
    timelines.FakeTimeline.last!.callbacks.select(2);
    await settle();
    frames.splice(0).forEach((f) => f());
    expect($("#line-text")).not.toBeNull();
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    await settle();
    frames.splice(0).forEach((f) => f());
    expect($("#line-text")).toBeNull();
    expect(timelines.FakeTimeline.last!.selection).toBeNull();
    editor.destroy();
  });

  it("lists the flagged lines before an export and can refuse to export them", async () => {
    const flaggedProject = project();
    const segments = flaggedProject.tracks[0].segments;
    segments[1] = { ...segments[1], state: "ready", flags: [{ kind: "doesntFit", seconds: 0.42 }, { kind: "failedCheck" }] };
    const { editor } = await open({ tracks: flaggedProject.tracks });
    $<HTMLButtonElement>("#open-export")!.click();
    expect($("#export-flagged")?.textContent).toContain("1 line is flagged");
    expect($("#export-flagged")?.textContent).toContain("en-US line 2: doesn't fit (0.42 s too long), failed its check: “Line 2 as stored.”");
    expect($<HTMLInputElement>("#export-strict")!.checked).toBe(false);
    $<HTMLInputElement>("#export-strict")!.checked = true;
    $<HTMLInputElement>("#export-folder")!.value = "/out";
    $<HTMLButtonElement>("#run-export")!.click();
    await settle();
    expect(api.exportProject).toHaveBeenCalledWith(7, "/out", "wav", "ebu", expect.objectContaining({ strict: true }));
    editor.destroy();
  });

  it("exports at the sample rate and depth chosen, with speaker tags when ticked", async () => {
    const { editor } = await open({});
    $<HTMLButtonElement>("#open-export")!.click();
    const rate = $<HTMLSelectElement>("#export-sample-rate")!;
    const bits = $<HTMLSelectElement>("#export-bits")!;
    expect([rate.value, bits.value, $<HTMLInputElement>("#export-speaker-tags")!.checked]).toEqual(["48000", "24", false]);
    rate.value = "44100";
    bits.value = "16";
    $<HTMLInputElement>("#export-speaker-tags")!.checked = true;
    $<HTMLInputElement>("#export-folder")!.value = "/out";
    $<HTMLButtonElement>("#run-export")!.click();
    await settle();
    expect(api.exportProject).toHaveBeenCalledWith(7, "/out", "wav", "ebu", { languages: ["en-US"], stems: true, subtitles: true, speakerTags: true, handoff: null, withVideo: false, sampleRate: 44100, bits: 16, strict: false });
    editor.destroy();
  });

  it("hears the original dialogue off, under the dub at a level, or solo, and keeps the choice", async () => {
    const plain = (await open({})).editor;
    expect($("#original-monitor")).toBeNull();
    plain.destroy();
    const { editor } = await open({ original: "/films/scene.wav" });
    const select = $<HTMLSelectElement>("#original-monitor")!;
    expect(select.value).toBe("off");
    expect($("#original-level")).toBeNull();
    const choose = async (mode: string) => {
      const now = $<HTMLSelectElement>("#original-monitor")!;
      now.value = mode;
      now.dispatchEvent(new Event("change"));
      await settle();
    };
    await choose("under");
    expect(api.setOriginalMonitor).toHaveBeenLastCalledWith({ mode: "under", gainDb: -12 });
    const level = $<HTMLInputElement>("#original-level")!;
    expect(level.value).toBe("-12");
    level.value = "-6";
    level.dispatchEvent(new Event("change"));
    await settle();
    expect(api.setOriginalMonitor).toHaveBeenLastCalledWith({ mode: "under", gainDb: -6 });
    // Events redraw the header; the choice stays.
    editor.handle(playback(2));
    frame();
    expect($<HTMLSelectElement>("#original-monitor")!.value).toBe("under");
    await choose("solo");
    expect(api.setOriginalMonitor).toHaveBeenLastCalledWith({ mode: "solo" });
    expect($("#original-level")).toBeNull();
    // Under again: the level chosen before.
    await choose("under");
    expect(api.setOriginalMonitor).toHaveBeenLastCalledWith({ mode: "under", gainDb: -6 });
    expect(api.setOriginalMonitor).toHaveBeenCalledTimes(4);
    // A level the engine cannot take is not sent.
    $<HTMLInputElement>("#original-level")!.value = "30";
    $<HTMLInputElement>("#original-level")!.dispatchEvent(new Event("change"));
    await settle();
    expect(api.setOriginalMonitor).toHaveBeenCalledTimes(4);
    expect($("#editor-status")?.textContent).toBe("The level must be a number of dB from -60 to 12.");
    expect($<HTMLInputElement>("#original-level")!.value).toBe("-6");
    // Closing the editor turns it off again.
    editor.destroy();
    expect(api.setOriginalMonitor).toHaveBeenLastCalledWith({ mode: "off" });
  });

  it("edits the bed's stems in its dialog and draws the bed again", async () => {
    const beds = [{ id: 4, projectId: 7, file: "/music/theme.flac", gainDb: 0, ducked: true, position: 0 }];
    const { editor } = await open({ bed: "/music/theme.flac", beds });
    const timeline = timelines.FakeTimeline.last!;
    expect(api.bedPeaks).toHaveBeenCalledTimes(1);
    expect($("#open-beds")?.textContent).toBe("Bed…");
    $<HTMLButtonElement>("#open-beds")!.click();
    expect($('[role=dialog][aria-label="Music and effects"]')).not.toBeNull();
    const level = $<HTMLInputElement>("#bed-gain-4")!;
    level.value = "-4.5";
    level.dispatchEvent(new Event("change"));
    await settle();
    expect(api.editBedStem).toHaveBeenCalledWith(7, 4, -4.5, true);
    expect(api.bedPeaks).toHaveBeenCalledTimes(2);
    expect(timeline.bedPeaks.length).toBe(2);
    expect($("#editor-status")?.textContent).toBe("Bed: theme.flac at -4.5 dB, ducks under the voice; saved");
    editor.destroy();
  });
});

describe("the editor's picture", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    vi.clearAllMocks();
  });

  async function open(over: Partial<Project>): Promise<InstanceType<typeof Editor>> {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    vi.spyOn(HTMLMediaElement.prototype, "canPlayType").mockReturnValue("probably");
    engine.state.project = { ...project(), ...over };
    const host = document.createElement("section");
    document.body.replaceChildren(host);
    const editor = new Editor(host, structuredClone(engine.state.project), () => {});
    await settle();
    return editor;
  }

  it("shows no picture without a video", async () => {
    const editor = await open({});
    expect($("#picture")).toBeNull();
    expect($("#picture-status")).toBeNull();
    expect(api.pictureSource).not.toHaveBeenCalled();
    editor.destroy();
  });

  it("shows the project's video muted, and follows playback events and seeks made while nothing plays", async () => {
    const editor = await open({ video: "/films/ep1/scene.mp4" });
    const video = $<HTMLVideoElement>("#picture")!;
    expect(api.pictureSource).toHaveBeenCalledWith(7, false);
    expect(video.muted).toBe(true);
    expect(video.getAttribute("src")).toBe("http://127.0.0.1:4000/picture/a.mp4");
    expect($("#picture-status")?.textContent).toBe("Picture: scene.mp4 (h264 1920×1080, 25 fps)");
    // Nothing playing: a seek on the timeline moves the picture (and only it).
    (timelines.FakeTimeline.last!.callbacks as unknown as { seek(s: number): void }).seek(7.25);
    frame();
    expect(video.dataset.target).toBe("7.250");
    // The engine's transport, paused at 3 s.
    editor.handle({ ...playback(3), playing: false } as StudioEvent);
    frame();
    expect(video.dataset.target).toBe("3.000");
    expect($("#picture")).toBe(video);
    editor.destroy();
  });

  it("shows the picture once a video is attached to the project", async () => {
    const editor = await open({});
    engine.state.project.video = "/films/scene.mp4";
    editor.handle({ kind: "previewFinished", segmentId: 1, firstSoundMs: 5, error: null });
    await settle();
    expect($("#picture")).not.toBeNull();
    expect(api.pictureSource).toHaveBeenCalledTimes(1);
    editor.destroy();
  });
});

describe("the editor's language tracks", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("adds a track from a translated script and shows it", async () => {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    engine.state.project = project();
    const host = document.createElement("section");
    document.body.replaceChildren(host);
    const editor = new Editor(host, structuredClone(engine.state.project), () => {});
    await settle();
    expect($("#track")).toBeNull();
    const add = $<HTMLButtonElement>("#add-track")!;
    expect(add.textContent).toBe("+ Language track");
    add.click();
    expect($(".modal-backdrop .dialog")?.getAttribute("aria-label")).toBe("Add a language track");
    // The stock voices' languages, library voices left out; the first the project lacks is chosen.
    expect([...$<HTMLSelectElement>("#track-language")!.options].map((o) => o.value)).toEqual(["en-US", "en-GB", "es"]);
    expect($<HTMLSelectElement>("#track-language")!.value).toBe("es");
    $<HTMLInputElement>("#track-script-path")!.value = "/scripts/harbour.es.srt";
    $<HTMLButtonElement>("#run-add-track")!.click();
    await settle();
    expect(api.importScript).toHaveBeenCalledWith(7, "/scripts/harbour.es.srt", "es");
    expect(document.querySelectorAll(".dialog, .modal-backdrop").length).toBe(0);
    const track = $<HTMLSelectElement>("#track")!;
    expect([...track.options].map((o) => o.textContent)).toEqual(["en-US · 3 lines", "es · 2 lines"]);
    expect(track.value).toBe("2");
    expect($("#editor-status")?.textContent).toBe("Added 2 lines to the es track");
    expect([...document.querySelectorAll(".script-row")].map((r) => r.getAttribute("data-segment-id"))).toEqual(["11", "12"]);
    editor.destroy();
  });
});

describe("translating a track", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("opens the Translate dialog on the shown track, hands it the translating events, and shows the translated track", async () => {
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    engine.state.project = project();
    const host = document.createElement("section");
    document.body.replaceChildren(host);
    const editor = new Editor(host, structuredClone(engine.state.project), () => {});
    await settle();
    const open = $<HTMLButtonElement>("#open-translate")!;
    expect(open.textContent).toBe("Translate…");
    expect(open.classList.contains("link-button")).toBe(true);
    open.click();
    await settle();
    expect($(".modal-backdrop .dialog")?.getAttribute("aria-label")).toBe("Translate track");
    expect($("#translate-from")?.textContent).toBe("From: en-US (3 lines)");
    // The stock voices' languages but the track's own.
    expect([...$<HTMLSelectElement>("#translate-to")!.options].map((o) => o.value)).toEqual(["en-GB", "es"]);
    $<HTMLSelectElement>("#translate-to")!.value = "es";
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    const translate = vi.mocked(api.translateTrack);
    const plain = translate.getMockImplementation()!;
    translate.mockImplementationOnce(async (request) => {
      await held;
      return plain(request);
    });
    $<HTMLButtonElement>("#run-translate")!.click();
    expect(api.translateTrack).toHaveBeenCalledWith({ projectId: 7, from: "en-US", to: "es", translator: "llama", again: [], overwriteEdited: false, notes: "" });
    editor.handle({ kind: "translating", projectId: 8, done: 1, total: 9 });
    editor.handle({ kind: "translating", projectId: 7, done: 2, total: 3 });
    expect($("#translate-progress-text")?.textContent).toBe("Translated 2 of 3 lines…");
    finish();
    await settle();
    expect($("#translate-report")?.textContent).toBe("Translated 3 lines with llama (gemma) at 127.0.0.1:8080. 3 of 3 fit their slots as first translated.");
    const track = $<HTMLSelectElement>("#track")!;
    expect([...track.options].map((o) => o.textContent)).toEqual(["en-US · 3 lines", "es · 3 lines"]);
    expect(track.value).toBe("3");
    expect([...document.querySelectorAll(".script-row")].map((r) => r.getAttribute("data-segment-id"))).toEqual(["21", "22", "23"]);
    expect($("#editor-status")?.textContent).toBe("Translated 3 lines into the es track; saved");
    editor.destroy();
  });
});

describe("the fit readout", () => {
  it("says how a line was fitted: strategy, overflow, rate, gap, cut and overlap", () => {
    const fit = { start: 1, end: 3.9, rate: 1.25, trimmed: true, overlap: null, strategy: "smart_fit" as const, gapUsed: 0.9, cut: 0.42, overflow: 1.6 };
    expect(fitReadout(fit)).toBe(
      "Placed 1.00–3.90 s by Smart fit (absorb, speed up ≤1.25×), rendered 1.60 s longer than its slot, sped up ×1.25, uses 0.90 s of the gap after its slot, trimmed: the last 0.42 s cut (at a pause where there is one)",
    );
    expect(fitReadout({ ...fit, rate: 1, trimmed: false, cut: null, gapUsed: 0, overflow: 0, strategy: "natural", overlap: 0.3 })).toBe(
      "Placed 1.00–3.90 s by Natural (place at start), runs 0.30 s into the next line",
    );
  });
});

describe("the render button", () => {
  it("says what a click renders, and while a render runs how far it has got", () => {
    expect(renderLabel(3, null)).toBe("Render 3 lines");
    expect(renderLabel(1, null)).toBe("Render 1 line");
    expect(renderLabel(0, null)).toBe("All lines rendered");
    expect(renderLabel(0, { done: 1, total: 32 })).toBe("Rendering 1/32…");
  });
});
