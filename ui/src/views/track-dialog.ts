// "Add a language track": a translated script (SRT, WebVTT, ASS or plain
// text) read into the project's track in a chosen language, which the
// engine adds when the project has none. The languages offered are those
// the editor knows the studio speaks (its stock voices' languages) and the
// project's own; the first one the project has no track in is chosen.
import { render as renderTemplate } from "lit-html";
import { el } from "../dom";
import * as engine from "../engine";
import type { Project, Track } from "../model";
import { browseButton } from "../pick";

/** `en` of `en-US`, for comparing languages by their primary subtag. */
const primary = (tag: string) => tag.split("-")[0].toLowerCase();

/** The project's track in `language` (tags compared as the engine does, in any case). */
export function trackIn(project: Project, language: string): Track | undefined {
  return project.tracks.find((t) => t.language.toLowerCase() === language.toLowerCase());
}

/** The language chosen at first: the first in no track's language family,
 * else the first without a track of its own, else the first. */
export function defaultLanguage(project: Project, languages: string[]): string {
  const families = new Set(project.tracks.map((t) => primary(t.language)));
  return languages.find((l) => !families.has(primary(l))) ?? languages.find((l) => !trackIn(project, l)) ?? languages[0] ?? "";
}

/** "Spanish (es)", or the tag alone where the webview cannot name it. */
function languageName(tag: string): string {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}

/** The dialog for adding `project` a track from a translated script, in
 * one of `languages` (the project's own are offered too); `added` gets the
 * project as the engine holds it afterwards and the language the lines
 * went to, and the dialog closes. */
export function trackDialog(project: Project, languages: string[], added: (project: Project, language: string) => void): HTMLElement {
  const offered = [...languages];
  for (const t of project.tracks) if (!offered.some((l) => l.toLowerCase() === t.language.toLowerCase())) offered.push(t.language);
  const chosen = defaultLanguage(project, offered);
  const path = el("input", { type: "text", id: "track-script-path", "aria-label": "Translated script", placeholder: "/path/to/translation.srt" });
  const pathRow = el("div", { class: "row" }, path);
  renderTemplate(browseButton("script", (picked) => (path.value = picked)), pathRow);
  const language = el("select", { id: "track-language", "aria-label": "Language" }, ...offered.map((l) => el("option", { value: l }, languageName(l))));
  language.value = chosen;
  const result = el("div", { id: "track-result" });
  const go = el("button", { class: "button", id: "run-add-track" });
  const label = () => {
    const existing = trackIn(project, language.value);
    go.textContent = existing ? `Add to the ${existing.language} track` : "Add the track";
  };
  label();
  language.addEventListener("change", label);
  const close = el("button", { class: "link-button" }, "Close");
  const dialog = el(
    "div",
    { class: "dialog", role: "dialog", "aria-label": "Add a language track" },
    el("h2", {}, "Add a language track"),
    el(
      "p",
      { class: "muted" },
      "Each line of the script becomes a line of the track in that language, at its own time (a plain text script's lines are laid end to end, to be retimed); the speakers are matched by name ([Ana] …, ANA: …), and a name the project lacks becomes a new speaker.",
    ),
    pathRow,
    language,
    go,
    close,
    result,
  );
  close.addEventListener("click", () => dialog.remove());
  go.addEventListener("click", async () => {
    const script = path.value.trim();
    if (!script) {
      result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, "Choose the translated script"));
      return;
    }
    const into = language.value;
    go.setAttribute("disabled", "");
    result.replaceChildren(el("progress", {}), " Reading the script…");
    try {
      const updated = await engine.importScript(project.id, script, into);
      added(updated, into);
      dialog.remove();
    } catch (e) {
      result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, String(e)));
      go.removeAttribute("disabled");
    }
  });
  return dialog;
}
