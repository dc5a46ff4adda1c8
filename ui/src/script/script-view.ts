// The script view: a track's lines as a list (number, in/out timecode,
// speaker, the original's text, the dub text, reading speed, state), with
// filters, find and replace, and the dub text edited in place. A track
// translated from another shows each line's source beside it, marked when
// the source changed, the translation was edited by hand or left glossary
// terms out; lines picked with Ctrl/Shift+click can be translated again.
// Only the rows in view are in the DOM (fixed height, recycled); scrolling
// reads scrollTop once per frame and draws on requestAnimationFrame. It
// emits intents through its callbacks and never calls the engine: the
// caller hands the project back with setProject after every change.
import "./script.css";
import type { TrackTranslations } from "../engine";
import type { Project, Segment } from "../model";
import { el } from "../dom";
import { DEFAULT_FRAME_RATE, formatTimecode, type FrameRate } from "../timecode";
import { matcher, matchesSentence, nextMatch, splitRuns, summarizeMatches, type Matcher, type MatchSummary } from "./find";
import {
  CPS_LIMIT,
  NO_FILTER,
  STATE_FILTERS,
  filterRows,
  formatCps,
  isFiltering,
  overCps,
  parseSpeakerFilter,
  playheadRow,
  prefixMaxEnd,
  speakerChoices,
  stateBadges,
  buildRows,
  withSegment,
  type RowFilter,
  type ScriptRow,
  type StateFilter,
} from "./rows";
import { againRequest, linksByLine, sourceCell } from "./translations";

/** Every row's height, px (the CSS takes it from here). */
export const ROW_HEIGHT = 30;
/** Every row's height while the original (or source) column shows, px:
 * two lines of each text, so a long line wraps instead of being cut. */
export const TALL_ROW_HEIGHT = 46;
/** The column header's height, px (sticky at the top of the scroller). */
export const HEADER_HEIGHT = 30;
/** Rows drawn beyond each edge of the view. */
export const OVERSCAN = 8;
/** Room kept in view under a row being edited: its textarea is taller. */
const EDIT_ROWS = 3;
/** The view's height before it is laid out (or where nothing lays out). */
const FALLBACK_VIEW_HEIGHT = 600;
/** The playhead moved twice within this: playing (scrolling by hand then
 * stops following; a single seek does not count). */
const PLAYING_WINDOW_MS = 600;

/** The class of each mark a translated line can carry (the tests and styles use them). */
const MARK_CLASSES = { "source-changed": "source-changed", edited: "translation-edited", "dropped-terms": "dropped-terms" } as const;

/** The intents the script emits. */
export interface ScriptCallbacks {
  /** The user selected a row (null: none). */
  select(id: number | null): void;
  /** The user asked to go to a time (double-click on a row's in-time). */
  seek(seconds: number): void;
  /** An in-place edit committed; false: refused, the edit stays open. */
  saveText(id: number, text: string): Promise<boolean>;
  /** Replace every match as one undoable edit (in `only`'s lines when
   * given); resolves to the number of lines changed. */
  replace(find: string, replacement: string, options: { matchCase: boolean; wholeWord: boolean; only: number[] | null }): Promise<number>;
  /** Translate the selected lines (ids on the shown, translated track, in
   * track order) again from their source. */
  translateAgain?(selected: number[]): void;
}

/** Timing of the script's own drawing, for the benchmark. */
export interface ScriptPaintStats {
  draws: number;
  lastDrawMs: number;
  /** From the last setProject to the end of the first draw after it, ms. */
  firstPaintMs: number | null;
  /** Row elements in the DOM now. */
  domRows: number;
}

/** One recycled row element and what it shows now. */
class RowView {
  readonly el: HTMLDivElement;
  readonly number: HTMLDivElement;
  readonly in: HTMLDivElement;
  readonly out: HTMLDivElement;
  readonly speaker: HTMLDivElement;
  readonly original: HTMLDivElement;
  readonly marks: HTMLSpanElement;
  readonly sourceText: HTMLSpanElement;
  readonly text: HTMLDivElement;
  readonly textRuns: HTMLSpanElement;
  readonly cps: HTMLDivElement;
  readonly state: HTMLDivElement;
  id = -1;
  index = -1;
  segment: Segment | null = null;
  version = -1;
  searchVersion = -1;
  selected = false;
  playing = false;
  editing = false;

  constructor() {
    const cell = (cls: string) => el("div", { class: `script-cell ${cls}`, role: "gridcell" });
    this.number = cell("script-number");
    this.in = cell("script-in script-tc");
    this.out = cell("script-out script-tc");
    this.speaker = cell("script-speaker");
    this.marks = el("span", { class: "translation-marks" });
    this.sourceText = el("span", { class: "source-text" });
    this.original = el("div", { class: "script-cell script-original", role: "gridcell" }, this.marks, this.sourceText);
    this.textRuns = el("span", { class: "script-text__runs" });
    this.text = el("div", { class: "script-cell script-text", role: "gridcell" }, this.textRuns);
    this.cps = cell("script-cps");
    this.state = cell("script-state");
    this.el = el("div", { class: "script-row", role: "row", "aria-selected": "false" }, this.number, this.in, this.out, this.speaker, this.original, this.text, this.cps, this.state);
  }
}

export class ScriptView {
  private readonly root: HTMLDivElement;
  private readonly grid: HTMLDivElement;
  private readonly header: HTMLDivElement;
  private readonly originalHeader: HTMLDivElement;
  private readonly textHeader: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly speakerSelect: HTMLSelectElement;
  private readonly stateSelect: HTMLSelectElement;
  private readonly findInput: HTMLInputElement;
  private readonly replaceInput: HTMLInputElement;
  private readonly matchCase: HTMLInputElement;
  private readonly wholeWord: HTMLInputElement;
  private readonly replaceButton: HTMLButtonElement;
  private readonly followButton: HTMLButtonElement;
  private readonly againButton: HTMLButtonElement;
  private readonly matchesEl: HTMLSpanElement;
  private readonly statusEl: HTMLSpanElement;
  private readonly resizeObserver: ResizeObserver;

  private project: Project | null = null;
  private trackId: number | null = null;
  private rate: FrameRate = DEFAULT_FRAME_RATE;
  /** The shown track's links to its source, when it was translated. */
  private translations: TrackTranslations | null = null;
  /** Whether the shown track's original column holds its translation source. */
  private translated = false;
  /** Each row's height now: taller while the original column shows. */
  private rowHeight = ROW_HEIGHT;
  /** Bumped by setProject: every drawn row is filled again. */
  private version = 0;
  private rows: ScriptRow[] = [];
  private rowIndex = new Map<number, number>();
  /** The rows the filter keeps, and where each id is among them. */
  private shown: readonly ScriptRow[] = [];
  private shownIndex = new Map<number, number>();
  private shownMaxEnd: Float64Array = new Float64Array(0);
  private speakerNames = new Map<number, string>();
  private speakerKey = "";
  private filter: RowFilter = NO_FILTER;
  private filterStale = false;

  private search: Matcher | null = null;
  private summary: MatchSummary = { matches: 0, lines: 0, ids: [] };
  /** Indexes into `shown` of the rows with a match, ascending. */
  private matchRows: number[] = [];
  private searchVersion = 0;
  private searchStale = false;
  private replacing = false;

  /** The row the keyboard and the rest of the editor follow. */
  private selectedId: number | null = null;
  /** Every selected row (the selected one among them): Ctrl/⌘+click adds
   * or takes one, Shift+click a run from `anchorId`. */
  private picked = new Set<number>();
  private anchorId: number | null = null;
  private playhead = 0;
  private playingId: number | null = null;
  /** The row following last brought into view (by id: filters move indexes). */
  private followId: number | null = null;
  private following = true;
  /** When the playhead last moved, and the time before. */
  private playheadMoves: [number, number] = [-Infinity, -Infinity];
  private editing: { id: number; area: HTMLTextAreaElement; saving: boolean } | null = null;

  private readonly views = new Map<number, RowView>();
  private readonly free: RowView[] = [];
  private viewHeight = 0;
  private bodyHeight = -1;
  private top = 0;
  /** What this view last wrote to scrollTop, until its scroll event is seen. */
  private writtenTop: number | null = null;
  /** A scrollTop just written, used by the next draw instead of reading it. */
  private pendingTop: number | null = null;
  private scrolled = false;
  private reveal: { index: number; mode: "nearest" | "follow"; below: number } | null = null;

  private frame = 0;
  private destroyed = false;
  private projectSetAt: number | null = null;
  private stats = { draws: 0, lastDrawMs: 0, firstPaintMs: null as number | null };

  constructor(
    host: HTMLElement,
    private readonly callbacks: ScriptCallbacks,
  ) {
    this.speakerSelect = el("select", { id: "script-filter-speaker", class: "script__select", "aria-label": "Speaker" });
    this.stateSelect = el("select", { id: "script-filter-state", class: "script__select", "aria-label": "State" });
    for (const [value, label] of STATE_FILTERS) this.stateSelect.append(el("option", { value }, label));
    this.findInput = el("input", { id: "script-find", class: "script__input", type: "search", placeholder: "Find", "aria-label": "Find", autocomplete: "off", spellcheck: "false" });
    this.replaceInput = el("input", { id: "script-replace", class: "script__input", type: "text", placeholder: "Replace with", "aria-label": "Replace with", autocomplete: "off", spellcheck: "false" });
    this.matchCase = el("input", { id: "script-match-case", type: "checkbox" });
    this.wholeWord = el("input", { id: "script-whole-word", type: "checkbox" });
    this.replaceButton = el("button", { id: "script-replace-all", class: "script__button", type: "button", disabled: "" }, "Replace all");
    this.followButton = el("button", { id: "script-follow", class: "script__button", type: "button", "aria-pressed": "true", title: "Keep the playhead's line in view during playback" }, "Follow");
    this.againButton = el(
      "button",
      { id: "translate-again", class: "script__button", type: "button", hidden: "", disabled: "", title: "Translate the selected lines again from their source (Ctrl+click or Shift+click selects more)" },
      "Translate again",
    );
    this.matchesEl = el("span", { id: "script-matches", class: "script__matches", "aria-live": "polite" });
    this.statusEl = el("span", { class: "script__status", role: "status" });

    const toolbar = el(
      "div",
      { class: "script__toolbar", role: "toolbar", "aria-label": "Script filters and find" },
      el("div", { class: "script__group" }, this.speakerSelect, this.stateSelect),
      el(
        "div",
        { class: "script__group script__group--find" },
        this.findInput,
        this.replaceInput,
        el("label", { class: "script__check", title: "Match case" }, this.matchCase, "Aa"),
        el("label", { class: "script__check", title: "Whole words only" }, this.wholeWord, "Word"),
        this.replaceButton,
        this.matchesEl,
      ),
      this.statusEl,
      this.againButton,
      this.followButton,
    );

    const head = (cls: string, text: string) => el("div", { class: `script-cell ${cls}`, role: "columnheader" }, text);
    this.originalHeader = head("script-original", "Original");
    this.textHeader = head("script-text", "Text");
    const cpsHeader = head("script-cps", "CPS");
    cpsHeader.title = `Characters per second; marked above ${CPS_LIMIT}`;
    this.header = el(
      "div",
      { class: "script__header", role: "row", "aria-rowindex": "1" },
      head("script-number", "#"),
      head("script-in", "In"),
      head("script-out", "Out"),
      head("script-speaker", "Speaker"),
      this.originalHeader,
      this.textHeader,
      cpsHeader,
      head("script-state", "State"),
    );
    this.body = el("div", { class: "script__body", role: "rowgroup" });
    this.grid = el("div", { class: "script__grid", role: "grid", "aria-label": "Script", "aria-multiselectable": "true", tabindex: "0", "aria-rowcount": "1" }, this.header, this.body);
    this.root = el("div", { class: "script script--no-original" }, toolbar, this.grid);
    this.root.style.setProperty("--script-row-height", `${this.rowHeight}px`);
    this.root.style.setProperty("--script-header-height", `${HEADER_HEIGHT}px`);
    host.append(this.root);

    this.root.addEventListener("keydown", this.onKeyDown);
    this.grid.addEventListener("scroll", this.onScroll, { passive: true });
    this.body.addEventListener("click", this.onClick);
    this.body.addEventListener("dblclick", this.onDoubleClick);
    this.root.addEventListener("focusout", this.onFocusOut);
    this.speakerSelect.addEventListener("change", () => this.setFilter({ ...this.filter, speaker: parseSpeakerFilter(this.speakerSelect.value) }));
    this.stateSelect.addEventListener("change", () => this.setFilter({ ...this.filter, state: this.stateSelect.value as StateFilter }));
    this.findInput.addEventListener("input", this.onSearchChange);
    this.matchCase.addEventListener("change", this.onSearchChange);
    this.wholeWord.addEventListener("change", this.onSearchChange);
    this.replaceButton.addEventListener("click", () => void this.replaceAll());
    this.followButton.addEventListener("click", () => this.setFollow(!this.following));
    this.againButton.addEventListener("click", () => {
      if (this.againButton.disabled) return;
      this.callbacks.translateAgain?.(this.selectedLines);
    });

    this.resizeObserver = new ResizeObserver(() => this.measure());
    this.resizeObserver.observe(this.grid);
    this.measure();
  }

  // ---- data in -----------------------------------------------------------

  /** Shows a project's track. Keeps the scroll, filters, search and the
   * selection (while its line exists) across calls for the same track. */
  setProject(project: Project, trackId: number, rate: FrameRate): void {
    const sameTrack = this.project?.id === project.id && this.trackId === trackId;
    this.projectSetAt = performance.now();
    this.stats.firstPaintMs = null;
    this.project = project;
    this.trackId = trackId;
    this.rate = rate;
    this.version += 1;
    const model = buildRows(project, trackId, this.translations);
    this.rows = model.rows;
    this.rowIndex = new Map(this.rows.map((r, i) => [r.segment.id, i]));
    const language = model.originalLanguage;
    this.translated = model.translated;
    this.root.classList.toggle("script--no-original", language === null);
    this.root.classList.toggle("script--translated", model.translated);
    const rescaled = this.setRowHeight(language === null ? ROW_HEIGHT : TALL_ROW_HEIGHT);
    this.originalHeader.textContent = language === null ? "Original" : `${model.translated ? "Source" : "Original"} (${language})`;
    this.againButton.hidden = !model.translated;
    const track = project.tracks.find((t) => t.id === trackId);
    this.textHeader.textContent = track ? `Text (${track.language})` : "Text";
    this.speakerNames = new Map(project.speakers.map((s) => [s.id, s.name]));
    this.fillSpeakerSelect(project);
    if (this.selectedId !== null && !this.rowIndex.has(this.selectedId)) this.selectedId = null;
    for (const id of this.picked) if (!this.rowIndex.has(id)) this.picked.delete(id);
    if (!sameTrack) this.picked.clear();
    if (this.selectedId !== null) this.picked.add(this.selectedId);
    if (this.editing && !this.rowIndex.has(this.editing.id)) this.endEdit(false);
    this.refilter();
    this.locatePlayhead();
    if (!sameTrack) {
      this.followId = null;
      this.writeScroll(0);
    } else if (rescaled !== null) this.writeScroll(rescaled);
    this.invalidate();
  }

  /** Lines whose state, flags, check or text changed (same slot): swapped
   * in place, no sort. Returns false when a line's slot changed, which
   * takes setProject. Lines not on the shown track are ignored. */
  updateSegments(changed: readonly Segment[]): boolean {
    let all = true;
    for (const segment of changed) {
      const i = this.rowIndex.get(segment.id);
      if (i === undefined) continue;
      const old = this.rows[i].segment;
      if (segment.start !== old.start || segment.end !== old.end) {
        all = false;
        continue;
      }
      this.rows[i] = withSegment(this.rows[i], segment);
      if (segment.text !== old.text) this.searchStale = true;
      // Filtered, `shown` holds copies; its membership may change too.
      if (isFiltering(this.filter)) this.filterStale = true;
    }
    this.invalidate();
    return all;
  }

  /** The shown track's links to its source (from the engine's
   * `trackTranslations`), or null: drawn with the track they belong to. */
  setTranslations(translations: TrackTranslations | null): void {
    this.translations = translations;
    if (this.project && this.trackId !== null) this.setProject(this.project, this.trackId, this.rate);
  }

  /** Highlights a line and scrolls it into view, without taking focus or
   * emitting `select` (the caller knows). Other selected lines stay
   * selected while it is one of them. */
  setSelection(id: number | null): void {
    const next = id !== null && this.rowIndex.has(id) ? id : null;
    if (next === this.selectedId) return;
    if (next === null || !this.picked.has(next)) this.selectOnly(next);
    else this.selectedId = next;
    this.revealId(next);
    this.invalidate();
  }

  get selection(): number | null {
    return this.selectedId;
  }

  /** Every selected line's id, in track order. */
  get selectedLines(): number[] {
    return [...this.picked].filter((id) => this.rowIndex.has(id)).sort((a, b) => this.rowIndex.get(a)! - this.rowIndex.get(b)!);
  }

  /** Marks the row under the playhead, and keeps it in view while
   * following (scrolling by hand during playback stops following). */
  setPlayhead(seconds: number): void {
    if (seconds === this.playhead) return;
    this.playhead = seconds;
    this.playheadMoves = [performance.now(), this.playheadMoves[0]];
    this.locatePlayhead(true);
  }

  /** Turns following on (bringing the playhead's row into view) or off. */
  setFollow(follow: boolean): void {
    this.setFollowing(follow);
    if (follow) {
      this.followId = null;
      this.locatePlayhead(true);
    }
  }

  get follow(): boolean {
    return this.following;
  }

  // ---- view, for the bench and tests -------------------------------------

  /** Rows shown (after filtering). */
  get rowCount(): number {
    return this.shown.length;
  }

  /** The scroll offset the last draw used, px. */
  get scrollTop(): number {
    return this.top;
  }

  /** The largest scroll offset, px. */
  get maxScroll(): number {
    return Math.max(0, this.shown.length * this.rowHeight - this.rowsHeight);
  }

  /** Scrolls to `px` (clamped) as a script would; drawn on the next frame. */
  scrollTo(px: number): void {
    this.writeScroll(px);
    this.invalidate();
  }

  /** Draws now if a draw is pending; returns how long it took, ms. */
  flush(): number {
    if (!this.frame) return 0;
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    return this.draw();
  }

  get paintStats(): ScriptPaintStats {
    return { ...this.stats, domRows: this.views.size };
  }

  get element(): HTMLElement {
    return this.root;
  }

  destroy(): void {
    this.destroyed = true;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.editing = null;
    this.resizeObserver.disconnect();
    this.root.remove();
  }

  // ---- derived state -----------------------------------------------------

  private refilter(): void {
    this.filterStale = false;
    this.shown = filterRows(this.rows, this.filter, this.editing?.id ?? null);
    this.shownIndex = new Map(this.shown.map((r, i) => [r.segment.id, i]));
    this.shownMaxEnd = prefixMaxEnd(this.shown, (r) => r.segment.end);
    this.grid.setAttribute("aria-rowcount", String(this.shown.length + 1));
    // The scroll height follows at once, so a scroll written next is not clamped.
    const total = this.shown.length * this.rowHeight;
    if (total !== this.bodyHeight) {
      this.bodyHeight = total;
      this.body.style.height = `${total}px`;
    }
    this.research();
  }

  private research(): void {
    this.searchStale = false;
    this.searchVersion += 1;
    this.summary = summarizeMatches(
      this.shown.map((r) => r.segment),
      this.search,
    );
    this.matchRows = [];
    for (const id of this.summary.ids) this.matchRows.push(this.shownIndex.get(id)!);
    this.matchesEl.textContent = this.search ? matchesSentence(this.summary) : "";
    this.replaceButton.disabled = this.replacing || !this.search || this.summary.matches === 0;
  }

  private fillSpeakerSelect(project: Project): void {
    const choices = speakerChoices(project, this.rows);
    const key = JSON.stringify(choices);
    if (key === this.speakerKey) return;
    this.speakerKey = key;
    this.speakerSelect.replaceChildren(...choices.map(([value, label]) => el("option", { value: String(value) }, label)));
    if (!choices.some(([value]) => value === this.filter.speaker)) this.filter = { ...this.filter, speaker: "all" };
    this.speakerSelect.value = String(this.filter.speaker);
  }

  private setFilter(filter: RowFilter): void {
    this.filter = filter;
    this.speakerSelect.value = String(filter.speaker);
    this.stateSelect.value = filter.state;
    this.refilter();
    this.locatePlayhead();
    const at = this.selectedId !== null ? this.shownIndex.get(this.selectedId) : undefined;
    if (at !== undefined) this.reveal = { index: at, mode: "nearest", below: 1 };
    else this.writeScroll(0);
    this.invalidate();
  }

  /** Whether the playhead is moving (as it does during playback). */
  private playing(now: number): boolean {
    const [last, before] = this.playheadMoves;
    return now - last < PLAYING_WINDOW_MS && last - before < PLAYING_WINDOW_MS;
  }

  private setFollowing(follow: boolean): void {
    this.following = follow;
    this.followButton.setAttribute("aria-pressed", String(follow));
  }

  /** Marks the row under the playhead; when it moved (`moved`) and the
   * view follows, brings the row it is in (or the last before it) into
   * view, once per row, so scrolling between rows is left alone. */
  private locatePlayhead(moved = false): void {
    const { at, near } = playheadRow(this.shown, this.shownMaxEnd, this.playhead);
    const id = at >= 0 ? this.shown[at].segment.id : null;
    if (id !== this.playingId) {
      this.playingId = id;
      this.invalidate();
    }
    const follow = at >= 0 ? at : near;
    if (!moved || !this.following || this.editing || follow < 0) return;
    const followId = this.shown[follow].segment.id;
    if (followId === this.followId) return;
    this.followId = followId;
    this.reveal = { index: follow, mode: "follow", below: 1 };
    this.invalidate();
  }

  private revealId(id: number | null): void {
    const at = id !== null ? this.shownIndex.get(id) : undefined;
    if (at !== undefined) this.reveal = { index: at, mode: "nearest", below: this.editing?.id === id ? EDIT_ROWS : 1 };
  }

  // ---- drawing -----------------------------------------------------------

  private invalidate(): void {
    if (this.frame || this.destroyed) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** The rows' part of the view (under the sticky header), px. */
  private get rowsHeight(): number {
    return Math.max(this.rowHeight, (this.viewHeight || FALLBACK_VIEW_HEIGHT) - HEADER_HEIGHT);
  }

  private measure(): void {
    const height = this.grid.clientHeight;
    if (height === this.viewHeight) return;
    this.viewHeight = height;
    this.invalidate();
  }

  /** Every row `px` tall from now on (the rows drawn are placed again);
   * the scroll offset that keeps the same first row in view, or null when
   * nothing changed. */
  private setRowHeight(px: number): number | null {
    if (px === this.rowHeight) return null;
    const firstRow = this.top / this.rowHeight;
    this.rowHeight = px;
    this.root.style.setProperty("--script-row-height", `${px}px`);
    this.root.classList.toggle("script--tall", px !== ROW_HEIGHT);
    for (const view of this.views.values()) view.index = -1;
    this.bodyHeight = -1;
    return firstRow * px;
  }

  private writeScroll(px: number): void {
    const top = Math.max(0, Math.min(Math.round(px), this.maxScroll));
    this.grid.scrollTop = top;
    this.writtenTop = top;
    this.pendingTop = top;
  }

  private draw(): number {
    const started = performance.now();
    if (this.filterStale) {
      this.refilter();
      this.locatePlayhead();
    } else if (this.searchStale) this.research();

    // The one read of the scroll position this frame (none after a write).
    let top = this.pendingTop ?? this.grid.scrollTop;
    this.pendingTop = null;
    if (this.scrolled) {
      this.scrolled = false;
      const byHand = this.writtenTop === null || Math.abs(top - this.writtenTop) > 1.5;
      this.writtenTop = null;
      if (byHand && this.following && this.playing(started)) {
        this.setFollowing(false);
        if (this.reveal?.mode === "follow") this.reveal = null;
      }
    }
    const height = this.rowsHeight;
    const rowHeight = this.rowHeight;
    const total = this.shown.length * rowHeight;
    if (this.reveal) {
      const { index, mode, below } = this.reveal;
      this.reveal = null;
      const rowTop = index * rowHeight;
      let target = top;
      if (mode === "follow") {
        if (rowTop < top || rowTop + rowHeight > top + height) target = rowTop - Math.floor(height / 3);
      } else if (rowTop < top) target = rowTop;
      else if (rowTop + rowHeight * below > top + height) target = rowTop + rowHeight * below - height;
      target = Math.max(0, Math.min(Math.round(target), Math.max(0, total - height)));
      if (target !== top) {
        this.grid.scrollTop = target;
        this.writtenTop = target;
        top = target;
      }
    }
    this.top = top;
    this.drawRows(top, height);
    const ended = performance.now();
    this.stats.draws += 1;
    this.stats.lastDrawMs = ended - started;
    if (this.stats.firstPaintMs === null && this.projectSetAt !== null) this.stats.firstPaintMs = ended - this.projectSetAt;
    return ended - started;
  }

  private drawRows(top: number, height: number): void {
    const count = this.shown.length;
    const first = Math.max(0, Math.floor(top / this.rowHeight) - OVERSCAN);
    const last = Math.min(count, Math.ceil((top + height) / this.rowHeight) + OVERSCAN);
    const editId = this.editing?.id ?? null;
    // Rows scrolled out (or filtered out) go back to the pool first.
    for (const [id, view] of this.views) {
      const at = this.shownIndex.get(id);
      if (id !== editId && (at === undefined || at < first || at >= last)) {
        this.views.delete(id);
        view.el.remove();
        this.free.push(view);
      }
    }
    for (let i = first; i < last; i++) this.drawRow(i);
    const editAt = editId !== null ? this.shownIndex.get(editId) : undefined;
    if (editAt !== undefined && (editAt < first || editAt >= last)) this.drawRow(editAt);
    const selected = this.selectedId !== null ? this.views.get(this.selectedId) : undefined;
    if (selected) this.grid.setAttribute("aria-activedescendant", selected.el.id);
    else this.grid.removeAttribute("aria-activedescendant");
    this.drawAgainButton();
  }

  /** "Translate again (n)": enabled while a selected line has a source to translate from. */
  private drawAgainButton(): void {
    if (!this.translated) return;
    const lines = this.selectedLines;
    const again = againRequest(lines, linksByLine(this.translations));
    const n = again.sourceIds.length;
    this.againButton.disabled = n === 0;
    this.againButton.textContent = n > 1 ? `Translate again (${n})` : "Translate again";
  }

  private drawRow(index: number): void {
    const row = this.shown[index];
    const s = row.segment;
    let view = this.views.get(s.id);
    if (!view) {
      view = this.free.pop() ?? new RowView();
      this.views.set(s.id, view);
      if (view.id !== s.id) {
        view.id = s.id;
        view.el.dataset.segmentId = String(s.id);
        view.el.id = `script-row-${s.id}`;
        view.segment = null;
      }
      this.body.append(view.el);
    }
    if (view.index !== index) {
      view.index = index;
      view.el.style.transform = `translateY(${index * this.rowHeight}px)`;
      view.el.setAttribute("aria-rowindex", String(index + 2));
    }
    if (view.segment !== s || view.version !== this.version) {
      const textChanged = view.segment?.text !== s.text;
      view.segment = s;
      view.version = this.version;
      view.number.textContent = String(row.number);
      view.in.textContent = formatTimecode(s.start, this.rate);
      view.in.title = "Double-click to go here";
      view.out.textContent = formatTimecode(s.end, this.rate);
      const speaker = s.speakerId === null ? "—" : this.speakerNames.get(s.speakerId) ?? `Speaker ${s.speakerId}`;
      view.speaker.textContent = speaker;
      view.speaker.title = speaker;
      this.drawSource(view, row);
      view.cps.textContent = formatCps(row.cps);
      view.cps.classList.toggle("script-cps--over", overCps(row.cps));
      view.cps.title = overCps(row.cps) ? `Over ${CPS_LIMIT} characters a second: hard to read in time` : "";
      this.drawBadges(view.state, s);
      if (textChanged) view.searchVersion = -1;
    }
    if (view.searchVersion !== this.searchVersion) {
      view.searchVersion = this.searchVersion;
      this.drawText(view, s.text);
    }
    const selected = this.picked.has(s.id);
    if (view.selected !== selected) {
      view.selected = selected;
      view.el.classList.toggle("script-row--selected", selected);
      view.el.setAttribute("aria-selected", String(selected));
    }
    const playing = s.id === this.playingId;
    if (view.playing !== playing) {
      view.playing = playing;
      view.el.classList.toggle("script-row--playing", playing);
    }
    const editing = this.editing?.id === s.id ? this.editing : null;
    if (view.editing !== (editing !== null)) {
      view.editing = editing !== null;
      view.el.classList.toggle("script-row--editing", view.editing);
    }
    if (editing && editing.area.parentNode !== view.text) view.text.append(editing.area);
  }

  private drawText(view: RowView, text: string): void {
    view.text.title = text;
    const ranges = this.search ? this.search.ranges(text) : [];
    if (ranges.length === 0) {
      view.textRuns.textContent = text;
      return;
    }
    view.textRuns.replaceChildren(...splitRuns(text, ranges).map((run) => (run.match ? el("mark", { class: "script-mark" }, run.text) : run.text)));
  }

  /** The original's (or source's) text, with a translated line's marks
   * before it and who translated it in the tooltip. */
  private drawSource(view: RowView, row: ScriptRow): void {
    if (!row.translation) {
      view.marks.replaceChildren();
      view.sourceText.textContent = row.original ?? "";
      view.original.title = row.original ?? "";
      delete view.original.dataset.translator;
      return;
    }
    const cell = sourceCell(row.translation);
    view.sourceText.textContent = cell.text;
    view.original.title = `${cell.text}\n${cell.byline}`;
    view.original.dataset.translator = row.translation.translator;
    view.marks.replaceChildren(
      ...cell.marks.map((m) => el("span", { class: `script-badge translation-mark ${MARK_CLASSES[m.kind]}`, title: m.title, "data-mark": m.kind }, m.label)),
    );
  }

  private drawBadges(cell: HTMLElement, segment: Segment): void {
    cell.replaceChildren(
      ...stateBadges(segment).map((b) => el("span", { class: `script-badge script-badge--${b.kind}`, title: b.title }, b.label)),
    );
  }

  // ---- selection and editing ---------------------------------------------

  /** Makes `id` the one selected line (none for null), and the anchor of a Shift+click. */
  private selectOnly(id: number | null): void {
    this.selectedId = id;
    this.anchorId = id;
    this.picked.clear();
    if (id !== null) this.picked.add(id);
  }

  /** Selects a row as the user did: emits `select` and brings it into view. */
  private pick(id: number): void {
    this.setFollowing(true);
    this.selectOnly(id);
    this.revealId(id);
    this.invalidate();
    this.callbacks.select(id);
  }

  /** Moves the selection `delta` rows (clamped) through the shown rows. */
  private move(delta: number): void {
    const count = this.shown.length;
    if (count === 0) return;
    const at = this.selectedId !== null ? this.shownIndex.get(this.selectedId) : undefined;
    const from = at ?? (delta > 0 ? Math.floor(this.top / this.rowHeight) - 1 : Math.ceil((this.top + this.rowsHeight) / this.rowHeight));
    const to = Math.max(0, Math.min(count - 1, from + delta));
    if (at !== to) this.pick(this.shown[to].segment.id);
  }

  private edit(id: number): void {
    if (this.editing?.id === id) return this.editing.area.focus({ preventScroll: true });
    if (this.editing?.saving) return;
    if (this.editing) this.endEdit(false);
    const i = this.shownIndex.get(id);
    if (i === undefined) return;
    const row = this.shown[i];
    const area = el("textarea", { id: "script-edit", class: "script-edit", rows: "3", "aria-label": `Text of line ${row.number}`, spellcheck: "true" });
    area.value = row.segment.text;
    this.editing = { id, area, saving: false };
    if (this.selectedId !== id) this.selectOnly(id);
    this.reveal = { index: i, mode: "nearest", below: EDIT_ROWS };
    this.invalidate();
    this.flush();
    area.focus({ preventScroll: true });
    area.setSelectionRange(area.value.length, area.value.length);
  }

  /** Saves the edit (when the text changed), then closes it or, on
   * "next"/"previous", opens the neighbouring row's. Refused: stays open. */
  private async commit(then: "stay" | "next" | "previous" | "blur"): Promise<void> {
    const edit = this.editing;
    if (!edit || edit.saving) return;
    const i = this.rowIndex.get(edit.id);
    const text = edit.area.value;
    if (i !== undefined && text !== this.rows[i].segment.text) {
      edit.saving = true;
      edit.area.setAttribute("aria-busy", "true");
      let saved = false;
      try {
        saved = await this.callbacks.saveText(edit.id, text);
      } catch {
        saved = false;
      }
      edit.saving = false;
      edit.area.removeAttribute("aria-busy");
      if (this.editing !== edit || this.destroyed) return;
      if (!saved) {
        if (then !== "blur") edit.area.focus({ preventScroll: true });
        return;
      }
    }
    const at = this.shownIndex.get(edit.id);
    this.endEdit(then !== "blur");
    if ((then === "next" || then === "previous") && at !== undefined) {
      const neighbour = this.shown[at + (then === "next" ? 1 : -1)];
      if (neighbour) {
        this.pick(neighbour.segment.id);
        this.edit(neighbour.segment.id);
      }
    }
  }

  /** Closes the edit without saving; `focus` gives the keyboard back to the rows. */
  private endEdit(focus: boolean): void {
    const edit = this.editing;
    if (!edit) return;
    this.editing = null;
    if (focus) this.grid.focus({ preventScroll: true });
    edit.area.remove();
    const view = this.views.get(edit.id);
    if (view) {
      view.editing = false;
      view.el.classList.remove("script-row--editing");
    }
    // A row kept only because it was being edited may leave the filter now.
    if (isFiltering(this.filter)) this.filterStale = true;
    this.invalidate();
  }

  // ---- find and replace --------------------------------------------------

  private onSearchChange = (): void => {
    const find = this.findInput.value;
    this.search = matcher(find, { matchCase: this.matchCase.checked, wholeWord: this.wholeWord.checked });
    this.statusEl.textContent = "";
    this.research();
    this.invalidate();
  };

  /** Selects the next row with a match after the selected one (wrapping). */
  private goToMatch(back: boolean): void {
    if (this.searchStale || this.filterStale) {
      if (this.filterStale) this.refilter();
      else this.research();
    }
    const at = this.selectedId !== null ? this.shownIndex.get(this.selectedId) ?? -1 : -1;
    const next = nextMatch(this.matchRows, back && at < 0 ? this.shown.length : at, back);
    if (next < 0) return;
    if (next !== at) this.pick(this.shown[next].segment.id);
    else {
      this.revealId(this.selectedId);
      this.invalidate();
    }
  }

  private async replaceAll(): Promise<void> {
    const search = this.search;
    if (!search || this.summary.matches === 0 || this.replacing) return;
    const only = isFiltering(this.filter) ? this.shown.map((r) => r.segment.id) : null;
    this.replacing = true;
    this.replaceButton.disabled = true;
    this.statusEl.textContent = "Replacing…";
    try {
      const n = await this.callbacks.replace(search.find, this.replaceInput.value, { ...search.options, only });
      this.statusEl.textContent = n === 0 ? "Nothing replaced" : `Replaced in ${n} line${n === 1 ? "" : "s"}`;
    } catch (e) {
      this.statusEl.textContent = `Not replaced: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.replacing = false;
      if (!this.destroyed) this.research();
    }
  }

  // ---- events ------------------------------------------------------------

  private onScroll = (): void => {
    this.scrolled = true;
    this.invalidate();
  };

  private rowOf(target: EventTarget | null): { id: number; el: HTMLElement } | null {
    if (!(target instanceof Element) || target.closest(".script-edit")) return null;
    const rowEl = target.closest<HTMLElement>(".script-row");
    return rowEl ? { id: Number(rowEl.dataset.segmentId), el: rowEl } : null;
  }

  private onClick = (event: MouseEvent): void => {
    const row = this.rowOf(event.target);
    if (!row) return;
    if (event.shiftKey) this.pickRun(row.id);
    else if (event.ctrlKey || event.metaKey) this.togglePicked(row.id);
    else if (row.id !== this.selectedId || this.picked.size > 1) this.pick(row.id);
    else this.setFollowing(true);
  };

  /** Ctrl/⌘+click: adds the row to the selection (it becomes the selected
   * one), or takes it out (the last other selected row becomes it). */
  private togglePicked(id: number): void {
    if (!this.picked.has(id)) {
      this.picked.add(id);
      this.selectedId = id;
      this.anchorId = id;
    } else {
      this.picked.delete(id);
      if (this.selectedId === id) {
        const rest = this.selectedLines;
        this.selectedId = rest.length ? rest[rest.length - 1] : null;
      }
      this.anchorId = this.selectedId;
    }
    this.invalidate();
    this.callbacks.select(this.selectedId);
  }

  /** Shift+click: every shown row from the anchor to this one. */
  private pickRun(id: number): void {
    const from = this.anchorId !== null ? this.shownIndex.get(this.anchorId) : undefined;
    const to = this.shownIndex.get(id);
    if (from === undefined || to === undefined) return this.pick(id);
    this.picked = new Set(this.shown.slice(Math.min(from, to), Math.max(from, to) + 1).map((r) => r.segment.id));
    this.selectedId = id;
    this.invalidate();
    this.callbacks.select(id);
  }

  private onDoubleClick = (event: MouseEvent): void => {
    const row = this.rowOf(event.target);
    if (!row) return;
    const i = this.rowIndex.get(row.id);
    if (i === undefined) return;
    if ((event.target as Element).closest(".script-in")) this.callbacks.seek(this.rows[i].segment.start);
    else this.edit(row.id);
  };

  private onFocusOut = (event: FocusEvent): void => {
    const edit = this.editing;
    if (!edit || event.target !== edit.area || edit.saving) return;
    // The window losing focus is not leaving the edit.
    if (event.relatedTarget === null && !document.hasFocus()) return;
    void this.commit("blur");
  };

  private onKeyDown = (event: KeyboardEvent): void => {
    const target = event.target;
    const mod = event.ctrlKey || event.metaKey || event.altKey;
    // Undo and redo stay the editor's, wherever the focus is.
    if ((event.ctrlKey || event.metaKey) && (event.key === "z" || event.key === "Z")) return;
    if (this.editing && target === this.editing.area) return this.onEditKey(event);
    if (target === this.findInput) {
      if (event.key === "Enter" && !mod) {
        this.goToMatch(event.shiftKey);
      } else if (event.key === "Escape" && this.findInput.value !== "") {
        this.findInput.value = "";
        this.onSearchChange();
      } else return;
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    if (target instanceof HTMLButtonElement && (event.key === " " || event.key === "Enter")) {
      // The button's own click; not the editor's play.
      event.stopPropagation();
      return;
    }
    if (target !== this.grid || mod) return;
    switch (event.key) {
      case "ArrowDown":
        this.move(1);
        break;
      case "ArrowUp":
        this.move(-1);
        break;
      case "PageDown":
        this.move(Math.max(1, Math.floor(this.rowsHeight / this.rowHeight) - 1));
        break;
      case "PageUp":
        this.move(-Math.max(1, Math.floor(this.rowsHeight / this.rowHeight) - 1));
        break;
      case "Home":
        this.move(-this.shown.length);
        break;
      case "End":
        this.move(this.shown.length);
        break;
      case "Enter":
      case "F2":
        if (this.selectedId !== null) this.edit(this.selectedId);
        break;
      // The editor's global keys wait while the script has the keyboard.
      case " ":
      case "ArrowLeft":
      case "ArrowRight":
      case "Delete":
      case "Backspace":
        break;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
  };

  private onEditKey(event: KeyboardEvent): void {
    event.stopPropagation();
    if (event.isComposing) return;
    if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      void this.commit("stay");
    } else if (event.key === "Escape") {
      event.preventDefault();
      this.endEdit(true);
    } else if (event.key === "Tab" && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      void this.commit(event.shiftKey ? "previous" : "next");
    }
  }
}
