// The shapes of a project as the engine sends them to the editor (the
// engine's `studio` DTOs, serde camelCase). Views read these; they never
// compute what a segment sounds like or where it lands: the engine does.

/** Where a line stands: edited since its take (stale), waiting, in the
 * model, current, or failed with an error. */
export type SegmentState = "stale" | "queued" | "rendering" | "ready" | "failed";

/** Where a rendered line lands once its timing strategy has fitted it. */
export interface Fit {
  /** Timeline seconds of its first and last sample as placed. */
  start: number;
  end: number;
  /** Playback rate of the time-stretch (1 = as rendered, 1.25 = sped up). */
  rate: number;
  /** Cut short to fit its slot. */
  trimmed: boolean;
  /** Seconds it runs into the next line (natural timing), if it does. */
  overlap: number | null;
}

export interface Segment {
  id: number;
  trackId: number;
  /** The slot from the script, seconds. */
  start: number;
  end: number;
  text: string;
  speakerId: number | null;
  speed: number;
  gainDb: number;
  fadeIn: number;
  fadeOut: number;
  /** Overrides the project's timing strategy when set. */
  strategy: string | null;
  locked: boolean;
  state: SegmentState;
  error: string | null;
  /** Known once rendered. */
  fit: Fit | null;
}

export interface Speaker {
  id: number;
  name: string;
  voice: string;
  /** Voices by track language, where the speaker has their own. */
  languageVoices: Record<string, string>;
}

export interface Track {
  id: number;
  language: string;
  segments: Segment[];
}

export interface Project {
  id: number;
  name: string;
  /** natural | strict_slot | smart_fit | resynthesize */
  strategy: string;
  bed: string | null;
  /** Programme length, seconds. */
  length: number;
  speakers: Speaker[];
  tracks: Track[];
  canUndo: boolean;
  canRedo: boolean;
}

/** A waveform overview: the min and max sample of each bucket of
 * `secondsPerBucket`, from `start` seconds on the timeline. */
export interface Peaks {
  start: number;
  secondsPerBucket: number;
  min: number[];
  max: number[];
}
