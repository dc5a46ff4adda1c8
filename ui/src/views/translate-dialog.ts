// "Translate track": the track shown in the editor translated into another
// language by a translation engine (Settings → Translation engines), into
// the project's track in that language (the engine makes it when missing).
// The dialog says where the lines go, takes notes for the translator, shows
// the engine's progress (the editor hands it the `translating` events), can
// stop the run after the batch in flight (what was written stays, and
// translating again goes on from there), and ends with the engine's report:
// what was translated, what fits its slot, what is still too long, which
// lines the engine could not translate and which glossary terms it left
// out. On a track translated from another, "only the selected lines"
// translates those again from their source, asking first whether lines
// edited by hand may be overwritten. The target language's glossary is
// read and changed here too (glossary.ts).
import { el } from "../dom";
import * as engine from "../engine";
import type { TrackTranslations, TranslateReport, TranslatorView } from "../engine";
import { engineError } from "../errors";
import type { Project } from "../model";
import { againRequest, linksByLine, type AgainRequest } from "../script/translations";
import { glossarySection } from "./glossary";
import { defaultLanguage } from "./track-dialog";
import { whereLinesGo } from "./translators";

/** What the dialog says when a run was stopped. */
export const STOPPED_WORDS = "Stopped: the lines translated so far are kept; Translate again goes on from there.";

/** "Spanish (es)", or the tag alone where the webview cannot name it. */
function languageName(tag: string): string {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A line's number in its track as the script shows it (1, 2, 3…), or null when no track has it. */
function lineNumber(project: Project, id: number): number | null {
  for (const t of project.tracks) {
    const at = t.segments.findIndex((s) => s.id === id);
    if (at >= 0) return at + 1;
  }
  return null;
}

/** Lines by id as the script numbers them in their track: `line 3`, `lines 3, 7, 12`. */
function lineNumbers(project: Project, ids: number[]): string {
  const numbers = ids
    .map((id) => lineNumber(project, id))
    .filter((n): n is number => n !== null)
    .sort((a, b) => a - b);
  if (!numbers.length) return plural(ids.length, "line");
  return `${numbers.length === 1 ? "line" : "lines"} ${numbers.join(", ")}`;
}

/** The engine's report in sentences: what was translated, with what and
 * where, what was left, and how the new lines fit their slots. */
export function reportWords(report: TranslateReport, project: Project): string {
  const where = report.local ? report.host : `${report.host} (another machine)`;
  const words = [
    report.translated ? `Translated ${plural(report.translated, "line")} with ${report.translator} at ${where}.` : `Nothing new to translate with ${report.translator} at ${where}.`,
  ];
  if (report.already) words.push(`${plural(report.already, "line")} translated before ${report.already === 1 ? "was" : "were"} left as ${report.already === 1 ? "it was" : "they were"}.`);
  if (report.sourceChanged.length)
    words.push(`The ${report.from} text of ${lineNumbers(project, report.sourceChanged)} changed after ${report.sourceChanged.length === 1 ? "it was" : "they were"} translated: the translation stays until translated again.`);
  if (report.keptEdited.length) words.push(`Kept as edited by hand: the translation of ${lineNumbers(project, report.keptEdited)}.`);
  if (report.notSized) {
    words.push(`Not fitted to their slots: ${report.notSized}.`);
  } else if (report.sized) {
    const asked = report.shortened.length > 0 || report.fitAfter !== report.fitBefore;
    words.push(`${report.fitBefore} of ${report.sized} fit their slots as first translated${asked ? `; ${report.fitAfter} after asking for shorter ones.` : "."}`);
  }
  if (report.tooLong.length) words.push(`Still too long: ${lineNumbers(project, report.tooLong)}.`);
  if (report.failed.length) {
    const each = report.failed.map((f) => `${named(project, f.sourceSegmentId)} (${f.reason})`);
    words.push(`Not translated, the engine could not answer for ${plural(report.failed.length, "line")}: ${each.join("; ")}.`);
  }
  if (report.glossaryDropped.length) {
    const each = report.glossaryDropped.map((d) => `“${d.term}” → “${d.translation}” in ${named(project, d.segmentId)}`);
    words.push(`Glossary ${report.glossaryDropped.length === 1 ? "term" : "terms"} left out: ${each.join("; ")}.`);
  }
  return words.join(" ");
}

/** `line 4` (as the script numbers it), or `a line` when it is not in the project. */
function named(project: Project, id: number): string {
  const n = lineNumber(project, id);
  return n === null ? "a line" : `line ${n}`;
}

/** The selected lines of a translated track, when the dialog is opened on one. */
export interface TranslateSelection {
  /** The shown track's links to its source (the engine's `trackTranslations`). */
  translations: TrackTranslations | null;
  /** The selected lines' ids on the shown track. */
  selected: number[];
  /** Start with "only the selected lines" on ("Translate again" in the script). */
  onlySelected: boolean;
}

export interface TranslateDialog {
  element: HTMLElement;
  /** A `translating` event for this project: lines written of lines to write. */
  progress(done: number, total: number): void;
}

/** The dialog for translating `project`'s track `trackId` into one of
 * `languages` (the project's own are offered too, never the track's).
 * `translated` gets the report and the project as the engine holds it
 * afterwards; `stopped` the words shown when a run was refused or stopped, and
 * whether it was stopped by Cancel (lines written before either stay in
 * the project). */
export function translateDialog(
  project: Project,
  trackId: number,
  languages: string[],
  on: { translated: (report: TranslateReport, project: Project) => void; stopped: (words: string, cancelled: boolean) => void },
  selection: TranslateSelection | null = null,
): TranslateDialog {
  const shownTrack = project.tracks.find((t) => t.id === trackId) ?? project.tracks[0];
  const source = shownTrack;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const offered: string[] = [];
  for (const l of [...languages, ...project.tracks.map((t) => t.language)]) {
    if (!same(l, source.language) && !offered.some((o) => same(o, l))) offered.push(l);
  }
  const options = () => offered.map((l) => el("option", { value: l }, languageName(l)));
  const to = el("select", { id: "translate-to", "aria-label": "Into" }, ...options());
  to.value = defaultLanguage(project, offered);

  // On a track translated from another: the selected lines, again from their source.
  const links = selection?.translations?.trackId === trackId ? selection.translations : null;
  const sourceOfShown = links?.sourceTrackId != null ? project.tracks.find((t) => t.id === links.sourceTrackId) ?? null : null;
  const again: AgainRequest | null = sourceOfShown && selection ? againRequest(selection.selected, linksByLine(links)) : null;
  const onlySelected = el("input", { id: "translate-only-selected", type: "checkbox" });
  const onlyLabel = again
    ? el(
        "label",
        { class: "check", title: `The selected lines of the ${shownTrack.language} track, translated again from their ${sourceOfShown?.language} lines` },
        onlySelected,
        again.sourceIds.length ? `Only the selected lines (${again.sourceIds.length}), again from ${sourceOfShown?.language}` : "Only the selected lines (none selected was translated from another track)",
      )
    : null;
  if (again && !again.sourceIds.length) onlySelected.setAttribute("disabled", "");
  const isAgain = () => again !== null && again.sourceIds.length > 0 && onlySelected.checked;
  const fromLine = el("p", { id: "translate-from" });
  const showFrom = () => {
    if (isAgain() && again && sourceOfShown) {
      fromLine.textContent = `From: ${sourceOfShown.language}, ${plural(again.sourceIds.length, "selected line")} into the ${shownTrack.language} track`;
      to.replaceChildren(el("option", { value: shownTrack.language }, languageName(shownTrack.language)));
      to.value = shownTrack.language;
      to.setAttribute("disabled", "");
    } else {
      fromLine.textContent = `From: ${source.language} (${plural(source.segments.length, "line")})`;
      if (to.hasAttribute("disabled")) {
        to.replaceChildren(...options());
        to.value = defaultLanguage(project, offered);
        to.removeAttribute("disabled");
      }
    }
  };
  onlySelected.checked = Boolean(again?.sourceIds.length && selection?.onlySelected);
  showFrom();
  const glossary = glossarySection(project.id, to.value);
  to.addEventListener("change", () => glossary.setLanguage(to.value));
  onlySelected.addEventListener("change", () => {
    showFrom();
    glossary.setLanguage(to.value);
    ready();
  });
  const using = el("select", { id: "translate-with", "aria-label": "Translation engine", disabled: "" }, el("option", { value: "" }, "Reading the translation engines…"));
  const where = el("p", { class: "muted", id: "translate-where" });
  const none = el("p", { class: "status-warning", id: "translate-none", hidden: "" }, "No translation engine is set up: add one in Settings → Translation engines");
  const notes = el("textarea", { id: "translate-notes", rows: "3", "aria-label": "Notes for the translator", placeholder: "Register, audience, how to say names…" });
  const go = el("button", { class: "button", id: "run-translate", disabled: "" }, "Translate");
  const close = el("button", { class: "link-button" }, "Close");
  const result = el("div", { id: "translate-result" });
  const field = (label: string, control: HTMLElement) => el("label", { class: "dialog-field" }, label, control);
  const element = el(
    "div",
    { class: "dialog translate-dialog", role: "dialog", "aria-label": "Translate track" },
    el("h2", {}, "Translate track"),
    el(
      "p",
      { class: "muted" },
      "Each line goes to the engine with the lines around it and becomes the line at the same time, for the same speaker, on the chosen language's track. Lines too long for their slot are asked for shorter; lines translated before stay as they are.",
    ),
    fromLine,
    onlyLabel,
    field("Into", to),
    field("With", using),
    where,
    none,
    field("Notes for the translator", notes),
    glossary.element,
    go,
    close,
    result,
  );
  close.addEventListener("click", () => element.remove());

  let list: TranslatorView[] = [];
  let running = false;
  let asking = false;
  let cancelled = false;
  const chosen = () => list.find((t) => t.name === using.value);
  const showWhere = () => {
    const t = chosen();
    const words = t ? whereLinesGo(t.host, t.local) : "";
    where.textContent = words && `${words[0].toUpperCase()}${words.slice(1)}.`;
    where.className = t && !t.local ? "status-warning" : "muted";
  };
  const ready = () => {
    if (running || asking || !list.length || (!offered.length && !isAgain())) go.setAttribute("disabled", "");
    else go.removeAttribute("disabled");
  };
  using.addEventListener("change", showWhere);

  void engine.translators().then(
    (translators) => {
      list = translators;
      using.replaceChildren(...list.map((t) => el("option", { value: t.name }, t.model ? `${t.name} (${t.model})` : t.name)));
      if (list.length) using.removeAttribute("disabled");
      none.hidden = list.length > 0;
      showWhere();
      ready();
    },
    (e) => {
      using.replaceChildren();
      result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, engineError(e).message));
    },
  );

  const bar = el("progress", { id: "translate-progress" });
  const barText = el("span", { id: "translate-progress-text" });
  const cancel = el("button", { class: "link-button", id: "cancel-translate" }, "Cancel");
  cancel.addEventListener("click", () => {
    if (!running || cancelled) return;
    cancelled = true;
    cancel.setAttribute("disabled", "");
    barText.textContent = "Stopping after the lines being translated…";
    void engine.cancelTranslation().catch(() => {});
  });

  const progress = (done: number, total: number) => {
    if (!running || cancelled) return;
    bar.max = Math.max(1, total);
    bar.value = done;
    barText.textContent = total === 0 ? "Nothing new to translate…" : done < total ? `Translated ${done} of ${total} lines…` : `Translated ${done} of ${total} lines; fitting them to their slots…`;
  };

  /** Asks whether lines edited by hand may be overwritten; null: not now. */
  const askOverwrite = (edited: number): Promise<boolean | null> =>
    new Promise((answer) => {
      asking = true;
      ready();
      const overwrite = el("button", { class: "button", id: "overwrite-edited", type: "button" }, "Overwrite the hand edits");
      const keep = el("button", { class: "button", id: "keep-edited", type: "button" }, "Keep the hand edits");
      const back = el("button", { class: "link-button", id: "cancel-overwrite", type: "button" }, "Cancel");
      const ask = el(
        "div",
        { class: "translate-ask", id: "translate-overwrite-ask", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "translate-ask-words" },
        el(
          "p",
          { id: "translate-ask-words" },
          `${edited === 1 ? "One selected line was" : `${edited} selected lines were`} edited by hand since ${edited === 1 ? "it was" : "they were"} translated. Translate ${edited === 1 ? "it" : "them"} again over the edits, or keep the edits and translate only the others?`,
        ),
        el("div", { class: "translate-ask__buttons" }, overwrite, keep, back),
      );
      const done = (choice: boolean | null) => {
        asking = false;
        ask.remove();
        ready();
        answer(choice);
      };
      overwrite.addEventListener("click", () => done(true));
      keep.addEventListener("click", () => done(false));
      back.addEventListener("click", () => done(null));
      ask.addEventListener("keydown", (e) => {
        if (e.key !== "Escape") return;
        // Escape takes back the question, not the whole dialog.
        e.stopPropagation();
        done(null);
      });
      result.replaceChildren(ask);
      overwrite.focus();
    });

  go.addEventListener("click", async () => {
    const translator = chosen();
    if (running || asking || !translator) return;
    const selected = isAgain() && again && sourceOfShown ? again : null;
    let overwriteEdited = false;
    if (selected?.edited.length) {
      const choice = await askOverwrite(selected.edited.length);
      if (choice === null) return;
      overwriteEdited = choice;
    }
    if (running) return;
    running = true;
    cancelled = false;
    ready();
    cancel.removeAttribute("disabled");
    bar.removeAttribute("value");
    barText.textContent = `Sending the lines to ${translator.name}…`;
    result.replaceChildren(el("div", { class: "render-progress" }, bar, barText, cancel));
    try {
      const [report, updated] = await engine.translateTrack({
        projectId: project.id,
        from: selected && sourceOfShown ? sourceOfShown.language : source.language,
        to: to.value,
        translator: translator.name,
        again: selected ? selected.sourceIds : [],
        overwriteEdited,
        notes: notes.value.trim(),
      });
      on.translated(report, updated);
      result.replaceChildren(el("p", { id: "translate-report" }, reportWords(report, updated)));
    } catch (e) {
      const error = engineError(e);
      const stopped = cancelled || error.kind === "cancelled";
      const words = stopped ? STOPPED_WORDS : error.message;
      result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, words));
      on.stopped(words, stopped);
    } finally {
      running = false;
      ready();
    }
  });
  return { element, progress };
}
