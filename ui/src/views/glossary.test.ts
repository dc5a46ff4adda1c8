// @vitest-environment happy-dom
// The glossary section in a DOM, with the engine replaced by a stand-in:
// what typed terms are refused before they go, the language's terms
// listed, a term added with Enter or Add and taken out with Remove, and the
// engine's refusals said beside the fields, naming the term.
import { describe, expect, it, vi } from "vitest";
import type { GlossaryEntry } from "../engine";

const engine = vi.hoisted(() => ({ glossary: vi.fn(), setGlossaryTerm: vi.fn(), removeGlossaryTerm: vi.fn() }));
vi.mock("../engine", () => engine);

const { glossaryInput, glossarySection } = await import("./glossary");

const entry = (id: number, term: string, translation: string, language = "es"): GlossaryEntry => ({ id, language, term, translation });

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

async function open(entries: GlossaryEntry[], language = "es") {
  engine.glossary.mockReset().mockResolvedValue(entries);
  engine.setGlossaryTerm.mockReset();
  engine.removeGlossaryTerm.mockReset();
  const section = glossarySection(7, language);
  document.body.replaceChildren(section.element);
  await settle();
  const $ = <T extends Element>(s: string) => section.element.querySelector<T>(s)!;
  const listed = () => [...section.element.querySelectorAll(".glossary-entry")].map((li) => li.textContent);
  return { section, $, listed };
}

describe("a glossary term as typed", () => {
  it("is refused when a side is empty, naming the term that is there", () => {
    expect(glossaryInput("  ", "", "es", [])).toEqual({ error: "Type a term and how it is translated" });
    expect(glossaryInput("harbour", "  ", "es", [])).toEqual({ error: "Type how “harbour” is translated" });
    expect(glossaryInput("", "puerto", "es", [])).toEqual({ error: "Type the term that becomes “puerto”" });
  });

  it("is refused when the same pair is in the language's glossary; another translation replaces it", () => {
    const entries = [entry(1, "Harbour", "puerto"), entry(2, "ship", "nave", "fr")];
    expect(glossaryInput("harbour", "puerto", "es", entries)).toEqual({ error: "“harbour” is in the glossary already (→ puerto)" });
    expect(glossaryInput(" harbour ", " dársena ", "es", entries)).toEqual({ term: "harbour", translation: "dársena" });
    expect(glossaryInput("ship", "nave", "es", entries)).toEqual({ term: "ship", translation: "nave" });
  });
});

describe("the glossary section", () => {
  it("lists the language's terms (those of its primary language marked) and says when there are none", async () => {
    const { $, listed, section } = await open([entry(1, "harbour", "puerto", "es"), entry(2, "Ana", "Anita", "es-MX")], "es-MX");
    expect(engine.glossary).toHaveBeenCalledWith(7, "es-MX");
    expect($("#glossary-heading").textContent).toBe("Glossary (es-MX)");
    expect(listed()).toEqual(["harbour → puerto (es)Remove", "Ana → AnitaRemove"]);
    engine.glossary.mockResolvedValue([]);
    section.setLanguage("fr");
    await settle();
    expect(engine.glossary).toHaveBeenLastCalledWith(7, "fr");
    expect($("#glossary-heading").textContent).toBe("Glossary (fr)");
    expect($("#glossary-list").textContent).toBe("No terms yet.");
  });

  it("adds a term with Enter, clears the fields, and says a refused one inline", async () => {
    const { $, listed } = await open([entry(1, "harbour", "puerto")]);
    const term = $<HTMLInputElement>("#glossary-term");
    const translation = $<HTMLInputElement>("#glossary-translation");
    term.value = " ship ";
    translation.value = "barco";
    engine.setGlossaryTerm.mockResolvedValue(entry(5, "ship", "barco"));
    translation.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    await settle();
    expect(engine.setGlossaryTerm).toHaveBeenCalledWith(7, "es", "ship", "barco");
    expect(listed()).toEqual(["harbour → puertoRemove", "ship → barcoRemove"]);
    expect(term.value).toBe("");
    expect(translation.value).toBe("");
    expect($<HTMLElement>("#glossary-error").hidden).toBe(true);

    term.value = "sail";
    $<HTMLButtonElement>("#glossary-add").click();
    await settle();
    expect($<HTMLElement>("#glossary-error").hidden).toBe(false);
    expect($("#glossary-error").textContent).toBe("Type how “sail” is translated");
    expect(engine.setGlossaryTerm).toHaveBeenCalledTimes(1);

    translation.value = "vela";
    engine.setGlossaryTerm.mockRejectedValue({ kind: "invalidInput", message: "language \"xx\" is not a language the studio knows", input: "language \"xx\"" });
    $<HTMLButtonElement>("#glossary-add").click();
    await settle();
    expect($("#glossary-error").textContent).toBe("“sail” was not added: language \"xx\" is not a language the studio knows");
    expect(term.value).toBe("sail");
  });

  it("replaces the entry of a term added again with another translation", async () => {
    const { $, listed } = await open([entry(1, "harbour", "puerto")]);
    $<HTMLInputElement>("#glossary-term").value = "Harbour";
    $<HTMLInputElement>("#glossary-translation").value = "dársena";
    engine.setGlossaryTerm.mockResolvedValue(entry(1, "Harbour", "dársena"));
    $<HTMLButtonElement>("#glossary-add").click();
    await settle();
    expect(listed()).toEqual(["Harbour → dársenaRemove"]);
  });

  it("removes a term, and names the term the engine would not remove", async () => {
    const { $, listed } = await open([entry(1, "harbour", "puerto"), entry(2, "ship", "barco")]);
    engine.removeGlossaryTerm.mockResolvedValue(undefined);
    $<HTMLButtonElement>('[data-term-id="1"] .glossary-remove').click();
    await settle();
    expect(engine.removeGlossaryTerm).toHaveBeenCalledWith(7, 1);
    expect(listed()).toEqual(["ship → barcoRemove"]);
    engine.removeGlossaryTerm.mockRejectedValue({ kind: "notFound", message: "glossary entry 2: project 7's glossary has no such entry", input: "glossary entry 2" });
    $<HTMLButtonElement>('[data-term-id="2"] .glossary-remove').click();
    await settle();
    expect($("#glossary-error").textContent).toBe("“ship” was not removed: glossary entry 2: project 7's glossary has no such entry");
    expect(listed()).toEqual(["ship → barcoRemove"]);
  });
});
