// "Voice every speaker": a recording per speaker (typed, browsed or left
// empty), one consent for them all; the engine makes a library voice of
// each clip, gives it to its speaker on the shown track and queues a fit
// of each (they run one after another; the Voices page shows their
// progress). Each voice is matched at once and fitted later: a voice fitted
// by search, not a clone. A project with original dialogue can have each
// speaker's clip cut from their own lines in it (with what they say).
import { render as renderTemplate } from "lit-html";
import { el } from "../dom";
import * as engine from "../engine";
import type { Project } from "../model";
import { browseButton } from "../pick";

/** The dialog for `project`'s speakers on the track in `language`;
 * `voiced` gets the project as the engine holds it afterwards. */
export function castDialog(project: Project, language: string | null, voiced: (project: Project) => void): HTMLElement {
  const rows = project.speakers.map((speaker) => {
    const input = el("input", { type: "text", id: `cast-clip-${speaker.id}`, "aria-label": `Recording of ${speaker.name}`, placeholder: "/path/to/clip.wav (6 s of speech or more)" });
    const row = el("div", { class: "row cast-row", "data-speaker": speaker.name }, el("span", { class: "cast-speaker" }, speaker.name), input);
    renderTemplate(browseButton("audio", (path) => (input.value = path)), row);
    return { speaker, input, row };
  });
  /** What is said in a clip cut from the original dialogue, by its path. */
  const spoken = new Map<string, string>();
  const cut = el("button", { class: "link-button", id: "cast-from-original" }, "Cut each speaker's clip from the original dialogue");
  const cutNote = el("span", { class: "muted", id: "cast-cut-note" });
  cut.addEventListener("click", async () => {
    cut.setAttribute("disabled", "");
    cutNote.textContent = " Cutting…";
    try {
      const clips = await engine.originalSpeakerClips(project.id);
      for (const clip of clips) {
        const row = rows.find((r) => r.speaker.id === clip.speakerId);
        if (!row) continue;
        row.input.value = clip.recording;
        if (clip.text) spoken.set(clip.recording, clip.text);
      }
      const missing = rows.filter((r) => !clips.some((c) => c.speakerId === r.speaker.id)).map((r) => r.speaker.name);
      cutNote.textContent = ` Cut ${clips.length} clip${clips.length === 1 ? "" : "s"} from their own lines${missing.length ? `; ${missing.join(", ")} ha${missing.length === 1 ? "s" : "ve"} no line of their own alone` : ""}.`;
    } catch (e) {
      cutNote.textContent = ` ${String(e)}`;
    } finally {
      cut.removeAttribute("disabled");
    }
  });
  const fromOriginal = project.original ? el("p", {}, cut, cutNote) : null;
  const consent = el("input", { type: "text", id: "cast-consent", "aria-label": "Consent", placeholder: "Who agreed to these voices being used, and when" });
  const result = el("div", { id: "cast-result" });
  const go = el("button", { class: "button", id: "run-cast" }, "Make the voices and fit them");
  const close = el("button", { class: "link-button" }, "Close");
  const dialog = el(
    "div",
    { class: "dialog", role: "dialog", "aria-label": "Voice every speaker" },
    el("h2", {}, "Voice every speaker"),
    el(
      "p",
      { class: "muted" },
      `A clip of each speaker's own voice. Each becomes a voice in the library, matched to the stock voices at once and then fitted to the clip by search (a fitted voice, not a clone); the fits run one after another, a few minutes each.${language ? ` The voices speak ${language}.` : ""}`,
    ),
    fromOriginal,
    ...rows.map((r) => r.row),
    consent,
    go,
    close,
    result,
  );
  close.addEventListener("click", () => dialog.remove());
  go.addEventListener("click", async () => {
    const clips = rows
      .filter((r) => r.input.value.trim())
      .map((r) => ({ speakerId: r.speaker.id, recording: r.input.value.trim(), text: spoken.get(r.input.value.trim()) }));
    go.setAttribute("disabled", "");
    result.replaceChildren(el("progress", {}), " Matching the recordings…");
    try {
      const [cast, updated] = await engine.voiceSpeakers(project.id, language, clips, consent.value);
      voiced(updated);
      result.replaceChildren(
        el(
          "ul",
          { class: "cast-result" },
          ...cast.map((c) =>
            el(
              "li",
              { "data-speaker": c.speaker, class: c.voice ? "" : "status-error" },
              c.voice ? `${c.speaker} speaks with "${c.voice}"${c.fitting ? "; its fit is queued (progress on the Voices page)" : ""}` : `${c.speaker}: no voice`,
              c.note ? ` (${c.note})` : "",
            ),
          ),
        ),
      );
    } catch (e) {
      result.replaceChildren(el("div", { class: "error-banner", role: "alert" }, String(e)));
    } finally {
      go.removeAttribute("disabled");
    }
  });
  return dialog;
}
