// The timeline bench page (ui/timeline-bench.html): mounts a synthetic
// project (2,000 lines unless ?lines=N; ?zoom=px/s, ?at=seconds and
// ?select=id set the view, ?markers=N puts N markers along it), applies the timeline's intents to
// it in the page as a stand-in for the engine, plays the playhead on Play,
// and on Measure (or on load with ?auto) runs measureTimeline and prints the
// numbers, also to the console as `TIMELINE_BENCH {json}` and on
// window.timelineBench for a driven browser.
import "../styles.css";
import type { Project, Segment, Speaker } from "../model";
import type { Marker } from "./markers";
import { measureTimeline, type TimelineFrameStats } from "./measure";
import { syntheticProject } from "./synthetic";
import { TimelineView } from "./timeline-view";

declare global {
  interface Window {
    timelineBench?: {
      view: TimelineView;
      measure: (frames?: number) => Promise<TimelineFrameStats>;
      result: TimelineFrameStats | null;
    };
  }
}

const params = new URLSearchParams(location.search);
const lines = Number(params.get("lines") ?? 2000);
const frames = Number(params.get("frames") ?? 600);
const markerCount = Number(params.get("markers") ?? 0);
const synthetic = syntheticProject(lines);
let project: Project = synthetic.project;
let nextId = lines + 1;
const log = document.getElementById("bench-log")!;
const result = document.getElementById("bench-result")!;
document.getElementById("bench-lines")!.textContent = lines.toLocaleString("en");

const say = (text: string) => {
  log.textContent = `${text}\n${log.textContent ?? ""}`.split("\n").slice(0, 6).join("\n");
};

/** Applies an edit to the track's lines and hands the project back, as
 * the engine would after an intent. Edited lines go stale. */
function edit(change: (segments: Segment[]) => Segment[]): void {
  const track = project.tracks[0];
  project = { ...project, tracks: [{ ...track, segments: change(track.segments.map((s) => ({ ...s }))) }] };
  view.setProject(project, synthetic.trackId);
}

const stale = (s: Segment): Segment => ({ ...s, state: "stale", fit: null });

let markers: Marker[] = Array.from({ length: markerCount }, (_, i) => ({
  id: i + 1,
  at: Number((((i + 0.5) * project.length) / Math.max(1, markerCount)).toFixed(2)),
  name: `Marker ${i + 1}`,
}));

const view = new TimelineView(document.getElementById("bench-timeline")!, {
  select: (id) => say(`select ${id}`),
  seek: (seconds) => {
    playhead = seconds;
    say(`seek ${seconds.toFixed(2)}`);
  },
  move: (id, start) => {
    say(`move ${id} → ${start.toFixed(2)}`);
    edit((all) => all.map((s) => (s.id === id ? stale({ ...s, start, end: start + (s.end - s.start) }) : s)));
  },
  resize: (id, start, end) => {
    say(`resize ${id} → ${start.toFixed(2)}–${end.toFixed(2)}`);
    edit((all) => all.map((s) => (s.id === id ? stale({ ...s, start, end }) : s)));
  },
  split: (id, at) => {
    say(`split ${id} at ${at.toFixed(2)}`);
    edit((all) =>
      all.flatMap((s) => {
        if (s.id !== id) return [s];
        const words = s.text.split(" ");
        const half = Math.ceil(words.length / 2);
        return [
          stale({ ...s, end: at, text: words.slice(0, half).join(" ") }),
          stale({ ...s, id: nextId++, start: at, text: words.slice(half).join(" ") }),
        ];
      }),
    );
  },
  merge: (a, b) => {
    say(`merge ${a} + ${b}`);
    edit((all) => {
      const second = all.find((s) => s.id === b)!;
      return all.filter((s) => s.id !== b).map((s) => (s.id === a ? stale({ ...s, end: second.end, text: `${s.text} ${second.text}` }) : s));
    });
  },
  insert: (at, speakerId) => {
    say(`insert at ${at.toFixed(2)} for speaker ${speakerId}`);
    edit((all) => [...all, stale({ ...all[0], id: nextId++, start: at, end: at + 2, speakerId, text: "New line", error: null })]);
  },
  delete: (id) => {
    say(`delete ${id}`);
    edit((all) => all.filter((s) => s.id !== id));
  },
  requestPeaks: (id) => {
    const peaks = synthetic.peaks.get(id);
    if (peaks) queueMicrotask(() => view.setPeaks(id, peaks));
  },
  selectMarker: (id) => say(`marker ${id}`),
  moveMarker: (id, at) => {
    say(`marker ${id} → ${at.toFixed(3)}`);
    markers = markers.map((m) => (m.id === id ? { ...m, at } : m));
    view.setMarkers(markers);
  },
  laneMix: (speakerId, change) => {
    say(`lane ${speakerId} ${JSON.stringify(change)}`);
    if (speakerId === null) return;
    project = { ...project, speakers: project.speakers.map((s) => (s.id === speakerId ? ({ ...s, ...change } as Speaker) : s)) };
    view.setProject(project, synthetic.trackId);
  },
});
view.setProject(project, synthetic.trackId);
view.setMarkers(markers);
if (params.has("zoom")) view.setZoom(Number(params.get("zoom")));
if (params.has("at")) view.setScroll(Number(params.get("at")));
if (params.has("select")) view.selection = Number(params.get("select"));
view.setBedPeaks(synthetic.bed);
for (const [id, peaks] of synthetic.peaks) view.setPeaks(id, peaks);

// Playback stand-in: the playhead advances in real time while playing.
let playhead = 0;
let playing = false;
const playButton = document.getElementById("bench-play")!;
playButton.addEventListener("click", () => {
  playing = !playing;
  playButton.textContent = playing ? "Pause" : "Play";
  let last = performance.now();
  const tick = (now: number) => {
    if (!playing) return;
    playhead += (now - last) / 1000;
    last = now;
    view.setPlayhead(playhead);
    requestAnimationFrame(tick);
  };
  if (playing) requestAnimationFrame(tick);
});

async function measure(n = frames): Promise<TimelineFrameStats> {
  result.textContent = `Measuring ${n} frames…`;
  const stats = await measureTimeline(view, { frames: n });
  window.timelineBench!.result = stats;
  result.textContent = [
    `${lines} lines, ${stats.frames} frames (half scrolling at 20 px/s, half zooming ${"0.25–2000"} px/s)`,
    `draw per frame: mean ${stats.draw.meanMs} ms, p95 ${stats.draw.p95Ms} ms, max ${stats.draw.maxMs} ms`,
    `frame interval: mean ${stats.interval.meanMs} ms, p95 ${stats.interval.p95Ms} ms, max ${stats.interval.maxMs} ms, ${stats.droppedFrames} late`,
    `first paint after setProject: ${stats.firstPaintMs?.toFixed(1)} ms`,
  ].join("\n");
  console.log(`TIMELINE_BENCH ${JSON.stringify({ lines, ...stats })}`);
  return stats;
}

window.timelineBench = { view, measure, result: null };
document.getElementById("bench-run")!.addEventListener("click", () => void measure());
if (params.has("auto")) void measure();
