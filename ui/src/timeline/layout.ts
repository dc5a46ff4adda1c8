// Where things sit vertically: the ruler on top, one lane per speaker (in
// the project's speaker order, plus one for lines without a speaker), the
// original dialogue's waveform strip under the lanes (when the project has
// one), then the bed's; which lane a segment belongs to,
// which lane is under a y, each lane's mix (solo, mute, level) and where
// its header's S, M and level controls sit. Pure.
import type { Segment, Speaker } from "../model";
import { NEUTRAL_MIX, laneSilent, speakerMix, type LaneMix } from "./lane-mix";

export interface Lane {
  /** The speaker the lane is for; null for lines without a speaker. */
  speakerId: number | null;
  name: string;
  y: number;
  height: number;
  /** Solo, mute and level, from the speaker (neutral without one). */
  mix: LaneMix;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A lane header's controls: the solo and mute toggles and the level. */
export interface LaneControls {
  solo: Rect;
  mute: Rect;
  level: Rect;
}

export type LaneControl = keyof LaneControls;

export interface TimelineLayout {
  rulerHeight: number;
  lanes: Lane[];
  /** The original dialogue's waveform strip under the lanes, when the project has one. */
  original: { y: number; height: number } | null;
  /** The bed's waveform strip, last. */
  bed: { y: number; height: number };
  /** Lane headers (speaker names) take this much on the left. */
  headerWidth: number;
  height: number;
  /** Some lane is soloed: the others are silent. */
  anySolo: boolean;
}

export interface LayoutSizes {
  rulerHeight: number;
  laneHeight: number;
  bedHeight: number;
  headerWidth: number;
}

export const DEFAULT_SIZES: LayoutSizes = {
  rulerHeight: 28,
  laneHeight: 64,
  bedHeight: 48,
  headerWidth: 128,
};

/** Blocks keep this much space from their lane's top and bottom edges. */
export const BLOCK_INSET = 4;

/** One lane per speaker of the project, then one per speaker a segment
 * names that the project does not list (so no line is lost), then the
 * lane for lines without a speaker, always there so lines can be
 * inserted into it (its mix from `noSpeakerMix`, the project's
 * `noSpeakerLane`). */
export function layoutLanes(
  speakers: readonly Speaker[],
  segments: readonly Segment[],
  sizes: LayoutSizes = DEFAULT_SIZES,
  withOriginal = false,
  noSpeakerMix: object | null = null,
): TimelineLayout {
  const named: { speakerId: number | null; name: string; mix: LaneMix }[] = speakers.map((s) => ({
    speakerId: s.id,
    name: s.name,
    mix: speakerMix(s),
  }));
  const known = new Set(speakers.map((s) => s.id));
  const unknown = new Set<number>();
  for (const segment of segments) {
    if (segment.speakerId !== null && !known.has(segment.speakerId)) unknown.add(segment.speakerId);
  }
  for (const id of [...unknown].sort((a, b) => a - b)) named.push({ speakerId: id, name: `Speaker ${id}`, mix: NEUTRAL_MIX });
  named.push({ speakerId: null, name: "No speaker", mix: speakerMix(noSpeakerMix) });

  const lanes = named.map((lane, i) => ({
    ...lane,
    y: sizes.rulerHeight + i * sizes.laneHeight,
    height: sizes.laneHeight,
  }));
  const stripsY = sizes.rulerHeight + lanes.length * sizes.laneHeight;
  const bedY = stripsY + (withOriginal ? sizes.bedHeight : 0);
  return {
    rulerHeight: sizes.rulerHeight,
    lanes,
    original: withOriginal ? { y: stripsY, height: sizes.bedHeight } : null,
    bed: { y: bedY, height: sizes.bedHeight },
    headerWidth: sizes.headerWidth,
    height: bedY + sizes.bedHeight,
    anySolo: lanes.some((l) => l.mix.solo),
  };
}

/** The index of the lane holding a speaker's lines (the no-speaker lane for
 * null). */
export function laneIndexOf(layout: TimelineLayout, speakerId: number | null): number {
  const i = layout.lanes.findIndex((lane) => lane.speakerId === speakerId);
  return i >= 0 ? i : layout.lanes.length - 1;
}

/** The lane under `y`, or -1 above or below the lanes. */
export function laneAtY(layout: TimelineLayout, y: number): number {
  for (let i = 0; i < layout.lanes.length; i++) {
    const lane = layout.lanes[i];
    if (y >= lane.y && y < lane.y + lane.height) return i;
  }
  return -1;
}

/** The block's top and height inside its lane. */
export function blockBox(lane: Lane): { y: number; height: number } {
  return { y: lane.y + BLOCK_INSET, height: lane.height - 2 * BLOCK_INSET };
}

/** Whether a lane is silent in the mix (muted, or another lane soloed): drawn dimmed. */
export function laneDimmed(layout: TimelineLayout, laneIndex: number): boolean {
  const lane = layout.lanes[laneIndex];
  return lane ? laneSilent(lane.mix, layout.anySolo) : false;
}

/** The header's controls, under the name: S and M toggles, then the
 * level's text, in the timeline's pixels. */
export function laneControls(lane: Lane, headerWidth: number): LaneControls {
  const size = 16;
  const y = Math.min(lane.y + lane.height - size - 6, lane.y + 34);
  const level = { x: 58, y, width: Math.max(24, headerWidth - 58 - 8), height: size };
  return {
    solo: { x: 10, y, width: 20, height: size },
    mute: { x: 34, y, width: 20, height: size },
    level,
  };
}

/** The header control at (x, y) in a lane, if any. */
export function laneControlAt(lane: Lane, headerWidth: number, x: number, y: number): LaneControl | null {
  const controls = laneControls(lane, headerWidth);
  for (const name of ["solo", "mute", "level"] as const) {
    const r = controls[name];
    if (x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height) return name;
  }
  return null;
}
