// The frame scheduler against a frame source the test advances by hand.
import { describe, expect, it } from "vitest";
import { FrameScheduler } from "./frame";

/** A frame source the test advances by hand. */
function fakeFrames() {
  let next = 1;
  const queued = new Map<number, () => void>();
  return {
    request: (callback: () => void) => {
      const id = next++;
      queued.set(id, callback);
      return id;
    },
    cancel: (id: number) => void queued.delete(id),
    /** Runs the callbacks asked for before this frame began. */
    frame() {
      const now = [...queued.values()];
      queued.clear();
      for (const callback of now) callback();
    },
    get queued() {
      return queued.size;
    },
  };
}

describe("FrameScheduler", () => {
  it("draws once per frame however often it is asked", () => {
    const frames = fakeFrames();
    let draws = 0;
    const scheduler = new FrameScheduler(() => draws++, frames.request, frames.cancel);
    for (let i = 0; i < 500; i++) scheduler.schedule();
    expect(draws).toBe(0);
    expect(frames.queued).toBe(1);
    frames.frame();
    expect(draws).toBe(1);
    frames.frame();
    expect(draws).toBe(1);
    scheduler.schedule();
    scheduler.schedule();
    frames.frame();
    expect(draws).toBe(2);
  });

  it("a redraw asked for during a draw waits for the next frame", () => {
    const frames = fakeFrames();
    let draws = 0;
    const scheduler: FrameScheduler = new FrameScheduler(() => {
      draws++;
      if (draws === 1) scheduler.schedule();
    }, frames.request, frames.cancel);
    scheduler.schedule();
    frames.frame();
    expect(draws).toBe(1);
    expect(scheduler.pending).toBe(true);
    frames.frame();
    expect(draws).toBe(2);
    expect(scheduler.pending).toBe(false);
  });

  it("flush draws a waiting frame now, once; cancel forgets it", () => {
    const frames = fakeFrames();
    let draws = 0;
    const scheduler = new FrameScheduler(() => draws++, frames.request, frames.cancel);
    scheduler.flush();
    expect(draws).toBe(0);
    scheduler.schedule();
    scheduler.flush();
    expect(draws).toBe(1);
    frames.frame();
    expect(draws).toBe(1);
    scheduler.schedule();
    scheduler.cancel();
    frames.frame();
    expect(draws).toBe(1);
  });
});
