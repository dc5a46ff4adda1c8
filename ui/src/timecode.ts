// SMPTE timecode in the window, as the engine's dub/timecode.rs writes and
// reads it: hh:mm:ss:ff at a project's frame rate (drop-frame 29.97 as
// hh:mm:ss;ff), and typed timecode or plain seconds read back into seconds.

/** A frame rate by the name the engine sends (`Project.frameRate`). */
export type FrameRate = "23.976" | "24" | "25" | "29.97df" | "29.97" | "30";

export const FRAME_RATES: readonly FrameRate[] = ["23.976", "24", "25", "29.97df", "29.97", "30"];

/** A project without a picture or a setting runs at this rate. */
export const DEFAULT_FRAME_RATE: FrameRate = "25";

/** The rate named `name`, or the default for a name the window does not know. */
export function frameRate(name: string | null | undefined): FrameRate {
  return FRAME_RATES.find((r) => r === name) ?? DEFAULT_FRAME_RATE;
}

/** Frame numbers in a second of timecode. */
export function framesPerSecond(rate: FrameRate): number {
  return rate === "23.976" || rate === "24" ? 24 : rate === "25" ? 25 : 30;
}

/** Frames per second of real time. */
export function fps(rate: FrameRate): number {
  if (rate === "23.976") return 24000 / 1001;
  if (rate === "29.97df" || rate === "29.97") return 30000 / 1001;
  return framesPerSecond(rate);
}

const isDropFrame = (rate: FrameRate): boolean => rate === "29.97df";

/** Frame numbers 0 and 1 are skipped at each minute but every tenth. */
const DROPPED_PER_MINUTE = 2;
const FRAMES_PER_TEN_MINUTES = 17_982;
const FRAMES_PER_DROPPING_MINUTE = 1_798;

/** The frame `seconds` falls in (times before zero are frame 0). */
export function frameAt(seconds: number, rate: FrameRate): number {
  if (!(seconds > 0)) return 0;
  return Math.floor(seconds * fps(rate) + 1e-6);
}

/** The time frame `frame` starts at, in seconds. */
export function frameStart(frame: number, rate: FrameRate): number {
  return frame / fps(rate);
}

/** `seconds` as `hh:mm:ss:ff` at `rate`, the frame it falls in. */
export function formatTimecode(seconds: number, rate: FrameRate): string {
  return formatFrame(frameAt(seconds, rate), rate);
}

/** Frame `frame` (counted from 0) as `hh:mm:ss:ff`, or `hh:mm:ss;ff` in drop-frame. */
export function formatFrame(frame: number, rate: FrameRate): string {
  const perSecond = framesPerSecond(rate);
  let number = frame;
  if (isDropFrame(rate)) {
    const tens = Math.floor(frame / FRAMES_PER_TEN_MINUTES);
    const rest = frame % FRAMES_PER_TEN_MINUTES;
    const skippedMinutes = rest < DROPPED_PER_MINUTE ? 0 : Math.floor((rest - DROPPED_PER_MINUTE) / FRAMES_PER_DROPPING_MINUTE);
    number += 9 * DROPPED_PER_MINUTE * tens + DROPPED_PER_MINUTE * skippedMinutes;
  }
  const ff = number % perSecond;
  const total = Math.floor(number / perSecond);
  const two = (n: number) => String(n).padStart(2, "0");
  const separator = isDropFrame(rate) ? ";" : ":";
  return `${two(Math.floor(total / 3600))}:${two(Math.floor(total / 60) % 60)}:${two(total % 60)}${separator}${two(ff)}`;
}

/** A typed time that does not read, with the reason. */
export class TimecodeError extends Error {}

/** A time typed as `hh:mm:ss:ff`, `hh:mm:ss;ff` or `mm:ss:ff` at `rate`
 * (either separator), or as plain seconds (`12.5`): the time its frame
 * starts at, or the seconds given. Throws a TimecodeError naming the text. */
export function parseTimecode(text: string, rate: FrameRate): number {
  const refuse = (reason: string): never => {
    throw new TimecodeError(`timecode ${JSON.stringify(text)} ${reason}`);
  };
  const trimmed = text.trim();
  if (trimmed === "") refuse("is empty: type hh:mm:ss:ff or seconds");
  if (!/[:;]/.test(trimmed)) {
    if (!/^\d+(\.\d*)?$|^\.\d+$/.test(trimmed)) {
      return refuse(trimmed.startsWith("-") ? "is not a time: seconds cannot be negative" : `is not a time: type hh:mm:ss${isDropFrame(rate) ? ";" : ":"}ff or seconds`);
    }
    return Number(trimmed);
  }
  const fields = trimmed.split(/[:;]/);
  if (!fields.every((f) => /^\d{1,3}$/.test(f))) refuse("has a field that is not a whole number (hh:mm:ss:ff)");
  const numbers = fields.map(Number);
  if (numbers.length !== 3 && numbers.length !== 4) refuse(`has ${fields.length} fields: type hh:mm:ss:ff, mm:ss:ff or seconds`);
  const [hh, mm, ss, ff] = numbers.length === 4 ? numbers : [0, ...numbers];
  if (mm > 59) refuse(`has minute ${mm}: minutes run 0–59`);
  if (ss > 59) refuse(`has second ${ss}: seconds run 0–59`);
  const perSecond = framesPerSecond(rate);
  if (ff >= perSecond) refuse(`has frame ${ff}: frames run 0–${perSecond - 1} at ${rate}`);
  let frame = (hh * 3600 + mm * 60 + ss) * perSecond + ff;
  if (isDropFrame(rate)) {
    if (ss === 0 && ff < DROPPED_PER_MINUTE && mm % 10 !== 0) {
      refuse(`names frame ${ff} of minute ${mm}, which drop-frame skips (only every tenth minute keeps frames 0 and 1)`);
    }
    const minutes = hh * 60 + mm;
    frame -= DROPPED_PER_MINUTE * (minutes - Math.floor(minutes / 10));
  }
  return frameStart(frame, rate);
}
