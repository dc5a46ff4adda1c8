// The project editor: a header (saved indicator, render with progress and
// cancel, play/pause, undo/redo, export), the timeline, and the inspector
// for the selected line (text, speaker, the speaker's voice, preview,
// state and errors). Every change goes to the engine; the answer (the
// project as the engine sees it) is what is drawn next.
import { el } from "../dom";
import * as engine from "../engine";
import type { PlaybackView, StudioEvent, VoiceChoice } from "../engine";
import type { Project, Segment } from "../model";
import { measureTimeline } from "../timeline/measure";
import { TimelineView } from "../timeline/timeline-view";

const STATE_WORDS: Record<Segment["state"], string> = {
  stale: "Not rendered (or edited since)",
  queued: "Queued",
  rendering: "Rendering…",
  ready: "Ready",
  failed: "Failed",
};

export class Editor {
  private project: Project;
  private trackId: number;
  private selection: number | null = null;
  private playback: PlaybackView | null = null;
  private progress: { done: number; total: number } | null = null;
  private message = "All changes saved";
  private error: string | null = null;
  private voices: VoiceChoice[] = [];
  private readonly header = el("header", { class: "editor-header" });
  private readonly timelineHost = el("div", { class: "editor-timeline" });
  private readonly inspector = el("aside", { class: "inspector", "aria-label": "Line inspector" });
  private readonly status = el("div", { class: "editor-status", role: "status", id: "editor-status" });
  private readonly timeline: TimelineView;
  private readonly keys = (e: KeyboardEvent) => this.onKey(e);

  constructor(private readonly root: HTMLElement, project: Project, private readonly back: () => void) {
    this.project = project;
    this.trackId = project.tracks[0]?.id ?? 0;
    root.replaceChildren(el("section", { class: "editor" }, this.header, el("div", { class: "editor-body" }, this.timelineHost, this.inspector), this.status));
    this.timeline = new TimelineView(this.timelineHost, {
      select: (id) => {
        this.selection = id;
        this.drawInspector();
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
        void this.reload();
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
      case "modelLoading":
        this.message = event.loading ? "Loading the voice model…" : this.message;
        break;
    }
    this.drawHeader();
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
    const exportButton = el("button", { class: "link-button", id: "open-export" }, "Export…");
    exportButton.addEventListener("click", () => this.openExport());
    const position = this.playback?.projectId === this.project.id ? `${this.playback.position.toFixed(2)} / ${this.project.length.toFixed(2)} s` : `${this.project.length.toFixed(2)} s`;
    this.header.replaceChildren(
      ...[
      back,
      el("h1", { id: "project-name" }, this.project.name),
      el("span", { class: "saved", id: "saved-indicator" }, "✓ Saved"),
      render,
      progress,
      play,
      el("span", { class: "position", id: "position" }, position),
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
    voice.addEventListener("change", () => {
      if (speaker) void this.apply(engine.setSpeakerVoice(this.project.id, speaker.id, voice.value), `${speaker.name} now speaks with ${voice.value}`);
    });
    const preview = el("button", { class: "link-button", id: "preview-line" }, line.state === "ready" ? "▶ Audition" : "▶ Preview (renders as it plays)");
    preview.addEventListener("click", () => void this.run(engine.previewSegment(line.id)));
    const fit = line.fit
      ? `Placed ${line.fit.start.toFixed(2)}–${line.fit.end.toFixed(2)} s${line.fit.rate > 1.0001 ? `, sped up ×${line.fit.rate.toFixed(2)}` : line.fit.rate < 0.9999 ? `, slowed ×${line.fit.rate.toFixed(2)}` : ""}${line.fit.trimmed ? ", trimmed" : ""}${line.fit.overlap ? `, runs ${line.fit.overlap.toFixed(2)} s into the next line` : ""}`
      : "Not placed yet: render it to hear it on the timeline.";
    this.inspector.replaceChildren(
      ...[
      el("h2", {}, `Line ${line.id}`),
      el("p", { class: `line-state line-state--${line.state}`, id: "line-state" }, STATE_WORDS[line.state]),
      line.error ? el("p", { class: "status-error", role: "alert" }, line.error) : null,
      el("p", { class: "muted" }, `Slot ${line.start.toFixed(2)}–${line.end.toFixed(2)} s. ${fit}`),
      text,
      save,
      speaker ? el("label", {}, `${speaker.name}'s voice`, voice) : el("p", { class: "muted" }, "No speaker"),
      preview,
      ].filter((n) => n !== null) as HTMLElement[],
    );
  }

  private openExport(): void {
    const folder = el("input", { type: "text", id: "export-folder", "aria-label": "Export folder", placeholder: "/path/to/folder" });
    const format = el("select", { id: "export-format", "aria-label": "Format" }, el("option", { value: "wav" }, "WAV"), el("option", { value: "flac" }, "FLAC"), el("option", { value: "mp3" }, "MP3"));
    const loudness = el("select", { id: "export-loudness", "aria-label": "Loudness" }, el("option", { value: "-23" }, "-23 LUFS (broadcast, EBU R128)"), el("option", { value: "-16" }, "-16 LUFS (streaming, podcasts)"));
    const result = el("div", { id: "export-result" });
    const go = el("button", { class: "button", id: "run-export" }, "Export mix, stems and subtitles");
    const close = el("button", { class: "link-button" }, "Close");
    const dialog = el("div", { class: "dialog", role: "dialog", "aria-label": "Export" }, el("h2", {}, "Export"), folder, format, loudness, go, close, result);
    close.addEventListener("click", () => dialog.remove());
    go.addEventListener("click", async () => {
      go.setAttribute("disabled", "");
      result.replaceChildren(el("progress", {}), " Exporting…");
      try {
        const files = await engine.exportProject(this.project.id, folder.value.trim(), format.value as "wav" | "flac" | "mp3", Number(loudness.value));
        result.replaceChildren(el("ul", { class: "export-files" }, ...files.map((f) => el("li", {}, f.path, f.seconds ? ` (${f.seconds.toFixed(2)} s)` : ""))));
      } catch (e) {
        result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, String(e)));
      } finally {
        go.removeAttribute("disabled");
      }
    });
    this.root.append(dialog);
  }
}
