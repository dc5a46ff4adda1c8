// The editor's delivery dialogs, built once when opened (engine events do
// not redraw them): attaching a video as the project's picture, saving
// the project's cast on a cast sheet, the pronunciation dictionary (its
// entries, each removable, and a form for an entry, heard before it is
// saved), and the bed's music and effects stems (each with its level and
// ducking, removable, and a form adding one); and the export dialog's
// delivery fields (sample rate, bit depth, speaker tags). Each hands the
// editor what the engine answered; errors show in the dialog, as in the
// export and cast dialogs.
import { render as renderTemplate } from "lit-html";
import { el } from "../dom";
import * as engine from "../engine";
import type { AttachedVideo, BedStem, CastSheet, Pronunciation } from "../engine";
import type { Project } from "../model";
import { browseButton } from "../pick";
import { attachedSummary, BED_LEVEL_DB, decibels, DELIVERY_BITS, DELIVERY_RATES, describeSaying, dictionaryEntry, type ExportForm, fileName, stemSummary, type SayingKind } from "./delivery";

/** An error from the engine (a string) or from a form (an Error), in words. */
const words = (e: unknown) => (e instanceof Error ? e.message : String(e));
const failure = (e: unknown) => el("div", { class: "error-banner", role: "alert" }, words(e));

/** A dialog titled `label` holding `children`, with a Close button. */
function dialog(label: string, ...children: (Node | null)[]): HTMLElement {
  const close = el("button", { class: "link-button" }, "Close");
  const box = el("div", { class: "dialog", role: "dialog", "aria-label": label }, el("h2", {}, label), ...children, close);
  close.addEventListener("click", () => box.remove());
  return box;
}

function checkbox(id: string, label: string): { box: HTMLInputElement; row: HTMLLabelElement } {
  const box = el("input", { type: "checkbox", id });
  return { box, row: el("label", { class: "check" }, box, ` ${label}`) };
}

/** Runs an engine call with `button` (if any) disabled; errors show in `result`. */
async function act(button: HTMLButtonElement | null, result: HTMLElement, action: () => Promise<void>): Promise<void> {
  button?.setAttribute("disabled", "");
  try {
    await action();
  } catch (e) {
    result.replaceChildren(failure(e));
  } finally {
    button?.removeAttribute("disabled");
  }
}

/** "Attach video…": a video by path (typed or browsed); `attached` gets
 * what attaching did and the project as the engine then holds it. */
export function attachVideoDialog(project: Project, attached: (what: AttachedVideo, project: Project) => void): HTMLElement {
  const path = el("input", { type: "text", id: "attach-video-path", "aria-label": "Video file", placeholder: "/path/to/scene.mp4" });
  const pathRow = el("div", { class: "row" }, path);
  renderTemplate(browseButton("video", (picked) => (path.value = picked)), pathRow);
  const bed = checkbox("attach-video-bed", "Use its audio as the bed too");
  const result = el("div", { id: "attach-video-result" });
  const go = el("button", { class: "button", id: "run-attach-video" }, "Attach");
  const note = el(
    "p",
    { class: "muted" },
    project.original
      ? "The dub is made against it, and an export can mux the dub into it. The project keeps its original dialogue."
      : "The dub is made against it, and an export can mux the dub into it. Its audio becomes the project's original dialogue.",
  );
  const box = dialog("Attach video", note, project.video ? el("p", { class: "muted", id: "attach-video-now" }, `Now: ${project.video}`) : null, pathRow, bed.row, go, result);
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    result.replaceChildren(el("progress", {}), " Reading the video…");
    try {
      const file = path.value.trim();
      if (!file) throw new Error("Choose a video file.");
      const [what, updated] = await engine.attachVideo(project.id, file, bed.box.checked);
      attached(what, updated);
      result.replaceChildren(el("p", { id: "attach-video-summary" }, attachedSummary(what)));
    } catch (e) {
      result.replaceChildren(failure(e));
    } finally {
      go.removeAttribute("disabled");
    }
  });
  return box;
}

/** "Save cast…": the project's speakers and voices on a cast sheet, by
 * name (the project's sheet, or its name, to start with). */
export function saveCastDialog(project: Project, saved: (sheet: CastSheet) => void): HTMLElement {
  const name = el("input", { type: "text", id: "save-cast-name", "aria-label": "Cast sheet name" });
  name.value = project.cast ?? project.name;
  const result = el("div", { id: "save-cast-result" });
  const go = el("button", { class: "button", id: "run-save-cast" }, "Save cast sheet");
  const note = el("p", { class: "muted" }, "Saves each speaker and their voices under this name (a sheet of that name is updated). A new project started from the sheet gives its speakers these voices as they appear.");
  const box = dialog("Save cast", note, name, go, result);
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    try {
      if (!name.value.trim()) throw new Error("Name the cast sheet.");
      const sheet = await engine.saveCast(project.id, name.value.trim());
      saved(sheet);
      result.replaceChildren(el("p", { id: "save-cast-summary" }, castSaved(sheet)));
    } catch (e) {
      result.replaceChildren(failure(e));
    } finally {
      go.removeAttribute("disabled");
    }
  });
  return box;
}

/** `Cast sheet Keepers saved: 2 speakers`. */
export function castSaved(sheet: CastSheet): string {
  return `Cast sheet ${sheet.name} saved: ${sheet.members.length} speaker${sheet.members.length === 1 ? "" : "s"}`;
}

/** The pronunciation dictionary of `project`; an entry is heard in `voice`.
 * `changed` gets the project after an entry is saved or removed (lines
 * using the word are then stale) and what was done. */
export function dictionaryDialog(project: Project, voice: string, changed: (project: Project, done: string) => void): HTMLElement {
  const list = el("ul", { class: "dictionary-list", id: "dictionary-list", "aria-label": "Dictionary entries" });
  const word = el("input", { type: "text", id: "dictionary-word", "aria-label": "Word", placeholder: "Word or name, as written" });
  const kind = el(
    "select",
    { id: "dictionary-kind", "aria-label": "Said as" },
    el("option", { value: "respelling" }, "Respelling: read like another spelling"),
    el("option", { value: "phonemes" }, "Phonemes (IPA, as Kokoro reads them)"),
  );
  const saying = el("input", { type: "text", id: "dictionary-saying", "aria-label": "How it is said" });
  const placeholder = () => (saying.placeholder = kind.value === "phonemes" ? "kˈipəɹ" : "keeper");
  placeholder();
  kind.addEventListener("change", placeholder);
  const global = checkbox("dictionary-global", "Global (every project)");
  const hear = el("button", { class: "link-button", id: "dictionary-preview" }, "▶ Hear it");
  const save = el("button", { class: "button", id: "dictionary-save" }, "Save");
  const phonemes = el("p", { class: "muted", id: "dictionary-phonemes" });
  const result = el("div", { id: "dictionary-result" });
  const entry = () => dictionaryEntry(word.value, kind.value as SayingKind, saying.value);

  const refresh = async () => {
    try {
      show(await engine.pronunciations(project.id));
    } catch (e) {
      result.replaceChildren(failure(e));
    }
  };
  const show = (entries: Pronunciation[]) => {
    if (!entries.length) return list.replaceChildren(el("li", { class: "muted" }, "No entries yet: every word is said as the language's rules say."));
    list.replaceChildren(
      ...entries.map((e) => {
        const remove = el("button", { class: "link-button dictionary-remove", "aria-label": `Remove ${e.word}` }, "Remove");
        remove.addEventListener("click", () =>
          void act(remove, result, async () => {
            changed(await engine.removePronunciation(project.id, e.word, e.global), `Removed “${e.word}” from the ${e.global ? "global " : ""}dictionary`);
            result.replaceChildren();
            await refresh();
          }),
        );
        return el(
          "li",
          { class: "dictionary-entry", "data-word": e.word },
          el("span", { class: "dictionary-word" }, e.word),
          el("span", { class: "dictionary-saying" }, describeSaying(e.saying)),
          e.global ? el("span", { class: "dictionary-global", title: "In the global dictionary: every project says it so" }, "global") : null,
          remove,
        );
      }),
    );
  };

  hear.addEventListener("click", () =>
    void act(hear, result, async () => {
      const typed = entry();
      phonemes.textContent = "Speaking…";
      try {
        phonemes.textContent = `Said: /${await engine.previewPronunciation(project.id, typed.word, voice, typed.word, typed.saying)}/`;
      } catch (e) {
        phonemes.textContent = "";
        throw e;
      }
      result.replaceChildren();
    }),
  );
  save.addEventListener("click", () =>
    void act(save, result, async () => {
      const typed = entry();
      const done = `“${typed.word}” is said ${describeSaying(typed.saying)}${global.box.checked ? " in every project" : ""}`;
      changed(await engine.setPronunciation(project.id, typed.word, typed.saying, global.box.checked), done);
      result.replaceChildren(el("p", { id: "dictionary-saved" }, `${done}: lines using it need rendering again.`));
      await refresh();
    }),
  );

  const form = el("div", { class: "dictionary-form" }, word, kind, saying, global.row, el("div", { class: "row" }, hear, save), phonemes);
  const box = dialog("Dictionary", el("p", { class: "muted" }, `How words and names are said in ${project.name}: the project's entries, and the global ones every project shares.`), list, form, result);
  void refresh();
  return box;
}

/** A level in dB, `low` to `high` in half dB steps. */
function levelInput(id: string, label: string, value: number, [low, high]: [number, number]): HTMLInputElement {
  const input = el("input", { type: "number", id, class: "level", "aria-label": label, min: String(low), max: String(high), step: "0.5" });
  input.value = String(value);
  return input;
}

/** "Bed…": the music and effects the dub plays over, stem by stem. A
 * stem's level or ducking is saved when changed; `changed` gets the
 * project after each change (the bed's waveform is drawn again) and what
 * was done. */
export function bedDialog(project: Project, changed: (project: Project, done: string) => void): HTMLElement {
  let current = project;
  const list = el("ul", { class: "bed-list", id: "bed-list", "aria-label": "Bed stems" });
  const result = el("div", { id: "bed-result" });
  const path = el("input", { type: "text", id: "bed-add-path", "aria-label": "Stem file", placeholder: "/path/to/music.wav (a recording or a video's audio)" });
  const pathRow = el("div", { class: "row" }, path);
  renderTemplate(browseButton("media", (picked) => (path.value = picked)), pathRow);
  const gain = levelInput("bed-add-gain", "Level of the new stem (dB)", 0, BED_LEVEL_DB);
  const ducked = checkbox("bed-add-ducked", "Ducks under the voice");
  ducked.box.checked = true;
  const add = el("button", { class: "button", id: "bed-add" }, "Add the stem");

  /** The engine's answer: kept, handed to the editor and said. */
  const take = (updated: Project, done: string) => {
    current = updated;
    changed(updated, done);
    result.replaceChildren(el("p", { id: "bed-summary" }, done));
  };
  const row = (stem: BedStem) => {
    const name = fileName(stem.file);
    const level = levelInput(`bed-gain-${stem.id}`, `Level of ${name} (dB)`, stem.gainDb, BED_LEVEL_DB);
    const ducks = checkbox(`bed-ducked-${stem.id}`, "Ducks under the voice");
    ducks.box.checked = stem.ducked;
    const remove = el("button", { class: "link-button", id: `bed-remove-${stem.id}`, "aria-label": `Remove ${name}` }, "Remove");
    const edit = () =>
      void act(null, result, async () => {
        // What the engine holds now (the row stays while it is edited).
        const stored = current.beds.find((s) => s.id === stem.id) ?? stem;
        try {
          const gainDb = decibels(level.value, BED_LEVEL_DB);
          take(await engine.editBedStem(current.id, stem.id, gainDb, ducks.box.checked), `Bed: ${stemSummary({ file: stem.file, gainDb, ducked: ducks.box.checked })}`);
        } catch (e) {
          level.value = String(stored.gainDb);
          ducks.box.checked = stored.ducked;
          throw e;
        }
      });
    level.addEventListener("change", edit);
    ducks.box.addEventListener("change", edit);
    remove.addEventListener("click", () =>
      void act(remove, result, async () => {
        take(await engine.removeBedStem(current.id, stem.id), `Removed ${name} from the bed`);
        show();
      }),
    );
    return el(
      "li",
      { class: "bed-stem", "data-stem": String(stem.id) },
      el("span", { class: "bed-file", title: stem.file }, name),
      el("label", { class: "bed-level" }, level, " dB"),
      ducks.row,
      remove,
    );
  };
  const show = () => {
    if (!current.beds.length) return list.replaceChildren(el("li", { class: "muted" }, "No stems yet: the dub plays over silence."));
    list.replaceChildren(...current.beds.map(row));
  };

  add.addEventListener("click", () =>
    void act(add, result, async () => {
      const file = path.value.trim();
      if (!file) throw new Error("Choose a recording or video for the stem.");
      const gainDb = decibels(gain.value, BED_LEVEL_DB);
      result.replaceChildren(el("progress", {}), " Reading the stem…");
      take(await engine.addBedStem(current.id, file, gainDb, ducked.box.checked), `Added to the bed: ${stemSummary({ file, gainDb, ducked: ducked.box.checked })}`);
      path.value = "";
      show();
    }),
  );

  show();
  const form = el("fieldset", { class: "bed-form" }, el("legend", {}, "Add a stem"), pathRow, el("label", { class: "bed-level" }, "Level ", gain, " dB"), ducked.row, add);
  return dialog(
    "Music and effects",
    el("p", { class: "muted" }, "The bed the dub plays over: each stem at its level (over the mix's bed level). Music ducks under the voice; effects that must stay heard do not."),
    list,
    form,
    result,
  );
}

/** The export dialog's delivery fields: the audio's sample rate and bit
 * depth (48 kHz, 24-bit to start with; the depth unused while `format`
 * says MP3, which has none) and whether the subtitles tag each cue with
 * its speaker (off to start with). `read` gives what they say now. */
export function deliveryFields(format: HTMLSelectElement): {
  audio: HTMLElement;
  speakerTags: HTMLLabelElement;
  read: () => Pick<ExportForm, "sampleRate" | "bits" | "speakerTags">;
} {
  const options = (choices: [number, string][]) => choices.map(([value, label]) => el("option", { value: String(value) }, label));
  const rate = el("select", { id: "export-sample-rate", "aria-label": "Sample rate" }, ...options(DELIVERY_RATES));
  const bits = el("select", { id: "export-bits", "aria-label": "Bit depth" }, ...options(DELIVERY_BITS));
  const depthFollowsFormat = () => {
    bits.disabled = format.value === "mp3";
    bits.title = bits.disabled ? "MP3 has no bit depth" : "";
  };
  format.addEventListener("change", depthFollowsFormat);
  depthFollowsFormat();
  const tags = checkbox("export-speaker-tags", "Speaker tags in the subtitles ([Ana] …)");
  return {
    audio: el("div", { class: "row", id: "export-audio" }, rate, bits),
    speakerTags: tags.row,
    read: () => ({ sampleRate: Number(rate.value), bits: Number(bits.value), speakerTags: tags.box.checked }),
  };
}
