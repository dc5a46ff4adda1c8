// Paints the timeline onto its canvas from a Scene: ruler, lanes (dimmed
// when silent in the mix), the visible blocks only (with state colour, state
// icon and pattern, text, waveform, fit-problem badges, overlaps), the
// original dialogue (with its speech spans) and bed strips, the visible
// markers (flag on the ruler, line through the lanes), the drag preview with
// its in and out timecode and the snap guide, the playhead, and the lane
// headers with their S, M and level controls. Knows nothing of events or the engine.
import type { Segment, SegmentState } from "../model";
import { problemLabel, shownFit, type FitProblem, type SlotOverlap } from "./fit-problems";
import { formatFrameTime, type FrameGrid } from "./frames";
import { formatLevel } from "./lane-mix";
import { blockBox, laneControls, laneDimmed, type Rect, type TimelineLayout } from "./layout";
import { MARKER_FLAG_HEIGHT, MARKER_FLAG_MAX_PX, flagWidth, type Marker, type MarkerList } from "./markers";
import type { FrameRate } from "../timecode";
import { formatTickLabel, tickSpacing, tickTimes } from "./ruler";
import { lowerBound, type SpeechSpan } from "./speech-bounds";
import { timeToX, type TimeScale } from "./scale";
import type { SegmentIndex } from "./segment-index";
import type { SnapTarget } from "./snap";
import { peakColumns, type PeaksPyramid } from "./waveform";

/** Everything one frame shows. */
export interface Scene {
  /** CSS pixels. */
  width: number;
  height: number;
  layout: TimelineLayout;
  scale: TimeScale;
  index: SegmentIndex;
  laneOf: ReadonlyMap<number, number>;
  problems: ReadonlyMap<number, FitProblem[]>;
  overlaps: ReadonlyMap<number, SlotOverlap[]>;
  peaks: ReadonlyMap<number, PeaksPyramid>;
  bed: PeaksPyramid | null;
  hasBed: boolean;
  /** The original dialogue's waveform, once read (its strip is in the layout when the project has one). */
  original: PeaksPyramid | null;
  length: number;
  /** The project's timecode rate, which the ruler's labels are written at. */
  frameRate?: FrameRate;
  playhead: number;
  selectedId: number | null;
  hoverId: number | null;
  /** The line being dragged and where it would land. */
  drag: { id: number; start: number; end: number; snap: SnapTarget | null } | null;
  /** The frame grid drag labels are written at (seconds without one). */
  frames?: FrameGrid;
  /** Markers on the ruler, sorted. */
  markers?: MarkerList;
  /** The marker being dragged and where it would land. */
  markerDrag?: { id: number; at: number; snap: SnapTarget | null } | null;
  /** The original dialogue's speech, sorted (drawn along its strip). */
  speech?: readonly SpeechSpan[];
  /** Speech spans' starts, for finding the visible ones. */
  speechStarts?: readonly number[];
  /** Levels being changed, by speaker (null: the no-speaker lane), shown until the project has them. */
  pendingLevels?: ReadonlyMap<number | null, number>;
  /** Device pixels per CSS pixel (the lane headers are cached at it). */
  pixelRatio?: number;
}

export const COLORS = {
  background: "#151a24",
  ruler: "#252e41",
  rulerText: "#98a2b3",
  tick: "#3b4760",
  grid: "rgba(152, 162, 179, 0.08)",
  laneEven: "#1a2130",
  laneOdd: "#1d2433",
  header: "#1f2738",
  headerText: "#e6e9ef",
  border: "#2f3a50",
  text: "#e6e9ef",
  accent: "#ff7a59",
  accent2: "#5ad1c4",
  warning: "#f5b942",
  problem: "#f0605d",
  pastEnd: "rgba(0, 0, 0, 0.35)",
  bed: "#161c28",
  dim: "rgba(21, 26, 36, 0.6)",
  marker: "#f5b942",
  markerLine: "rgba(245, 185, 66, 0.55)",
  markerText: "#1b1b1b",
  solo: "#f5b942",
  mute: "#f0605d",
  speech: "rgba(240, 185, 95, 0.85)",
};

/** How each state looks: fill, border, and whether the border is dashed.
 * Each also has its own icon and (stale, rendering, failed) a pattern, so
 * the state reads without colour. */
export const STATE_STYLE: Record<SegmentState, { fill: string; border: string; dashed: boolean; label: string }> = {
  ready: { fill: "#24584c", border: "#4cc38a", dashed: false, label: "Ready" },
  stale: { fill: "#333b4e", border: "#98a2b3", dashed: true, label: "Stale (edited since its take)" },
  queued: { fill: "#2d3a5c", border: "#7f95c9", dashed: false, label: "Queued" },
  rendering: { fill: "#3f3566", border: "#a58cf0", dashed: false, label: "Rendering" },
  failed: { fill: "#5a2629", border: "#f0605d", dashed: false, label: "Failed" },
};

/** Each state's label alone (a flagged line's label adds its flags: `stateWords`). */
export const STATE_LABELS = Object.fromEntries(Object.entries(STATE_STYLE).map(([state, style]) => [state, style.label])) as Record<SegmentState, string>;

const FONT = '12px "Inter", "DejaVu Sans", system-ui, sans-serif';
const SMALL_FONT = '10.5px "Inter", "DejaVu Sans", system-ui, sans-serif';
const BUTTON_FONT = '600 10.5px "Inter", "DejaVu Sans", system-ui, sans-serif';

/** Scratch buffers reused frame to frame. */
export class DrawScratch {
  min = new Float32Array(0);
  max = new Float32Array(0);
  private patterns = new Map<string, CanvasPattern | null>();
  /** The lane headers, drawn once per layout, pending levels and pixel
   * ratio: they do not change as the view scrolls and zooms. */
  private headers: { canvas: HTMLCanvasElement; layout: TimelineLayout; key: string } | null = null;

  /** The headers' cached image, drawing it anew when `layout` or `key` changed;
   * null where an offscreen canvas cannot be had. */
  headerImage(layout: TimelineLayout, key: string, ratio: number, paint: (ctx: CanvasRenderingContext2D) => void): HTMLCanvasElement | null {
    const cached = this.headers;
    if (cached && cached.layout === layout && cached.key === key) return cached.canvas;
    const canvas = cached?.canvas ?? document.createElement("canvas");
    const w = Math.max(1, Math.round(layout.headerWidth * ratio));
    const h = Math.max(1, Math.round(layout.height * ratio));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    const ctx = canvas.getContext("2d");
    if (!ctx) return null;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, layout.headerWidth, layout.height);
    paint(ctx);
    this.headers = { canvas, layout, key };
    return canvas;
  }

  ensure(columns: number): void {
    if (this.min.length < columns) {
      this.min = new Float32Array(columns * 2);
      this.max = new Float32Array(columns * 2);
    }
  }

  /** Diagonal hatching in `color` (`cross` adds the other diagonal). */
  hatch(ctx: CanvasRenderingContext2D, color: string, cross = false): CanvasPattern | null {
    const key = `${color}/${cross}`;
    if (!this.patterns.has(key)) {
      const tile = document.createElement("canvas");
      tile.width = tile.height = 8;
      const t = tile.getContext("2d");
      if (t) {
        t.strokeStyle = color;
        t.lineWidth = 1.5;
        t.beginPath();
        t.moveTo(-2, 10);
        t.lineTo(10, -2);
        if (cross) {
          t.moveTo(-2, -2);
          t.lineTo(10, 10);
        }
        t.stroke();
      }
      this.patterns.set(key, ctx.createPattern(tile, "repeat"));
    }
    return this.patterns.get(key) ?? null;
  }
}

export function drawTimeline(ctx: CanvasRenderingContext2D, scene: Scene, scratch: DrawScratch): void {
  const { width, layout } = scene;
  const lanesWidth = Math.max(0, width - layout.headerWidth);
  scratch.ensure(Math.ceil(lanesWidth) + 2);

  ctx.fillStyle = COLORS.background;
  ctx.fillRect(0, 0, width, scene.height);

  ctx.save();
  ctx.translate(layout.headerWidth, 0);
  ctx.beginPath();
  ctx.rect(0, 0, lanesWidth, scene.height);
  ctx.clip();
  drawLanes(ctx, scene, lanesWidth);
  drawBlocks(ctx, scene, scratch, lanesWidth);
  dimSilentLanes(ctx, scene, lanesWidth);
  drawBed(ctx, scene, scratch, lanesWidth);
  drawOriginal(ctx, scene, scratch, lanesWidth);
  drawRuler(ctx, scene, lanesWidth);
  drawMarkers(ctx, scene, lanesWidth);
  drawDragGuide(ctx, scene);
  drawPlayhead(ctx, scene);
  ctx.restore();

  // The headers change only with the layout or a level being changed.
  const ratio = scene.pixelRatio ?? 1;
  let key = `${ratio} ${typeof document !== "undefined" ? document.fonts?.status : ""}`;
  scene.pendingLevels?.forEach((db, speakerId) => (key += ` ${speakerId}:${db}`));
  const image = scratch.headerImage(layout, key, ratio, (c) => drawHeaders(c, scene));
  if (image) ctx.drawImage(image, 0, 0, layout.headerWidth, layout.height);
  else drawHeaders(ctx, scene);
}

function visibleSpan(scene: Scene, lanesWidth: number): [number, number] {
  const from = scene.scale.scrollSeconds;
  return [from, from + lanesWidth / scene.scale.pxPerSecond];
}

function drawLanes(ctx: CanvasRenderingContext2D, scene: Scene, lanesWidth: number): void {
  const { layout, scale } = scene;
  layout.lanes.forEach((lane, i) => {
    ctx.fillStyle = i % 2 === 0 ? COLORS.laneEven : COLORS.laneOdd;
    ctx.fillRect(0, lane.y, lanesWidth, lane.height);
  });
  // Major-tick grid lines through the lanes.
  const [from, to] = visibleSpan(scene, lanesWidth);
  const { major } = tickSpacing(scale.pxPerSecond);
  ctx.strokeStyle = COLORS.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  const bottom = layout.bed.y + layout.bed.height;
  for (const t of tickTimes(from, to, major)) {
    const x = Math.round(timeToX(scale, t)) + 0.5;
    ctx.moveTo(x, layout.rulerHeight);
    ctx.lineTo(x, bottom);
  }
  ctx.stroke();
  // Past the programme's end.
  const endX = timeToX(scale, scene.length);
  if (endX < lanesWidth) {
    ctx.fillStyle = COLORS.pastEnd;
    ctx.fillRect(Math.max(0, endX), layout.rulerHeight, lanesWidth - Math.max(0, endX), bottom - layout.rulerHeight);
  }
}

function drawRuler(ctx: CanvasRenderingContext2D, scene: Scene, lanesWidth: number): void {
  const { layout, scale } = scene;
  const h = layout.rulerHeight;
  ctx.fillStyle = COLORS.ruler;
  ctx.fillRect(0, 0, lanesWidth, h);
  ctx.fillStyle = COLORS.border;
  ctx.fillRect(0, h - 1, lanesWidth, 1);
  const [from, to] = visibleSpan(scene, lanesWidth);
  const { major, minor } = tickSpacing(scale.pxPerSecond);
  ctx.strokeStyle = COLORS.tick;
  ctx.lineWidth = 1;
  ctx.beginPath();
  if (minor < major) {
    for (const t of tickTimes(from, to, minor)) {
      const x = Math.round(timeToX(scale, t)) + 0.5;
      ctx.moveTo(x, h - 6);
      ctx.lineTo(x, h);
    }
  }
  ctx.stroke();
  ctx.strokeStyle = COLORS.rulerText;
  ctx.fillStyle = COLORS.rulerText;
  ctx.font = SMALL_FONT;
  ctx.textBaseline = "top";
  ctx.textAlign = "left";
  ctx.beginPath();
  for (const t of tickTimes(Math.max(0, from - major), to, major)) {
    const x = Math.round(timeToX(scale, t)) + 0.5;
    ctx.moveTo(x, h - 12);
    ctx.lineTo(x, h);
    ctx.fillText(formatTickLabel(t, major, scene.frameRate), x + 3, 4);
  }
  ctx.stroke();
}

function drawBlocks(ctx: CanvasRenderingContext2D, scene: Scene, scratch: DrawScratch, lanesWidth: number): void {
  const [from, to] = visibleSpan(scene, lanesWidth);
  const { index } = scene;
  const [first, last] = index.visibleRange(from, to);
  let selected: Segment | null = null;
  for (let i = first; i < last; i++) {
    const segment = index.segments[i];
    if (segment.id === scene.selectedId) {
      selected = segment;
      continue;
    }
    drawBlock(ctx, scene, scratch, segment, lanesWidth, scene.drag?.id === segment.id);
  }
  // The selected line on top, even when it is off to the left.
  const chosen = selected ?? (scene.selectedId !== null ? index.byId(scene.selectedId) ?? null : null);
  if (chosen) drawBlock(ctx, scene, scratch, chosen, lanesWidth, scene.drag?.id === chosen.id);
  if (scene.drag) {
    const dragged = index.byId(scene.drag.id);
    if (dragged) drawDragPreview(ctx, scene, dragged);
  }
}

function drawBlock(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  scratch: DrawScratch,
  segment: Segment,
  lanesWidth: number,
  ghost: boolean,
): void {
  const { scale, layout } = scene;
  const laneIndex = scene.laneOf.get(segment.id) ?? layout.lanes.length - 1;
  const lane = layout.lanes[laneIndex];
  const box = blockBox(lane);
  const x0 = timeToX(scale, segment.start);
  const x1 = timeToX(scale, segment.end);
  const fit = shownFit(segment);
  const placedStart = fit ? timeToX(scale, fit.start) : x0;
  const placedEnd = fit ? timeToX(scale, fit.end) : x1;
  if (Math.max(x1, placedEnd) < -2 || Math.min(x0, placedStart) > lanesWidth + 2) return;
  const left = Math.round(x0);
  const w = Math.max(1, Math.round(x1) - left);
  const style = STATE_STYLE[segment.state];
  const selected = segment.id === scene.selectedId;

  ctx.save();
  if (ghost) ctx.globalAlpha = 0.35;

  // Placed (or, before a render, predicted) audio running past the slot:
  // a hatched tail in the problem colour; starting before it, a hatched head.
  const spill = (from: number, to: number) => {
    ctx.fillStyle = "rgba(240, 96, 93, 0.18)";
    ctx.fillRect(from, box.y + 18, to - from, box.height - 18);
    const hatch = scratch.hatch(ctx, "rgba(240, 96, 93, 0.45)");
    if (hatch) {
      ctx.fillStyle = hatch;
      ctx.fillRect(from, box.y + 18, to - from, box.height - 18);
    }
  };
  if (fit && placedEnd > x1 + 0.5) spill(left + w, Math.round(placedEnd));
  if (fit && placedStart < left - 0.5) spill(Math.round(placedStart), left);

  ctx.fillStyle = style.fill;
  ctx.fillRect(left, box.y, w, box.height);
  if (segment.state === "stale" || segment.state === "rendering" || segment.state === "failed") {
    const pattern = scratch.hatch(
      ctx,
      segment.state === "failed" ? "rgba(240, 96, 93, 0.35)" : "rgba(230, 233, 239, 0.10)",
      segment.state === "failed",
    );
    if (pattern) {
      ctx.fillStyle = pattern;
      ctx.fillRect(left, box.y, w, box.height);
    }
  }

  if (w >= 3) drawBlockWaveform(ctx, scene, scratch, segment, box, lanesWidth);
  // Before its render: how long it will be spoken, as a bar along the block's foot.
  if (segment.state !== "ready" && segment.planned) {
    const from = Math.round(timeToX(scale, segment.planned.start));
    const to = Math.round(timeToX(scale, segment.planned.end));
    const tooLong = segment.flags.some((f) => f.kind === "doesntFit");
    ctx.fillStyle = tooLong ? COLORS.problem : COLORS.accent2;
    ctx.fillRect(from, box.y + box.height - 4, Math.max(1, to - from), 3);
  }

  // Slot overlaps with the same speaker: a red band over the shared span.
  for (const overlap of scene.overlaps.get(segment.id) ?? []) {
    const ox0 = Math.round(timeToX(scale, overlap.start));
    const ox1 = Math.round(timeToX(scale, overlap.end));
    ctx.fillStyle = COLORS.problem;
    ctx.fillRect(ox0, box.y, Math.max(1, ox1 - ox0), 4);
    const hatch = scratch.hatch(ctx, "rgba(240, 96, 93, 0.5)", true);
    if (hatch) {
      ctx.fillStyle = hatch;
      ctx.fillRect(ox0, box.y + 4, Math.max(1, ox1 - ox0), box.height - 4);
    }
  }

  // Border: the state's colour (dashed when stale); the accent when selected.
  ctx.lineWidth = selected ? 2 : 1;
  ctx.strokeStyle = selected ? COLORS.accent : segment.id === scene.hoverId ? COLORS.text : style.border;
  ctx.setLineDash(style.dashed && !selected ? [4, 3] : []);
  const inset = selected ? 1 : 0.5;
  ctx.strokeRect(left + inset, box.y + inset, Math.max(0, w - 2 * inset), box.height - 2 * inset);
  ctx.setLineDash([]);

  if (w >= 14) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(left + 1, box.y + 1, w - 2, box.height - 2);
    ctx.clip();
    const textLeft = Math.max(left, 0) + 5;
    drawStateIcon(ctx, segment.state, textLeft + 5, box.y + 11, style.border);
    const problems = scene.problems.get(segment.id) ?? [];
    const badgesWidth = w >= 60 ? drawBadges(ctx, problems, left + w - 4, box.y + 4) : 0;
    if (w >= 34) {
      ctx.fillStyle = COLORS.text;
      ctx.font = FONT;
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      const maxWidth = left + w - badgesWidth - 6 - (textLeft + 14);
      if (maxWidth > 8) ctx.fillText(fitText(ctx, segment.text, maxWidth), textLeft + 14, box.y + 11);
    }
    if (problems.length > 0 && w < 60) drawWarningMark(ctx, left + w - 9, box.y + box.height - 9);
    ctx.restore();
  } else if ((scene.problems.get(segment.id)?.length ?? 0) > 0 || scene.overlaps.has(segment.id)) {
    // Too narrow for badges: a red tick on top still says something is off.
    ctx.fillStyle = COLORS.problem;
    ctx.fillRect(left, box.y - 3, w, 3);
  }
  ctx.restore();
}

/** The rendered line's waveform over its placed span, in the block's lower
 * part (continuing into the tail past the slot). */
function drawBlockWaveform(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  scratch: DrawScratch,
  segment: Segment,
  box: { y: number; height: number },
  lanesWidth: number,
): void {
  const pyramid = scene.peaks.get(segment.id);
  if (!pyramid) return;
  const { scale } = scene;
  const top = box.y + 20;
  const height = box.height - 22;
  if (height < 6) return;
  const start = segment.fit?.start ?? segment.start;
  const end = segment.fit?.end ?? segment.end;
  const x0 = Math.max(0, Math.floor(timeToX(scale, start)));
  const x1 = Math.min(lanesWidth, Math.ceil(timeToX(scale, end)));
  drawWave(ctx, scene, scratch, pyramid, x0, x1, top, height, "rgba(230, 233, 239, 0.55)");
}

function drawWave(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  scratch: DrawScratch,
  pyramid: PeaksPyramid,
  x0: number,
  x1: number,
  top: number,
  height: number,
  color: string,
): void {
  const columns = x1 - x0;
  if (columns <= 0) return;
  const secondsPerPixel = 1 / scene.scale.pxPerSecond;
  const peaks = pyramid.levelFor(secondsPerPixel);
  scratch.ensure(columns);
  peakColumns(peaks, scene.scale.scrollSeconds + x0 * secondsPerPixel, secondsPerPixel, columns, scratch.min, scratch.max);
  const mid = top + height / 2;
  const half = height / 2;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let c = 0; c < columns; c++) {
    const hi = scratch.max[c];
    if (Number.isNaN(hi)) continue;
    const lo = scratch.min[c];
    const x = x0 + c + 0.5;
    const yTop = mid - Math.max(0, Math.min(1, hi)) * half;
    const yBottom = mid - Math.max(-1, Math.min(0, lo)) * half;
    ctx.moveTo(x, yTop);
    ctx.lineTo(x, Math.max(yBottom, yTop + 1));
  }
  ctx.stroke();
}

/** Problem badges right-aligned from `right`; returns the width used. */
function drawBadges(ctx: CanvasRenderingContext2D, problems: FitProblem[], right: number, y: number): number {
  ctx.font = SMALL_FONT;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  let x = right;
  for (const problem of problems) {
    const label = problemLabel(problem);
    const w = ctx.measureText(label).width + 8;
    x -= w;
    ctx.fillStyle = problem.kind === "runs-into-next" || problem.kind === "heard" || problem.kind === "doesnt-fit" || problem.kind === "unreadable" ? COLORS.problem : COLORS.warning;
    ctx.fillRect(Math.round(x), y, Math.round(w), 14);
    ctx.fillStyle = "#1b1b1b";
    ctx.fillText(label, Math.round(x) + 4, y + 7.5);
    x -= 3;
  }
  return right - x;
}

/** A small warning triangle with an exclamation mark. */
function drawWarningMark(ctx: CanvasRenderingContext2D, cx: number, cy: number): void {
  ctx.fillStyle = COLORS.warning;
  ctx.beginPath();
  ctx.moveTo(cx, cy - 6);
  ctx.lineTo(cx + 6, cy + 5);
  ctx.lineTo(cx - 6, cy + 5);
  ctx.closePath();
  ctx.fill();
  ctx.fillStyle = "#1b1b1b";
  ctx.fillRect(cx - 0.75, cy - 2, 1.5, 4);
  ctx.fillRect(cx - 0.75, cy + 3, 1.5, 1.2);
}

/** Each state's icon, drawn as shapes (no font needed): ready a tick,
 * stale a hollow ring, queued three dots, rendering a half-filled ring,
 * failed a cross. */
export function drawStateIcon(ctx: CanvasRenderingContext2D, state: SegmentState, cx: number, cy: number, color: string): void {
  ctx.save();
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 1.8;
  ctx.lineCap = "round";
  ctx.beginPath();
  switch (state) {
    case "ready":
      ctx.moveTo(cx - 4, cy);
      ctx.lineTo(cx - 1.5, cy + 3);
      ctx.lineTo(cx + 4, cy - 3.5);
      ctx.stroke();
      break;
    case "stale":
      ctx.arc(cx, cy, 4, 0, Math.PI * 2);
      ctx.stroke();
      break;
    case "queued":
      for (const dx of [-4, 0, 4]) {
        ctx.moveTo(cx + dx + 1.2, cy);
        ctx.arc(cx + dx, cy, 1.2, 0, Math.PI * 2);
      }
      ctx.fill();
      break;
    case "rendering":
      ctx.arc(cx, cy, 4, 0, Math.PI * 2);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      ctx.arc(cx, cy, 4, -Math.PI / 2, Math.PI / 2);
      ctx.closePath();
      ctx.fill();
      break;
    case "failed":
      ctx.strokeStyle = COLORS.problem;
      ctx.moveTo(cx - 3.5, cy - 3.5);
      ctx.lineTo(cx + 3.5, cy + 3.5);
      ctx.moveTo(cx + 3.5, cy - 3.5);
      ctx.lineTo(cx - 3.5, cy + 3.5);
      ctx.stroke();
      break;
  }
  ctx.restore();
}

/** The text cut to `maxWidth` with an ellipsis. Estimates from the average
 * character width first so a long line costs one or two measurements. */
function fitText(ctx: CanvasRenderingContext2D, text: string, maxWidth: number): string {
  const full = ctx.measureText(text).width;
  if (full <= maxWidth) return text;
  let n = Math.max(0, Math.floor((text.length * maxWidth) / full) - 1);
  while (n > 0 && ctx.measureText(text.slice(0, n) + "…").width > maxWidth) n = Math.floor(n * 0.85);
  return n > 0 ? text.slice(0, n) + "…" : "";
}

function drawDragPreview(ctx: CanvasRenderingContext2D, scene: Scene, segment: Segment): void {
  const drag = scene.drag;
  if (!drag) return;
  const lane = scene.layout.lanes[scene.laneOf.get(segment.id) ?? scene.layout.lanes.length - 1];
  const box = blockBox(lane);
  const left = Math.round(timeToX(scene.scale, drag.start));
  const w = Math.max(1, Math.round(timeToX(scene.scale, drag.end)) - left);
  ctx.fillStyle = "rgba(255, 122, 89, 0.22)";
  ctx.fillRect(left, box.y, w, box.height);
  ctx.strokeStyle = COLORS.accent;
  ctx.lineWidth = 2;
  ctx.setLineDash([5, 3]);
  ctx.strokeRect(left + 1, box.y + 1, w - 2, box.height - 2);
  ctx.setLineDash([]);
  if (w > 40) {
    ctx.fillStyle = COLORS.text;
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    const text = fitText(ctx, dragLabel(drag.start, drag.end, scene.frames), w - 12);
    if (text) ctx.fillText(text, left + 6, box.y + box.height / 2);
  }
}

/** In and out of a dragged line: timecode at the frame grid, or seconds. */
export function dragLabel(start: number, end: number, frames?: FrameGrid): string {
  return frames ? `${formatFrameTime(start, frames)} – ${formatFrameTime(end, frames)}` : `${start.toFixed(2)}–${end.toFixed(2)} s`;
}

function drawDragGuide(ctx: CanvasRenderingContext2D, scene: Scene): void {
  const snap = scene.drag?.snap ?? scene.markerDrag?.snap;
  if (!snap) return;
  const x = Math.round(timeToX(scene.scale, snap.time)) + 0.5;
  ctx.strokeStyle = COLORS.accent2;
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 3]);
  ctx.beginPath();
  ctx.moveTo(x, 0);
  ctx.lineTo(x, scene.layout.bed.y + scene.layout.bed.height);
  ctx.stroke();
  ctx.setLineDash([]);
}

function drawBed(ctx: CanvasRenderingContext2D, scene: Scene, scratch: DrawScratch, lanesWidth: number): void {
  const loading = scene.hasBed ? "Bed waveform loading…" : "No bed in this project";
  drawStrip(ctx, scene, scratch, lanesWidth, scene.layout.bed, scene.bed, loading, "rgba(90, 209, 196, 0.6)");
}

function drawOriginal(ctx: CanvasRenderingContext2D, scene: Scene, scratch: DrawScratch, lanesWidth: number): void {
  const strip = scene.layout.original;
  if (!strip) return;
  drawStrip(ctx, scene, scratch, lanesWidth, strip, scene.original, "Original dialogue loading…", "rgba(240, 185, 95, 0.6)");
  // Where it speaks (what line edges snap to): a bar along the strip's foot.
  const spans = scene.speech;
  const starts = scene.speechStarts;
  if (!spans || !starts || spans.length === 0) return;
  const [from, to] = visibleSpan(scene, lanesWidth);
  ctx.fillStyle = COLORS.speech;
  // Spans do not overlap, so the one before the first start in view may reach in.
  for (let i = Math.max(0, lowerBound(starts, from) - 1); i < spans.length && spans[i].start <= to; i++) {
    const x0 = Math.round(timeToX(scene.scale, spans[i].start));
    const x1 = Math.round(timeToX(scene.scale, spans[i].end));
    if (x1 < 0) continue;
    ctx.fillRect(x0, strip.y + strip.height - 3, Math.max(1, x1 - x0), 2);
  }
}

/** Lanes silent in the mix (muted, or not soloed while another is) under a veil. */
function dimSilentLanes(ctx: CanvasRenderingContext2D, scene: Scene, lanesWidth: number): void {
  const { layout } = scene;
  ctx.fillStyle = COLORS.dim;
  for (let i = 0; i < layout.lanes.length; i++) {
    if (!laneDimmed(layout, i)) continue;
    const lane = layout.lanes[i];
    ctx.fillRect(0, lane.y, lanesWidth, lane.height);
  }
}

/** The visible markers: a thin line down through the lanes and a flag with
 * the name on the ruler; the one being dragged where it would land. */
function drawMarkers(ctx: CanvasRenderingContext2D, scene: Scene, lanesWidth: number): void {
  const list = scene.markers;
  const dragged = scene.markerDrag ?? null;
  if ((!list || list.length === 0) && !dragged) return;
  const { scale } = scene;
  const [from, to] = visibleSpan(scene, lanesWidth);
  const shown: Marker[] = [];
  if (list) {
    const [first, last] = list.visibleRange(from, to, MARKER_FLAG_MAX_PX / scale.pxPerSecond);
    for (let i = first; i < last; i++) if (list.markers[i].id !== dragged?.id) shown.push(list.markers[i]);
  }
  const draggedMarker = dragged ? list?.byId(dragged.id) : undefined;
  if (dragged && draggedMarker) shown.push({ ...draggedMarker, at: dragged.at });
  if (shown.length === 0) return;

  const bottom = scene.layout.bed.y + scene.layout.bed.height;
  const h = scene.layout.rulerHeight;
  ctx.fillStyle = COLORS.markerLine;
  for (const m of shown) ctx.fillRect(Math.round(timeToX(scale, m.at)), h, 1, bottom - h);

  const top = h - 1 - MARKER_FLAG_HEIGHT;
  ctx.font = SMALL_FONT;
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  for (const m of shown) {
    const x = Math.round(timeToX(scale, m.at));
    const w = flagWidth(m.name);
    ctx.globalAlpha = m.id === dragged?.id ? 0.8 : 1;
    ctx.fillStyle = COLORS.marker;
    ctx.fillRect(x, 0, 1, h);
    ctx.fillRect(x, top, w, MARKER_FLAG_HEIGHT);
    const text = w > 14 ? fitText(ctx, m.name, w - 7) : "";
    if (text) {
      ctx.fillStyle = COLORS.markerText;
      ctx.fillText(text, x + 4, top + MARKER_FLAG_HEIGHT / 2 + 0.5);
    }
  }
  ctx.globalAlpha = 1;
}

/** A waveform strip under the lanes (the original dialogue, the bed), or
 * what it says while there is no waveform to draw. */
function drawStrip(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  scratch: DrawScratch,
  lanesWidth: number,
  strip: { y: number; height: number },
  wave: PeaksPyramid | null,
  missing: string,
  color: string,
): void {
  ctx.fillStyle = COLORS.bed;
  ctx.fillRect(0, strip.y, lanesWidth, strip.height);
  ctx.fillStyle = COLORS.border;
  ctx.fillRect(0, strip.y, lanesWidth, 1);
  if (wave) {
    const x0 = Math.max(0, Math.floor(timeToX(scene.scale, wave.source.start)));
    drawWave(ctx, scene, scratch, wave, x0, Math.ceil(lanesWidth), strip.y + 4, strip.height - 8, color);
  } else {
    ctx.fillStyle = COLORS.rulerText;
    ctx.font = SMALL_FONT;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.fillText(missing, 8, strip.y + strip.height / 2);
  }
}

function drawPlayhead(ctx: CanvasRenderingContext2D, scene: Scene): void {
  const x = Math.round(timeToX(scene.scale, scene.playhead)) + 0.5;
  const bottom = scene.layout.bed.y + scene.layout.bed.height;
  ctx.strokeStyle = COLORS.accent;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(x, 0);
  ctx.lineTo(x, bottom);
  ctx.stroke();
  ctx.fillStyle = COLORS.accent;
  ctx.beginPath();
  ctx.moveTo(x - 6, 0);
  ctx.lineTo(x + 6, 0);
  ctx.lineTo(x, 9);
  ctx.closePath();
  ctx.fill();
}

function drawHeaders(ctx: CanvasRenderingContext2D, scene: Scene): void {
  const { layout } = scene;
  const w = layout.headerWidth;
  ctx.fillStyle = COLORS.ruler;
  ctx.fillRect(0, 0, w, layout.rulerHeight);
  ctx.fillStyle = COLORS.header;
  ctx.fillRect(0, layout.rulerHeight, w, layout.height - layout.rulerHeight);
  layout.lanes.forEach((lane, i) => {
    const dimmed = laneDimmed(layout, i);
    ctx.fillStyle = COLORS.border;
    ctx.fillRect(0, lane.y + lane.height - 1, w, 1);
    const controls = laneControls(lane, w);
    ctx.globalAlpha = dimmed ? 0.55 : 1;
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.fillStyle = lane.speakerId === null ? COLORS.rulerText : COLORS.headerText;
    ctx.fillText(fitText(ctx, lane.name, w - 20), 12, Math.min(lane.y + 18, (lane.y + controls.solo.y) / 2));
    ctx.globalAlpha = 1;
    drawToggle(ctx, controls.solo, "S", lane.mix.solo, COLORS.solo);
    drawToggle(ctx, controls.mute, "M", lane.mix.muted, COLORS.mute);
    const pending = scene.pendingLevels?.get(lane.speakerId);
    const level = controls.level;
    ctx.strokeStyle = COLORS.border;
    ctx.lineWidth = 1;
    ctx.strokeRect(level.x + 0.5, level.y + 0.5, level.width - 1, level.height - 1);
    ctx.font = SMALL_FONT;
    ctx.textAlign = "right";
    ctx.fillStyle = pending !== undefined ? COLORS.accent2 : dimmed ? COLORS.rulerText : COLORS.headerText;
    ctx.fillText(formatLevel(pending ?? lane.mix.levelDb), level.x + level.width - 5, level.y + level.height / 2 + 0.5);
  });
  ctx.textAlign = "left";
  ctx.font = FONT;
  ctx.fillStyle = COLORS.rulerText;
  if (layout.original) ctx.fillText("Original", 12, layout.original.y + layout.original.height / 2);
  ctx.fillText("Bed", 12, layout.bed.y + layout.bed.height / 2);
  ctx.fillStyle = COLORS.border;
  ctx.fillRect(w - 1, 0, 1, layout.height);
}

/** An S or M toggle: filled in its colour when on, outlined when off. */
function drawToggle(ctx: CanvasRenderingContext2D, r: Rect, label: string, on: boolean, color: string): void {
  if (on) {
    ctx.fillStyle = color;
    ctx.fillRect(r.x, r.y, r.width, r.height);
  } else {
    ctx.strokeStyle = COLORS.border;
    ctx.lineWidth = 1;
    ctx.strokeRect(r.x + 0.5, r.y + 0.5, r.width - 1, r.height - 1);
  }
  ctx.font = BUTTON_FONT;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillStyle = on ? COLORS.markerText : COLORS.rulerText;
  ctx.fillText(label, r.x + r.width / 2, r.y + r.height / 2 + 0.5);
}
