// A project as the engine sends it, for the views' unit tests: one
// English track, no bed, picture or original, and the speakers and lines
// a test asks for.
import type { Project, Segment } from "../engine";

/** The test project "Harbour" (id 7) with `speakers` (Ana by default) and `segments` on its track. */
export function testProject(speakers: string[] = ["Ana"], segments: Segment[] = []): Project {
  return {
    id: 7,
    name: "Harbour",
    strategy: "natural",
    bed: null,
    beds: [],
    original: null,
    video: null,
    cast: null,
    frameRate: "25",
    length: 10,
    speakers: speakers.map((name, i) => ({ id: i + 1, name, voice: "af_heart", languageVoices: {}, muted: false, solo: false, levelDb: 0, audible: true })),
    noSpeakerLane: { muted: false, solo: false, levelDb: 0, audible: true },
    markers: [],
    tracks: [{ id: 1, language: "en-US", segments }],
    canUndo: false,
    canRedo: false,
  };
}
