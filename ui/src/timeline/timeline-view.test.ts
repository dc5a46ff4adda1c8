// @vitest-environment happy-dom
// The timeline component in a DOM (happy-dom, a recording stand-in for the
// canvas): line states taken from a running render repaint without
// rebuilding the index.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Segment } from "../model";
import { STATE_STYLE } from "./draw";
import { syntheticProject } from "./synthetic";

const counts = vi.hoisted(() => ({ indexes: 0 }));
vi.mock("./segment-index", async (original) => {
  const real = await original<typeof import("./segment-index")>();
  class CountedIndex extends real.SegmentIndex {
    constructor(segments: readonly Segment[]) {
      super(segments);
      counts.indexes += 1;
    }
  }
  return { ...real, SegmentIndex: CountedIndex };
});

const { TimelineView } = await import("./timeline-view");

/** A 2D context that does nothing and remembers the fill styles set. */
function recordingContext(fills: string[]): CanvasRenderingContext2D {
  const target: Record<string | symbol, unknown> = {};
  return new Proxy(target, {
    get: (t, name) => (name in t ? t[name] : name === "measureText" ? () => ({ width: 10 }) : () => undefined),
    set: (t, name, value) => {
      if (name === "fillStyle") fills.push(String(value));
      t[name] = value;
      return true;
    },
  }) as unknown as CanvasRenderingContext2D;
}

const callbacks = { select() {}, seek() {}, move() {}, resize() {}, split() {}, merge() {}, insert() {}, delete() {} };

describe("TimelineView.updateSegments", () => {
  let fills: string[];
  beforeEach(() => {
    fills = [];
    counts.indexes = 0;
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => recordingContext(fills) as never);
    vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockReturnValue(1200);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    document.body.replaceChildren();
  });

  it("takes 2,000 state changes with no new index and paints the new states", () => {
    const { project } = syntheticProject(2000);
    const track = project.tracks[0];
    for (const s of track.segments) {
      s.state = "queued";
      s.fit = null;
    }
    const view = new TimelineView(document.body, callbacks);
    view.setProject(project, track.id);
    view.flush();
    expect(counts.indexes).toBe(2); // the empty one at mounting, then the project's
    expect(fills).not.toContain(STATE_STYLE.ready.fill);

    for (const s of track.segments) expect(view.updateSegments([{ ...s, state: "ready" }])).toBe(true);
    fills.length = 0;
    view.flush();
    expect(counts.indexes).toBe(2);
    expect(fills).toContain(STATE_STYLE.ready.fill);
    expect(fills).not.toContain(STATE_STYLE.queued.fill);
    view.destroy();
  });

  it("says when a line moved, which needs setProject", () => {
    const { project } = syntheticProject(20);
    const track = project.tracks[0];
    const view = new TimelineView(document.body, callbacks);
    view.setProject(project, track.id);
    const first = track.segments[0];
    expect(view.updateSegments([{ ...first, start: first.start + 0.5 }])).toBe(false);
    expect(view.updateSegments([{ ...first, id: 99999 }])).toBe(true);
    view.destroy();
  });
});
