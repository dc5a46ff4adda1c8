// A made-up project for tests and the benchmark page: N lines over several
// speakers with every state and fit problem, their waveforms and a bed's;
// and the `line()` and `speaker()` test builders.
// Deterministic (seeded), so runs compare. Pure.
import type { Peaks, Project, Segment, SegmentState, Speaker } from "../model";

/** A small seeded generator (mulberry32): the same seed, the same project. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A line with sensible defaults, for tests: `line({ id: 3, start: 1, end: 2 })`. */
export function line(fields: Partial<Segment> & { id: number; start: number; end: number }): Segment {
  return {
    trackId: 1,
    text: `Line ${fields.id}`,
    speakerId: null,
    speed: 1,
    gainDb: 0,
    fadeIn: 0,
    fadeOut: 0,
    strategy: null,
    locked: false,
    state: "stale",
    error: null,
    fit: null,
    spoken: null,
    planned: null,
    flags: [],
    check: null,
    ...fields,
  };
}

/** A speaker with sensible defaults (an audible lane at 0 dB), for tests:
 * `speaker({ id: 1, name: "Ana", muted: true })`. */
export function speaker(fields: Partial<Speaker> & { id: number; name: string }): Speaker {
  return { voice: "v", languageVoices: {}, muted: false, solo: false, levelDb: 0, audible: true, ...fields } as Speaker;
}

const STATES: SegmentState[] = ["ready", "ready", "ready", "ready", "stale", "queued", "rendering", "failed"];
const WORDS = "the a we you never always here there tonight tomorrow listen wait go now really think know sorry right door light house river".split(" ");

export interface SyntheticProject {
  project: Project;
  trackId: number;
  /** Waveforms of the rendered lines, by segment id. */
  peaks: Map<number, Peaks>;
  bed: Peaks;
}

/** A project of `lines` lines, about 3 s apart, over `speakers`
 * speakers; about half rendered, some sped up past the cap, trimmed or
 * running into the next line. */
export function syntheticProject(lines = 2000, speakers = 5, seed = 7): SyntheticProject {
  const random = seededRandom(seed);
  const cast: Speaker[] = Array.from({ length: speakers }, (_, i) =>
    speaker({
      id: i + 1,
      name: ["Ana", "Bruno", "Chiara", "Dmitri", "Eun-ji", "Farid", "Greta", "Hugo"][i % 8] + (i >= 8 ? ` ${i}` : ""),
      voice: `voice-${i + 1}`,
    }),
  );
  const segments: Segment[] = [];
  const peaks = new Map<number, Peaks>();
  let time = 1;
  for (let i = 0; i < lines; i++) {
    const id = i + 1;
    const duration = 0.8 + random() * 3.2;
    const start = Number(time.toFixed(3));
    const end = Number((time + duration).toFixed(3));
    // Mostly a pause before the next line, sometimes a cue cut in early.
    time = end + (random() < 0.15 ? -0.5 * random() * duration : 0.1 + random() * 1.2);
    const state = STATES[Math.floor(random() * STATES.length)];
    const speakerId = random() < 0.05 ? null : cast[Math.floor(random() * cast.length)].id;
    const words = Array.from({ length: 3 + Math.floor(random() * 9) }, () => WORDS[Math.floor(random() * WORDS.length)]);
    const segment = line({ id, start, end, speakerId, state, text: words.join(" ") });
    if (state === "failed") segment.error = "the model ran out of memory";
    if (state === "ready" || state === "stale") {
      const roll = random();
      const rate = roll < 0.1 ? 1.3 + random() * 0.3 : 1 + random() * 0.2;
      const trimmed = roll > 0.95;
      const placedEnd = roll > 0.88 && roll <= 0.95 ? end + 0.2 + random() : end - random() * 0.3;
      segment.fit = { start, end: Number(placedEnd.toFixed(3)), rate, trimmed, overlap: null, strategy: "smart_fit", gapUsed: Math.max(0, placedEnd - end), cut: null, overflow: 0 };
      peaks.set(id, voicePeaks(start, placedEnd, random));
    }
    segments.push(segment);
  }
  const length = Math.ceil(time + 5);
  return {
    project: {
      id: 1,
      name: `Synthetic ${lines} lines`,
      strategy: "smart_fit",
      bed: "bed.wav",
      beds: [{ id: 1, projectId: 1, file: "bed.wav", gainDb: 0, ducked: true, position: 0 }],
      original: null,
      video: null,
      cast: null,
      frameRate: "25",
      length,
      speakers: cast,
      noSpeakerLane: { muted: false, solo: false, levelDb: 0, audible: true },
      markers: [],
      tracks: [{ id: 1, language: "en", segments }],
      canUndo: false,
      canRedo: false,
    },
    trackId: 1,
    peaks,
    bed: bedPeaks(length, random),
  };
}

/** Speech-like peaks: syllables of varying loudness, 100 buckets a second. */
function voicePeaks(start: number, end: number, random: () => number): Peaks {
  const secondsPerBucket = 0.01;
  const n = Math.max(1, Math.round((end - start) / secondsPerBucket));
  const min: number[] = [];
  const max: number[] = [];
  let syllable = 0.5;
  for (let i = 0; i < n; i++) {
    if (i % 18 === 0) syllable = 0.2 + random() * 0.75;
    const envelope = Math.sin((Math.PI * (i % 18)) / 18) * syllable;
    const v = envelope * (0.6 + random() * 0.4);
    max.push(v);
    min.push(-v * (0.8 + random() * 0.2));
  }
  return { start, secondsPerBucket, min, max };
}

/** Music-bed peaks: a steady level with a slow swell, 50 buckets a second. */
function bedPeaks(length: number, random: () => number): Peaks {
  const secondsPerBucket = 0.02;
  const n = Math.round(length / secondsPerBucket);
  const min: number[] = new Array(n);
  const max: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const swell = 0.25 + 0.15 * Math.sin(i / 700);
    const v = swell * (0.7 + random() * 0.3);
    max[i] = v;
    min[i] = -v;
  }
  return { start: 0, secondsPerBucket, min, max };
}
