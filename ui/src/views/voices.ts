// The voice library: every stock voice with a spoken preview, by language;
// the voices made from reference recordings, each with its quality report
// and the stock voices it matches (honestly: a match and a blend of stock
// voices, not a clone of the recording), rename and delete; and a form to
// add one from a recording (browse, or drop the file on the window).
import { el } from "../dom";
import * as engine from "../engine";
import type { LibraryVoice, StudioEvent, VoiceChoice } from "../engine";
import { browseButton } from "../pick";

const LANGUAGES: Record<string, string> = {
  "en-US": "English (US)",
  "en-GB": "English (UK)",
  es: "Spanish",
  fr: "French",
  hi: "Hindi",
  it: "Italian",
  ja: "Japanese",
  "pt-BR": "Portuguese (BR)",
  zh: "Mandarin Chinese",
};

export class VoiceLibrary {
  private stock: VoiceChoice[] = [];
  private library: LibraryVoice[] = [];
  private busy: string | null = null;
  private message = "";
  private error: string | null = null;
  private playing: string | null = null;
  /** A recording dropped on the window, waiting in the add form. */
  droppedPath: string | null = null;

  constructor(private readonly root: HTMLElement) {
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      const all = await engine.voiceLibrary();
      this.stock = all.stock;
      this.library = all.library;
    } catch (e) {
      this.error = String(e);
    }
    this.draw();
  }

  /** Engine events (voice previews ending). */
  handle(event: StudioEvent): void {
    if (event.kind !== "voicePreviewFinished") return;
    this.playing = null;
    this.error = event.error;
    this.message = event.error ? "" : `Previewed ${event.voice}; first sound after ${Math.round(event.firstSoundMs ?? 0)} ms`;
    this.draw();
  }

  private preview(voice: string): void {
    this.playing = voice;
    this.message = `Speaking a sample in ${voice}… (the first preview loads the model)`;
    this.draw();
    engine.previewVoice(voice).catch((e) => {
      this.playing = null;
      this.error = String(e);
      this.draw();
    });
  }

  private async act(busy: string, action: Promise<unknown>, done: string): Promise<void> {
    this.busy = busy;
    this.error = null;
    this.draw();
    try {
      await action;
      this.message = done;
    } catch (e) {
      this.error = String(e);
    } finally {
      this.busy = null;
    }
    await this.load();
  }

  draw(): void {
    this.root.replaceChildren(
      el(
        "section",
        { class: "voices" },
        el("h1", {}, "Voices"),
        this.error ? el("div", { class: "error-banner", role: "alert" }, this.error) : null,
        this.message ? el("p", { class: "muted", role: "status", id: "voices-status" }, this.message) : null,
        this.addForm(),
        el("h2", {}, "Your voices"),
        this.library.length
          ? el("ul", { class: "library-voices", id: "library-voices" }, ...this.library.map((v) => this.libraryCard(v)))
          : el("p", { class: "muted" }, "None yet: add a recording of someone who agreed to it, and the studio finds the stock voices closest to it."),
        el("h2", {}, "Stock voices"),
        this.stockList(),
      ),
    );
  }

  private addForm(): HTMLElement {
    const path = el("input", { type: "text", id: "voice-file", placeholder: "/path/to/recording.wav (or drop it on the window)", "aria-label": "Recording" });
    path.value = this.droppedPath ?? "";
    const name = el("input", { type: "text", id: "voice-name", placeholder: "Name", "aria-label": "Voice name" });
    const consent = el("input", { type: "text", id: "voice-consent", placeholder: "Who agreed to this voice being used, and when", "aria-label": "Consent" });
    const description = el("input", { type: "text", id: "voice-description", placeholder: "Description (optional)", "aria-label": "Description" });
    const add = el("button", { class: "button", id: "add-voice" }, this.busy === "add" ? "Matching…" : "Add voice");
    if (this.busy) add.setAttribute("disabled", "");
    add.addEventListener("click", () => {
      if (!path.value.trim() || !name.value.trim()) {
        this.error = "Choose a recording and give the voice a name.";
        return this.draw();
      }
      this.droppedPath = null;
      void this.act("add", engine.addLibraryVoice(name.value.trim(), path.value.trim(), consent.value, description.value, ""), `Added ${name.value.trim()}`);
    });
    return el(
      "div",
      { class: "new-project" },
      el("h2", {}, "Add a voice from a recording"),
      el("p", { class: "muted" }, "1.5 s of clear speech or more. The recording is matched against the stock voices: the new voice speaks with a blend of the closest ones. It does not clone the recording."),
      el("div", { class: "row" }, path, browseButton(path, "audio"), name),
      el("div", { class: "row" }, consent, description, add),
    );
  }

  private libraryCard(v: LibraryVoice): HTMLElement {
    const q = v.quality;
    const quality = q
      ? `${q.seconds.toFixed(1)} s (${q.speech_seconds.toFixed(1)} s of speech) · peak ${q.peak_dbfs.toFixed(1)} dBFS · noise ${q.noise_floor_dbfs.toFixed(0)} dBFS · SNR ${q.snr_db.toFixed(0)} dB${q.clipped_fraction > 0 ? ` · ${(q.clipped_fraction * 100).toFixed(2)} % clipped` : ""}`
      : "Quality report unreadable";
    const listen = el("button", { class: "link-button", "aria-label": `Preview ${v.name}` }, this.playing === v.name ? "Speaking…" : "▶ Preview");
    listen.addEventListener("click", () => this.preview(v.name));
    const rename = el("button", { class: "link-button" }, "Rename");
    rename.addEventListener("click", () => {
      const next = window.prompt(`New name for ${v.name} (speakers using it follow)`, v.name);
      if (next && next.trim() && next.trim() !== v.name) void this.act("rename", engine.renameLibraryVoice(v.name, next.trim()), `Renamed ${v.name} to ${next.trim()}`);
    });
    const remove = el("button", { class: "link-button danger" }, "Delete");
    remove.addEventListener("click", () => {
      if (window.confirm(`Delete the voice "${v.name}" and its recording? Speakers using it will need another voice.`)) void this.act("delete", engine.deleteLibraryVoice(v.name), `Deleted ${v.name}`);
    });
    return el(
      "li",
      { class: "voice-card", "data-voice": v.name },
      el("div", { class: "voice-card-head" }, el("strong", {}, v.name), listen, rename, remove),
      v.description ? el("p", { class: "muted" }, v.description) : null,
      el("p", { class: "quality" }, quality),
      ...(q?.warnings ?? []).map((w) => el("p", { class: "status-warning" }, w)),
      el(
        "p",
        { class: "matches" },
        "Closest stock voices (a match, not a clone): ",
        ...v.matches.map((m, i) => el("span", { class: "match" }, `${i ? ", " : ""}${m.voice} ${(m.similarity * 100).toFixed(0)} %`)),
      ),
      el("p", { class: "muted" }, `Consent: ${v.consent} · ${(v.fileSize / 1024).toFixed(0)} KiB ${v.mimeType} · added ${v.createdAt.slice(0, 10)}`),
    );
  }

  private stockList(): HTMLElement {
    const byLanguage = new Map<string, VoiceChoice[]>();
    for (const v of this.stock) byLanguage.set(v.language, [...(byLanguage.get(v.language) ?? []), v]);
    return el(
      "div",
      { class: "stock-voices", id: "stock-voices" },
      ...[...byLanguage].map(([language, voices]) =>
        el(
          "section",
          {},
          el("h3", {}, LANGUAGES[language] ?? language),
          el(
            "ul",
            { class: "stock-list" },
            ...voices.map((v) => {
              const listen = el("button", { class: "link-button", "aria-label": `Preview ${v.name}` }, this.playing === v.name ? "Speaking…" : "▶");
              listen.addEventListener("click", () => this.preview(v.name));
              return el("li", { "data-voice": v.name }, listen, ` ${v.name} `, el("span", { class: "muted" }, v.gender));
            }),
          ),
        ),
      ),
    );
  }
}
