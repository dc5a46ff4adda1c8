// The script bench page (ui/script-bench.html): mounts the script view on
// a synthetic track (2,000 lines unless ?lines=N) dubbed from a made-up
// original track (?original=0 leaves it out), applies the view's intents
// in the page as a stand-in for the engine, plays the playhead on Play,
// and on Measure (or on load with ?auto) runs measureScript over ?frames=N
// frames and prints the numbers, also to the console as
// `SCRIPT_BENCH {json}` and on window.scriptBench for a driven browser.
import "../styles.css";
import type { Project, Segment, Track } from "../model";
import { frameRate } from "../timecode";
import { syntheticProject } from "../timeline/synthetic";
import { matcher } from "./find";
import { measureScript, type ScriptFrameStats } from "./measure";
import { ScriptView } from "./script-view";

declare global {
  interface Window {
    scriptBench?: {
      view: ScriptView;
      measure: (frames?: number) => Promise<ScriptFrameStats>;
      result: ScriptFrameStats | null;
    };
  }
}

const params = new URLSearchParams(location.search);
const lines = Number(params.get("lines") ?? 2000);
const frames = Number(params.get("frames") ?? 600);
const withOriginal = params.get("original") !== "0";
const synthetic = syntheticProject(lines);
const dubbed = synthetic.project.tracks[0];

/** The dub's track, and before it an original whose lines sit a little
 * off the dub's slots (so the lookup has work to do). */
function tracks(): Track[] {
  if (!withOriginal) return [dubbed];
  const original: Track = {
    id: 1000,
    language: "en",
    segments: dubbed.segments.map((s) => ({ ...s, id: s.id + 100_000, trackId: 1000, start: s.start + 0.15, end: s.end - 0.1, text: `[en] ${s.text}` })),
  };
  return [original, { ...dubbed, language: "fr" }];
}

let project: Project = { ...synthetic.project, tracks: tracks() };
const trackId = dubbed.id;
const rate = frameRate(project.frameRate);
const log = document.getElementById("bench-log")!;
const result = document.getElementById("bench-result")!;
document.getElementById("bench-lines")!.textContent = lines.toLocaleString("en");

const say = (text: string) => {
  log.textContent = `${text}\n${log.textContent ?? ""}`.split("\n").slice(0, 6).join("\n");
};

/** Changes the dub's lines and hands the project back, as the engine
 * would. Edited lines go stale. */
function edit(change: (segment: Segment) => Segment): void {
  project = { ...project, tracks: project.tracks.map((t) => (t.id === trackId ? { ...t, segments: t.segments.map(change) } : t)) };
  view.setProject(project, trackId, rate);
}

const view = new ScriptView(document.getElementById("bench-script")!, {
  select: (id) => {
    say(`select ${id}`);
    const s = project.tracks.find((t) => t.id === trackId)?.segments.find((x) => x.id === id);
    if (s) setPlayhead(s.start);
  },
  seek: (seconds) => {
    say(`seek ${seconds.toFixed(2)}`);
    setPlayhead(seconds);
  },
  saveText: async (id, text) => {
    if (text.trim() === "") {
      say(`refused: line ${id} left empty`);
      return false;
    }
    say(`save ${id}: ${JSON.stringify(text)}`);
    edit((s) => (s.id === id ? { ...s, text, state: "stale", fit: null } : s));
    return true;
  },
  replace: async (find, replacement, options) => {
    const search = matcher(find, options);
    const only = options.only ? new Set(options.only) : null;
    let changed = 0;
    edit((s) => {
      if (!search || (only && !only.has(s.id))) return s;
      const text = search.replace(s.text, replacement);
      if (text === s.text) return s;
      changed += 1;
      return { ...s, text, state: "stale", fit: null };
    });
    say(`replace ${JSON.stringify(find)} → ${JSON.stringify(replacement)}: ${changed} lines`);
    return changed;
  },
});
view.setProject(project, trackId, rate);
if (params.has("select")) view.setSelection(Number(params.get("select")));

// Playback stand-in: the playhead advances in real time while playing.
let playhead = 0;
let playing = false;
function setPlayhead(seconds: number): void {
  playhead = seconds;
  view.setPlayhead(seconds);
}
const playButton = document.getElementById("bench-play")!;
playButton.addEventListener("click", () => {
  playing = !playing;
  playButton.textContent = playing ? "Pause" : "Play";
  let last = performance.now();
  const tick = (now: number) => {
    if (!playing) return;
    setPlayhead(playhead + (now - last) / 1000);
    last = now;
    requestAnimationFrame(tick);
  };
  if (playing) requestAnimationFrame(tick);
});

async function measure(n = frames): Promise<ScriptFrameStats> {
  result.textContent = `Measuring ${n} frames…`;
  const stats = await measureScript(view, { frames: n });
  window.scriptBench!.result = stats;
  result.textContent = [
    `${stats.rows} rows, ${stats.frames} frames scrolling top to bottom at ${stats.pxPerFrame} px a frame${withOriginal ? ", with the original column" : ""}`,
    `draw per frame: mean ${stats.draw.meanMs} ms, p95 ${stats.draw.p95Ms} ms, max ${stats.draw.maxMs} ms`,
    `frame interval: mean ${stats.interval.meanMs} ms, p95 ${stats.interval.p95Ms} ms, max ${stats.interval.maxMs} ms, ${stats.droppedFrames} late (idle: mean ${stats.idleInterval.meanMs} ms)`,
    `row elements in the DOM: at most ${stats.maxDomRows}; first paint after setProject: ${stats.firstPaintMs?.toFixed(1)} ms`,
  ].join("\n");
  console.log(`SCRIPT_BENCH ${JSON.stringify({ lines, ...stats })}`);
  return stats;
}

window.scriptBench = { view, measure, result: null };
document.getElementById("bench-run")!.addEventListener("click", () => void measure());
if (params.has("auto")) void measure();
