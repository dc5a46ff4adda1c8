// The project editor: a header (saved indicator, render with progress and
// cancel, listening back with its progress, play/pause, how the original
// dialogue is heard, undo/redo, the project's video and cast sheet, the
// dictionary, the bed's stems, export, a track added in another language
// from a translated script: track-dialog.ts, or translated by a translation
// engine: translate-dialog.ts), the timeline, the render panel,
// the inspector for the selected line (text, speaker, the speaker's voice
// and blend, preview, takes, state and errors, what listening back heard),
// the project's picture when it has a video (picture.ts: it follows the
// engine's playhead, from the playback events and the editor's seeks)
// and the status line. Every
// change goes to the engine; the answer (the project as the engine sees
// it) is what is drawn next.
//
// Drawing: engine events (playback every 50 ms, one line state per line a
// render finishes) only update the editor's state and ask for a frame; the
// editor draws at most once per animation frame, with lit-html, which
// touches only what changed, so a field being typed in keeps its element,
// focus, caret and selection. Text typed into a line and not yet saved is
// that line's draft, kept here (not in the DOM), so nothing the engine
// sends overwrites it. The timeline gets a new project at most once per
// frame, and lines' new states without a rebuild of its index.
//
// Refusals by kind (errors.ts): a preview or render the engine cannot start
// yet (the model is loading) waits in the status line and is asked for
// again; a line edit the engine refuses marks the inspector's field it
// changed; a line or project that is gone reads the project again.
import { html, nothing, render as renderTemplate, type TemplateResult } from "lit-html";
import type { DirectiveResult } from "lit-html/directive.js";
import { keyed } from "lit-html/directives/keyed.js";
import { el } from "../dom";
import * as engine from "../engine";
import type { EngineStatus, PlaybackView, SegmentEdit, StudioEvent, TakeView, TimingStrategy, TrackTranslations, VoiceChoice } from "../engine";
import { actOn, BusyRetry, FieldErrors, STOPPED, type EngineError } from "../errors";
import { FrameScheduler } from "../frame";
import { formatTimecode, fps, FRAME_RATES, frameRate, parseTimecode, type FrameRate } from "../timecode";
import type { Project, Segment, Speaker } from "../model";
import { measureTimeline } from "../timeline/measure";
import { TimelineView } from "../timeline/timeline-view";
import { ScriptView } from "../script/script-view";
import { measureScript } from "../script/measure";
import { browseButton } from "../pick";
import { blendBuilder, startingParts, type BlendPart } from "./blend";
import { castDialog } from "./cast-dialog";
import { trackDialog, trackIn } from "./track-dialog";
import { translateDialog, type TranslateDialog } from "./translate-dialog";
import { attachedSummary, decibels, exportChoice, fileName, HANDOFF_FORMATS, MONITOR_MODES, ORIGINAL_LEVEL_DB, originalMonitor, type MonitorMode } from "./delivery";
import { attachVideoDialog, bedDialog, castSaved, deliveryFields, dictionaryDialog, saveCastDialog } from "./delivery-dialogs";
import { PicturePane } from "./picture";
import { closePictureWindow, followInWindow, openPictureWindow, pictureWindowUrl } from "./picture-window";
import { clampScript, clampSide, loadPanes, savePanes, splitter, type PaneSizes } from "./panes";
import { renderPanel } from "./render-panel";
import { closeModal, openModal, showModal } from "../modal";
import { toggleShortcuts } from "../shortcuts";
import { fitProblems, flagWords, problemSentence, stateWords } from "../timeline/fit-problems";

const STATE_WORDS: Record<Segment["state"], string> = {
  stale: "Not rendered (or edited since)",
  queued: "Queued",
  rendering: "Rendering…",
  ready: "Ready",
  failed: "Failed",
};

/** How far J and L jump, seconds. */
const JUMP_SECONDS = 5;

/** Each timing strategy the engine has, as a person reads it: a strategy
 * added to (or removed from) the engine's type fails to compile here. */
const STRATEGY_LABELS: Record<TimingStrategy, string> = {
  natural: "Natural (place at start)",
  strict_slot: "Strict slot (pad or trim)",
  smart_fit: "Smart fit (absorb, speed up ≤1.25×)",
  resynthesize: "Fit by re-synthesis",
};
const STRATEGIES = Object.entries(STRATEGY_LABELS) as [TimingStrategy, string][];
const isStrategy = (value: string): value is TimingStrategy => value in STRATEGY_LABELS;

/** How a rendered line was fitted, for the inspector: where it went, the
 * strategy, the rate, the gap it used, what was cut, and any overflow. */
export function fitReadout(fit: Segment["fit"] & object): string {
  const strategy = STRATEGY_LABELS[fit.strategy];
  const parts = [`Placed ${fit.start.toFixed(2)}–${fit.end.toFixed(2)} s by ${strategy}`];
  if (fit.overflow > 0.005) parts.push(`rendered ${fit.overflow.toFixed(2)} s longer than its slot`);
  if (fit.rate > 1.0001) parts.push(`sped up ×${fit.rate.toFixed(2)}`);
  else if (fit.rate < 0.9999) parts.push(`slowed ×${fit.rate.toFixed(2)}`);
  if (fit.gapUsed > 0.005) parts.push(`uses ${fit.gapUsed.toFixed(2)} s of the gap after its slot`);
  if (fit.trimmed) parts.push(fit.cut !== null && fit.cut > 0.005 ? `trimmed: the last ${fit.cut.toFixed(2)} s cut (at a pause where there is one)` : "trimmed");
  if (fit.overlap) parts.push(`runs ${fit.overlap.toFixed(2)} s into the next line`);
  return parts.join(", ");
}

/** The render button's words: what a click renders, or how far the render
 * running now has got (never "All lines rendered" while lines render). */
export function renderLabel(stale: number, progress: { done: number; total: number } | null): string {
  if (progress) return `Rendering ${progress.done}/${progress.total}…`;
  return stale ? `Render ${stale} line${stale === 1 ? "" : "s"}` : "All lines rendered";
}

const valueOf = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value;

export class Editor {
  private project: Project;
  /** Every line of every track by id (state events may be for any track). */
  private lines = new Map<number, Segment>();
  private trackId: number;
  private selection: number | null = null;
  private playback: PlaybackView | null = null;
  /** Where the playhead was last put while nothing of this project plays (seconds). */
  private parked = 0;
  /** The position field's text as last drawn, and held there while it is typed in
   * (a bound value that does not change is never written over the typing). */
  private positionShown = "";
  private positionHeld: string | null = null;
  private progress: { done: number; total: number } | null = null;
  /** Remote engines' servers, polled while a render runs. */
  private servers: EngineStatus[] = [];
  private serverPoll: number | null = null;
  /** Listening back after a render: lines heard of lines to hear, and the
   * line being taken again, if one is. A new render stops it. */
  private listening: { done: number; total: number; retaking: number | null } | null = null;
  private message = "All changes saved";
  private error: string | null = null;
  /** The inspector's fields the engine refused (for the line shown). */
  private readonly lineRefused = new FieldErrors();
  /** A preview, and a render, waiting for a busy engine. */
  private readonly previewWait = new BusyRetry(() => this.redraw());
  private readonly renderWait = new BusyRetry(() => this.redraw());
  /** Renders asked for: only the latest one's refusal resets the progress. */
  private renderAsks = 0;
  private voices: VoiceChoice[] = [];
  /** The selected line's takes, once loaded (reloaded when the line changes or renders). */
  private takes: { segmentId: number; list: TakeView[] } | null = null;
  /** Text typed into a line and not saved yet, by segment id. Switching to
   * another line keeps it, as an audio editor keeps unapplied work: typed
   * words are never thrown away without the person asking, and coming back
   * to the line shows them, marked unsaved. A draft goes when it is saved,
   * when the stored text becomes the same, or when its line is gone. */
  private readonly drafts = new Map<number, string>();
  /** The blend builder's parts for a speaker's voice (made again when the
   * speaker, their voice or the voice list changes). */
  private blend: { key: string; parts: BlendPart[] } | null = null;
  /** Bumped when the engine refuses an edit: the header and inspector are
   * made afresh from what the engine holds, so no field keeps showing a
   * value that was not taken. Drafts are state, so they survive it. */
  private revision = 0;
  /** The timeline needs the project again (setProject, once per frame). */
  private timelineStale = false;
  /** Lines whose state changed since the last frame, for the timeline. */
  private readonly changedLines = new Map<number, Segment>();
  private readonly frames = new FrameScheduler(() => this.frame());
  /** Closed: answers still arriving draw nothing. */
  private closed = false;
  private readonly timelineHost = el("div", { class: "editor-timeline" });
  private readonly timeline: TimelineView;
  /** The script: every line of the track, read, edited in place, filtered and searched. */
  private readonly script: ScriptView;
  private readonly keys = (e: KeyboardEvent) => this.onKey(e);
  /** The project's picture, while it has a video, and the video it shows
   * (the pane loads again when that changes, or a video is attached again). */
  private picture: PicturePane | null = null;
  private pictureOf: string | null = null;
  /** The picture is in a window of its own (the pane is then not made). */
  private pictureWindow = false;
  /** The playhead's timecode over the picture, in the pane and the window. */
  private pictureTimecode = false;
  /** How the original dialogue is heard while the dub plays, as chosen
   * here (the engine keeps it for what plays now and next); the level
   * counts under the dub. Off again when the editor closes. */
  private monitor: { mode: MonitorMode; level: number } = { mode: "off", level: -12 };
  /** The marker picked on the ruler (shown in the marker list), if any. */
  private markerSelection: number | null = null;
  /** Asks for the bed's waveform: only the latest answer is drawn. */
  private bedAsks = 0;
  /** The Translate dialog last opened: it shows the `translating` events. */
  private translation: TranslateDialog | null = null;
  /** The shown track's links to the lines it was translated from (read
   * again after every change), and the reads asked for: only the latest
   * answer is kept. */
  private translations: TrackTranslations | null = null;
  private translationReads = 0;
  /** The panes' sizes as the user left them (remembered between sessions). */
  private panes: PaneSizes = loadPanes();
  private readonly scriptHost = el("div", { class: "editor-script" });
  private readonly sideSplitter = this.paneSplitter("side");
  private readonly scriptSplitter = this.paneSplitter("script");
  /** The panes' sizes as drawn, worked out again only when the window or a splitter moves (not every frame). */
  private shown: PaneSizes | null = null;
  private readonly resized = () => {
    this.shown = null;
    this.redraw();
  };

  /** `root` is the editor's own element (in the document): it draws everything inside it. */
  constructor(private readonly root: HTMLElement, project: Project, private readonly back: () => void) {
    this.project = project;
    this.indexLines();
    this.trackId = project.tracks[0]?.id ?? 0;
    root.classList.add("editor");
    this.syncPicture();
    // Drawn once now, so the timeline mounts into a host that is laid out.
    this.draw();
    this.timeline = new TimelineView(this.timelineHost, {
      select: (id) => this.select(id),
      seek: (seconds) => void this.seek(seconds),
      move: (id, start) => {
        const line = this.line(id);
        this.timeline.setPeaks(id, null);
        if (line) void this.editLine(id, { start, end: start + (line.end - line.start) }, "Moved the line");
      },
      resize: (id, start, end) => {
        this.timeline.setPeaks(id, null);
        void this.editLine(id, { start, end }, "Changed the line's slot");
      },
      split: (id, at) => void this.apply(engine.splitSegment(id, at), "Split the line"),
      merge: (a, b) => void this.apply(engine.mergeSegments(a, b), "Merged two lines"),
      insert: (at, speakerId) => void this.insert(at, speakerId),
      delete: (id) => void this.remove(id),
      requestPeaks: (id) => {
        void engine.segmentPeaks(id).then((peaks) => this.timeline.setPeaks(id, peaks), () => {});
      },
      laneMix: (speakerId, change) => void this.apply(engine.setLaneMix(this.project.id, speakerId, change), this.laneWords(speakerId, change)),
      moveMarker: (id, at) => void this.apply(engine.moveMarker(id, at), `Moved the marker to ${formatTimecode(at, this.rate)}`),
      selectMarker: (id) => {
        this.markerSelection = id;
        if (this.selection !== null) {
          this.timeline.selection = null;
          this.select(null);
        }
        this.redraw();
      },
    });
    this.timeline.setProject(project, this.trackId);
    this.timeline.setMarkers(project.markers);
    this.script = new ScriptView(this.scriptHost, {
      select: (id) => this.selectFromScript(id),
      seek: (seconds) => void this.seek(seconds),
      saveText: (id, text) => this.editLine(id, { text }, "Changed the text"),
      replace: (find, replacement, options) => this.replace(find, replacement, options),
      translateAgain: (selected) => this.openTranslate(selected),
    });
    this.script.setProject(project, this.trackId, this.rate);
    this.loadTranslations();
    this.loadBedPeaks();
    if (project.original) {
      void engine.originalPeaks(project.id).then((peaks) => this.timeline.setOriginalPeaks(peaks), (e) => {
        this.error = `The original dialogue cannot be drawn: ${e}`;
        this.redraw();
      });
    }
    document.addEventListener("keydown", this.keys);
    window.addEventListener("resize", this.resized);
    // The end-to-end test's hook: frame times of a scroll-and-zoom sweep.
    (window as unknown as Record<string, unknown>).revoiceMeasureTimeline = (frames: number) => measureTimeline(this.timeline, { frames });
    (window as unknown as Record<string, unknown>).revoiceMeasureScript = (frames: number) => measureScript(this.script, { frames });
    void engine.stockVoices().then((v) => {
      this.voices = v;
      this.redraw();
    });
  }

  destroy(): void {
    this.closed = true;
    this.previewWait.stop();
    this.renderWait.stop();
    this.frames.cancel();
    document.removeEventListener("keydown", this.keys);
    window.removeEventListener("resize", this.resized);
    this.timeline.destroy();
    this.script.destroy();
    this.picture?.dispose();
    if (this.pictureWindow) void closePictureWindow().catch(() => {});
    if (this.serverPoll !== null) window.clearInterval(this.serverPoll);
    void engine.stop();
    if (this.monitor.mode !== "off") void engine.setOriginalMonitor({ mode: "off" }).catch(() => {});
  }

  /** Engine events for this window: they change state and ask for a frame. */
  handle(event: StudioEvent): void {
    switch (event.kind) {
      case "renderProgress":
        if (event.projectId !== this.project.id) return;
        this.progress = { done: event.done, total: event.total };
        this.pollServers(true);
        break;
      case "segmentState": {
        const line = this.lines.get(event.segmentId);
        if (!line) return;
        line.state = event.state;
        line.error = event.error;
        if (event.state === "ready") this.timeline.setPeaks(line.id, null);
        this.changedLines.set(line.id, line);
        break;
      }
      case "renderFinished":
        if (event.projectId !== this.project.id) return;
        this.progress = null;
        this.pollServers(false);
        this.message = event.error
          ? ""
          : `Rendered ${event.rendered} line${event.rendered === 1 ? "" : "s"}${event.fresh ? ` (${event.fresh} already current)` : ""}${event.cancelled ? "; cancelled" : ""}`;
        this.error = event.error ?? (event.failed ? `${event.failed} lines failed: select one to see why, then render again.` : null);
        void this.reload().then(() => this.loadTakes());
        break;
      case "listenProgress":
        if (event.projectId !== this.project.id) return;
        this.listening = { done: event.done, total: event.total, retaking: event.retaking };
        break;
      case "segmentChecked": {
        const line = this.lines.get(event.segmentId);
        if (!line) return;
        line.check = event.check;
        if (event.retaken) this.timeline.setPeaks(line.id, null);
        this.changedLines.set(line.id, line);
        break;
      }
      case "listenFinished":
        if (event.projectId !== this.project.id) return;
        this.listening = null;
        if (event.error) this.error = `Listening back stopped: ${event.error}`;
        else if (!event.cancelled)
          this.message = `Listened back to ${event.checked} line${event.checked === 1 ? "" : "s"}: ${
            event.failing ? `${event.failing} failed (marked QC)` : "all passed"
          }${event.retaken ? `; ${event.retaken} taken again` : ""}`;
        void this.reload().then(() => this.loadTakes());
        break;
      case "playback":
        this.playback = event;
        this.timeline.setPlayhead(event.position);
        if (event.projectId === this.project.id) this.script.setPlayhead(event.position);
        this.picture?.follow(event.position, event.playing, event.length, event.looping);
        break;
      case "previewFinished":
        this.message = event.error ? "" : `Preview played; first sound after ${Math.round(event.firstSoundMs ?? 0)} ms`;
        this.error = event.error;
        void this.reload();
        break;
      case "voicePreviewFinished":
        this.message = event.error ? "" : `Previewed ${event.voice}`;
        this.error = event.error;
        break;
      case "translating":
        if (event.projectId !== this.project.id) return;
        this.translation?.progress(event.done, event.total);
        this.message = `Translating: ${event.done} of ${event.total} lines…`;
        break;
      case "lengthsPredicted":
        // Lines just imported or edited now have their spoken lengths: show which fit.
        if (event.projectId === this.project.id) void this.reload();
        break;
      case "modelLoading":
        if (event.loading) this.message = "Loading the voice model…";
        else if (this.message === "Loading the voice model…") this.message = "Voice model loaded";
        break;
    }
    this.redraw();
  }

  // ---- state -------------------------------------------------------------

  /** Asks for a draw on the next frame (many asks, one draw). */
  private redraw(): void {
    if (!this.closed) this.frames.schedule();
  }

  /** A project from the engine: kept, and the timeline told on the next frame. */
  private take(project: Project): void {
    this.project = project;
    this.indexLines();
    for (const [id, draft] of this.drafts) {
      const line = this.lines.get(id);
      if (!line || line.text === draft) this.drafts.delete(id);
    }
    this.timelineStale = true;
    this.syncPicture();
    this.loadTranslations();
    this.redraw();
  }

  /** Reads the shown track's translation links (a track alone in its
   * project was translated from nothing) and hands them to the script. */
  private loadTranslations(): void {
    const read = ++this.translationReads;
    const trackId = this.trackId;
    const done = (translations: TrackTranslations | null) => {
      if (read !== this.translationReads || this.closed || trackId !== this.trackId) return;
      this.translations = translations;
      this.script.setTranslations(translations);
    };
    if (this.project.tracks.length < 2) return done(null);
    void (async () => {
      try {
        done(await engine.trackTranslations(trackId));
      } catch {
        // Shown without its links: the script still reads and edits.
        done(null);
      }
    })();
  }

  /** Shows the project's video in the picture pane (loaded again when the
   * video changes), or no pane without one. */
  private syncPicture(): void {
    const video = this.project.video;
    if (video === this.pictureOf) return;
    this.pictureOf = video;
    if (!video || this.pictureWindow) {
      this.picture?.dispose();
      this.picture = null;
      if (!video && this.pictureWindow) void closePictureWindow().catch(() => {});
      return;
    }
    this.picture ??= new PicturePane();
    this.picture.setTimecode(this.pictureTimecode ? this.rate : null);
    void this.picture.load(this.project.id, fileName(video));
  }

  /** Moves the picture to a window of its own (a second screen), or back into its pane. */
  private async detachPicture(detach: boolean): Promise<void> {
    const video = this.project.video;
    if (!video) return;
    if (!detach) return closePictureWindow().catch((e) => this.failed(e));
    const url = pictureWindowUrl(this.project.id, fileName(video), this.rate, this.pictureTimecode);
    try {
      await openPictureWindow(url, `Picture · ${this.project.name}`, () => {
        // However it was closed, the picture comes back to its pane.
        this.pictureWindow = false;
        this.pictureOf = null;
        if (this.closed) return;
        this.syncPicture();
        this.followPicture(this.positionSeconds());
        this.redraw();
      });
      this.pictureWindow = true;
      this.pictureOf = null;
      this.syncPicture();
      this.followPicture(this.positionSeconds());
      this.message = "The picture is in its own window (F there for full screen)";
      this.error = null;
    } catch (e) {
      this.failed(e);
    }
    this.redraw();
  }

  private failed(e: unknown): void {
    this.error = e instanceof Error ? e.message : String(e);
    this.redraw();
  }

  /** The playhead in seconds: where this project plays, else where it was put. */
  private positionSeconds(): number {
    return this.playback?.projectId === this.project.id ? this.playback.position : this.parked;
  }

  /** Tells the picture (pane or window) where the playhead is now. */
  private followPicture(seconds: number): void {
    const transport = this.playback?.projectId === this.project.id ? this.playback : null;
    const [playing, length, looping] = [transport?.playing ?? false, transport?.length ?? this.project.length, transport?.looping ?? null];
    this.picture?.follow(seconds, playing, length, looping);
    if (this.pictureWindow) followInWindow({ projectId: this.project.id, position: seconds, playing, length, looping, timecode: this.pictureTimecode ? this.rate : null });
  }

  private setPictureTimecode(on: boolean): void {
    this.pictureTimecode = on;
    this.picture?.setTimecode(on ? this.rate : null);
    this.followPicture(this.positionSeconds());
    this.redraw();
  }

  /** Draws the bed's waveform (again, when its stems changed). */
  private loadBedPeaks(): void {
    const ask = ++this.bedAsks;
    void engine.bedPeaks(this.project.id).then(
      (peaks) => {
        if (ask === this.bedAsks && !this.closed) this.timeline.setBedPeaks(peaks);
      },
      (e) => {
        this.error = `The bed cannot be drawn: ${e}`;
        this.redraw();
      },
    );
  }

  private indexLines(): void {
    this.lines = new Map(this.project.tracks.flatMap((t) => t.segments.map((s) => [s.id, s] as const)));
  }

  /** Gives the timeline what changed since the last frame: the project
   * (one index rebuild however many answers came), or lines' new states. */
  private syncTimeline(): void {
    const changed = [...this.changedLines.values()];
    this.changedLines.clear();
    if (!this.timelineStale && changed.length && !(this.timeline.updateSegments(changed) && this.script.updateSegments(changed))) this.timelineStale = true;
    if (this.timelineStale) {
      this.timelineStale = false;
      this.timeline.setProject(this.project, this.trackId);
      this.timeline.setMarkers(this.project.markers);
      this.script.setProject(this.project, this.trackId, this.rate);
      this.script.setSelection(this.selection);
    }
  }

  private frame(): void {
    this.syncTimeline();
    this.draw();
  }

  private line(id: number): Segment | undefined {
    const line = this.lines.get(id);
    return line?.trackId === this.trackId ? line : undefined;
  }

  /** A line's number in its track (1, 2, 3… in time order), as the script shows it. */
  private lineNumber(line: Segment): number {
    return (this.project.tracks.find((t) => t.id === line.trackId)?.segments.findIndex((s) => s.id === line.id) ?? -1) + 1;
  }

  private select(id: number | null): void {
    // A refused field belongs to the line it was refused on.
    if (id !== this.selection) this.lineRefused.clear();
    this.selection = id;
    this.script.setSelection(id);
    this.redraw();
    void this.loadTakes();
  }

  /** A row picked in the script: the timeline selects it and brings it into
   * view, and, while nothing plays, the playhead goes to its start. */
  private selectFromScript(id: number | null): void {
    this.timeline.selection = id;
    const line = id === null ? undefined : this.line(id);
    if (line) {
      this.timeline.scrollToTime(line.start);
      if (!(this.playback?.playing && this.playback.projectId === this.project.id)) void this.seek(line.start);
    }
    this.select(id);
  }

  /** Replace all, from the script's find bar: one undoable edit; the lines changed. */
  private async replace(find: string, replacement: string, options: { matchCase: boolean; wholeWord: boolean; only: number[] | null }): Promise<number> {
    try {
      const [count, project] = await engine.replaceText(this.trackId, find, replacement, { matchCase: options.matchCase, wholeWord: options.wholeWord, only: options.only ?? undefined });
      this.take(project);
      this.message = `Replaced “${find}” with “${replacement}” in ${count} line${count === 1 ? "" : "s"} (Ctrl+Z undoes it); saved`;
      this.error = null;
      return count;
    } catch (e) {
      this.failed(e);
      return 0;
    }
  }

  /** The draft of a line as typed: kept while it differs from the stored text. */
  private setDraft(id: number, text: string): void {
    if (text === this.lines.get(id)?.text) this.drafts.delete(id);
    else this.drafts.set(id, text);
    this.redraw();
  }

  private async saveText(id: number): Promise<void> {
    // What the field shows is the draft; a value set without an input
    // event (a script, an automation tool) is taken up here too.
    const area = this.root.querySelector<HTMLTextAreaElement>("#line-text");
    if (area && this.drafts.get(id) !== area.value && this.selection === id) this.setDraft(id, area.value);
    const text = this.drafts.get(id);
    const line = this.lines.get(id);
    if (text === undefined || !line || text === line.text) {
      this.drafts.delete(id);
      return this.redraw();
    }
    const saved = await this.editLine(id, { text }, "Changed the text");
    // Typing may have gone on while the engine answered: that stays a draft.
    if (saved && this.drafts.get(id) === text) this.drafts.delete(id);
    this.redraw();
  }

  private async loadTakes(): Promise<void> {
    const id = this.selection;
    if (id === null) return;
    try {
      const list = await engine.segmentTakes(id);
      if (this.selection === id) this.takes = { segmentId: id, list };
    } catch (e) {
      this.error = String(e);
    }
    this.redraw();
  }

  private async insert(at: number, speakerId: number | null): Promise<void> {
    try {
      const [id, project] = await engine.insertSegment(this.trackId, at, speakerId);
      this.take(project);
      this.syncTimeline();
      this.timeline.selection = id;
      this.selection = id;
      this.message = "Added a line: type its text in the inspector";
      this.error = null;
    } catch (e) {
      this.refused(e);
    }
    this.redraw();
  }

  private async remove(id: number): Promise<void> {
    if (this.selection === id) this.selection = null;
    await this.apply(engine.deleteSegment(id), "Deleted the line (Ctrl+Z brings it back)");
  }

  private async reload(): Promise<void> {
    try {
      this.take(await engine.openProject(this.project.id));
    } catch (e) {
      this.error = String(e);
    }
    this.redraw();
  }

  /** Sends an edit; true when the engine took it. `field` finds the
   * inspector field a refusal names. */
  private async apply(change: Promise<Project>, done: string, field?: (error: EngineError) => string | null): Promise<boolean> {
    try {
      this.take(await change);
      this.message = `${done}; saved`;
      this.error = null;
      this.lineRefused.clear();
      void this.loadTakes();
      return true;
    } catch (e) {
      this.refused(e, field);
      this.revision += 1;
      this.redraw();
      return false;
    }
  }

  /** Edits line `id`; a refusal marks the inspector field the edit changed. */
  private editLine(id: number, edit: SegmentEdit, done: string): Promise<boolean> {
    return this.apply(engine.editSegment(id, edit), done, (error) => this.lineField(id, edit, error));
  }

  /** The inspector field a refused edit of line `id` names: the one the
   * edit changed, when the engine names the line (`segment 12`) or its
   * timing strategy, and the inspector shows that line. */
  private lineField(id: number, edit: SegmentEdit, error: EngineError): string | null {
    if (this.selection !== id || !this.line(id)) return null;
    if (error.input?.startsWith("timing strategy")) return "line-strategy";
    if (error.input !== `segment ${id}`) return null;
    if (edit.text !== undefined) return "line-text";
    if (edit.start !== undefined || edit.end !== undefined) return "line-slot";
    if (edit.speed !== undefined) return "line-speed";
    if (edit.gainDb !== undefined) return "line-gain";
    if (edit.strategy !== undefined) return "line-strategy";
    return null;
  }

  /** A refusal by its kind: an invalid input the inspector shows marks its
   * field; a line or project that is gone reads the project again; the
   * rest is the status line's error. */
  private refused(e: unknown, field?: (error: EngineError) => string | null): void {
    this.error = null;
    this.message = "";
    actOn(e, { banner: (message) => (this.error = message), fields: this.lineRefused, field, refresh: () => this.reload() });
  }

  private async run(action: Promise<unknown>): Promise<void> {
    try {
      await action;
      this.error = null;
    } catch (e) {
      this.refused(e);
    }
    this.redraw();
  }

  /** Starts work the engine may answer busy (a preview, a render while the
   * model loads): the status line shows it waiting, with Stop, and it is
   * asked for again. True once it started. */
  private async startWaiting(wait: BusyRetry, what: string, action: () => Promise<unknown>): Promise<boolean> {
    try {
      const answer = await wait.run(what, action);
      if (answer === STOPPED) return false;
      this.error = null;
      return true;
    } catch (e) {
      this.refused(e);
      return false;
    } finally {
      this.redraw();
    }
  }

  /** Stops the render: the one waiting for the engine, else the one running. */
  private cancelRender(): void {
    if (this.renderWait.waiting) this.renderWait.stop();
    else void this.run(engine.cancelRender());
  }

  private async togglePlay(): Promise<void> {
    if (this.playback?.playing) return this.run(engine.pause());
    if (this.playback && this.playback.projectId === this.project.id && !this.playback.ended) return this.run(engine.resume());
    try {
      // From where the playhead was put (a click, a typed timecode), or the start once it ended.
      this.playback = await engine.play(this.project.id, this.trackId, this.playback?.ended ? 0 : this.positionSeconds());
      this.error = null;
    } catch (e) {
      this.error = String(e);
    }
    this.redraw();
  }

  /** Hears the original dialogue as chosen; a refusal puts the header back. */
  private async setMonitor(mode: MonitorMode, level: number): Promise<void> {
    const before = this.monitor;
    this.monitor = { mode, level };
    try {
      await engine.setOriginalMonitor(originalMonitor(mode, level));
      this.error = null;
    } catch (e) {
      this.monitor = before;
      this.error = String(e);
      this.revision += 1;
    }
    this.redraw();
  }

  /** The header's original dialogue level, typed. */
  private setMonitorLevel(typed: string): void {
    try {
      void this.setMonitor(this.monitor.mode, decibels(typed, ORIGINAL_LEVEL_DB));
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      this.revision += 1;
      this.redraw();
    }
  }

  private async seek(seconds: number): Promise<void> {
    this.parked = seconds;
    this.redraw();
    this.timeline.setPlayhead(seconds);
    this.script.setPlayhead(seconds);
    // The picture follows the playhead, whether or not the engine is playing.
    this.followPicture(seconds);
    if (this.playback?.projectId === this.project.id) await this.run(engine.seek(seconds));
  }

  /** The project's timecode rate. */
  private get rate(): FrameRate {
    return frameRate(this.project.frameRate);
  }

  /** The playhead's timecode: where this project plays, else where it was put. */
  private positionText(): string {
    return formatTimecode(this.positionSeconds(), this.rate);
  }

  /** The transport's position: timecode one can type over (or seconds);
   * Enter seeks there, Escape or leaving the field puts the playhead's
   * timecode back. Its keys stay in it. */
  private positionField(): TemplateResult {
    const restore = (field: HTMLElement) => {
      this.positionHeld = null;
      field.textContent = this.positionText();
    };
    const keys = (e: KeyboardEvent) => {
      e.stopPropagation();
      const field = e.currentTarget as HTMLElement;
      if (e.key === "Enter") {
        e.preventDefault();
        const typed = field.textContent ?? "";
        try {
          const seconds = Math.min(parseTimecode(typed, this.rate), this.project.length);
          this.error = null;
          restore(field);
          field.blur();
          void this.seek(seconds);
        } catch (error) {
          this.error = error instanceof Error ? error.message : String(error);
          this.redraw();
        }
      } else if (e.key === "Escape") {
        e.preventDefault();
        restore(field);
        field.blur();
      }
    };
    const typing = () => {
      this.positionHeld ??= this.positionShown;
    };
    const length = formatTimecode(this.project.length, this.rate);
    this.positionShown = this.positionHeld ?? this.positionText();
    return html`<span class="position"><span id="position" role="textbox" contenteditable="plaintext-only" tabindex="0" spellcheck="false" aria-label=${`Position (timecode at ${this.rate} fps, or seconds; Enter goes there)`} title="Type a timecode or seconds and press Enter to go there" style="display: inline-block; width: 11ch; text-align: right; white-space: nowrap; overflow: hidden; vertical-align: bottom" .textContent=${this.positionShown} @keydown=${keys} @input=${typing} @blur=${(e: Event) => this.positionHeld !== null && restore(e.currentTarget as HTMLElement)}></span> / <span id="length">${length}</span></span>`;
  }

  /** The timecode rate: any of them without a picture; with one, its rate
   * (at 29.97 drop-frame or not). An undoable edit. */
  private rateField(): TemplateResult {
    const current = this.rate;
    const allowed = FRAME_RATES.filter((r) => !this.project.video || fps(r) === fps(current));
    const label = (r: FrameRate) => (r === "29.97df" ? "29.97 DF" : r === "29.97" ? "29.97 NDF" : r) + " fps";
    return html`<select id="frame-rate" aria-label="Timecode rate" title=${this.project.video ? "The timecode follows the picture's rate" : "The timecode's frame rate"} @change=${(e: Event) => void this.apply(engine.setFrameRate(this.project.id, valueOf(e)), `Timecode at ${label(valueOf(e) as FrameRate)}`)}>${allowed.map(
      (r) => html`<option value=${r} .selected=${r === current}>${label(r)}</option>`,
    )}</select>`;
  }

  private async undo(redo: boolean): Promise<void> {
    try {
      const [what, project] = await (redo ? engine.redo(this.project.id) : engine.undo(this.project.id));
      this.take(project);
      this.message = what ? `${redo ? "Redid" : "Undid"}: ${what}` : `Nothing to ${redo ? "redo" : "undo"}`;
      void this.loadTakes();
    } catch (e) {
      this.error = String(e);
    }
    this.redraw();
  }

  /** Follows the remote servers each second while a render runs, and once more at its end. */
  private pollServers(on: boolean): void {
    const fetch = () =>
      void engine
        .remoteStatus()
        .then((servers) => {
          this.servers = servers;
          this.redraw();
        })
        .catch(() => {});
    if (on && this.serverPoll === null) {
      fetch();
      this.serverPoll = window.setInterval(fetch, 1000);
    } else if (!on) {
      if (this.serverPoll !== null) window.clearInterval(this.serverPoll);
      this.serverPoll = null;
      fetch();
    }
  }

  /** Renders the given lines (null: every line that needs it). */
  private renderLines(only: number[] | null): void {
    this.progress = { done: 0, total: 0 };
    const ask = ++this.renderAsks;
    void this.startWaiting(this.renderWait, "The render", () => engine.renderProject(this.project.id, only)).then((started) => {
      // Stopped or refused (and not asked again since): no render of ours is coming to move the progress.
      if (!started && ask === this.renderAsks) this.progress = null;
      this.redraw();
    });
  }

  private showTrack(trackId: number): void {
    this.trackId = trackId;
    this.selection = null;
    this.translations = null;
    this.script.setTranslations(null);
    this.loadTranslations();
    this.timelineStale = true;
    this.syncTimeline();
    this.redraw();
  }

  private onKey(e: KeyboardEvent): void {
    // A modal dialog takes the keyboard: Escape closes it, the editor's keys wait.
    if (openModal(this.root)) {
      if (e.key === "Escape") closeModal(this.root);
      return;
    }
    if (e.key === "Escape") {
      const help = this.root.querySelector(".help-overlay");
      if (help) help.remove();
      else if (this.selection !== null) {
        this.timeline.selection = null;
        this.select(null);
      }
      return;
    }
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === "z") {
      e.preventDefault();
      void this.undo(e.shiftKey);
    } else if (mod && e.key === "Enter") {
      e.preventDefault();
      this.renderLines(this.selection === null ? null : [this.selection]);
    } else if (typing) {
      return;
    } else if (e.key === " ") {
      e.preventDefault();
      void this.togglePlay();
    } else if (e.key === "k" || e.key === "K") {
      if (this.playback?.playing) void this.run(engine.pause());
    } else if (e.key === "l" || e.key === "L") {
      // Plays; while playing, each press jumps 5 s ahead (J jumps back).
      if (this.playback?.playing) void this.seek(Math.min(this.project.length, this.playback.position + JUMP_SECONDS));
      else void this.togglePlay();
    } else if (e.key === "j" || e.key === "J") {
      void this.seek(Math.max(0, (this.playback?.position ?? 0) - JUMP_SECONDS));
    } else if (e.code === "Comma" || e.code === "Period") {
      // Nudge by a frame (Shift: ten): the line; with Alt its in edge, with Ctrl its out edge.
      e.preventDefault();
      const frames = (e.code === "Comma" ? -1 : 1) * (e.shiftKey ? 10 : 1);
      this.timeline.nudgeSelected(e.altKey ? "start-edge" : e.ctrlKey || e.metaKey ? "end-edge" : "body", frames);
    } else if ((e.key === "m" || e.key === "M") && !mod && !e.altKey) {
      e.preventDefault();
      void this.addMarker();
    } else if (e.key === "ArrowRight") {
      this.timeline.selectNext();
    } else if (e.key === "ArrowLeft") {
      this.timeline.selectPrevious();
    } else if (e.key === "Delete" || e.key === "Backspace") {
      this.timeline.deleteSelected();
    } else if (e.key === "?") {
      this.toggleHelp();
    }
  }

  // ---- lanes and markers -------------------------------------------------

  /** The status line's words for a lane's change. */
  private laneWords(speakerId: number | null, change: engine.LaneMixEdit): string {
    const lane = speakerId === null ? "No speaker" : (this.project.speakers.find((s) => s.id === speakerId)?.name ?? "the lane");
    if (change.solo !== undefined) return `${change.solo ? "Soloed" : "Unsoloed"} ${lane}`;
    if (change.muted !== undefined) return `${change.muted ? "Muted" : "Unmuted"} ${lane}`;
    return `${lane} at ${(change.levelDb ?? 0).toFixed(1)} dB`;
  }

  /** A marker at the playhead ("M"), named by its number; renamed in the list. */
  private async addMarker(): Promise<void> {
    const at = this.positionSeconds();
    const name = `Marker ${this.project.markers.length + 1}`;
    if (await this.apply(engine.addMarker(this.project.id, at, name), `Added ${name} at ${formatTimecode(at, this.rate)}`)) {
      this.markerSelection = this.project.markers.find((m) => Math.abs(m.at - at) < 1e-6 && m.name === name)?.id ?? null;
      this.redraw();
    }
  }

  /** The project's markers, when no line is selected: go to, rename (Enter), remove. */
  private markerList(): TemplateResult {
    const markers = this.project.markers;
    const rename = (id: number, e: Event) => {
      const name = valueOf(e).trim();
      const marker = markers.find((m) => m.id === id);
      if (marker && name && name !== marker.name) void this.apply(engine.renameMarker(id, name), `Renamed the marker “${name}”`);
    };
    const keys = (e: KeyboardEvent) => {
      e.stopPropagation();
      if (e.key === "Enter") (e.currentTarget as HTMLInputElement).blur();
    };
    return html`<section class="markers" aria-label="Markers"><h3>Markers <span class="muted">(M adds one at the playhead)</span></h3>${
      markers.length
        ? html`<ol class="marker-list" id="marker-list">${markers.map(
            (m) => html`<li class=${`marker${m.id === this.markerSelection ? " marker--selected" : ""}`} data-marker=${String(m.id)}><button class="link-button marker-at" title="Go there" @click=${() => {
              this.markerSelection = m.id;
              void this.seek(m.at);
            }}>${formatTimecode(m.at, this.rate)}</button><input class="marker-name" aria-label="Marker name" .value=${m.name} @change=${(e: Event) => rename(m.id, e)} @keydown=${keys} /><button class="link-button" aria-label=${`Remove ${m.name}`} @click=${() => void this.apply(engine.removeMarker(m.id), `Removed ${m.name} (Ctrl+Z brings it back)`)}>✕</button></li>`,
          )}</ol>`
        : html`<p class="muted">No markers yet.</p>`
    }</section>`;
  }

  // ---- panes -------------------------------------------------------------

  /** The splitter left of the side column ("side": dragging left widens it)
   * or under the script ("script": dragging down makes it taller). */
  private paneSplitter(pane: keyof PaneSizes): HTMLElement {
    let origin = 0;
    const label = pane === "side" ? "Resize the picture and inspector column" : "Resize the script";
    return splitter(
      pane === "side" ? "x" : "y",
      label,
      (delta) => {
        if (!origin) origin = this.shownPanes()[pane] ?? 0;
        this.panes = { ...this.panes, [pane]: pane === "side" ? origin - delta : origin + delta };
        this.shown = null;
        this.panes = { ...this.panes, [pane]: this.shownPanes()[pane] };
        this.redraw();
      },
      () => {
        origin = 0;
        savePanes(this.panes);
      },
    );
  }

  /** The panes' sizes as drawn in the window as it is now: each within its
   * minimum and the room the timeline needs. */
  private shownPanes(): PaneSizes {
    const width = this.root.clientWidth || window.innerWidth;
    const header = this.root.querySelector(".editor-header")?.getBoundingClientRect().height ?? 60;
    const status = this.root.querySelector(".editor-status")?.getBoundingClientRect().height ?? 30;
    const main = (this.root.clientHeight || window.innerHeight) - header - status;
    return { side: clampSide(this.panes.side, width, true), script: clampScript(this.panes.script, main) };
  }

  // ---- drawing -----------------------------------------------------------

  private draw(): void {
    // Work waiting for a busy engine shows as waiting, not as a failure.
    const waiting = this.renderWait.waiting ? this.renderWait.template() : this.previewWait.template();
    const status =
      waiting !== nothing ? waiting : this.error ? html`<span class="status-error" role="alert">${this.error}</span>` : html`<span>${this.message}</span>`;
    const panel = renderPanel(this.project, this.progress !== null || this.listening !== null, {
      select: (trackId, id) => {
        if (trackId !== this.trackId) this.showTrack(trackId);
        this.timeline.selection = id;
        this.select(id);
      },
      retry: (ids) => this.renderLines(ids),
      cancel: () => this.cancelRender(),
      listen: () => {
        this.listening = { done: 0, total: 0, retaking: null };
        engine.listenProject(this.project.id).catch((e) => {
          this.listening = null;
          this.error = String(e);
          this.redraw();
        });
      },
    }, this.servers);
    // Panes: the script above the timeline (and the render panel) in the
    // main column; the picture above the inspector in the side column. The
    // splitters set the sizes (custom properties), nothing else does.
    renderTemplate(
      html`<header class="editor-header">${keyed(this.revision, this.header())}</header><div class="editor-body" style=${this.paneStyle()}><div class="editor-main">${this.scriptHost}${this.scriptSplitter}${this.timelineHost}<div class="editor-render-panel">${panel}</div></div>${this.sideSplitter}<div class="editor-side">${
        this.project.video ? this.pictureColumn() : nothing
      }<aside class="inspector" aria-label="Line inspector">${this.inspector()}</aside></div></div><div class="editor-status" role="status" id="editor-status">${status}</div>`,
      this.root,
    );
  }

  /** The picture's pane (or word that it is in its own window), and its actions. */
  private pictureColumn(): TemplateResult {
    const actions = html`<div class="picture-actions"><button class="link-button" id="picture-detach" title="Show the picture in a window of its own (a second screen; F there for full screen)" @click=${() => void this.detachPicture(!this.pictureWindow)}>${
      this.pictureWindow ? "Back into the editor" : "Own window ↗"
    }</button><label class="picture-option" title="The playhead's timecode over the picture"><input type="checkbox" id="picture-timecode-toggle" .checked=${this.pictureTimecode} @change=${(e: Event) => this.setPictureTimecode((e.currentTarget as HTMLInputElement).checked)} /> Timecode</label></div>`;
    return html`<aside class="picture-column" aria-label="Picture">${
      this.picture && !this.pictureWindow ? this.picture.element : html`<p class="muted picture-detached" id="picture-in-window">The picture is in its own window.</p>`
    }${actions}</aside>`;
  }

  private paneStyle(): string {
    // Measured once the editor is laid out, then kept until the window or a splitter moves.
    if (!this.shown && this.root.clientWidth) this.shown = this.shownPanes();
    const shown = this.shown ?? this.shownPanes();
    return `--side-width: ${shown.side}px; --script-height: ${shown.script}px`;
  }

  private header(): TemplateResult {
    const project = this.project;
    const stale = project.tracks.reduce((n, t) => n + t.segments.filter((s) => s.state === "stale" || s.state === "failed").length, 0);
    const progress = this.progress
      ? html`<span class="render-progress" id="render-progress"><progress max=${String(Math.max(1, this.progress.total))} value=${String(this.progress.done)}></progress> ${this.progress.done}/${this.progress.total}<button class="link-button" id="cancel-render" @click=${() => this.cancelRender()}>Cancel</button></span>`
      : nothing;
    const playing = this.playback?.playing && this.playback.projectId === project.id;
    const track =
      project.tracks.length > 1
        ? html`<select id="track" aria-label="Track (language)" @change=${(e: Event) => this.showTrack(Number(valueOf(e)))}>${project.tracks.map(
            (t) => html`<option value=${String(t.id)} .selected=${t.id === this.trackId}>${`${t.language} · ${t.segments.length} lines`}</option>`,
          )}</select>`
        : nothing;
    const strategy = (e: Event) => {
      const select = e.currentTarget as HTMLSelectElement;
      if (!isStrategy(select.value)) return;
      void this.apply(engine.setProjectStrategy(project.id, select.value), `Timing: ${STRATEGY_LABELS[select.value]}`);
    };
    const listening = this.listening
      ? html`<span class="render-progress" id="listen-progress" title="Whisper hears each line just rendered; a line that fails is taken again once"><progress max=${String(Math.max(1, this.listening.total))} value=${String(this.listening.done)}></progress> ${
          this.listening.retaking !== null ? `Retaking ${this.listening.retaking}…` : `Heard ${this.listening.done}/${this.listening.total}`
        }<button class="link-button" id="cancel-listen" @click=${() => void this.run(engine.cancelRender())}>Stop</button></span>`
      : nothing;
    const [low, high] = ORIGINAL_LEVEL_DB;
    const monitor = project.original
      ? html`<span class="monitor" title="How the original dialogue is heard while the dub plays"><select id="original-monitor" aria-label="Original dialogue" @change=${(e: Event) => void this.setMonitor(valueOf(e) as MonitorMode, this.monitor.level)}>${MONITOR_MODES.map(
          ([value, label]) => html`<option value=${value} .selected=${value === this.monitor.mode}>${label}</option>`,
        )}</select>${
          this.monitor.mode === "under"
            ? html`<input id="original-level" class="level" type="number" min=${String(low)} max=${String(high)} step="0.5" aria-label="Original dialogue level (dB)" .value=${String(this.monitor.level)} @change=${(e: Event) => this.setMonitorLevel(valueOf(e))} /> dB`
            : nothing
        }</span>`
      : nothing;
    return html`<button class="link-button" @click=${() => this.back()}>← Projects</button><h1 id="project-name">${project.name}</h1>${track}<button class="link-button" id="add-track" title="Add a track in another language from a translated script (SRT, WebVTT or plain text)" @click=${() => this.openAddTrack()}>+ Language track</button><span class="saved" id="saved-indicator">✓ Saved</span><button class="button" id="render-project" ?disabled=${!stale || this.progress !== null} @click=${() => this.renderLines(null)}>${renderLabel(stale, this.progress)}</button><span class="job-status" id="job-status">${progress}${listening}</span><button class="button" id="play-pause" aria-label=${playing ? "Pause" : "Play"} @click=${() => void this.togglePlay()}>${playing ? "❚❚ Pause" : "▶ Play"}</button>${this.positionField()}${this.rateField()}${monitor}<select id="project-strategy" aria-label="Timing strategy" title="How rendered lines are fitted to their slots" @change=${strategy}>${STRATEGIES.map(
      ([value, label]) => html`<option value=${value} .selected=${value === project.strategy}>${label}</option>`,
    )}</select><button class="link-button" id="undo" ?disabled=${!project.canUndo} @click=${() => void this.undo(false)}>Undo</button><button class="link-button" id="redo" ?disabled=${!project.canRedo} @click=${() => void this.undo(true)}>Redo</button><button class="link-button" id="open-translate" title="Translate this track into another language with a translation engine (Settings → Translation engines)" ?disabled=${!project.tracks.find((t) => t.id === this.trackId)?.segments.length} @click=${() => this.openTranslate()}>Translate…</button><button class="link-button" id="open-cast" ?disabled=${!project.speakers.length} @click=${() => this.openCast()}>Voice every speaker…</button><button class="link-button" id="save-cast" ?disabled=${!project.speakers.length} @click=${() => this.openSaveCast()}>Save cast…</button>${
      project.cast ? html`<span class="muted" id="project-cast">Cast: ${project.cast}</span>` : nothing
    }<button class="link-button" id="open-dictionary" @click=${() => this.openDictionary()}>Dictionary…</button><button class="link-button" id="attach-video" @click=${() => this.openAttachVideo()}>Attach video…</button>${
      project.video ? html`<span class="muted" id="project-video" title=${project.video}>${fileName(project.video)}</span>` : nothing
    }<button class="link-button" id="open-beds" title=${`Music and effects: ${project.beds.length} stem${project.beds.length === 1 ? "" : "s"}`} @click=${() => this.openBeds()}>Bed…</button><button class="link-button" id="open-export" @click=${() => this.openExport()}>Export…</button>`;
  }

  private inspector(): TemplateResult | DirectiveResult {
    const line = this.selection === null ? undefined : this.line(this.selection);
    if (!line) return html`<h2>Line</h2><p class="muted">Select a line on the timeline or in the script (or press → ) to edit it.</p>${this.markerList()}`;
    // One set of elements per line (and per refused edit): a field keeps
    // its element, focus and caret for as long as its line is selected.
    return keyed(`${line.id}/${this.revision}`, this.lineInspector(line));
  }

  private lineInspector(line: Segment): TemplateResult {
    const id = line.id;
    const draft = this.drafts.get(id);
    const speaker = this.project.speakers.find((s) => s.id === line.speakerId);
    const fit = line.fit && line.state === "ready" ? fitReadout(line.fit) : line.planned ? `Once rendered: ${fitReadout(line.planned)}.` : "Not placed yet: render it to hear it on the timeline.";
    const typed = (e: Event) => this.setDraft(id, valueOf(e));
    const refused = this.lineRefused;
    const number = (field: "speed" | "gainDb", e: Event) => {
      const value = Number(valueOf(e));
      const now = this.lines.get(id);
      if (!now || value === now[field]) return;
      if (field === "speed") void this.editLine(id, { speed: value }, `Speed ×${value}`);
      else void this.editLine(id, { gainDb: value }, `Gain ${value} dB`);
    };
    const who = (e: Event) => {
      const select = e.currentTarget as HTMLSelectElement;
      const name = select.selectedOptions[0]?.textContent ?? "";
      if (select.value) void this.editLine(id, { speakerId: Number(select.value) }, `The line is now ${name}'s`);
    };
    const settings = html`<div class="inspector-grid"><label class="wide">Speaker<select id="line-speaker" aria-label="Speaker" @change=${who}>${
      line.speakerId === null ? html`<option value="" .selected=${true}>No speaker</option>` : nothing
    }${this.project.speakers.map((sp) => html`<option value=${String(sp.id)} .selected=${sp.id === line.speakerId}>${sp.name}</option>`)}</select></label><label>Speed ×<input id="line-speed" type="number" min="0.25" max="4" step="0.05" aria-label="Speed" .value=${String(line.speed)} @change=${(e: Event) => number("speed", e)} ${refused.on("line-speed")} />${refused.note("line-speed")}</label><label>Gain dB<input id="line-gain" type="number" min="-40" max="20" step="0.5" aria-label="Gain (dB)" .value=${String(line.gainDb)} @change=${(e: Event) => number("gainDb", e)} ${refused.on("line-gain")} />${refused.note("line-gain")}</label><label class="wide">Timing<select id="line-strategy" aria-label="Timing for this line" @change=${(e: Event) => {
      const chosen = valueOf(e);
      void this.editLine(id, { strategy: isStrategy(chosen) ? chosen : null }, "Changed the line's timing");
    }} ${refused.on("line-strategy")}><option value="" .selected=${!line.strategy}>Project's timing</option>${STRATEGIES.map(
      ([value, label]) => html`<option value=${value} .selected=${value === line.strategy}>${label}</option>`,
    )}</select>${refused.note("line-strategy")}</label></div>`;
    // The textarea's value is bound (not live): lit writes it only when the
    // draft or the stored text changes, never over what is being typed.
    const flagged = line.flags.length > 0;
    return html`<h2 title=${`Line id ${id}`}>Line ${this.lineNumber(line)}</h2><p class="line-state line-state--${flagged ? "flagged" : line.state}" id="line-state">${stateWords(line, STATE_WORDS)}</p>${this.fitPanel(line)}${
      line.error ? html`<p class="status-error" role="alert">${line.error}</p>` : nothing
    }${
      line.state === "failed" ? html`<button class="button" id="retry-line" ?disabled=${this.progress !== null} @click=${() => this.renderLines([id])}>Retry this line</button>` : nothing
    }<p class="muted" id="line-slot" ${refused.on("line-slot")}>Slot ${formatTimecode(line.start, this.rate)}–${formatTimecode(line.end, this.rate)}. ${fit}</p>${refused.note("line-slot")}${this.checkPanel(line)}<textarea id="line-text" rows="4" aria-label="Line text" .value=${draft ?? line.text} @input=${typed} @change=${typed} ${refused.on("line-text")}></textarea>${refused.note("line-text")}<button class="button" id="save-line" @click=${() => void this.saveText(id)}>Save text</button>${
      draft !== undefined && draft !== line.text ? html`<p class="unsaved" id="line-unsaved" role="note">● Unsaved text (Save text keeps it)</p>` : nothing
    }${settings}${speaker ? this.voicePicker(speaker) : html`<p class="muted">No speaker</p>`}${speaker ? this.blendFor(speaker) : nothing}<button class="link-button" id="preview-line" @click=${() => void this.startWaiting(this.previewWait, "The preview", () => engine.previewSegment(id))}>${
      line.state === "ready" ? "▶ Audition" : "▶ Preview (renders as it plays)"
    }</button>${this.takesPanel(line)}`;
  }

  /** The line's spoken length against its slot (predicted before any
   * render), and each of its flags in a sentence. */
  private fitPanel(line: Segment): TemplateResult {
    const slot = line.end - line.start;
    const spoken =
      line.spoken === null
        ? "Spoken length not known yet."
        : `Spoken ${line.spoken.toFixed(2)} s in a ${slot.toFixed(2)} s slot${slot > 0 && line.spoken > slot ? ` (needs ×${(line.spoken / slot).toFixed(2)})` : ""}.`;
    // The track's lines come in time order: the next one is the first that starts later.
    const next = this.project.tracks.find((t) => t.id === line.trackId)?.segments.find((s) => s.start > line.start) ?? null;
    const problems = fitProblems(line, next).filter((p) => p.kind !== "heard");
    return html`<div class="line-fit" id="line-fit"><p class="muted" id="line-spoken">${spoken}</p>${
      problems.length ? html`<ul class="line-flags" id="line-flags">${problems.map((p) => html`<li class="status-error">${problemSentence(p)}</li>`)}</ul>` : nothing
    }</div>`;
  }

  /** What listening back heard in the line's take, when it has been heard. */
  private checkPanel(line: Segment): TemplateResult | typeof nothing {
    const check = line.check;
    if (!check) return line.state === "ready" ? html`<p class="muted" id="line-check">Not heard back yet.</p>` : nothing;
    const heard = html`Heard: “${check.heard}”`;
    return check.passed
      ? html`<p class="line-check line-check--passed" id="line-check">✓ ${heard}</p>`
      : html`<div class="line-check line-check--failed" id="line-check" role="note"><p>✗ Failed its check. ${heard}</p><ul>${check.problems.map((p) => html`<li>${p}</li>`)}</ul><p class="muted">Try ↻ New take, give the line more room, or edit its text.</p></div>`;
  }

  /** The language a voice chosen now is for: the track's, when the project
   * has several (each track its own voice); otherwise every language. */
  private voiceLanguage(): string | null {
    return this.project.tracks.length > 1 ? (this.project.tracks.find((t) => t.id === this.trackId)?.language ?? null) : null;
  }

  /** The voice a speaker's lines on this track speak with. */
  private voiceOf(speaker: Speaker): string {
    const language = this.project.tracks.find((t) => t.id === this.trackId)?.language;
    return (language && speaker.languageVoices[language]) || speaker.voice;
  }

  /** Gives the speaker `voice` (for this track's language when there are
   * several); the engine refuses a voice that speaks another language. */
  private setVoice(speaker: Speaker, voice: string): void {
    const language = this.voiceLanguage();
    void this.apply(engine.setSpeakerVoice(this.project.id, speaker.id, voice, language), `${speaker.name} now speaks${language ? ` ${language}` : ""} with ${voice}`);
  }

  private voicePicker(speaker: Speaker): TemplateResult {
    const current = this.voiceOf(speaker);
    const known = this.voices.some((v) => v.name === current);
    const language = this.voiceLanguage();
    return html`<label>${speaker.name}'s voice${language ? ` (${language})` : ""}<select id="speaker-voice" aria-label="Voice" @change=${(e: Event) => this.setVoice(speaker, valueOf(e))}>${this.voices.map(
      (v) => html`<option value=${v.name} .selected=${v.name === current}>${`${v.name} (${v.language === "remote" ? "remote engine" : v.language}${v.gender ? `, ${v.gender}` : ""})`}</option>`,
    )}${known ? nothing : html`<option value=${current} .selected=${true}>${current} (${current.includes("/") ? "remote engine" : "blend"})</option>`}</select></label>`;
  }

  private blendFor(speaker: Speaker): TemplateResult {
    const current = this.voiceOf(speaker);
    const key = `${speaker.id}\n${current}\n${this.voices.length}`;
    if (this.blend?.key !== key) this.blend = { key, parts: startingParts(this.voices, current) };
    return blendBuilder(this.voices, this.blend.parts, {
      changed: () => this.redraw(),
      preview: (spec) => void this.startWaiting(this.previewWait, "The preview", () => engine.previewVoice(spec)),
      use: (spec) => this.setVoice(speaker, spec),
    });
  }

  private takesPanel(line: Segment): TemplateResult {
    const another = () => {
      this.progress = { done: 0, total: 1 };
      void this.apply(engine.newTake(line.id), "Rendering a new take");
    };
    const takes = this.takes?.segmentId === line.id ? this.takes.list : [];
    const rows = takes
      .slice()
      .reverse()
      .map((take, i) => {
        const n = takes.length - i;
        const note = [take.active ? "in use" : "", take.current ? "" : "from an earlier version of the line"].filter(Boolean).join(", ");
        return html`<li class=${`take${take.active ? " take--active" : ""}`} data-take=${String(take.id)} title=${`Seed ${take.seed}, rendered ${take.createdAt.replace("T", " ").slice(0, 19)}`}><span>Take ${n}</span><span class="muted">${`${take.seconds.toFixed(2)} s${note ? ` · ${note}` : ""}`}</span><button class="link-button" aria-label="Audition take ${n}" @click=${() => void this.run(engine.auditionTake(line.id, take.id))}>▶</button><button class="link-button" aria-label="Use take ${n}" ?disabled=${take.active} @click=${() => void this.apply(engine.pickTake(line.id, take.id), `Using take ${n}`)}>Use</button></li>`;
      });
    return html`<section class="takes" aria-label="Takes"><h3>Takes <button class="link-button" id="new-take" title="Render the line again with a fresh seed: Kokoro's timing stays the same, the voice's texture varies. Earlier takes stay." ?disabled=${this.progress !== null} @click=${another}>↻ New take</button></h3>${
      rows.length ? html`<ol class="take-list" id="take-list">${rows}</ol>` : html`<p class="muted">No takes yet: render the line.</p>`
    }</section>`;
  }

  // ---- dialogs (built once when opened; engine events do not redraw them) ----

  /** The keyboard shortcuts over the editor ("?"; Help → Keyboard Shortcuts). */
  toggleHelp(): void {
    toggleShortcuts(this.root);
  }


  private openCast(): void {
    const language = this.project.tracks.find((t) => t.id === this.trackId)?.language ?? null;
    showModal(
      this.root,
      castDialog(this.project, language, (project) => {
        this.take(project);
        this.message = "Voiced the speakers from their recordings";
      }),
    );
  }

  /** The languages the studio speaks: its stock voices' (library and remote voices left out). */
  private languages(): string[] {
    return [...new Set(this.voices.map((v) => v.language).filter((l) => l !== "library" && l !== "remote"))];
  }

  /** A track in another language from a translated script: the languages
   * offered are the stock voices' (the ones the studio has voices for). */
  private openAddTrack(): void {
    showModal(
      this.root,
      trackDialog(this.project, this.languages(), (project, language) => {
        const before = trackIn(this.project, language)?.segments.length ?? 0;
        this.take(project);
        const track = trackIn(project, language);
        if (!track) return;
        const added = track.segments.length - before;
        this.message = `Added ${added} line${added === 1 ? "" : "s"} to the ${track.language} track`;
        this.error = null;
        this.showTrack(track.id);
      }),
    );
  }

  /** The track shown, translated by a translation engine into another of
   * the studio's languages; the editor then shows the translated track.
   * `again`: the lines of a translated track picked for "Translate again"
   * (the dialog opens on translating only those). */
  private openTranslate(again?: number[]): void {
    const selection = { translations: this.translations, selected: again ?? this.script.selectedLines, onlySelected: again !== undefined };
    const dialog = translateDialog(this.project, this.trackId, this.languages(), {
      translated: (report, project) => {
        this.take(project);
        const track = project.tracks.find((t) => t.id === report.trackId);
        this.message = `Translated ${report.translated} line${report.translated === 1 ? "" : "s"}${track ? ` into the ${track.language} track` : ""}${report.failed.length ? `; ${report.failed.length} could not be translated` : ""}; saved`;
        this.error = null;
        if (track && track.id !== this.trackId) this.showTrack(track.id);
      },
      stopped: (words, cancelled) => {
        // Lines written before a stop or a failure stay: the project is read again.
        this.message = cancelled ? words : "";
        this.error = cancelled ? null : `Not translated: ${words}`;
        void this.reload();
      },
    }, selection);
    if (showModal(this.root, dialog.element)) this.translation = dialog;
  }

  private openAttachVideo(): void {
    showModal(
      this.root,
      attachVideoDialog(this.project, (attached, project) => {
        // The picture loads again, even when the same file was attached again.
        this.pictureOf = null;
        this.take(project);
        this.message = attachedSummary(attached);
        this.error = null;
        // The video's audio may now be drawn under the lines.
        if (attached.originalDialogue) void engine.originalPeaks(project.id).then((peaks) => this.timeline.setOriginalPeaks(peaks), () => {});
        if (attached.bed) void engine.bedPeaks(project.id).then((peaks) => this.timeline.setBedPeaks(peaks), () => {});
      }),
    );
  }

  private openSaveCast(): void {
    showModal(
      this.root,
      saveCastDialog(this.project, (sheet) => {
        this.message = castSaved(sheet);
        this.error = null;
        // The project now follows the sheet.
        void this.reload();
      }),
    );
  }

  private openBeds(): void {
    showModal(
      this.root,
      bedDialog(this.project, (project, done) => {
        this.take(project);
        this.message = `${done}; saved`;
        this.error = null;
        this.loadBedPeaks();
      }),
    );
  }

  private openDictionary(): void {
    const first = this.project.speakers[0];
    showModal(
      this.root,
      dictionaryDialog(this.project, first ? this.voiceOf(first) : "af_heart", (project, done) => {
        this.take(project);
        this.message = `${done}; saved`;
        this.error = null;
      }),
    );
  }

  private openExport(): void {
    const folder = el("input", { type: "text", id: "export-folder", "aria-label": "Export folder", placeholder: "/path/to/folder" });
    const format = el("select", { id: "export-format", "aria-label": "Format" }, el("option", { value: "wav" }, "WAV"), el("option", { value: "flac" }, "FLAC"), el("option", { value: "mp3" }, "MP3"));
    const loudness = el(
      "select",
      { id: "export-loudness", "aria-label": "Loudness delivery" },
      el("option", { value: "ebu" }, "EBU R128: -23 LUFS, -1 dBTP (broadcast)"),
      el("option", { value: "stream16" }, "Streaming: -16 LUFS, -1 dBTP (podcasts)"),
      el("option", { value: "stream14" }, "Streaming: -14 LUFS, -1 dBTP (music services)"),
      el("option", { value: "atsc" }, "ATSC A/85: -24 LKFS, -2 dBTP (US broadcast)"),
    );
    const result = el("div", { id: "export-result" });
    const go = el("button", { class: "button", id: "run-export" }, "Export mix, stems and subtitles");
    const close = el("button", { class: "link-button" }, "Close");
    const stale = this.project.tracks.flatMap((t) => t.segments).filter((s) => s.state !== "ready").length;
    const warning = stale
      ? el("p", { class: "status-warning", id: "export-stale-warning", role: "note" }, `${stale} line${stale === 1 ? " is" : "s are"} not rendered as they read now: ${stale === 1 ? "it" : "they"} will be silent or play an older take. Render first to hear every edit.`)
      : null;
    // Flagged lines (doesn't fit, words cut, overlapping, failed when heard back), listed by number.
    const flagged = this.project.tracks.flatMap((t) => t.segments.map((s, i) => ({ t, s, number: i + 1 })).filter(({ s }) => s.flags.length > 0));
    const failingWarning = flagged.length
      ? el(
          "div",
          { class: "status-warning", id: "export-flagged", role: "note" },
          el("p", {}, `${flagged.length} line${flagged.length === 1 ? " is" : "s are"} flagged and would ship as ${flagged.length === 1 ? "it stands" : "they stand"}:`),
          el("ul", { class: "export-flagged-lines" }, ...flagged.slice(0, 8).map(({ t, s, number }) => el("li", {}, `${t.language} line ${number}: ${s.flags.map(flagWords).join(", ")}: “${s.text.length > 48 ? `${s.text.slice(0, 47)}…` : s.text}”`))),
          flagged.length > 8 ? el("p", { class: "muted" }, `and ${flagged.length - 8} more`) : null,
        )
      : null;
    const check = (id: string, label: string, value = true) => {
      const box = el("input", { type: "checkbox", id });
      box.checked = value;
      return { box, row: el("label", { class: "check" }, box, ` ${label}`) };
    };
    const tracks = this.project.tracks.map((t) => ({ language: t.language, ...check(`export-track-${t.language}`, `${t.language} (${t.segments.length} lines)`) }));
    const stems = check("export-stems", "Stems (voice only, bed only)");
    const subtitles = check("export-subtitles", "Subtitles (SRT and WebVTT, fitted timings)");
    const strict = check("export-strict", "Refuse to export while lines are flagged", false);
    const delivery = deliveryFields(format);
    const video = check("export-with-video", "Video with the dub muxed in", false);
    if (!this.project.video) {
      video.box.disabled = true;
      video.row.title = "Attach a video first";
    }
    const handoff = HANDOFF_FORMATS.map(([name, label]) => ({ name, ...check(`export-${name}`, label, false) }));
    const folderRow = el("div", { class: "row" }, folder);
    renderTemplate(browseButton("folder", (path) => (folder.value = path)), folderRow);
    const dialog = el(
      "div",
      { class: "dialog", role: "dialog", "aria-label": "Export" },
      el("h2", {}, "Export"),
      warning,
      failingWarning,
      folderRow,
      el("fieldset", {}, el("legend", {}, "Tracks"), ...tracks.map((t) => t.row)),
      stems.row,
      subtitles.row,
      delivery.speakerTags,
      strict.row,
      video.row,
      el("fieldset", {}, el("legend", {}, "Handoff to an editor"), ...handoff.map((h) => h.row)),
      format,
      delivery.audio,
      loudness,
      go,
      close,
      result,
    );
    close.addEventListener("click", () => dialog.remove());
    go.addEventListener("click", async () => {
      go.setAttribute("disabled", "");
      result.replaceChildren(el("progress", {}), " Exporting…");
      try {
        const choice = exportChoice({
          languages: tracks.filter((t) => t.box.checked).map((t) => t.language),
          stems: stems.box.checked,
          subtitles: subtitles.box.checked,
          handoff: handoff.filter((h) => h.box.checked).map((h) => h.name),
          withVideo: !video.box.disabled && video.box.checked,
          ...delivery.read(),
          strict: strict.box.checked,
        });
        const files = await engine.exportProject(this.project.id, folder.value.trim(), format.value as "wav" | "flac" | "mp3", loudness.value, choice);
        const reveal = el("button", { class: "link-button", id: "reveal-export" }, "Show in file manager");
        reveal.addEventListener("click", () => void engine.revealFolder(folder.value.trim()).catch((e) => result.append(el("div", { class: "error-banner", role: "alert" }, String(e)))));
        result.replaceChildren(
          el("ul", { class: "export-files" }, ...files.map((f) => el("li", {}, f.path, f.seconds ? ` (${f.seconds.toFixed(2)} s)` : "", f.loudness ? el("div", { class: "muted export-loudness" }, f.loudness) : null))),
          reveal,
        );
      } catch (e) {
        result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, String(e)));
      } finally {
        go.removeAttribute("disabled");
      }
    });
    showModal(this.root, dialog);
  }
}
