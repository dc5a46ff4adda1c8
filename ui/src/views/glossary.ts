// The project's glossary for one language, in the Translate dialog: the
// terms the translator is told to render one way (term → translation),
// one added with two fields and Add (or Enter), one taken out with its
// Remove. A term refused, here or by the engine, is said beside the
// fields, naming the term.
import { el } from "../dom";
import * as engine from "../engine";
import type { GlossaryEntry } from "../engine";
import { engineError } from "../errors";

/** A term and its translation as typed, checked before they go to the engine. */
export type GlossaryInput = { term: string; translation: string } | { error: string };

/** The term and translation typed (trimmed), or why they cannot be added
 * to `language`'s glossary: one left empty, or the same pair there already
 * (the same term with another translation replaces it). */
export function glossaryInput(term: string, translation: string, language: string, entries: readonly GlossaryEntry[]): GlossaryInput {
  const t = term.trim();
  const tr = translation.trim();
  if (!t && !tr) return { error: "Type a term and how it is translated" };
  if (!t) return { error: `Type the term that becomes “${tr}”` };
  if (!tr) return { error: `Type how “${t}” is translated` };
  const same = entries.find((e) => e.term.toLowerCase() === t.toLowerCase() && e.language.toLowerCase() === language.toLowerCase());
  if (same && same.translation === tr) return { error: `“${t}” is in the glossary already (→ ${same.translation})` };
  return { term: t, translation: tr };
}

export interface GlossarySection {
  element: HTMLElement;
  /** Shows the glossary of another language (read from the engine). */
  setLanguage(language: string): void;
}

/** The glossary of `projectId` in `language`, to read and change. */
export function glossarySection(projectId: number, language: string): GlossarySection {
  const heading = el("h3", { id: "glossary-heading", class: "glossary__heading" });
  const list = el("ul", { id: "glossary-list", class: "glossary__list" });
  const term = el("input", { id: "glossary-term", type: "text", placeholder: "Term", "aria-label": "Term", autocomplete: "off" });
  const translation = el("input", { id: "glossary-translation", type: "text", placeholder: "Translation", "aria-label": "Translation", autocomplete: "off" });
  const add = el("button", { class: "button", id: "glossary-add", type: "button" }, "Add");
  const error = el("p", { id: "glossary-error", class: "status-warning", "aria-live": "assertive", hidden: "" });
  const element = el(
    "section",
    { class: "glossary", id: "glossary", "aria-labelledby": "glossary-heading" },
    heading,
    el("p", { class: "muted" }, "Terms the translator renders one way in every line."),
    list,
    el("div", { class: "glossary__add" }, term, el("span", { class: "muted", "aria-hidden": "true" }, "→"), translation, add),
    error,
  );

  let entries: GlossaryEntry[] = [];
  let shown = language;
  /** Reads of the glossary: only the latest one's answer is drawn. */
  let reads = 0;

  const say = (words: string | null) => {
    error.textContent = words ?? "";
    error.hidden = words === null;
  };
  const draw = () => {
    heading.textContent = `Glossary (${shown})`;
    if (!entries.length) {
      list.replaceChildren(el("li", { class: "muted glossary__empty" }, "No terms yet."));
      return;
    }
    list.replaceChildren(
      ...entries.map((entry) => {
        const remove = el("button", { class: "link-button glossary-remove", type: "button", "aria-label": `Remove “${entry.term}”`, title: "Remove this term" }, "Remove");
        remove.addEventListener("click", () => void removeTerm(entry, remove));
        return el(
          "li",
          { class: "glossary-entry", "data-term-id": String(entry.id) },
          el("span", { class: "glossary-entry__term" }, entry.term),
          el("span", { class: "muted", "aria-hidden": "true" }, " → "),
          el("span", { class: "glossary-entry__translation" }, entry.translation),
          entry.language.toLowerCase() === shown.toLowerCase() ? null : el("span", { class: "muted glossary-entry__language", title: `An entry of ${entry.language}: it applies to ${shown} too` }, ` (${entry.language})`),
          remove,
        );
      }),
    );
  };
  const load = async () => {
    const read = ++reads;
    const wanted = shown;
    try {
      const answer = await engine.glossary(projectId, wanted);
      if (read !== reads) return;
      entries = answer;
      draw();
    } catch (e) {
      if (read === reads) say(`The ${wanted} glossary cannot be read: ${engineError(e).message}`);
    }
  };

  const addTerm = async () => {
    const input = glossaryInput(term.value, translation.value, shown, entries);
    if ("error" in input) return say(input.error);
    add.setAttribute("disabled", "");
    try {
      const saved = await engine.setGlossaryTerm(projectId, shown, input.term, input.translation);
      entries = [...entries.filter((e) => e.id !== saved.id), saved];
      term.value = "";
      translation.value = "";
      say(null);
      draw();
      term.focus();
    } catch (e) {
      say(`“${input.term}” was not added: ${engineError(e).message}`);
    } finally {
      add.removeAttribute("disabled");
    }
  };
  const removeTerm = async (entry: GlossaryEntry, button: HTMLButtonElement) => {
    button.setAttribute("disabled", "");
    try {
      await engine.removeGlossaryTerm(projectId, entry.id);
      entries = entries.filter((e) => e.id !== entry.id);
      say(null);
      draw();
    } catch (e) {
      button.removeAttribute("disabled");
      say(`“${entry.term}” was not removed: ${engineError(e).message}`);
    }
  };

  add.addEventListener("click", () => void addTerm());
  for (const field of [term, translation]) {
    field.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || e.isComposing) return;
      e.preventDefault();
      e.stopPropagation();
      void addTerm();
    });
  }

  const setLanguage = (next: string) => {
    shown = next;
    entries = [];
    say(null);
    draw();
    void load();
  };
  setLanguage(language);
  return { element, setLanguage };
}
