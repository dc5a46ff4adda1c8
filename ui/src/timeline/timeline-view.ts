// The timeline editor component: mounts a toolbar, a canvas and a drawn
// scrollbar into a container, draws the current track on requestAnimationFrame
// when something changed, and turns pointer gestures into intents (select,
// seek, move, resize, split, merge, insert, delete, marker select and move,
// lane solo / mute / level) through its callbacks. Snaps edits to lines'
// edges, the original dialogue's speech, the playhead, ticks and frames.
// It never calls the engine and never changes the project itself: the caller
// applies an intent and hands the new project back with setProject, or,
// when only lines' states changed (a render running), with updateSegments,
// which repaints without rebuilding the index.
// Keyboard-free: the caller wires shortcuts to the public methods.
import "./timeline.css";
import type { Peaks, Project, Segment } from "../model";
import { el } from "../dom";
import { changed, dragPreview, dragTime, isDrag, type DragPreview, type SegmentDrag } from "./drag";
import { DrawScratch, STATE_LABELS, drawTimeline, type Scene } from "./draw";
import { fitProblems, problemSentence, slotOverlaps, stateWords, type FitProblem, type SlotOverlap } from "./fit-problems";
import { formatFrameTime, frameGrid, gridOfRate, type FrameGrid } from "./frames";
import { hitTest, type Hit, type SegmentPart } from "./hit-test";
import { LEVEL_IDLE_MS, WheelSteps, dragLevel, formatLevel, stepLevel, type LaneMixChange } from "./lane-mix";
import { DEFAULT_SIZES, laneIndexOf, layoutLanes, type TimelineLayout } from "./layout";
import { MarkerList, type Marker } from "./markers";
import { nudgeSlot } from "./nudge";
import { frameRate } from "../timecode";
import { formatTimecode } from "./ruler";
import { speechBoundaries, speechSpans, type SpeechSpan } from "./speech-bounds";
import {
  clampScroll,
  clampZoom,
  followScroll,
  maxScroll,
  timeToX,
  wheelZoomFactor,
  xToTime,
  zoomAround,
  zoomLevelIn,
  zoomLevelOut,
  zoomToFit,
  type TimeScale,
} from "./scale";
import { scrollForThumb, thumbGeometry } from "./scrollbar";
import { SegmentIndex } from "./segment-index";
import { snapTargets } from "./snap";
import { PeaksPyramid } from "./waveform";

/** The intents the timeline emits. The caller applies them through the
 * engine and calls setProject with the result. */
export interface TimelineCallbacks {
  /** The user picked a line (or clicked empty space: null). */
  select(id: number | null): void;
  /** The user clicked or scrubbed the ruler or an empty lane. */
  seek(seconds: number): void;
  /** A line dragged to a new slot start (its length kept). */
  move(id: number, newStart: number): void;
  /** A line resized by one of its edges. */
  resize(id: number, newStart: number, newEnd: number): void;
  /** Split a line at a programme time inside it. */
  split(id: number, atSeconds: number): void;
  /** Merge two lines of the same speaker, `idA` the earlier. */
  merge(idA: number, idB: number): void;
  /** A new line at a time in a speaker's lane (null: no speaker). */
  insert(atSeconds: number, speakerId: number | null): void;
  delete(id: number): void;
  /** A rendered line came into view without a waveform; asked once per
   * line until setPeaks brings it. */
  requestPeaks?(segmentId: number): void;
  /** Following the playhead was turned on or off (by the button, or off by
   * the user scrolling away). */
  followChange?(following: boolean): void;
  /** A marker was clicked (after `seek` to it). */
  selectMarker?(id: number): void;
  /** A marker was dragged along the ruler to `at` (snapped like an edge). */
  moveMarker?(id: number, at: number): void;
  /** A lane's S or M was clicked (`solo` / `muted`: the new state), or its
   * level changed (`levelDb`). `speakerId` null: the no-speaker lane. */
  laneMix?(speakerId: number | null, change: LaneMixChange): void;
}

export type { Marker } from "./markers";
export type { LaneMixChange } from "./lane-mix";

/** Timing of the timeline's own drawing, for the benchmark. */
export interface PaintStats {
  /** Frames drawn since mounting. */
  draws: number;
  /** How long the last draw took, ms. */
  lastDrawMs: number;
  /** From the last setProject call to the end of the first draw after it,
   * ms; null until that draw. */
  firstPaintMs: number | null;
}

type Gesture =
  | { kind: "segment"; pointerId: number; x: number; y: number; drag: SegmentDrag; dragging: boolean }
  | { kind: "marker"; pointerId: number; x: number; y: number; id: number; originAt: number; pointerOrigin: number; moved: boolean }
  | { kind: "toggle"; pointerId: number; laneIndex: number; control: "solo" | "mute" }
  | { kind: "level"; pointerId: number; laneIndex: number; y: number; originDb: number; moved: boolean }
  | { kind: "pan"; pointerId: number; x: number; y: number; scroll: number; moved: boolean; hit: Hit }
  | { kind: "scrub"; pointerId: number }
  | { kind: "thumb"; pointerId: number; x: number; left: number };

const DEFAULT_ZOOM = 60;

export class TimelineView {
  private readonly root: HTMLDivElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly scrollbar: HTMLDivElement;
  private readonly thumb: HTMLDivElement;
  private readonly readout: HTMLSpanElement;
  private readonly buttons: Record<string, HTMLButtonElement> = {};
  private readonly resizeObserver: ResizeObserver;
  /** The scrollbar's width, read when the view is resized (not per frame). */
  private scrollbarWidth = 0;
  /** The scrollbar and readout wait for the next draw. */
  private chromeStale = false;
  private readonly scratch = new DrawScratch();

  private project: Project | null = null;
  private trackId: number | null = null;
  private index = new SegmentIndex([]);
  private layout: TimelineLayout = layoutLanes([], []);
  private laneOf = new Map<number, number>();
  private problems = new Map<number, FitProblem[]>();
  private overlaps = new Map<number, SlotOverlap[]>();
  private peaks = new Map<number, PeaksPyramid>();
  private peaksAsked = new Set<number>();
  private bed: PeaksPyramid | null = null;
  private original: PeaksPyramid | null = null;
  /** The original dialogue's speech, and its onsets and offsets (snap targets). */
  private speech: SpeechSpan[] = [];
  private speechStarts: number[] = [];
  private speechTimes: number[] = [];
  private markers = new MarkerList();
  private markerPreview: { id: number; at: number; snap: DragPreview["snap"] } | null = null;
  /** The rate setFrameRate set (frames per second); null: the project's. */
  private fpsOverride: number | null = null;
  /** Lane levels being changed, by speaker, shown until sent and the
   * project comes back; `sentLevels` those already sent. */
  private pendingLevels = new Map<number | null, number>();
  private sentLevels = new Set<number | null>();
  private levelTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly wheelSteps = new WheelSteps();
  /** What the pointer is over, for the tooltip. */
  private hoverKey = "";

  private scale: TimeScale = { pxPerSecond: DEFAULT_ZOOM, scrollSeconds: 0 };
  private width = 0;
  private playhead = 0;
  private following = true;
  private snapping = true;
  private selectedId: number | null = null;
  private hoverId: number | null = null;
  /** The lane new lines go into when nothing is selected. */
  private activeLane: number | null = null;
  private preview: (DragPreview & { id: number }) | null = null;
  private gesture: Gesture | null = null;

  private frame = 0;
  private projectSetAt: number | null = null;
  private stats: PaintStats = { draws: 0, lastDrawMs: 0, firstPaintMs: null };
  private destroyed = false;

  constructor(
    container: HTMLElement,
    private readonly callbacks: TimelineCallbacks,
  ) {
    this.canvas = el("canvas", { class: "timeline__canvas", "aria-label": "Timeline", role: "img" });
    const ctx = this.canvas.getContext("2d");
    if (!ctx) throw new Error("the timeline needs a 2D canvas");
    this.ctx = ctx;
    this.thumb = el("div", { class: "timeline__thumb" });
    this.scrollbar = el("div", { class: "timeline__scrollbar", "aria-hidden": "true" }, this.thumb);
    this.readout = el("span", { class: "timeline__readout" });
    this.root = el(
      "div",
      { class: "timeline" },
      this.toolbar(),
      el("div", { class: "timeline__canvas-wrap" }, this.canvas),
      this.scrollbar,
      this.legend(),
    );
    container.append(this.root);

    this.canvas.addEventListener("pointerdown", this.onPointerDown);
    this.canvas.addEventListener("pointermove", this.onPointerMove);
    this.canvas.addEventListener("pointerup", this.onPointerUp);
    this.canvas.addEventListener("pointercancel", this.onPointerCancel);
    this.canvas.addEventListener("pointerleave", this.onPointerLeave);
    this.canvas.addEventListener("dblclick", this.onDoubleClick);
    this.canvas.addEventListener("wheel", this.onWheel, { passive: false });
    this.scrollbar.addEventListener("pointerdown", this.onScrollbarDown);
    this.scrollbar.addEventListener("pointermove", this.onPointerMove);
    this.scrollbar.addEventListener("pointerup", this.onPointerUp);
    this.scrollbar.addEventListener("pointercancel", this.onPointerCancel);

    this.resizeObserver = new ResizeObserver(() => this.measure());
    this.resizeObserver.observe(this.root);
    this.measure();
  }

  // ---- data in -----------------------------------------------------------

  /** Shows a project's track. Keeps zoom, scroll and selection (if the
   * selected line still exists) across calls for the same track. */
  setProject(project: Project, trackId: number): void {
    const sameTrack = this.project?.id === project.id && this.trackId === trackId;
    this.projectSetAt = performance.now();
    this.stats.firstPaintMs = null;
    this.project = project;
    this.trackId = trackId;
    const segments = project.tracks.find((t) => t.id === trackId)?.segments ?? [];
    this.index = new SegmentIndex(segments);
    const noSpeakerLane = (project as Partial<{ noSpeakerLane: object }>).noSpeakerLane ?? null;
    this.layout = layoutLanes(project.speakers, segments, DEFAULT_SIZES, Boolean(project.original), noSpeakerLane);
    this.laneOf = new Map(segments.map((s) => [s.id, laneIndexOf(this.layout, s.speakerId)]));
    this.problems = new Map();
    const ordered = this.index.segments;
    ordered.forEach((s, i) => {
      const found = fitProblems(s, ordered[i + 1] ?? null);
      if (found.length > 0) this.problems.set(s.id, found);
    });
    this.overlaps = slotOverlaps(ordered, (s) => this.laneOf.get(s.id) ?? 0);
    for (const id of [...this.peaks.keys()]) if (!this.index.byId(id)) this.peaks.delete(id);
    this.peaksAsked = new Set([...this.peaksAsked].filter((id) => this.index.byId(id)?.state === "ready"));
    if (!project.bed) this.bed = null;
    if (!project.original) this.setSpeech(null);
    for (const speakerId of this.sentLevels) this.pendingLevels.delete(speakerId);
    this.sentLevels.clear();
    if (this.selectedId !== null && !this.index.byId(this.selectedId)) this.selectedId = null;
    if (this.activeLane !== null && this.activeLane >= this.layout.lanes.length) this.activeLane = null;
    if (!sameTrack) {
      this.scale = { pxPerSecond: this.width > 0 ? zoomToFit(Math.min(project.length, 120), this.lanesWidth) : DEFAULT_ZOOM, scrollSeconds: 0 };
    }
    this.canvasHeight();
    this.setScroll(this.scale.scrollSeconds);
    this.invalidate();
  }

  /** Lines whose state, error or check changed since setProject, without
   * moving: swapped into the index in place and repainted, with no sort or
   * layout, and only their own problems worked out again (a 2,000-line render sends one state
   * change per line). Lines not on the shown track are ignored. Returns
   * false when a line's slot or placed audio changed: that takes setProject. */
  updateSegments(changed: readonly Segment[]): boolean {
    let all = true;
    for (const segment of changed) {
      if (!this.index.byId(segment.id)) continue;
      if (!this.index.replace(segment)) {
        all = false;
        continue;
      }
      if (segment.state !== "ready") this.peaksAsked.delete(segment.id);
      // A line's own problems can change with it (its take heard back).
      const found = fitProblems(segment, this.index.segments[this.index.indexOf(segment.id) + 1] ?? null);
      if (found.length > 0) this.problems.set(segment.id, found);
      else this.problems.delete(segment.id);
    }
    if (this.selectedId !== null) this.updateToolbar();
    this.invalidate();
    return all;
  }

  /** A rendered line's waveform (null forgets it, e.g. after a re-render). */
  setPeaks(segmentId: number, peaks: Peaks | null): void {
    if (peaks) this.peaks.set(segmentId, new PeaksPyramid(peaks));
    else {
      this.peaks.delete(segmentId);
      this.peaksAsked.delete(segmentId);
    }
    this.invalidate();
  }

  /** The bed's waveform, drawn in the strip under the lanes. */
  setBedPeaks(peaks: Peaks | null): void {
    this.bed = peaks ? new PeaksPyramid(peaks) : null;
    this.invalidate();
  }

  /** The original dialogue's waveform, drawn in its strip under the lanes;
   * where it speaks (found in it once, here) becomes snap targets. */
  setOriginalPeaks(peaks: Peaks | null): void {
    this.setSpeech(peaks);
    this.invalidate();
  }

  /** The original dialogue's speech onsets and offsets, sorted (snap targets). */
  get speechBoundaries(): readonly number[] {
    return this.speechTimes;
  }

  /** The frame rate edits snap and nudge to, frames per second (23.976 and
   * 29.97 mean 24000/1001 and 30000/1001). Until set, the project's. */
  setFrameRate(fps: number): void {
    this.fpsOverride = fps;
    this.chromeStale = true;
    this.invalidate();
  }

  /** The frame rate edits snap and nudge to, frames per second. */
  get frameRate(): number {
    return this.frames.fps;
  }

  /** Markers drawn on the ruler (replacing any before). */
  setMarkers(markers: readonly Marker[]): void {
    this.markers = new MarkerList(markers);
    if (this.gesture?.kind === "marker" && !this.markers.byId(this.gesture.id)) {
      this.gesture = null;
      this.markerPreview = null;
    }
    this.invalidate();
  }

  /** Moves the playhead (playback position, seconds); pages the view along
   * when following. */
  setPlayhead(seconds: number): void {
    if (seconds === this.playhead) return;
    const oldX = Math.round(timeToX(this.scale, this.playhead));
    this.playhead = seconds;
    if (this.following && !this.gesture) {
      const scroll = followScroll(this.scale.scrollSeconds, this.viewSeconds, seconds);
      if (scroll !== this.scale.scrollSeconds) this.setScroll(scroll);
    }
    if (Math.round(timeToX(this.scale, seconds)) !== oldX) this.invalidate();
    this.updateToolbar();
  }

  setFollow(follow: boolean): void {
    if (follow === this.following) return;
    this.following = follow;
    if (follow) this.setScroll(followScroll(this.scale.scrollSeconds, this.viewSeconds, this.playhead));
    this.updateToolbar();
    this.callbacks.followChange?.(follow);
  }

  get follow(): boolean {
    return this.following;
  }

  setSnapping(on: boolean): void {
    this.snapping = on;
    this.updateToolbar();
  }

  get snap(): boolean {
    return this.snapping;
  }

  // ---- view --------------------------------------------------------------

  /** Sets the zoom, in pixels per second, anchored at `anchorSeconds` (by
   * default the playhead when in view, else the view's middle). */
  setZoom(pxPerSecond: number, anchorSeconds?: number): void {
    const anchor = anchorSeconds ?? this.defaultZoomAnchor();
    this.zoomAtX(timeToX(this.scale, anchor), pxPerSecond);
  }

  get zoom(): number {
    return this.scale.pxPerSecond;
  }

  zoomIn(): void {
    this.setZoom(zoomLevelIn(this.scale.pxPerSecond));
  }

  zoomOut(): void {
    this.setZoom(zoomLevelOut(this.scale.pxPerSecond));
  }

  /** The whole programme in view. */
  zoomToFit(): void {
    const length = this.project?.length ?? 60;
    this.scale = { pxPerSecond: zoomToFit(length, this.lanesWidth), scrollSeconds: 0 };
    this.setScroll(0);
  }

  /** Programme seconds at the lanes' left edge. */
  get scrollSeconds(): number {
    return this.scale.scrollSeconds;
  }

  /** Scrolls so the view starts at `seconds` (clamped to the programme). */
  setScroll(seconds: number): void {
    const clamped = clampScroll(seconds, this.viewSeconds, this.project?.length ?? 0);
    if (clamped !== this.scale.scrollSeconds) {
      this.scale = { ...this.scale, scrollSeconds: clamped };
    }
    // The scrollbar and readout follow in the next frame's draw: writing
    // them here, a step at a time, made the browser lay out the page again
    // on every scroll step.
    this.chromeStale = true;
    this.invalidate();
  }

  /** Brings a time into the middle of the view. */
  scrollToTime(seconds: number): void {
    this.setScroll(seconds - this.viewSeconds / 2);
  }

  /** The programme's length, seconds (0 with no project). */
  get programmeLength(): number {
    return this.project?.length ?? 0;
  }

  /** Seconds the lanes area shows. */
  get viewSeconds(): number {
    return this.lanesWidth / this.scale.pxPerSecond;
  }

  // ---- selection and editing intents ------------------------------------

  get selection(): number | null {
    return this.selectedId;
  }

  /** Selects a line without emitting `select` (the caller already knows). */
  set selection(id: number | null) {
    const next = id !== null && this.index.byId(id) ? id : null;
    if (next === this.selectedId) return;
    this.selectedId = next;
    if (next !== null) this.activeLane = this.laneOf.get(next) ?? null;
    this.updateToolbar();
    this.invalidate();
  }

  /** Selects the next line in time (the first after the view's start when
   * none is selected), scrolls it into view and emits `select`. */
  selectNext(): void {
    const current = this.selectedId;
    const next =
      current !== null ? this.index.next(current) : this.index.segments[this.index.visibleRange(this.scale.scrollSeconds, Infinity)[0]] ?? null;
    if (next) this.pick(next);
  }

  /** Selects the previous line in time and emits `select`. */
  selectPrevious(): void {
    const current = this.selectedId;
    const previous =
      current !== null ? this.index.previous(current) : this.index.segments[this.index.visibleRange(this.scale.scrollSeconds, Infinity)[0]] ?? null;
    if (previous) this.pick(previous);
  }

  /** Emits `split` for the selected line at the playhead, when the playhead
   * is inside it. Returns whether it did. */
  splitAtPlayhead(): boolean {
    const s = this.selectedSegment();
    if (!s || !(this.playhead > s.start && this.playhead < s.end)) return false;
    this.callbacks.split(s.id, this.playhead);
    return true;
  }

  /** The line the selected one would merge with: the next of its speaker. */
  mergePartner(): Segment | null {
    const s = this.selectedSegment();
    return s ? this.index.next(s.id, (o) => o.speakerId === s.speakerId) : null;
  }

  /** Emits `merge` for the selected line and the next of its speaker. */
  mergeWithNext(): boolean {
    const s = this.selectedSegment();
    const partner = this.mergePartner();
    if (!s || !partner) return false;
    this.callbacks.merge(s.id, partner.id);
    return true;
  }

  /** Emits `insert` at the playhead, in the selected line's lane (or the
   * last lane clicked, or the no-speaker lane). */
  insertAtPlayhead(): void {
    const laneIndex = this.activeLane ?? this.layout.lanes.length - 1;
    this.callbacks.insert(this.playhead, this.layout.lanes[laneIndex]?.speakerId ?? null);
  }

  /** Emits `delete` for the selected line. */
  deleteSelected(): boolean {
    if (this.selectedId === null) return false;
    this.callbacks.delete(this.selectedId);
    return true;
  }

  /** Moves the selected line (`body`, its length kept) or one of its edges
   * by `frames` whole frames at the frame rate, landing on the frame grid,
   * never before 0 nor shorter than MIN_SEGMENT_SECONDS, and emits `move`
   * or `resize`. Returns whether it emitted (false with nothing selected or
   * against a limit). */
  nudgeSelected(part: SegmentPart, frames: number): boolean {
    const s = this.selectedSegment();
    if (!s) return false;
    const next = nudgeSlot(s, part, frames, this.frames.fps);
    if (!next) return false;
    if (part === "body") this.callbacks.move(s.id, next.start);
    else this.callbacks.resize(s.id, next.start, next.end);
    return true;
  }

  // ---- drawing -----------------------------------------------------------

  /** Asks for a redraw on the next animation frame. */
  invalidate(): void {
    if (this.frame || this.destroyed) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws now if a redraw is pending; returns how long it took, ms (0 when
   * nothing was pending). The benchmark uses it to time each frame. */
  flush(): number {
    if (!this.frame) return 0;
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    return this.draw();
  }

  get paintStats(): PaintStats {
    return { ...this.stats };
  }

  /** The root element (for the caller's layout and the tests). */
  get element(): HTMLElement {
    return this.root;
  }

  destroy(): void {
    this.destroyed = true;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.resizeObserver.disconnect();
    if (this.levelTimer !== null) clearTimeout(this.levelTimer);
    this.levelTimer = null;
    this.root.remove();
  }

  private draw(): number {
    const started = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const height = this.layout.height;
    const w = Math.max(1, Math.round(this.width * dpr));
    const h = Math.max(1, Math.round(height * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawTimeline(this.ctx, { ...this.scene(), pixelRatio: dpr }, this.scratch);
    if (this.chromeStale) {
      this.chromeStale = false;
      this.updateScrollbar();
      this.updateReadout();
    }
    this.askForMissingPeaks();
    const ended = performance.now();
    this.stats.draws += 1;
    this.stats.lastDrawMs = ended - started;
    if (this.stats.firstPaintMs === null && this.projectSetAt !== null) {
      this.stats.firstPaintMs = ended - this.projectSetAt;
    }
    return ended - started;
  }

  private scene(): Scene {
    return {
      width: this.width,
      height: this.layout.height,
      layout: this.layout,
      scale: this.scale,
      index: this.index,
      laneOf: this.laneOf,
      problems: this.problems,
      overlaps: this.overlaps,
      peaks: this.peaks,
      bed: this.bed,
      hasBed: Boolean(this.project?.bed),
      original: this.original,
      length: this.project?.length ?? 0,
      frameRate: this.frames.rate ?? undefined,
      playhead: this.playhead,
      selectedId: this.selectedId,
      hoverId: this.hoverId,
      drag: this.preview,
      frames: this.frames,
      markers: this.markers,
      markerDrag: this.markerPreview,
      speech: this.speech,
      speechStarts: this.speechStarts,
      pendingLevels: this.pendingLevels,
    };
  }

  /** The frame grid: setFrameRate's, else the project's rate. */
  private get frames(): FrameGrid {
    const projectRate = frameRate(this.project?.frameRate);
    return this.fpsOverride !== null ? frameGrid(this.fpsOverride, projectRate) : gridOfRate(projectRate);
  }

  private setSpeech(peaks: Peaks | null): void {
    this.original = peaks ? new PeaksPyramid(peaks) : null;
    this.speech = peaks ? speechSpans(peaks) : [];
    this.speechStarts = this.speech.map((span) => span.start);
    this.speechTimes = speechBoundaries(this.speech);
  }

  private askForMissingPeaks(): void {
    const ask = this.callbacks.requestPeaks;
    if (!ask) return;
    const from = this.scale.scrollSeconds;
    for (const s of this.index.visible(from, from + this.viewSeconds)) {
      if (s.state === "ready" && s.fit && !this.peaks.has(s.id) && !this.peaksAsked.has(s.id)) {
        this.peaksAsked.add(s.id);
        ask.call(this.callbacks, s.id);
      }
    }
  }

  // ---- geometry ----------------------------------------------------------

  private get lanesWidth(): number {
    return Math.max(1, this.width - this.layout.headerWidth);
  }

  private measure(): void {
    const width = Math.round(this.root.clientWidth);
    this.scrollbarWidth = this.scrollbar.clientWidth;
    if (width === this.width) return;
    const first = this.width === 0;
    this.width = width;
    if (first && this.project) this.scale = { ...this.scale, pxPerSecond: zoomToFit(Math.min(this.project.length, 120), this.lanesWidth) };
    this.canvasHeight();
    this.setScroll(this.scale.scrollSeconds);
    this.invalidate();
  }

  private canvasHeight(): void {
    this.canvas.style.height = `${this.layout.height}px`;
  }

  private defaultZoomAnchor(): number {
    const from = this.scale.scrollSeconds;
    const to = from + this.viewSeconds;
    return this.playhead >= from && this.playhead <= to ? this.playhead : from + this.viewSeconds / 2;
  }

  private zoomAtX(laneX: number, pxPerSecond: number): void {
    const zoom = clampZoom(pxPerSecond);
    if (zoom === this.scale.pxPerSecond) return;
    const zoomed = zoomAround(this.scale, laneX, zoom);
    this.scale = { pxPerSecond: zoomed.pxPerSecond, scrollSeconds: this.scale.scrollSeconds };
    this.setScroll(zoomed.scrollSeconds);
    this.updateToolbar();
    this.invalidate();
  }

  private local(event: PointerEvent | WheelEvent | MouseEvent): { x: number; y: number } {
    const rect = this.canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }

  private hit(x: number, y: number): Hit {
    return hitTest(x, y, { layout: this.layout, scale: this.scale, index: this.index, selectedId: this.selectedId, markers: this.markers });
  }

  private selectedSegment(): Segment | null {
    return this.selectedId !== null ? this.index.byId(this.selectedId) ?? null : null;
  }

  private pick(segment: Segment): void {
    this.selection = segment.id;
    const from = this.scale.scrollSeconds;
    if (segment.start < from || segment.start > from + this.viewSeconds * 0.9) this.scrollToTime(segment.start);
    this.callbacks.select(segment.id);
  }

  private stopFollowing(): void {
    if (this.following) this.setFollow(false);
  }

  // ---- pointer -----------------------------------------------------------

  private onPointerDown = (event: PointerEvent): void => {
    if (event.button !== 0 || this.gesture) return;
    const { x, y } = this.local(event);
    const hit = this.hit(x, y);
    const capture = () => this.canvas.setPointerCapture(event.pointerId);
    switch (hit.kind) {
      case "segment": {
        const s = this.index.byId(hit.id);
        if (!s) return;
        this.activeLane = hit.laneIndex;
        if (this.selectedId !== s.id) {
          this.selection = s.id;
          this.callbacks.select(s.id);
        }
        const pointerOrigin = xToTime(this.scale, x - this.layout.headerWidth);
        const drag: SegmentDrag = { id: s.id, part: hit.part, originStart: s.start, originEnd: s.end, pointerOrigin };
        this.gesture = { kind: "segment", pointerId: event.pointerId, x, y, drag, dragging: false };
        this.canvas.dataset.cursor = hit.part === "body" ? "grabbing" : "resize";
        capture();
        break;
      }
      case "marker": {
        const pointerOrigin = xToTime(this.scale, x - this.layout.headerWidth);
        this.gesture = { kind: "marker", pointerId: event.pointerId, x, y, id: hit.id, originAt: hit.at, pointerOrigin, moved: false };
        capture();
        break;
      }
      case "ruler":
        this.gesture = { kind: "scrub", pointerId: event.pointerId };
        this.seekTo(hit.time);
        capture();
        break;
      case "lane":
      case "bed":
        if (hit.kind === "lane") this.activeLane = hit.laneIndex;
        this.gesture = { kind: "pan", pointerId: event.pointerId, x, y, scroll: this.scale.scrollSeconds, moved: false, hit };
        capture();
        break;
      case "header":
        this.activeLane = hit.laneIndex;
        if (hit.control === "solo" || hit.control === "mute") {
          this.gesture = { kind: "toggle", pointerId: event.pointerId, laneIndex: hit.laneIndex, control: hit.control };
          capture();
        } else if (hit.control === "level") {
          this.flushLevel();
          const originDb = this.laneLevel(hit.laneIndex);
          this.gesture = { kind: "level", pointerId: event.pointerId, laneIndex: hit.laneIndex, y, originDb, moved: false };
          capture();
        }
        break;
      case "none":
        break;
    }
  };

  private onPointerMove = (event: PointerEvent): void => {
    const gesture = this.gesture;
    if (!gesture) {
      if (event.currentTarget === this.canvas) this.hover(event);
      return;
    }
    if (event.pointerId !== gesture.pointerId) return;
    const { x, y } = this.local(event);
    switch (gesture.kind) {
      case "segment": {
        if (!gesture.dragging && !isDrag(x - gesture.x, y - gesture.y)) return;
        gesture.dragging = true;
        const pointerTime = xToTime(this.scale, x - this.layout.headerWidth);
        const targets = this.snapping ? this.snapTargetsFor(gesture.drag.id) : [];
        const fps = this.snapping ? this.frames.fps : null;
        const preview = dragPreview(gesture.drag, pointerTime, targets, this.scale.pxPerSecond, fps);
        this.preview = { id: gesture.drag.id, ...preview };
        this.setTitle(this.tooltip(gesture.drag.id, preview));
        this.chromeStale = true;
        this.invalidate();
        break;
      }
      case "marker": {
        if (!gesture.moved && !isDrag(x - gesture.x, y - gesture.y)) return;
        gesture.moved = true;
        this.canvas.dataset.cursor = "grabbing";
        const pointerTime = xToTime(this.scale, x - this.layout.headerWidth);
        const targets = this.snapping ? this.snapTargetsFor(null) : [];
        const fps = this.snapping ? this.frames.fps : null;
        const length = this.project?.length || Infinity;
        const moved = dragTime(gesture.originAt + pointerTime - gesture.pointerOrigin, targets, this.scale.pxPerSecond, fps, length);
        this.markerPreview = { id: gesture.id, at: moved.time, snap: moved.target };
        this.chromeStale = true;
        this.invalidate();
        break;
      }
      case "level": {
        if (!gesture.moved && Math.abs(y - gesture.y) < 2) return;
        gesture.moved = true;
        const db = dragLevel(gesture.originDb, y - gesture.y);
        const speakerId = this.layout.lanes[gesture.laneIndex]?.speakerId ?? null;
        if (this.pendingLevels.get(speakerId) !== db) {
          this.pendingLevels.set(speakerId, db);
          this.sentLevels.delete(speakerId);
          this.invalidate();
        }
        break;
      }
      case "toggle":
        break;
      case "scrub":
        this.seekTo(xToTime(this.scale, x - this.layout.headerWidth));
        break;
      case "pan":
        if (!gesture.moved && !isDrag(x - gesture.x, y - gesture.y)) return;
        gesture.moved = true;
        this.canvas.dataset.cursor = "grabbing";
        this.stopFollowing();
        this.setScroll(gesture.scroll - (x - gesture.x) / this.scale.pxPerSecond);
        break;
      case "thumb": {
        const track = this.scrollbar.clientWidth;
        const total = this.scrollableSeconds();
        this.setScroll(scrollForThumb(gesture.left + (event.clientX - gesture.x), this.viewSeconds, total, track));
        break;
      }
    }
  };

  private onPointerUp = (event: PointerEvent): void => {
    const gesture = this.gesture;
    if (!gesture || event.pointerId !== gesture.pointerId) return;
    this.gesture = null;
    this.thumb.classList.remove("is-dragging");
    switch (gesture.kind) {
      case "segment": {
        const preview = this.preview;
        this.preview = null;
        this.chromeStale = true;
        if (gesture.dragging && preview && changed(gesture.drag, preview)) {
          if (gesture.drag.part === "body") this.callbacks.move(gesture.drag.id, preview.start);
          else this.callbacks.resize(gesture.drag.id, preview.start, preview.end);
        }
        this.invalidate();
        break;
      }
      case "pan":
        if (!gesture.moved) {
          if (this.selectedId !== null) {
            this.selection = null;
            this.callbacks.select(null);
          }
          const hit = gesture.hit;
          if (hit.kind === "lane" || hit.kind === "bed") this.seekTo(hit.time);
        }
        break;
      case "marker": {
        const preview = this.markerPreview;
        this.markerPreview = null;
        this.chromeStale = true;
        if (!gesture.moved) {
          this.seekTo(gesture.originAt);
          this.callbacks.selectMarker?.(gesture.id);
        } else if (preview && Math.abs(preview.at - gesture.originAt) > 1e-6) {
          this.callbacks.moveMarker?.(gesture.id, preview.at);
        }
        this.invalidate();
        break;
      }
      case "toggle": {
        const { x, y } = this.local(event);
        const hit = this.hit(x, y);
        const lane = this.layout.lanes[gesture.laneIndex];
        if (lane && hit.kind === "header" && hit.laneIndex === gesture.laneIndex && hit.control === gesture.control) {
          this.callbacks.laneMix?.(lane.speakerId, gesture.control === "solo" ? { solo: !lane.mix.solo } : { muted: !lane.mix.muted });
        }
        break;
      }
      case "level": {
        const lane = this.layout.lanes[gesture.laneIndex];
        if (lane && gesture.moved) this.sendLevel(lane.speakerId);
        break;
      }
      case "scrub":
      case "thumb":
        break;
    }
    this.hover(event);
  };

  private onPointerCancel = (event: PointerEvent): void => {
    if (!this.gesture || event.pointerId !== this.gesture.pointerId) return;
    if (this.gesture.kind === "level") {
      const speakerId = this.layout.lanes[this.gesture.laneIndex]?.speakerId ?? null;
      if (!this.sentLevels.has(speakerId)) this.pendingLevels.delete(speakerId);
    }
    this.gesture = null;
    this.preview = null;
    this.markerPreview = null;
    this.chromeStale = true;
    this.thumb.classList.remove("is-dragging");
    this.invalidate();
  };

  private onPointerLeave = (): void => {
    this.flushLevel();
    if (this.hoverId !== null && !this.gesture) {
      this.hoverId = null;
      this.invalidate();
    }
  };

  private onDoubleClick = (event: MouseEvent): void => {
    const { x, y } = this.local(event);
    const hit = this.hit(x, y);
    if (hit.kind === "lane") this.callbacks.insert(Math.max(0, hit.time), this.layout.lanes[hit.laneIndex].speakerId);
    if (hit.kind === "header" && hit.control === "level") {
      // Back to unity gain.
      const speakerId = this.layout.lanes[hit.laneIndex].speakerId;
      this.flushLevel();
      this.pendingLevels.set(speakerId, 0);
      this.sendLevel(speakerId);
    }
  };

  private onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    const { x, y } = this.local(event);
    if (!event.ctrlKey && !event.metaKey && x < this.layout.headerWidth) {
      const hit = this.hit(x, y);
      if (hit.kind === "header" && hit.control === "level") {
        this.wheelLevel(hit.laneIndex, event);
        return;
      }
    }
    const lineHeight = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? this.lanesWidth : 1;
    if (event.ctrlKey || event.metaKey) {
      const laneX = Math.max(0, x - this.layout.headerWidth);
      this.zoomAtX(laneX, this.scale.pxPerSecond * wheelZoomFactor(event.deltaY * lineHeight));
      return;
    }
    const delta = (Math.abs(event.deltaX) > Math.abs(event.deltaY) ? event.deltaX : event.deltaY) * lineHeight;
    if (delta === 0) return;
    this.stopFollowing();
    this.setScroll(this.scale.scrollSeconds + delta / this.scale.pxPerSecond);
  };

  private onScrollbarDown = (event: PointerEvent): void => {
    if (event.button !== 0 || this.gesture) return;
    const track = this.scrollbar.clientWidth;
    const total = this.scrollableSeconds();
    const thumb = thumbGeometry(this.scale.scrollSeconds, this.viewSeconds, total, track);
    const x = event.clientX - this.scrollbar.getBoundingClientRect().left;
    this.stopFollowing();
    if (x < thumb.left || x > thumb.left + thumb.width) {
      // A click on the track centres the thumb there.
      this.setScroll(scrollForThumb(x - thumb.width / 2, this.viewSeconds, total, track));
    }
    const now = thumbGeometry(this.scale.scrollSeconds, this.viewSeconds, total, track);
    this.gesture = { kind: "thumb", pointerId: event.pointerId, x: event.clientX, left: now.left };
    this.thumb.classList.add("is-dragging");
    this.scrollbar.setPointerCapture(event.pointerId);
  };

  private hover(event: PointerEvent): void {
    const { x, y } = this.local(event);
    const hit = this.hit(x, y);
    const hoverId = hit.kind === "segment" ? hit.id : null;
    this.canvas.dataset.cursor =
      hit.kind === "segment"
        ? hit.part === "body"
          ? "grab"
          : "resize"
        : hit.kind === "marker"
          ? "grab"
          : hit.kind === "ruler"
            ? "seek"
            : hit.kind === "header" && hit.control
              ? hit.control === "level"
                ? "level"
                : "button"
              : "pan";
    const key =
      hit.kind === "segment" ? `segment ${hit.id}` : hit.kind === "marker" ? `marker ${hit.id}` : hit.kind === "header" && hit.control ? `${hit.control} ${hit.laneIndex}` : "";
    if (key !== this.hoverKey) {
      this.hoverKey = key;
      this.setTitle(this.hoverTitle(hit));
    }
    if (hoverId !== this.hoverId) {
      this.hoverId = hoverId;
      this.invalidate();
    }
  }

  private setTitle(title: string): void {
    if (this.canvas.title !== title) this.canvas.title = title;
  }

  private hoverTitle(hit: Hit): string {
    switch (hit.kind) {
      case "segment":
        return this.tooltip(hit.id);
      case "marker": {
        const m = this.markers.byId(hit.id);
        return m ? `${m.name}  ${formatFrameTime(m.at, this.frames)}\nClick to go there; drag along the ruler to move it` : "";
      }
      case "header": {
        const lane = this.layout.lanes[hit.laneIndex];
        if (!lane || !hit.control) return "";
        if (hit.control === "solo") return `Solo ${lane.name}${lane.mix.solo ? " (on)" : ""}`;
        if (hit.control === "mute") return `Mute ${lane.name}${lane.mix.muted ? " (on)" : ""}`;
        return `${lane.name}'s level ${formatLevel(this.laneLevel(hit.laneIndex))}\nWheel or drag up/down: ±0.5 dB a step · double-click: 0 dB`;
      }
      default:
        return "";
    }
  }

  /** A line's tooltip; `slot`, while it is dragged, the times it would get. */
  private tooltip(id: number, slot?: { start: number; end: number }): string {
    const s = this.index.byId(id);
    if (!s) return "";
    const { start, end } = slot ?? s;
    const lines = [
      `In ${formatFrameTime(start, this.frames)}  Out ${formatFrameTime(end, this.frames)}  ${stateWords(s, STATE_LABELS)}`,
      s.text,
      ...(s.spoken !== null ? [`Spoken ${s.spoken.toFixed(2)} s in a ${(end - start).toFixed(2)} s slot`] : []),
      ...(s.error ? [`Error: ${s.error}`] : []),
      ...(this.problems.get(id) ?? []).map(problemSentence),
      ...(this.overlaps.get(id) ?? []).map((o) => `Overlaps line ${o.withId} of the same speaker`),
    ];
    return lines.join("\n");
  }

  // ---- lane mix ----------------------------------------------------------

  /** A lane's level as shown: the one being changed, else the speaker's. */
  private laneLevel(laneIndex: number): number {
    const lane = this.layout.lanes[laneIndex];
    if (!lane) return 0;
    return this.pendingLevels.get(lane.speakerId) ?? lane.mix.levelDb;
  }

  /** The wheel over a lane's level: 0.5 dB steps, sent LEVEL_IDLE_MS after the last. */
  private wheelLevel(laneIndex: number, event: WheelEvent): void {
    const lane = this.layout.lanes[laneIndex];
    if (!lane) return;
    const steps = this.wheelSteps.add(event.deltaY, event.deltaMode);
    if (steps === 0) return;
    if (this.levelTimer !== null && this.wheelLane?.speakerId !== lane.speakerId) this.flushLevel();
    const db = stepLevel(this.laneLevel(laneIndex), steps);
    this.pendingLevels.set(lane.speakerId, db);
    this.sentLevels.delete(lane.speakerId);
    this.wheelLane = { speakerId: lane.speakerId };
    if (this.levelTimer !== null) clearTimeout(this.levelTimer);
    this.levelTimer = setTimeout(() => this.flushLevel(), LEVEL_IDLE_MS);
    this.setTitle(this.hoverTitle({ kind: "header", laneIndex, control: "level" }));
    this.invalidate();
  }

  /** The lane (by speaker) the wheel is changing the level of, while its timer runs. */
  private wheelLane: { speakerId: number | null } | null = null;

  /** Sends a wheeled level now, if one is waiting. */
  private flushLevel(): void {
    if (this.levelTimer === null) return;
    clearTimeout(this.levelTimer);
    this.levelTimer = null;
    this.wheelSteps.reset();
    if (this.wheelLane) this.sendLevel(this.wheelLane.speakerId);
    this.wheelLane = null;
  }

  /** Emits a lane's pending level (when it differs from the speaker's). */
  private sendLevel(speakerId: number | null): void {
    const db = this.pendingLevels.get(speakerId);
    if (db === undefined) return;
    const lane = this.layout.lanes.find((l) => l.speakerId === speakerId);
    if (!lane || db === lane.mix.levelDb) {
      this.pendingLevels.delete(speakerId);
      this.sentLevels.delete(speakerId);
      this.invalidate();
      return;
    }
    this.sentLevels.add(speakerId);
    this.callbacks.laneMix?.(speakerId, { levelDb: db });
  }

  private seekTo(seconds: number): void {
    const t = Math.max(0, Math.min(seconds, this.project?.length ?? seconds));
    this.playhead = t;
    this.callbacks.seek(t);
    this.updateToolbar();
    this.invalidate();
  }

  private snapTargetsFor(id: number | null) {
    const from = this.scale.scrollSeconds;
    const to = from + this.viewSeconds;
    return snapTargets({
      segments: this.index.visible(from, to),
      excludeId: id,
      playhead: this.playhead,
      pxPerSecond: this.scale.pxPerSecond,
      from,
      to,
      speech: this.speechTimes,
    });
  }

  private scrollableSeconds(): number {
    return maxScroll(this.viewSeconds, this.project?.length ?? 0) + this.viewSeconds;
  }

  // ---- chrome ------------------------------------------------------------

  private toolbar(): HTMLElement {
    const button = (name: string, label: string, title: string, action: () => void) => {
      const b = el("button", { type: "button", class: "timeline__button", title, "data-action": name }, label);
      b.addEventListener("click", action);
      this.buttons[name] = b;
      return b;
    };
    const bar = el(
      "div",
      { class: "timeline__toolbar", role: "toolbar", "aria-label": "Timeline" },
      el(
        "div",
        { class: "timeline__group" },
        button("zoom-out", "−", "Zoom out", () => this.zoomOut()),
        button("zoom-in", "+", "Zoom in", () => this.zoomIn()),
        button("zoom-fit", "Fit", "Show the whole programme", () => this.zoomToFit()),
      ),
      el(
        "div",
        { class: "timeline__group" },
        button("snap", "Snap", "Snap to lines, the original's speech, the playhead, ruler ticks and frames", () => this.setSnapping(!this.snapping)),
        button("follow", "Follow", "Keep the playhead in view during playback", () => this.setFollow(!this.following)),
      ),
      el(
        "div",
        { class: "timeline__group" },
        button("split", "Split", "Split the selected line at the playhead", () => void this.splitAtPlayhead()),
        button("merge", "Merge", "Merge the selected line with the next line of its speaker", () => void this.mergeWithNext()),
        button("insert", "Insert", "Insert a line at the playhead", () => this.insertAtPlayhead()),
        button("delete", "Delete", "Delete the selected line", () => void this.deleteSelected()),
      ),
      this.readout,
    );
    queueMicrotask(() => this.updateToolbar());
    return bar;
  }

  private legend(): HTMLElement {
    const item = (kind: string, text: string) => el("span", { class: `timeline__legend-item timeline__legend-item--${kind}` }, text);
    return el(
      "div",
      { class: "timeline__legend" },
      item("ready", "ready"),
      item("stale", "stale (dashed, hatched)"),
      item("queued", "queued"),
      item("rendering", "rendering (hatched)"),
      item("failed", "failed (cross-hatched)"),
      item("problem", "long: doesn't fit its slot · ×rate past 1.25 · cut: words cut · +s into next line · QC: failed when heard back · red band: overlapping slots · bar: spoken length before a render"),
    );
  }

  private updateToolbar(): void {
    if (!this.buttons.snap) return;
    this.buttons.snap.setAttribute("aria-pressed", String(this.snapping));
    this.buttons.follow.setAttribute("aria-pressed", String(this.following));
    const s = this.selectedSegment();
    this.buttons.split.disabled = !s || !(this.playhead > s.start && this.playhead < s.end);
    this.buttons.merge.disabled = !this.mergePartner();
    this.buttons.delete.disabled = !s;
    this.buttons.insert.disabled = !this.project;
    this.updateReadout();
  }

  private updateReadout(): void {
    const text = this.readoutText();
    if (this.readout.textContent !== text) this.readout.textContent = text;
  }

  /** While a line is dragged, its in and out (and length); while a marker
   * is, where it would go; else the playhead and the span in view. */
  private readoutText(): string {
    const frames = this.frames;
    if (this.preview) {
      const { start, end } = this.preview;
      return `In ${formatFrameTime(start, frames)} · Out ${formatFrameTime(end, frames)} · ${(end - start).toFixed(2)} s`;
    }
    if (this.markerPreview) {
      const name = this.markers.byId(this.markerPreview.id)?.name ?? "Marker";
      return `${name} → ${formatFrameTime(this.markerPreview.at, frames)}`;
    }
    return `${formatTimecode(this.playhead, 2)} · ${formatTimecode(this.viewSeconds, 1)} in view`;
  }

  private updateScrollbar(): void {
    const track = this.scrollbarWidth || this.scrollbar.clientWidth;
    const thumb = thumbGeometry(this.scale.scrollSeconds, this.viewSeconds, this.scrollableSeconds(), track);
    this.thumb.style.left = `${thumb.left}px`;
    this.thumb.style.width = `${thumb.width}px`;
  }
}
