// @vitest-environment happy-dom
// The script view in a DOM (happy-dom): selection, editing in place with
// Enter / Escape / Tab, keys kept from the editor's shortcuts, filters,
// find and replace, the playhead, and a 2,000-line track with only the
// visible rows in the DOM.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Project, Segment, Track } from "../model";
import { line, syntheticProject } from "../timeline/synthetic";
import { measureScript } from "./measure";
import type { TrackTranslations } from "../engine";
import { OVERSCAN, ROW_HEIGHT, ScriptView, TALL_ROW_HEIGHT, type ScriptCallbacks } from "./script-view";
import { link } from "./test-translations";

const VIEW_HEIGHT = 630; // 20 rows under the 30 px header

function callbacks(over: Partial<ScriptCallbacks> = {}) {
  return {
    select: vi.fn<ScriptCallbacks["select"]>(),
    seek: vi.fn<ScriptCallbacks["seek"]>(),
    saveText: vi.fn<ScriptCallbacks["saveText"]>(async () => true),
    replace: vi.fn<ScriptCallbacks["replace"]>(async () => 1),
    ...over,
  };
}

function small(): Project {
  const base = syntheticProject(1).project;
  const segments: Segment[] = [
    line({ id: 30, start: 0, end: 2, text: "Where is the door", speakerId: 1, state: "ready" }),
    line({ id: 10, start: 2.5, end: 3, text: "Over there by the river", speakerId: 2, state: "failed", error: "boom" }),
    line({ id: 20, start: 4, end: 6, text: "Wait", speakerId: 1, state: "stale", flags: [{ kind: "doesntFit", seconds: 0.4 }] }),
    line({ id: 40, start: 7, end: 9, text: "the end", speakerId: null, state: "queued" }),
  ];
  return { ...base, tracks: [{ id: 1, language: "fr", segments }] };
}

const rowsIn = (root: ParentNode) => [...root.querySelectorAll<HTMLElement>(".script-row")];
const row = (root: ParentNode, id: number) => root.querySelector<HTMLElement>(`.script-row[data-segment-id="${id}"]`)!;
const key = (target: Element, k: string, init: KeyboardEventInit = {}) => {
  const event = new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ScriptView", () => {
  let host: HTMLElement;
  let globalKeys: string[];
  const onDocumentKey = (e: KeyboardEvent) => globalKeys.push(e.key);

  beforeEach(() => {
    vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockReturnValue(VIEW_HEIGHT);
    host = document.createElement("div");
    document.body.append(host);
    globalKeys = [];
    document.addEventListener("keydown", onDocumentKey);
  });
  afterEach(() => {
    document.removeEventListener("keydown", onDocumentKey);
    vi.restoreAllMocks();
    document.body.replaceChildren();
  });

  function mount(project = small(), cb = callbacks(), trackId = project.tracks[0].id) {
    const view = new ScriptView(host, cb);
    view.setProject(project, trackId, "25");
    view.flush();
    return { view, cb, grid: host.querySelector<HTMLElement>('[role="grid"][aria-label="Script"]')! };
  }

  it("shows each line's number, timecode, speaker, text, cps and state", () => {
    const { view, grid } = mount();
    expect(grid).not.toBeNull();
    const rows = rowsIn(host).sort((a, b) => Number(a.getAttribute("aria-rowindex")) - Number(b.getAttribute("aria-rowindex")));
    expect(rows.map((r) => r.dataset.segmentId)).toEqual(["30", "10", "20", "40"]);
    const second = row(host, 10);
    expect(second.querySelector(".script-number")!.textContent).toBe("2");
    expect(second.querySelector(".script-in")!.textContent).toBe("00:00:02:12");
    expect(second.querySelector(".script-out")!.textContent).toBe("00:00:03:00");
    expect(second.querySelector(".script-speaker")!.textContent).toBe("Bruno");
    expect(second.querySelector(".script-text")!.textContent).toBe("Over there by the river");
    expect(second.querySelector(".script-cps")!.textContent).toBe("46.0");
    expect(second.querySelector(".script-cps")!.classList.contains("script-cps--over")).toBe(true);
    expect(row(host, 30).querySelector(".script-cps")!.classList.contains("script-cps--over")).toBe(false);
    expect(second.querySelector(".script-badge--failed")!.getAttribute("title")).toContain("boom");
    expect(row(host, 20).querySelector(".script-badge--flagged")).not.toBeNull();
    expect(row(host, 40).querySelector(".script-speaker")!.textContent).toBe("—");
    expect(host.querySelector(".script")!.classList.contains("script--no-original")).toBe(true);
    view.destroy();
    expect(host.querySelector(".script")).toBeNull();
  });

  it("shows the first track's text as the original on a later track", () => {
    const p = small();
    const fr = p.tracks[0];
    const en: Track = { id: 2, language: "en", segments: fr.segments.map((s) => ({ ...s, id: s.id + 100, trackId: 2, text: `EN ${s.text}` })) };
    const { view } = mount({ ...p, tracks: [en, fr] }, callbacks(), 1);
    expect(host.querySelector(".script")!.classList.contains("script--no-original")).toBe(false);
    expect(host.querySelector(".script__header .script-original")!.textContent).toBe("Original (en)");
    expect(row(host, 10).querySelector(".script-original")!.textContent).toBe("EN Over there by the river");
    view.destroy();
  });

  /** `small()`'s French lines translated from an English track (ids +100): 10 edited and its source changed, 20 with a term left out, 40 not linked. */
  function translatedTrack() {
    const p = small();
    const fr = p.tracks[0];
    const en: Track = { id: 2, language: "en", segments: fr.segments.map((s) => ({ ...s, id: s.id + 100, trackId: 2, text: `EN ${s.text}` })) };
    const translations: TrackTranslations = {
      trackId: 1,
      sourceTrackId: 2,
      sourceLanguage: "en",
      lines: [
        link({ segmentId: 30, sourceSegmentId: 130, sourceText: "Where's the door?" }),
        link({ segmentId: 10, sourceSegmentId: 110, sourceText: "Over by the river", translatedFrom: "Over there by the river", sourceChanged: true, edited: true }),
        link({ segmentId: 20, sourceSegmentId: 120, sourceText: "Wait for the ferry", droppedTerms: ["ferry"] }),
      ],
    };
    return { project: { ...p, tracks: [en, fr] }, translations };
  }

  it("on a translated track, shows each line's source beside it with its marks, in rows two lines tall", () => {
    const { project, translations } = translatedTrack();
    const { view } = mount(project, callbacks(), 1);
    const script = host.querySelector<HTMLElement>(".script")!;
    // Two-line rows as soon as the column shows: the links arriving later move nothing.
    expect(script.classList.contains("script--tall")).toBe(true);
    expect(script.style.getPropertyValue("--script-row-height")).toBe(`${TALL_ROW_HEIGHT}px`);
    expect(row(host, 10).style.transform).toBe(`translateY(${TALL_ROW_HEIGHT}px)`);
    view.setTranslations(translations);
    view.flush();
    expect(host.querySelector(".script__header .script-original")!.textContent).toBe("Source (en)");
    expect(row(host, 10).style.transform).toBe(`translateY(${TALL_ROW_HEIGHT}px)`);
    const changed = row(host, 10).querySelector(".script-original")!;
    expect(changed.querySelector(".source-text")!.textContent).toBe("Over by the river");
    expect([...changed.querySelectorAll(".translation-mark")].map((m) => m.textContent)).toEqual(["source changed", "edited"]);
    expect(changed.querySelector(".source-changed")!.getAttribute("title")).toBe("The source changed after it was translated. Translated from: “Over there by the river”");
    expect(changed.getAttribute("title")).toBe("Over by the river\nTranslated by llama (gemma) on 2026-12-05 20:10 UTC");
    expect((changed as HTMLElement).dataset.translator).toBe("llama (gemma)");
    expect(row(host, 20).querySelector(".dropped-terms")!.getAttribute("title")).toBe("Glossary term not in the translation: ferry");
    expect(row(host, 30).querySelector(".translation-marks")!.children.length).toBe(0);
    // Not linked: the source track's line at the same time, nothing more.
    expect(row(host, 40).querySelector(".script-original")!.textContent).toBe("EN the end");
    expect(row(host, 40).querySelector(".script-original")!.hasAttribute("data-translator")).toBe(false);
    // The dub text stays as it was.
    expect(row(host, 10).querySelector(".script-text")!.textContent).toBe("Over there by the river");
    // Links of another track are not drawn on this one.
    view.setTranslations({ ...translations, trackId: 99 });
    view.flush();
    expect(host.querySelector(".script__header .script-original")!.textContent).toBe("Original (en)");
    expect(row(host, 10).querySelector(".translation-marks")!.children.length).toBe(0);
    view.destroy();
  });

  it("selects more rows with Ctrl+click and Shift+click, and translates the selection again", () => {
    const { project, translations } = translatedTrack();
    const translateAgain = vi.fn();
    const { view, cb } = mount(project, callbacks({ translateAgain }), 1);
    const again = host.querySelector<HTMLButtonElement>("#translate-again")!;
    expect(again.hidden).toBe(true);
    view.setTranslations(translations);
    view.flush();
    expect(again.hidden).toBe(false);
    expect(again.disabled).toBe(true);
    const click = (id: number, init: MouseEventInit = {}) => {
      row(host, id).querySelector(".script-text")!.dispatchEvent(new MouseEvent("click", { bubbles: true, ...init }));
      view.flush();
    };
    click(30);
    expect(again.disabled).toBe(false);
    expect(again.textContent).toBe("Translate again");
    click(20, { ctrlKey: true });
    expect(cb.select).toHaveBeenLastCalledWith(20);
    expect(view.selectedLines).toEqual([30, 20]);
    expect(again.textContent).toBe("Translate again (2)");
    expect(rowsIn(host).filter((r) => r.getAttribute("aria-selected") === "true").map((r) => r.dataset.segmentId).sort()).toEqual(["20", "30"]);
    again.click();
    expect(translateAgain).toHaveBeenCalledWith([30, 20]);
    // Shift+click: the run from the last picked row.
    click(40, { shiftKey: true });
    expect(view.selectedLines).toEqual([20, 40]);
    expect(view.selection).toBe(40);
    // Ctrl+click on a picked row takes it out.
    click(40, { ctrlKey: true });
    expect(view.selectedLines).toEqual([20]);
    expect(view.selection).toBe(20);
    // Only unlinked lines: nothing to translate again.
    click(40);
    expect(view.selectedLines).toEqual([40]);
    expect(again.disabled).toBe(true);
    // The timeline picking one line selects that line alone.
    click(10, { ctrlKey: true });
    view.setSelection(30);
    view.flush();
    expect(view.selectedLines).toEqual([30]);
    view.destroy();
  });

  it("selects on click and with the arrows, keeping the keys from the editor", () => {
    const { view, cb, grid } = mount();
    row(host, 10).querySelector(".script-text")!.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(cb.select).toHaveBeenLastCalledWith(10);
    view.flush();
    expect(row(host, 10).classList.contains("script-row--selected")).toBe(true);
    expect(row(host, 10).getAttribute("aria-selected")).toBe("true");
    expect(grid.getAttribute("aria-activedescendant")).toBe("script-row-10");

    key(grid, "ArrowDown");
    expect(cb.select).toHaveBeenLastCalledWith(20);
    key(grid, "ArrowUp");
    key(grid, "ArrowUp");
    expect(cb.select).toHaveBeenLastCalledWith(30);
    key(grid, "ArrowUp");
    expect(cb.select).toHaveBeenCalledTimes(4);
    for (const k of [" ", "Delete", "ArrowLeft", "ArrowRight", "Backspace"]) expect(key(grid, k).defaultPrevented).toBe(true);
    expect(globalKeys).toEqual([]);
    key(grid, "z", { ctrlKey: true });
    key(grid, "Z", { ctrlKey: true, shiftKey: true });
    key(grid, "j");
    expect(globalKeys).toEqual(["z", "Z", "j"]);
    view.destroy();
  });

  it("takes the timeline's selection without emitting it, and scrolls it into view", () => {
    const { project } = syntheticProject(2000);
    const { view, cb, grid } = mount(project);
    const focused = document.activeElement;
    view.setSelection(1500);
    view.flush();
    expect(cb.select).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(focused);
    expect(row(host, 1500).classList.contains("script-row--selected")).toBe(true);
    const top = grid.scrollTop;
    expect(1499 * ROW_HEIGHT).toBeGreaterThanOrEqual(top);
    expect(1500 * ROW_HEIGHT).toBeLessThanOrEqual(top + VIEW_HEIGHT - 30);
    view.setSelection(null);
    view.flush();
    expect(host.querySelector(".script-row--selected")).toBeNull();
    view.destroy();
  });

  it("edits in place: Enter saves, Shift+Enter does not, Escape cancels", async () => {
    const { view, cb, grid } = mount();
    row(host, 10).querySelector(".script-text")!.dispatchEvent(new MouseEvent("dblclick", { bubbles: true }));
    let area = host.querySelector<HTMLTextAreaElement>("#script-edit")!;
    expect(area).not.toBeNull();
    expect(area.value).toBe("Over there by the river");
    expect(row(host, 10).contains(area)).toBe(true);
    expect(document.activeElement).toBe(area);

    area.value = "Par là";
    expect(key(area, "Enter", { shiftKey: true }).defaultPrevented).toBe(false);
    expect(key(area, " ").defaultPrevented).toBe(false);
    key(area, "Delete");
    expect(cb.saveText).not.toHaveBeenCalled();
    expect(globalKeys).toEqual([]);
    key(area, "Enter");
    expect(cb.saveText).toHaveBeenCalledWith(10, "Par là");
    await settle();
    expect(host.querySelector("#script-edit")).toBeNull();
    expect(document.activeElement).toBe(grid);

    // Escape throws the typing away and stays in the script.
    view.setSelection(30);
    key(grid, "F2");
    area = host.querySelector<HTMLTextAreaElement>("#script-edit")!;
    expect(area.value).toBe("Where is the door");
    area.value = "nope";
    key(area, "Escape");
    expect(host.querySelector("#script-edit")).toBeNull();
    expect(cb.saveText).toHaveBeenCalledTimes(1);
    expect(globalKeys).toEqual([]);
    // Undo stays global while editing.
    key(grid, "Enter");
    key(host.querySelector("#script-edit")!, "z", { ctrlKey: true });
    expect(globalKeys).toEqual(["z"]);
    view.destroy();
  });

  it("keeps a refused edit open", async () => {
    const cb = callbacks({ saveText: vi.fn(async () => false) });
    const { view } = mount(small(), cb);
    view.setSelection(20);
    key(host.querySelector('[role="grid"]')!, "Enter");
    const area = host.querySelector<HTMLTextAreaElement>("#script-edit")!;
    area.value = "Wait!";
    key(area, "Enter");
    await settle();
    expect(cb.saveText).toHaveBeenCalledWith(20, "Wait!");
    expect(host.querySelector("#script-edit")).toBe(area);
    expect(area.value).toBe("Wait!");
    view.destroy();
  });

  it("Tab saves and moves to the next row's text, Shift+Tab to the previous", async () => {
    const { view, cb } = mount();
    row(host, 30).dispatchEvent(new MouseEvent("click", { bubbles: true }));
    row(host, 30).querySelector(".script-text")!.dispatchEvent(new MouseEvent("dblclick", { bubbles: true }));
    let area = host.querySelector<HTMLTextAreaElement>("#script-edit")!;
    area.value = "Où est la porte";
    key(area, "Tab");
    await settle();
    expect(cb.saveText).toHaveBeenCalledWith(30, "Où est la porte");
    area = host.querySelector<HTMLTextAreaElement>("#script-edit")!;
    expect(area.value).toBe("Over there by the river");
    expect(row(host, 10).contains(area)).toBe(true);
    expect(cb.select).toHaveBeenLastCalledWith(10);
    // Unchanged text moves on without a save.
    key(area, "Tab", { shiftKey: true });
    await settle();
    expect(cb.saveText).toHaveBeenCalledTimes(1);
    expect(row(host, 30).contains(host.querySelector("#script-edit"))).toBe(true);
    view.destroy();
  });

  it("saves when the focus leaves the edit", async () => {
    const { view, cb, grid } = mount();
    view.setSelection(40);
    key(grid, "Enter");
    const area = host.querySelector<HTMLTextAreaElement>("#script-edit")!;
    area.value = "la fin";
    host.querySelector<HTMLInputElement>("#script-find")!.focus();
    await settle();
    expect(cb.saveText).toHaveBeenCalledWith(40, "la fin");
    expect(host.querySelector("#script-edit")).toBeNull();
    expect(document.activeElement).toBe(host.querySelector("#script-find"));
    view.destroy();
  });

  it("double-click on the in-time seeks there", () => {
    const { view, cb } = mount();
    row(host, 20).querySelector(".script-in")!.dispatchEvent(new MouseEvent("dblclick", { bubbles: true }));
    expect(cb.seek).toHaveBeenCalledWith(4);
    expect(host.querySelector("#script-edit")).toBeNull();
    view.destroy();
  });

  it("filters by state and speaker, keeping the track's numbering", () => {
    const { view } = mount();
    const state = host.querySelector<HTMLSelectElement>("#script-filter-state")!;
    const speaker = host.querySelector<HTMLSelectElement>("#script-filter-speaker")!;
    state.value = "failed";
    state.dispatchEvent(new Event("change"));
    view.flush();
    expect(rowsIn(host).map((r) => r.dataset.segmentId)).toEqual(["10"]);
    expect(row(host, 10).querySelector(".script-number")!.textContent).toBe("2");
    state.value = "all";
    state.dispatchEvent(new Event("change"));
    expect([...speaker.options].map((o) => o.textContent)).toContain("No speaker");
    speaker.value = "1";
    speaker.dispatchEvent(new Event("change"));
    view.flush();
    expect(rowsIn(host).map((r) => r.querySelector(".script-number")!.textContent).sort()).toEqual(["1", "3"]);
    state.value = "doesnt-fit";
    state.dispatchEvent(new Event("change"));
    view.flush();
    expect(rowsIn(host).map((r) => r.dataset.segmentId)).toEqual(["20"]);
    view.destroy();
  });

  it("finds, highlights, goes to the next match and replaces in the filtered rows", async () => {
    const { view, cb } = mount();
    const find = host.querySelector<HTMLInputElement>("#script-find")!;
    const button = host.querySelector<HTMLButtonElement>("#script-replace-all")!;
    expect(button.disabled).toBe(true);
    find.value = "the";
    find.dispatchEvent(new Event("input"));
    view.flush();
    expect(host.querySelector("#script-matches")!.textContent).toBe("4 matches in 3 lines");
    expect([...row(host, 10).querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["the", "the"]);
    expect(button.disabled).toBe(false);

    const whole = host.querySelector<HTMLInputElement>("#script-whole-word")!;
    whole.checked = true;
    whole.dispatchEvent(new Event("change"));
    expect(host.querySelector("#script-matches")!.textContent).toBe("3 matches in 3 lines");
    const matchCase = host.querySelector<HTMLInputElement>("#script-match-case")!;
    matchCase.checked = true;
    matchCase.dispatchEvent(new Event("change"));
    expect(host.querySelector("#script-matches")!.textContent).toBe("3 matches in 3 lines");

    key(find, "Enter");
    expect(cb.select).toHaveBeenLastCalledWith(30);
    key(find, "Enter");
    expect(cb.select).toHaveBeenLastCalledWith(10);
    key(find, "Enter", { shiftKey: true });
    expect(cb.select).toHaveBeenLastCalledWith(30);
    expect(globalKeys).toEqual([]);

    host.querySelector<HTMLInputElement>("#script-replace")!.value = "la";
    button.click();
    await settle();
    expect(cb.replace).toHaveBeenLastCalledWith("the", "la", { matchCase: true, wholeWord: true, only: null });

    const speaker = host.querySelector<HTMLSelectElement>("#script-filter-speaker")!;
    speaker.value = "1";
    speaker.dispatchEvent(new Event("change"));
    expect(host.querySelector("#script-matches")!.textContent).toBe("1 match in 1 line");
    button.click();
    await settle();
    expect(cb.replace).toHaveBeenLastCalledWith("the", "la", { matchCase: true, wholeWord: true, only: [30, 20] });
    view.destroy();
  });

  it("marks the row under the playhead, follows it, and stops following when scrolled by hand", () => {
    let clock = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => clock);
    const { project } = syntheticProject(2000);
    const { view, grid } = mount(project);
    const target = project.tracks[0].segments[999];
    view.setPlayhead(target.start);
    view.setPlayhead((target.start + target.end) / 2);
    view.flush();
    const marked = host.querySelector<HTMLElement>(".script-row--playing");
    expect(marked).not.toBeNull();
    const top = grid.scrollTop;
    expect(top).toBeGreaterThan(900 * ROW_HEIGHT);
    expect(view.follow).toBe(true);

    // Scrolled by hand after a seek: still following.
    clock += 5000;
    view.setPlayhead(1);
    view.flush();
    expect(grid.scrollTop).toBe(0);
    grid.scrollTop = 50;
    grid.dispatchEvent(new Event("scroll"));
    view.flush();
    expect(view.follow).toBe(true);
    clock += 5000;
    view.setPlayhead((target.start + target.end) / 2);
    clock += 50;
    view.setPlayhead(target.end - 0.01);
    view.flush();
    expect(grid.scrollTop).toBeGreaterThan(900 * ROW_HEIGHT);

    // Scrolled by hand while playing: following stops.
    grid.scrollTop = 100;
    grid.dispatchEvent(new Event("scroll"));
    view.flush();
    expect(view.follow).toBe(false);
    view.setPlayhead(project.tracks[0].segments[1500].start + 0.01);
    view.flush();
    expect(grid.scrollTop).toBe(100);
    expect(host.querySelector("#script-follow")!.getAttribute("aria-pressed")).toBe("false");
    view.setFollow(true);
    view.flush();
    expect(grid.scrollTop).toBeGreaterThan(1400 * ROW_HEIGHT);
    view.destroy();
  });

  it("keeps the DOM to the visible rows of a 2,000-line track while scrolling", () => {
    const { project } = syntheticProject(2000);
    const { view, grid } = mount(project);
    const bound = Math.ceil((VIEW_HEIGHT - 30) / ROW_HEIGHT) + 2 * OVERSCAN + 1;
    expect(grid.getAttribute("aria-rowcount")).toBe("2001");
    expect(rowsIn(host).length).toBeLessThanOrEqual(bound);
    for (let top = 0; top <= view.maxScroll; top += 997) {
      grid.scrollTop = top;
      grid.dispatchEvent(new Event("scroll"));
      view.flush();
      const rows = rowsIn(host);
      expect(rows.length).toBeLessThanOrEqual(bound);
      const first = Math.floor(top / ROW_HEIGHT);
      expect(rows.some((r) => r.querySelector(".script-number")!.textContent === String(first + 1))).toBe(true);
      expect(view.paintStats.domRows).toBe(rows.length);
    }
    view.scrollTo(view.maxScroll);
    view.flush();
    expect(rowsIn(host).some((r) => r.querySelector(".script-number")!.textContent === "2000")).toBe(true);
    view.destroy();
  });

  it("takes 2,000 state changes without rebuilding, and a filter follows them", () => {
    const { project } = syntheticProject(2000);
    const segments = project.tracks[0].segments;
    const { view } = mount(project);
    const state = host.querySelector<HTMLSelectElement>("#script-filter-state")!;
    state.value = "failed";
    state.dispatchEvent(new Event("change"));
    view.flush();
    const failed = segments.filter((s) => s.state === "failed").length;
    expect(view.rowCount).toBe(failed);
    for (const s of segments) expect(view.updateSegments([{ ...s, state: "failed" }])).toBe(true);
    view.flush();
    expect(view.rowCount).toBe(2000);
    expect(view.updateSegments([{ ...segments[0], start: segments[0].start + 1 }])).toBe(false);
    view.destroy();
  });

  it("measures a scroll through the track", async () => {
    const { project } = syntheticProject(2000);
    const { view } = mount(project);
    const stats = await measureScript(view, { frames: 12 });
    expect(stats.frames).toBe(12);
    expect(stats.rows).toBe(2000);
    expect(stats.draw.count).toBe(12);
    expect(stats.maxDomRows).toBeLessThanOrEqual(Math.ceil((VIEW_HEIGHT - 30) / ROW_HEIGHT) + 2 * OVERSCAN + 1);
    view.destroy();
  });
});
