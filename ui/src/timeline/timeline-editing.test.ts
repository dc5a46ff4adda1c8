// @vitest-environment happy-dom
// The timeline component's editing in a DOM (happy-dom, a do-nothing
// canvas): nudging by frames, frame snapping while dragging with the in and
// out shown as it goes, markers clicked and dragged, and the lane headers'
// S, M and level controls.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Project, Speaker } from "../model";
import { DEFAULT_SIZES, laneControls, type Lane } from "./layout";
import { line, speaker, syntheticProject } from "./synthetic";
import { TimelineView, type TimelineCallbacks } from "./timeline-view";

/** A 2D context that does nothing. */
function nullContext(): CanvasRenderingContext2D {
  return new Proxy({}, {
    get: (t: Record<string | symbol, unknown>, name) => (name in t ? t[name] : name === "measureText" ? () => ({ width: 10 }) : () => undefined),
    set: (t: Record<string | symbol, unknown>, name, value) => {
      t[name] = value;
      return true;
    },
  }) as unknown as CanvasRenderingContext2D;
}

const HEADER = DEFAULT_SIZES.headerWidth;
const PPS = 100;

function project(speakers: Speaker[], frameRate = "25"): Project {
  const base = syntheticProject(0).project;
  const segments = [
    line({ id: 1, start: 10, end: 12, speakerId: 1 }),
    line({ id: 2, start: 14, end: 15, speakerId: 2 }),
  ];
  return { ...base, frameRate, length: 60, speakers, tracks: [{ id: 1, language: "en", segments }] };
}

const speakers = (extra: Partial<Record<number, Partial<Speaker>>> = {}): Speaker[] => [
  speaker({ id: 1, name: "Ana", ...extra[1] }),
  speaker({ id: 2, name: "Bruno", ...extra[2] }),
];

function mount(p: Project = project(speakers())) {
  const calls = {
    select: vi.fn(),
    seek: vi.fn(),
    move: vi.fn(),
    resize: vi.fn(),
    split: vi.fn(),
    merge: vi.fn(),
    insert: vi.fn(),
    delete: vi.fn(),
    selectMarker: vi.fn(),
    moveMarker: vi.fn(),
    laneMix: vi.fn(),
  } satisfies TimelineCallbacks;
  const view = new TimelineView(document.body, calls);
  view.setProject(p, 1);
  view.setFollow(false);
  view.setZoom(PPS);
  view.setScroll(0);
  view.flush();
  return { view, calls };
}

const canvas = () => document.querySelector("canvas")!;
const pointer = (type: string, x: number, y: number) =>
  canvas().dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 1, button: 0, bubbles: true }));
const click = (x: number, y: number) => {
  pointer("pointerdown", x, y);
  pointer("pointerup", x, y);
};
/** x of a programme time at the test's zoom (scrolled to 0). */
const xAt = (seconds: number) => HEADER + seconds * PPS;
/** The first lane's block middle. */
const laneY = (i: number) => DEFAULT_SIZES.rulerHeight + i * DEFAULT_SIZES.laneHeight + 14;
const lane = (i: number): Lane => ({ speakerId: null, name: "", y: DEFAULT_SIZES.rulerHeight + i * DEFAULT_SIZES.laneHeight, height: DEFAULT_SIZES.laneHeight, mix: { muted: false, solo: false, levelDb: 0 } });
const centre = (r: { x: number; y: number; width: number; height: number }) => [r.x + r.width / 2, r.y + r.height / 2] as const;

beforeEach(() => {
  vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => nullContext() as never);
  vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockReturnValue(1200);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  document.body.replaceChildren();
});

describe("nudging the selected line", () => {
  it("moves its body a frame at the project's rate and emits move", () => {
    const { view, calls } = mount();
    expect(view.nudgeSelected("body", 1)).toBe(false);
    view.selection = 1;
    expect(view.frameRate).toBe(25);
    expect(view.nudgeSelected("body", 1)).toBe(true);
    expect(calls.move).toHaveBeenCalledWith(1, 251 / 25);
    view.nudgeSelected("body", -2);
    expect(calls.move).toHaveBeenLastCalledWith(1, 248 / 25);
    view.destroy();
  });

  it("resizes by an edge at the rate setFrameRate gives, frame-exact", () => {
    const { view, calls } = mount();
    view.selection = 1;
    view.setFrameRate(23.976);
    const fps = 24000 / 1001;
    expect(view.frameRate).toBe(fps);
    view.nudgeSelected("end-edge", 1);
    // 12 s is frame 287.712: nearest 288, one on 289.
    expect(calls.resize).toHaveBeenCalledWith(1, 10, 289 / fps);
    view.nudgeSelected("start-edge", -1);
    expect(calls.resize).toHaveBeenLastCalledWith(1, 239 / fps, 12);
    expect(calls.move).not.toHaveBeenCalled();
    view.destroy();
  });

  it("emits nothing against a limit", () => {
    const p = project(speakers());
    p.tracks[0].segments[0] = line({ id: 1, start: 0, end: 2, speakerId: 1 });
    const { view, calls } = mount(p);
    view.selection = 1;
    expect(view.nudgeSelected("body", -1)).toBe(false);
    expect(view.nudgeSelected("start-edge", -1)).toBe(false);
    expect(calls.move).not.toHaveBeenCalled();
    expect(calls.resize).not.toHaveBeenCalled();
    view.destroy();
  });
});

describe("dragging a line", () => {
  it("lands its edge on a frame and shows the new in and out while it moves", () => {
    const { view, calls } = mount();
    const readout = document.querySelector(".timeline__readout")!;
    // Grab line 1's end edge (12 s) and drag it 0.513 s right.
    pointer("pointerdown", xAt(12) - 2, laneY(0));
    pointer("pointermove", xAt(12.513) - 2, laneY(0));
    view.flush();
    expect(readout.textContent).toContain("In 00:00:10:00");
    expect(readout.textContent).toContain("Out 00:00:12:13");
    expect(canvas().title).toContain("Out 00:00:12:13");
    pointer("pointerup", xAt(12.513) - 2, laneY(0));
    expect(calls.resize).toHaveBeenCalledWith(1, 10, 313 / 25);
    view.flush();
    expect(readout.textContent).not.toContain("In ");
    view.destroy();
  });

  it("does not round to frames with snapping off", () => {
    const { view, calls } = mount();
    view.setSnapping(false);
    pointer("pointerdown", xAt(11), laneY(0));
    pointer("pointermove", xAt(11.513), laneY(0));
    pointer("pointerup", xAt(11.513), laneY(0));
    expect(calls.move.mock.calls[0][1]).toBeCloseTo(10.513, 6);
    view.destroy();
  });

  it("snaps an edge to where the original dialogue starts speaking", () => {
    const p = { ...project(speakers()), original: "original.wav" };
    const { view, calls } = mount(p);
    // Speech from 12.3 s to 13.5 s.
    const max = Array.from({ length: 2000 }, (_, i) => (i >= 1230 && i < 1350 ? 0.5 : 0.001));
    view.setOriginalPeaks({ start: 0, secondsPerBucket: 0.01, min: max.map((v) => -v), max });
    expect(view.speechBoundaries.map((t) => Number(t.toFixed(3)))).toEqual([12.3, 13.5]);
    // Snap targets are those in view: bring 12.3 s in.
    view.setScroll(5);
    const x = (t: number) => xAt(t - 5);
    pointer("pointerdown", x(12) - 2, laneY(0));
    pointer("pointermove", x(12.25) - 2, laneY(0));
    pointer("pointerup", x(12.25) - 2, laneY(0));
    // 12.3 s is frame 307.5: the nearest frame up.
    expect(calls.resize.mock.calls[0][2]).toBeCloseTo(308 / 25, 9);
    view.destroy();
  });
});

describe("markers", () => {
  it("seeks to a clicked marker and says which", () => {
    const { view, calls } = mount();
    view.setMarkers([
      { id: 7, at: 3, name: "Reel change" },
      { id: 8, at: 6, name: "Door" },
    ]);
    view.flush();
    click(xAt(6) + 1, 4);
    expect(calls.seek).toHaveBeenCalledWith(6);
    expect(calls.selectMarker).toHaveBeenCalledWith(8);
    expect(calls.moveMarker).not.toHaveBeenCalled();
    // Elsewhere on the ruler: a plain seek.
    click(xAt(4.5), 4);
    expect(calls.seek).toHaveBeenLastCalledWith(4.5);
    expect(calls.selectMarker).toHaveBeenCalledTimes(1);
    view.destroy();
  });

  it("moves a dragged marker, snapped to a line's edge", () => {
    const { view, calls } = mount();
    view.setMarkers([{ id: 7, at: 3, name: "Cue" }]);
    pointer("pointerdown", xAt(3), 4);
    pointer("pointermove", xAt(9.97), 4);
    view.flush();
    expect(document.querySelector(".timeline__readout")!.textContent).toContain("Cue → 00:00:10:00");
    pointer("pointerup", xAt(9.97), 4);
    expect(calls.moveMarker).toHaveBeenCalledWith(7, 10);
    expect(calls.selectMarker).not.toHaveBeenCalled();
    view.destroy();
  });
});

describe("lane solo, mute and level", () => {
  it("emits laneMix for S and M with the new state", () => {
    const { view, calls } = mount(project(speakers({ 2: { muted: true } })));
    click(...centre(laneControls(lane(0), HEADER).solo));
    expect(calls.laneMix).toHaveBeenLastCalledWith(1, { solo: true });
    click(...centre(laneControls(lane(1), HEADER).mute));
    expect(calls.laneMix).toHaveBeenLastCalledWith(2, { muted: false });
    // The no-speaker lane.
    click(...centre(laneControls(lane(2), HEADER).mute));
    expect(calls.laneMix).toHaveBeenLastCalledWith(null, { muted: true });
    expect(calls.select).not.toHaveBeenCalled();
    view.destroy();
  });

  it("sends nothing when the press slides off the button", () => {
    const { view, calls } = mount();
    const [x, y] = centre(laneControls(lane(0), HEADER).solo);
    pointer("pointerdown", x, y);
    pointer("pointerup", x, y + 40);
    expect(calls.laneMix).not.toHaveBeenCalled();
    view.destroy();
  });

  it("changes the level with the wheel in half-dB steps, sent once the wheel rests", () => {
    vi.useFakeTimers();
    const { view, calls } = mount(project(speakers({ 1: { levelDb: -3 } })));
    const [x, y] = centre(laneControls(lane(0), HEADER).level);
    const wheel = (deltaY: number) => {
      const event = new WheelEvent("wheel", { clientX: x, clientY: y, deltaY, bubbles: true, cancelable: true });
      // happy-dom's WheelEvent has no pointer position of its own.
      Object.defineProperties(event, { clientX: { value: x }, clientY: { value: y } });
      canvas().dispatchEvent(event);
    };
    wheel(-100);
    wheel(-100);
    wheel(-100);
    vi.advanceTimersByTime(200);
    expect(calls.laneMix).not.toHaveBeenCalled();
    wheel(100);
    vi.advanceTimersByTime(300);
    expect(calls.laneMix).toHaveBeenCalledTimes(1);
    expect(calls.laneMix).toHaveBeenCalledWith(1, { levelDb: -2 });
    // The view did not scroll.
    expect(view.scrollSeconds).toBe(0);
    view.destroy();
  });

  it("changes the level by dragging up or down on it, and double-click sets 0 dB", () => {
    const { view, calls } = mount(project(speakers({ 2: { levelDb: -6 } })));
    const [x, y] = centre(laneControls(lane(1), HEADER).level);
    pointer("pointerdown", x, y);
    pointer("pointermove", x, y - 16);
    pointer("pointerup", x, y - 16);
    expect(calls.laneMix).toHaveBeenCalledWith(2, { levelDb: -4 });
    canvas().dispatchEvent(new MouseEvent("dblclick", { clientX: x, clientY: y, bubbles: true }));
    expect(calls.laneMix).toHaveBeenLastCalledWith(2, { levelDb: 0 });
    view.destroy();
  });
});
