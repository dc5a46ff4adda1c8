// Nudging a line by whole frames: its body (length kept) or one of its
// edges, landing on the frame grid (an edge off the grid first goes to its
// nearest frame, then steps), never before 0 and never shorter than
// MIN_SEGMENT_SECONDS. Pure.
import { MIN_SEGMENT_SECONDS } from "./drag";
import { frameAtOrAfter, frameAtOrBefore, frameTime, nearestFrame } from "./frames";
import type { SegmentPart } from "./hit-test";

export interface Slot {
  start: number;
  end: number;
}

/** The slot after nudging `part` of `slot` by `frames` frames at `fps`, or
 * null when it would not change (zero frames, or against a limit). */
export function nudgeSlot(slot: Slot, part: SegmentPart, frames: number, fps: number): Slot | null {
  const steps = Math.trunc(frames);
  if (steps === 0 || !(fps > 0)) return null;
  let next: Slot;
  switch (part) {
    case "body": {
      const duration = slot.end - slot.start;
      const start = frameTime(Math.max(0, nearestFrame(slot.start, fps) + steps), fps);
      next = { start, end: start + duration };
      break;
    }
    case "start-edge": {
      const latest = frameAtOrBefore(slot.end - MIN_SEGMENT_SECONDS, fps);
      if (latest < 0) return null;
      const frame = Math.min(latest, Math.max(0, nearestFrame(slot.start, fps) + steps));
      next = { start: frameTime(frame, fps), end: slot.end };
      break;
    }
    case "end-edge": {
      const earliest = Math.max(0, frameAtOrAfter(slot.start + MIN_SEGMENT_SECONDS, fps));
      const frame = Math.max(earliest, nearestFrame(slot.end, fps) + steps);
      next = { start: slot.start, end: frameTime(frame, fps) };
      break;
    }
  }
  // Only ever the way asked (a limit never pushes the other way).
  const shift = next.start - slot.start + (next.end - slot.end);
  return Math.abs(shift) > 1e-9 && Math.sign(shift) === Math.sign(steps) ? next : null;
}
