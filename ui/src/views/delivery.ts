// What the editor's delivery features say and send, worked out from what a
// person chose (no DOM, no engine): an export's choice of files and of
// the audio's rate and depth, a
// dictionary entry from its form and how an entry reads, what attaching a
// video did, in a sentence, a level typed in dB, and how the original
// dialogue is heard.
import type { AttachedVideo, BedStem, ExportChoice, HandoffFormat, OriginalMonitor, Saying, VideoInfo } from "../engine";

/** The handoff files an export can write, with their labels. */
export const HANDOFF_FORMATS: [HandoffFormat, string][] = [
  ["rpp", "Reaper project (.rpp)"],
  ["otio", "OpenTimelineIO (.otio)"],
  ["edl", "CMX 3600 EDL (.edl)"],
];

/** The sample rates an export delivers at, Hz, with their labels: 48 kHz first (the default). */
export const DELIVERY_RATES: [number, string][] = [
  [48000, "48 kHz (film, TV, streaming)"],
  [44100, "44.1 kHz (music services, CD)"],
];

/** The bit depths of a WAV or FLAC export, with their labels: 24-bit first (the default). */
export const DELIVERY_BITS: [number, string][] = [
  [24, "24-bit"],
  [16, "16-bit"],
];

/** The export dialog's boxes as ticked. */
export interface ExportForm {
  languages: string[];
  stems: boolean;
  subtitles: boolean;
  /** Each subtitle cue tagged with its speaker. */
  speakerTags: boolean;
  handoff: HandoffFormat[];
  /** Ticked, and the project has a video to mux the dub into. */
  withVideo: boolean;
  /** Hz, one of {@link DELIVERY_RATES}. */
  sampleRate: number;
  /** One of {@link DELIVERY_BITS}. */
  bits: number;
  /** Refuse the export while a line is flagged (doesn't fit, cut, overlapping, failed its check). */
  strict: boolean;
}

/** What to ask the engine to write; throws when no track is chosen, or a
 * rate or depth is not one an export delivers at. */
export function exportChoice(form: ExportForm): ExportChoice {
  if (!form.languages.length) throw new Error("Choose at least one track to export.");
  if (!DELIVERY_RATES.some(([rate]) => rate === form.sampleRate)) throw new Error(`A sample rate of ${form.sampleRate} Hz cannot be delivered: choose 48 kHz or 44.1 kHz.`);
  if (!DELIVERY_BITS.some(([bits]) => bits === form.bits)) throw new Error(`A depth of ${form.bits} bits cannot be delivered: choose 24-bit or 16-bit.`);
  return {
    languages: form.languages,
    stems: form.stems,
    subtitles: form.subtitles,
    speakerTags: form.speakerTags,
    handoff: form.handoff.length ? form.handoff : null,
    withVideo: form.withVideo,
    sampleRate: form.sampleRate,
    bits: form.bits,
    strict: form.strict,
  };
}

export type SayingKind = "phonemes" | "respelling";

/** A dictionary entry from its form: the word and how it is said, trimmed;
 * throws, in words, when either is missing. */
export function dictionaryEntry(word: string, kind: SayingKind, value: string): { word: string; saying: Saying } {
  const trimmed = word.trim();
  if (!trimmed) throw new Error("Type the word or name to say differently.");
  const said = value.trim();
  if (!said) throw new Error(kind === "phonemes" ? "Type its phonemes (IPA, as Kokoro reads them)." : "Type how it is to be read (another spelling).");
  return { word: trimmed, saying: kind === "phonemes" ? { phonemes: said } : { respelling: said } };
}

/** How an entry is said, as a person reads it: `/phonemes/` or `as “respelling”`. */
export function describeSaying(saying: Saying): string {
  return "phonemes" in saying ? `/${saying.phonemes}/` : `as “${saying.respelling}”`;
}

/** The file's name at the end of a path. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** A video in a few words: `h264 1920×1080, 25 fps`. */
export function videoSummary(info: VideoInfo): string {
  return `${info.codec} ${info.width}×${info.height}, ${Number(info.frameRate.toFixed(3))} fps`;
}

/** What attaching a video did: `Picture: scene.mp4 (h264 1920×1080, 25
 * fps); its audio is now the original dialogue`. */
export function attachedSummary(attached: AttachedVideo): string {
  const info = attached.info;
  const became = [attached.originalDialogue ? "the original dialogue" : "", attached.bed ? "the bed" : ""].filter(Boolean);
  const audio = became.length ? `; its audio is now ${became.join(" and ")}` : info.audio.length ? "" : "; it has no audio";
  return `Picture: ${fileName(attached.path)} (${videoSummary(info)})${audio}`;
}

/** The levels the engine takes, dB: a bed stem's (over the mix's bed
 * level), and the original dialogue's under the dub. */
export const BED_LEVEL_DB: [number, number] = [-60, 24];
export const ORIGINAL_LEVEL_DB: [number, number] = [-60, 12];

/** A level typed in dB; throws, in words, when it is not a number from `low` to `high`. */
export function decibels(typed: string, [low, high]: [number, number]): number {
  const value = typed.trim() ? Number(typed) : NaN;
  if (!Number.isFinite(value) || value < low || value > high) throw new Error(`The level must be a number of dB from ${low} to ${high}.`);
  return value;
}

/** A bed stem in a few words: `music.wav at -6 dB, ducks under the voice`. */
export function stemSummary(stem: Pick<BedStem, "file" | "gainDb" | "ducked">): string {
  return `${fileName(stem.file)} at ${stem.gainDb} dB, ${stem.ducked ? "ducks under the voice" : "not ducked"}`;
}

export type MonitorMode = OriginalMonitor["mode"];

/** How the original dialogue can be heard while the dub plays, with the header's labels. */
export const MONITOR_MODES: [MonitorMode, string][] = [
  ["off", "Original: off"],
  ["under", "Original under the dub"],
  ["solo", "Original solo"],
];

/** What the engine is sent for the header's choice and level (the level
 * counts only under the dub). */
export function originalMonitor(mode: MonitorMode, levelDb: number): OriginalMonitor {
  return mode === "under" ? { mode, gainDb: levelDb } : { mode };
}
