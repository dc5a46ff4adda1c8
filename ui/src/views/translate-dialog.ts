// "Translate track": the track shown in the editor translated into another
// language by a translation engine (Settings → Translation engines), into
// the project's track in that language (the engine makes it when missing).
// The dialog says where the lines go, takes notes for the translator, shows
// the engine's progress (the editor hands it the `translating` events), can
// stop the run after the batch in flight (what was written stays, and
// translating again goes on from there), and ends with the engine's report:
// what was translated, what fits its slot, what is still too long.
import { el } from "../dom";
import * as engine from "../engine";
import type { TranslateReport, TranslatorView } from "../engine";
import { engineError } from "../errors";
import type { Project } from "../model";
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

/** Lines by id as the script numbers them in their track: `line 3`, `lines 3, 7, 12`. */
function lineNumbers(project: Project, ids: number[]): string {
  const numbers = ids
    .map((id) => {
      for (const t of project.tracks) {
        const at = t.segments.findIndex((s) => s.id === id);
        if (at >= 0) return at + 1;
      }
      return null;
    })
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
  return words.join(" ");
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
): TranslateDialog {
  const source = project.tracks.find((t) => t.id === trackId) ?? project.tracks[0];
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const offered: string[] = [];
  for (const l of [...languages, ...project.tracks.map((t) => t.language)]) {
    if (!same(l, source.language) && !offered.some((o) => same(o, l))) offered.push(l);
  }
  const to = el("select", { id: "translate-to", "aria-label": "Into" }, ...offered.map((l) => el("option", { value: l }, languageName(l))));
  to.value = defaultLanguage(project, offered);
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
    el("p", { id: "translate-from" }, `From: ${source.language} (${plural(source.segments.length, "line")})`),
    field("Into", to),
    field("With", using),
    where,
    none,
    field("Notes for the translator", notes),
    go,
    close,
    result,
  );
  close.addEventListener("click", () => element.remove());

  let list: TranslatorView[] = [];
  let running = false;
  let cancelled = false;
  const chosen = () => list.find((t) => t.name === using.value);
  const showWhere = () => {
    const t = chosen();
    const words = t ? whereLinesGo(t.host, t.local) : "";
    where.textContent = words && `${words[0].toUpperCase()}${words.slice(1)}.`;
    where.className = t && !t.local ? "status-warning" : "muted";
  };
  const ready = () => {
    if (running || !list.length || !offered.length) go.setAttribute("disabled", "");
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

  go.addEventListener("click", async () => {
    const translator = chosen();
    if (running || !translator) return;
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
        from: source.language,
        to: to.value,
        translator: translator.name,
        again: [],
        overwriteEdited: false,
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
