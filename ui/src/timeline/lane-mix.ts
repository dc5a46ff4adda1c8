// A lane's mix as the header shows it: solo, mute and level, read from the
// speaker or the project's no-speaker lane (defensively: older engines
// send none of it), whether a lane sounds (the engine's word, else muted or
// not soloed while another is), the level's limits (the engine's, -60 to
// +12 dB), steps, wheel and drag arithmetic and its label. Pure.

export interface LaneMix {
  muted: boolean;
  solo: boolean;
  levelDb: number;
  /** Whether it sounds now, when the engine says. */
  audible?: boolean;
}

/** What the lane mix change callback carries. */
export type LaneMixChange = Partial<Pick<LaneMix, "muted" | "solo" | "levelDb">>;

export const NEUTRAL_MIX: LaneMix = { muted: false, solo: false, levelDb: 0 };

/** One wheel notch or drag step changes the level by this much. */
export const LEVEL_STEP_DB = 0.5;
export const LEVEL_MIN_DB = -60;
export const LEVEL_MAX_DB = 12;
/** A vertical drag on the level changes it a step per this many pixels. */
export const LEVEL_DRAG_PX = 4;
/** Pixel-mode wheel travel (trackpads) per step. */
export const LEVEL_WHEEL_PX = 50;
/** A wheel on the level is sent this long after its last notch. */
export const LEVEL_IDLE_MS = 300;

/** The mix a speaker's (or the no-speaker lane's) fields say; the
 * neutral mix for what it lacks. */
export function speakerMix(from: object | null | undefined): LaneMix {
  if (!from) return NEUTRAL_MIX;
  const s = from as Partial<{ muted: boolean; solo: boolean; levelDb: number; audible: boolean }>;
  const mix: LaneMix = {
    muted: s.muted === true,
    solo: s.solo === true,
    levelDb: typeof s.levelDb === "number" && Number.isFinite(s.levelDb) ? s.levelDb : 0,
  };
  if (typeof s.audible === "boolean") mix.audible = s.audible;
  return mix;
}

/** Whether a lane is silent in the mix: as the engine says when it does,
 * else muted, or not soloed while another lane is. */
export function laneSilent(mix: LaneMix, anySolo: boolean): boolean {
  if (mix.audible !== undefined) return !mix.audible;
  return mix.muted || (anySolo && !mix.solo);
}

/** A level within the limits, on the step grid. */
export function clampLevel(db: number): number {
  const stepped = Math.round(db / LEVEL_STEP_DB) * LEVEL_STEP_DB;
  return Math.min(LEVEL_MAX_DB, Math.max(LEVEL_MIN_DB, stepped)) || 0;
}

/** `db` moved by `steps` steps, within the limits. */
export function stepLevel(db: number, steps: number): number {
  return clampLevel(db + steps * LEVEL_STEP_DB);
}

/** The level after dragging `dy` pixels (up, negative dy, is louder) from `originDb`. */
export function dragLevel(originDb: number, dy: number): number {
  return stepLevel(originDb, Math.trunc(-dy / LEVEL_DRAG_PX));
}

/** Turns wheel deltas into whole steps (up, negative deltaY, is louder):
 * a line- or page-mode event or a mouse notch (50 px or more) is one step;
 * smaller pixel deltas (trackpads) add up to a step per LEVEL_WHEEL_PX. */
export class WheelSteps {
  private pixels = 0;

  add(deltaY: number, deltaMode: number): number {
    if (deltaY === 0) return 0;
    if (deltaMode !== 0 || Math.abs(deltaY) >= LEVEL_WHEEL_PX) {
      this.pixels = 0;
      return deltaY < 0 ? 1 : -1;
    }
    this.pixels += deltaY;
    const steps = Math.trunc(-this.pixels / LEVEL_WHEEL_PX);
    this.pixels += steps * LEVEL_WHEEL_PX;
    return steps;
  }

  reset(): void {
    this.pixels = 0;
  }
}

/** `−3.5 dB`, `0.0 dB`, `+2.0 dB`. */
export function formatLevel(db: number): string {
  const r = Math.round(db * 10) / 10;
  const sign = r > 0 ? "+" : r < 0 ? "−" : "";
  return `${sign}${Math.abs(r).toFixed(1)} dB`;
}
