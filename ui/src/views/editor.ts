// The project editor: a header (saved indicator, render with progress and
// cancel, play/pause, undo/redo, export), the timeline, and the inspector
// for the selected line (text, speaker, the speaker's voice, preview,
// state and errors). Every change goes to the engine; the answer (the
// project as the engine sees it) is what is drawn next.
import { el } from "../dom";
import * as engine from "../engine";
import type { PlaybackView, StudioEvent, TakeView, VoiceChoice } from "../engine";
import type { Project, Segment } from "../model";
import { measureTimeline } from "../timeline/measure";
import { TimelineView } from "../timeline/timeline-view";
import { browseButton } from "../pick";
import { blendBuilder } from "./blend";
import { renderRenderPanel } from "./render-panel";

const STATE_WORDS: Record<Segment["state"], string> = {
  stale: "Not rendered (or edited since)",
  queued: "Queued",
  rendering: "Rendering…",
  ready: "Ready",
  failed: "Failed",
};

/** How far J and L jump, seconds. */
const JUMP_SECONDS = 5;

/** Timing strategies by stored name, as the engine spells them. */
const STRATEGIES: [string, string][] = [
  ["natural", "Natural (place at start)"],
  ["strict_slot", "Strict slot (pad or trim)"],
  ["smart_fit", "Smart fit (absorb, speed up ≤1.25×)"],
  ["resynthesize", "Fit by re-synthesis"],
];

export class Editor {
  private project: Project;
  private trackId: number;
  private selection: number | null = null;
  private playback: PlaybackView | null = null;
  private progress: { done: number; total: number } | null = null;
  private message = "All changes saved";
  private error: string | null = null;
  private voices: VoiceChoice[] = [];
  /** The selected line's takes, once loaded (reloaded when the line changes or renders). */
  private takes: { segmentId: number; list: TakeView[] } | null = null;
  private readonly header = el("header", { class: "editor-header" });
  private readonly timelineHost = el("div", { class: "editor-timeline" });
  private readonly renderPanel = el("div", { class: "editor-render-panel" });
  private readonly inspector = el("aside", { class: "inspector", "aria-label": "Line inspector" });
  private readonly status = el("div", { class: "editor-status", role: "status", id: "editor-status" });
  private readonly timeline: TimelineView;
  private readonly keys = (e: KeyboardEvent) => this.onKey(e);

  constructor(private readonly root: HTMLElement, project: Project, private readonly back: () => void) {
    this.project = project;
    this.trackId = project.tracks[0]?.id ?? 0;
    root.replaceChildren(el("section", { class: "editor" }, this.header, el("div", { class: "editor-body" }, el("div", { class: "editor-main" }, this.timelineHost, this.renderPanel), this.inspector), this.status));
    this.timeline = new TimelineView(this.timelineHost, {
      select: (id) => {
        this.selection = id;
        this.drawInspector();
        void this.loadTakes();
      },
      seek: (seconds) => void this.seek(seconds),
      move: (id, start) => {
        const line = this.line(id);
        this.timeline.setPeaks(id, null);
        if (line) void this.apply(engine.editSegment(id, { start, end: start + (line.end - line.start) }), "Moved the line");
      },
      resize: (id, start, end) => {
        this.timeline.setPeaks(id, null);
        void this.apply(engine.editSegment(id, { start, end }), "Changed the line's slot");
      },
      split: (id, at) => void this.apply(engine.splitSegment(id, at), "Split the line"),
      merge: (a, b) => void this.apply(engine.mergeSegments(a, b), "Merged two lines"),
      insert: (at, speakerId) => void this.insert(at, speakerId),
      delete: (id) => void this.remove(id),
      requestPeaks: (id) => {
        void engine.segmentPeaks(id).then((peaks) => this.timeline.setPeaks(id, peaks), () => {});
      },
    });
    this.timeline.setProject(project, this.trackId);
    void engine.bedPeaks(project.id).then((peaks) => this.timeline.setBedPeaks(peaks), (e) => {
      this.error = `The bed cannot be drawn: ${e}`;
      this.drawHeader();
    });
    document.addEventListener("keydown", this.keys);
    // The end-to-end test's hook: frame times of a scroll-and-zoom sweep.
    (window as unknown as Record<string, unknown>).revoiceMeasureTimeline = (frames: number) => measureTimeline(this.timeline, { frames });
    void engine.stockVoices().then((v) => {
      this.voices = v;
      this.drawInspector();
    });
    this.draw();
  }

  destroy(): void {
    document.removeEventListener("keydown", this.keys);
    this.timeline.destroy();
    void engine.stop();
  }

  /** Engine events for this window. */
  handle(event: StudioEvent): void {
    switch (event.kind) {
      case "renderProgress":
        if (event.projectId !== this.project.id) return;
        this.progress = { done: event.done, total: event.total };
        break;
      case "segmentState": {
        const line = this.line(event.segmentId);
        if (!line) return;
        line.state = event.state;
        line.error = event.error;
        if (event.state === "ready") this.timeline.setPeaks(line.id, null);
        this.timeline.setProject(this.project, this.trackId);
        break;
      }
      case "renderFinished":
        if (event.projectId !== this.project.id) return;
        this.progress = null;
        this.message = event.error
          ? ""
          : `Rendered ${event.rendered} line${event.rendered === 1 ? "" : "s"}${event.fresh ? ` (${event.fresh} already current)` : ""}${event.cancelled ? "; cancelled" : ""}`;
        this.error = event.error ?? (event.failed ? `${event.failed} lines failed: select one to see why, then render again.` : null);
        void this.reload().then(() => this.loadTakes());
        break;
      case "playback":
        this.playback = event;
        this.timeline.setPlayhead(event.position);
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
      case "modelLoading":
        this.message = event.loading ? "Loading the voice model…" : this.message;
        break;
    }
    this.draw();
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
    this.drawInspector();
  }

  private line(id: number): Segment | undefined {
    return this.project.tracks.find((t) => t.id === this.trackId)?.segments.find((s) => s.id === id);
  }

  private async insert(at: number, speakerId: number | null): Promise<void> {
    try {
      const [id, project] = await engine.insertSegment(this.trackId, at, speakerId);
      this.project = project;
      this.timeline.setProject(project, this.trackId);
      this.timeline.selection = id;
      this.selection = id;
      this.message = "Added a line: type its text in the inspector";
      this.error = null;
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  private async remove(id: number): Promise<void> {
    if (this.selection === id) this.selection = null;
    await this.apply(engine.deleteSegment(id), "Deleted the line (Ctrl+Z brings it back)");
  }

  private async reload(): Promise<void> {
    try {
      this.project = await engine.openProject(this.project.id);
      this.timeline.setProject(this.project, this.trackId);
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  private async apply(change: Promise<Project>, done: string): Promise<void> {
    try {
      this.project = await change;
      this.message = `${done}; saved`;
      this.error = null;
      this.timeline.setProject(this.project, this.trackId);
      void this.loadTakes();
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  private async run(action: Promise<unknown>): Promise<void> {
    try {
      await action;
      this.error = null;
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  private async togglePlay(): Promise<void> {
    if (this.playback?.playing) return this.run(engine.pause());
    if (this.playback && this.playback.projectId === this.project.id && !this.playback.ended) return this.run(engine.resume());
    try {
      this.playback = await engine.play(this.project.id, this.trackId, this.playback?.ended ? 0 : (this.playback?.position ?? 0));
      this.error = null;
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  private async seek(seconds: number): Promise<void> {
    this.timeline.setPlayhead(seconds);
    if (this.playback?.projectId === this.project.id) await this.run(engine.seek(seconds));
  }

  private async undo(redo: boolean): Promise<void> {
    try {
      const [what, project] = await (redo ? engine.redo(this.project.id) : engine.undo(this.project.id));
      this.project = project;
      this.message = what ? `${redo ? "Redid" : "Undid"}: ${what}` : `Nothing to ${redo ? "redo" : "undo"}`;
      this.timeline.setProject(project, this.trackId);
      void this.loadTakes();
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  private render(only: number[] | null): void {
    this.progress = { done: 0, total: 0 };
    void this.run(engine.renderProject(this.project.id, only));
  }

  private onKey(e: KeyboardEvent): void {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === "z") {
      e.preventDefault();
      void this.undo(e.shiftKey);
    } else if (mod && e.key === "Enter") {
      e.preventDefault();
      this.render(this.selection === null ? null : [this.selection]);
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

  private toggleHelp(): void {
    const open = this.root.querySelector(".help-overlay");
    if (open) return open.remove();
    const rows: [string, string][] = [
      ["Space", "Play / pause"],
      ["J / K / L", "Back 5 s / pause / play (again: ahead 5 s)"],
      ["← / →", "Previous / next line"],
      ["Ctrl+Z / Ctrl+Shift+Z", "Undo / redo"],
      ["Delete", "Delete the selected line"],
      ["Ctrl+Enter", "Render the selected line (all stale lines when none is selected)"],
      ["Ctrl+wheel", "Zoom under the pointer"],
      ["?", "This help"],
    ];
    const overlay = el("div", { class: "help-overlay", role: "dialog", "aria-label": "Keyboard shortcuts" }, el("h2", {}, "Keyboard"), el("table", {}, ...rows.map(([k, v]) => el("tr", {}, el("td", {}, el("kbd", {}, k)), el("td", {}, v)))));
    overlay.addEventListener("click", () => overlay.remove());
    this.root.append(overlay);
  }

  private draw(): void {
    this.drawHeader();
    this.drawInspector();
    this.drawRenderPanel();
  }

  private drawRenderPanel(): void {
    renderRenderPanel(this.renderPanel, this.project, this.progress !== null, {
      select: (trackId, id) => {
        if (trackId !== this.trackId) this.showTrack(trackId);
        this.timeline.selection = id;
        this.selection = id;
        this.drawInspector();
        void this.loadTakes();
      },
      retry: (ids) => this.render(ids),
      cancel: () => void this.run(engine.cancelRender()),
    });
  }

  private showTrack(trackId: number): void {
    this.trackId = trackId;
    this.selection = null;
    this.timeline.setProject(this.project, trackId);
    this.draw();
  }

  private drawHeader(): void {
    const back = el("button", { class: "link-button" }, "← Projects");
    back.addEventListener("click", () => this.back());
    const stale = this.project.tracks.flatMap((t) => t.segments).filter((s) => s.state === "stale" || s.state === "failed").length;
    const render = el("button", { class: "button", id: "render-project" }, stale ? `Render ${stale} line${stale === 1 ? "" : "s"}` : "All lines rendered");
    if (!stale || this.progress) render.setAttribute("disabled", "");
    render.addEventListener("click", () => this.render(null));
    const cancel = el("button", { class: "link-button", id: "cancel-render" }, "Cancel");
    cancel.addEventListener("click", () => void this.run(engine.cancelRender()));
    const progress = this.progress
      ? el("span", { class: "render-progress", id: "render-progress" }, el("progress", { max: String(Math.max(1, this.progress.total)), value: String(this.progress.done) }), ` ${this.progress.done}/${this.progress.total}`, cancel)
      : null;
    const playing = this.playback?.playing && this.playback.projectId === this.project.id;
    const play = el("button", { class: "button", id: "play-pause", "aria-label": playing ? "Pause" : "Play" }, playing ? "❚❚ Pause" : "▶ Play");
    play.addEventListener("click", () => void this.togglePlay());
    const undo = el("button", { class: "link-button", id: "undo" }, "Undo");
    undo.addEventListener("click", () => void this.undo(false));
    const redo = el("button", { class: "link-button", id: "redo" }, "Redo");
    redo.addEventListener("click", () => void this.undo(true));
    if (!this.project.canUndo) undo.setAttribute("disabled", "");
    if (!this.project.canRedo) redo.setAttribute("disabled", "");
    const strategy = el("select", { id: "project-strategy", "aria-label": "Timing strategy", title: "How rendered lines are fitted to their slots" });
    for (const [value, label] of STRATEGIES) {
      const option = el("option", { value }, label);
      if (value === this.project.strategy) option.setAttribute("selected", "");
      strategy.append(option);
    }
    strategy.addEventListener("change", () => void this.apply(engine.setProjectStrategy(this.project.id, strategy.value), `Timing: ${strategy.selectedOptions[0]?.textContent ?? strategy.value}`));
    const track = el("select", { id: "track", "aria-label": "Track (language)" });
    for (const t of this.project.tracks) {
      const option = el("option", { value: String(t.id) }, `${t.language} · ${t.segments.length} lines`);
      if (t.id === this.trackId) option.setAttribute("selected", "");
      track.append(option);
    }
    track.addEventListener("change", () => this.showTrack(Number(track.value)));
    const exportButton = el("button", { class: "link-button", id: "open-export" }, "Export…");
    exportButton.addEventListener("click", () => this.openExport());
    const position = this.playback?.projectId === this.project.id ? `${this.playback.position.toFixed(2)} / ${this.project.length.toFixed(2)} s` : `${this.project.length.toFixed(2)} s`;
    this.header.replaceChildren(
      ...[
      back,
      el("h1", { id: "project-name" }, this.project.name),
      this.project.tracks.length > 1 ? track : null,
      el("span", { class: "saved", id: "saved-indicator" }, "✓ Saved"),
      render,
      progress,
      play,
      el("span", { class: "position", id: "position" }, position),
      strategy,
      undo,
      redo,
      exportButton,
      ].filter((n) => n !== null) as HTMLElement[],
    );
    this.status.replaceChildren(this.error ? el("span", { class: "status-error", role: "alert" }, this.error) : el("span", {}, this.message));
  }

  private drawInspector(): void {
    const line = this.selection === null ? undefined : this.line(this.selection);
    if (!line) {
      this.inspector.replaceChildren(el("h2", {}, "Line"), el("p", { class: "muted" }, "Select a line on the timeline (or press → ) to edit it."));
      return;
    }
    const text = el("textarea", { id: "line-text", rows: "4", "aria-label": "Line text" });
    text.value = line.text;
    const save = el("button", { class: "button", id: "save-line" }, "Save text");
    save.addEventListener("click", () => {
      if (text.value !== line.text) void this.apply(engine.editSegment(line.id, { text: text.value }), "Changed the text");
    });
    const speaker = this.project.speakers.find((s) => s.id === line.speakerId);
    const voice = el("select", { id: "speaker-voice", "aria-label": "Voice" });
    for (const v of this.voices) {
      const option = el("option", { value: v.name }, `${v.name} (${v.language}${v.gender ? `, ${v.gender}` : ""})`);
      if (speaker && v.name === speaker.voice) option.setAttribute("selected", "");
      voice.append(option);
    }
    if (speaker && !this.voices.some((v) => v.name === speaker.voice)) voice.append(el("option", { value: speaker.voice, selected: "" }, `${speaker.voice} (blend)`));
    voice.addEventListener("change", () => {
      if (speaker) void this.apply(engine.setSpeakerVoice(this.project.id, speaker.id, voice.value), `${speaker.name} now speaks with ${voice.value}`);
    });
    const preview = el("button", { class: "link-button", id: "preview-line" }, line.state === "ready" ? "▶ Audition" : "▶ Preview (renders as it plays)");
    preview.addEventListener("click", () => void this.run(engine.previewSegment(line.id)));
    const fit = line.fit
      ? `Placed ${line.fit.start.toFixed(2)}–${line.fit.end.toFixed(2)} s${line.fit.rate > 1.0001 ? `, sped up ×${line.fit.rate.toFixed(2)}` : line.fit.rate < 0.9999 ? `, slowed ×${line.fit.rate.toFixed(2)}` : ""}${line.fit.trimmed ? ", trimmed" : ""}${line.fit.overlap ? `, runs ${line.fit.overlap.toFixed(2)} s into the next line` : ""}`
      : "Not placed yet: render it to hear it on the timeline.";
    const speed = el("input", { id: "line-speed", type: "number", min: "0.25", max: "4", step: "0.05", "aria-label": "Speed" });
    speed.value = String(line.speed);
    speed.addEventListener("change", () => {
      const value = Number(speed.value);
      if (value !== line.speed) void this.apply(engine.editSegment(line.id, { speed: value }), `Speed ×${value}`);
    });
    const gain = el("input", { id: "line-gain", type: "number", min: "-40", max: "20", step: "0.5", "aria-label": "Gain (dB)" });
    gain.value = String(line.gainDb);
    gain.addEventListener("change", () => {
      const value = Number(gain.value);
      if (value !== line.gainDb) void this.apply(engine.editSegment(line.id, { gainDb: value }), `Gain ${value} dB`);
    });
    const override = el("select", { id: "line-strategy", "aria-label": "Timing for this line" }, el("option", { value: "" }, "Project's timing"));
    for (const [value, label] of STRATEGIES) {
      const option = el("option", { value }, label);
      if (value === line.strategy) option.setAttribute("selected", "");
      override.append(option);
    }
    override.addEventListener("change", () => void this.apply(engine.editSegment(line.id, { strategy: override.value }), "Changed the line's timing"));
    const who = el("select", { id: "line-speaker", "aria-label": "Speaker" });
    if (line.speakerId === null) who.append(el("option", { value: "", selected: "" }, "No speaker"));
    for (const sp of this.project.speakers) {
      const option = el("option", { value: String(sp.id) }, sp.name);
      if (sp.id === line.speakerId) option.setAttribute("selected", "");
      who.append(option);
    }
    who.addEventListener("change", () => {
      const name = who.selectedOptions[0]?.textContent ?? "";
      if (who.value) void this.apply(engine.editSegment(line.id, { speakerId: Number(who.value) }), `The line is now ${name}'s`);
    });
    const settings = el("div", { class: "inspector-grid" }, el("label", { class: "wide" }, "Speaker", who), el("label", {}, "Speed ×", speed), el("label", {}, "Gain dB", gain), el("label", { class: "wide" }, "Timing", override));
    this.inspector.replaceChildren(
      ...[
      el("h2", {}, `Line ${line.id}`),
      el("p", { class: `line-state line-state--${line.state}`, id: "line-state" }, STATE_WORDS[line.state]),
      line.error ? el("p", { class: "status-error", role: "alert" }, line.error) : null,
      line.state === "failed" ? this.retryButton(line.id) : null,
      el("p", { class: "muted" }, `Slot ${line.start.toFixed(2)}–${line.end.toFixed(2)} s. ${fit}`),
      text,
      save,
      settings,
      speaker ? el("label", {}, `${speaker.name}'s voice`, voice) : el("p", { class: "muted" }, "No speaker"),
      speaker
        ? blendBuilder(this.voices, speaker.voice, {
            preview: (spec) => void this.run(engine.previewVoice(spec)),
            use: (spec) => void this.apply(engine.setSpeakerVoice(this.project.id, speaker.id, spec), `${speaker.name} now speaks with ${spec}`),
          })
        : null,
      preview,
      this.takesPanel(line),
      ].filter((n) => n !== null) as HTMLElement[],
    );
  }

  private retryButton(id: number): HTMLElement {
    const retry = el("button", { class: "button", id: "retry-line" }, "Retry this line");
    retry.addEventListener("click", () => this.render([id]));
    if (this.progress) retry.setAttribute("disabled", "");
    return retry;
  }

  private takesPanel(line: Segment): HTMLElement {
    const another = el("button", { class: "link-button", id: "new-take", title: "Render the line again with a fresh seed: Kokoro's timing stays the same, the voice's texture varies. Earlier takes stay." }, "↻ New take");
    another.addEventListener("click", () => {
      this.progress = { done: 0, total: 1 };
      void this.apply(engine.newTake(line.id), "Rendering a new take");
    });
    if (this.progress) another.setAttribute("disabled", "");
    const takes = this.takes?.segmentId === line.id ? this.takes.list : [];
    const rows = takes
      .slice()
      .reverse()
      .map((take, i) => {
        const listen = el("button", { class: "link-button", "aria-label": `Audition take ${takes.length - i}` }, "▶");
        listen.addEventListener("click", () => void this.run(engine.auditionTake(line.id, take.id)));
        const use = el("button", { class: "link-button", "aria-label": `Use take ${takes.length - i}` }, "Use");
        use.addEventListener("click", () => void this.apply(engine.pickTake(line.id, take.id), `Using take ${takes.length - i}`));
        if (take.active) use.setAttribute("disabled", "");
        const note = [take.active ? "in use" : "", take.current ? "" : "from an earlier version of the line"].filter(Boolean).join(", ");
        return el(
          "li",
          { class: `take${take.active ? " take--active" : ""}`, "data-take": String(take.id), title: `Seed ${take.seed}, rendered ${take.createdAt.replace("T", " ").slice(0, 19)}` },
          el("span", {}, `Take ${takes.length - i}`),
          el("span", { class: "muted" }, `${take.seconds.toFixed(2)} s${note ? ` · ${note}` : ""}`),
          listen,
          use,
        );
      });
    return el(
      "section",
      { class: "takes", "aria-label": "Takes" },
      el("h3", {}, "Takes ", another),
      rows.length ? el("ol", { class: "take-list", id: "take-list" }, ...rows) : el("p", { class: "muted" }, "No takes yet: render the line."),
    );
  }

  private openExport(): void {
    const folder = el("input", { type: "text", id: "export-folder", "aria-label": "Export folder", placeholder: "/path/to/folder" });
    const format = el("select", { id: "export-format", "aria-label": "Format" }, el("option", { value: "wav" }, "WAV"), el("option", { value: "flac" }, "FLAC"), el("option", { value: "mp3" }, "MP3"));
    const loudness = el("select", { id: "export-loudness", "aria-label": "Loudness" }, el("option", { value: "-23" }, "-23 LUFS (broadcast, EBU R128)"), el("option", { value: "-16" }, "-16 LUFS (streaming, podcasts)"));
    const result = el("div", { id: "export-result" });
    const go = el("button", { class: "button", id: "run-export" }, "Export mix, stems and subtitles");
    const close = el("button", { class: "link-button" }, "Close");
    const stale = this.project.tracks.flatMap((t) => t.segments).filter((s) => s.state !== "ready").length;
    const warning = stale
      ? el("p", { class: "status-warning", id: "export-stale-warning", role: "note" }, `${stale} line${stale === 1 ? " is" : "s are"} not rendered as they read now: ${stale === 1 ? "it" : "they"} will be silent or play an older take. Render first to hear every edit.`)
      : null;
    const check = (id: string, label: string, value = true) => {
      const box = el("input", { type: "checkbox", id });
      box.checked = value;
      return { box, row: el("label", { class: "check" }, box, ` ${label}`) };
    };
    const tracks = this.project.tracks.map((t) => ({ language: t.language, ...check(`export-track-${t.language}`, `${t.language} (${t.segments.length} lines)`) }));
    const stems = check("export-stems", "Stems (voice only, bed only)");
    const subtitles = check("export-subtitles", "Subtitles (SRT and WebVTT, fitted timings)");
    const dialog = el(
      "div",
      { class: "dialog", role: "dialog", "aria-label": "Export" },
      el("h2", {}, "Export"),
      warning,
      el("div", { class: "row" }, folder, browseButton(folder, "folder")),
      el("fieldset", {}, el("legend", {}, "Tracks"), ...tracks.map((t) => t.row)),
      stems.row,
      subtitles.row,
      format,
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
        const languages = tracks.filter((t) => t.box.checked).map((t) => t.language);
        if (!languages.length) throw new Error("Choose at least one track to export.");
        const choice = { languages, stems: stems.box.checked, subtitles: subtitles.box.checked };
        const files = await engine.exportProject(this.project.id, folder.value.trim(), format.value as "wav" | "flac" | "mp3", Number(loudness.value), choice);
        const reveal = el("button", { class: "link-button", id: "reveal-export" }, "Show in file manager");
        reveal.addEventListener("click", () => void engine.revealFolder(folder.value.trim()).catch((e) => result.append(el("div", { class: "error-banner", role: "alert" }, String(e)))));
        result.replaceChildren(el("ul", { class: "export-files" }, ...files.map((f) => el("li", {}, f.path, f.seconds ? ` (${f.seconds.toFixed(2)} s)` : ""))), reveal);
      } catch (e) {
        result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, String(e)));
      } finally {
        go.removeAttribute("disabled");
      }
    });
    this.root.append(dialog);
  }
}
