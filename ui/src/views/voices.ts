// The voice library: every stock voice with a spoken preview, by language;
// the voices made from reference recordings, each with its quality report
// and the stock voices it matches (honestly: a match and a blend of stock
// voices, not a clone of the recording), or, once fitted, the voice fitted
// to it by search (not a clone either) with a similarity meter, one fit per
// language it was fitted to speak; each fit's progress while it runs, and
// cancel; a fit for another language; rename and delete; and a form to
// add one from a recording (browse, or drop the file on the window). The
// form's fields are kept here, so a redraw keeps what is typed; a field the
// engine refuses (the name, the recording, the consent) is marked with its
// reason. A preview the engine cannot start yet (the model is loading)
// waits beside its voice and is asked for again.
import { html, nothing, type TemplateResult } from "lit-html";
import * as engine from "../engine";
import type { FitFigures, LibraryVoice, StudioEvent, VoiceChoice } from "../engine";
import { actOn, BusyRetry, FieldErrors, STOPPED, type EngineError } from "../errors";
import { browseButton } from "../pick";
import { parseBlend } from "./blend";

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

/** The languages a library voice can be fitted to speak. */
const FIT_LANGUAGES = ["en-US", "en-GB", "es", "fr", "it", "pt-BR", "hi", "zh", "ja"];

export class VoiceLibrary {
  private stock: VoiceChoice[] = [];
  private library: LibraryVoice[] = [];
  private busy: string | null = null;
  private message = "";
  /** The last failure, shown once, next to what caused it: a voice's
   * name (its preview, fit, rename or delete), "add" (the add form), or
   * "page" (the library could not be read). */
  private failure: { at: string; text: string } | null = null;
  private playing: string | null = null;
  /** The add form as typed. */
  private readonly form = { path: "", name: "", consent: "", description: "" };
  /** The add form's fields the engine refused. */
  private readonly refused = new FieldErrors();
  /** A preview waiting for the engine, and the voice it is for. */
  private readonly previewWait = new BusyRetry(() => this.changed());
  private previewAt: string | null = null;
  /** The language each voice's "Fit for language" fits it to, as picked. */
  private readonly fitLanguage = new Map<string, string>();

  /** `changed` draws the page again (the caller renders `template()`). */
  constructor(private readonly changed: () => void) {
    void this.load();
  }

  private polling: number | null = null;

  private async load(): Promise<void> {
    try {
      const all = await engine.voiceLibrary();
      this.stock = all.stock;
      this.library = all.library;
    } catch (e) {
      this.failure = { at: "page", text: String(e) };
    }
    // While a fit runs, its progress is read again every 2 s.
    const fitting = this.library.some((v) => v.fitting.length > 0);
    if (fitting && this.polling === null) this.polling = window.setInterval(() => void this.load(), 2000);
    if (!fitting && this.polling !== null) {
      window.clearInterval(this.polling);
      this.polling = null;
    }
    this.changed();
  }

  /** A recording dropped on the window goes into the add form. */
  dropped(path: string): void {
    this.form.path = path;
    this.refused.clear("voice-file");
    this.changed();
  }

  /** Engine events (voice previews ending). */
  handle(event: StudioEvent): void {
    if (event.kind !== "voicePreviewFinished") return;
    this.playing = null;
    const voice = event.voice.startsWith("recording:") ? event.voice.slice("recording:".length) : event.voice;
    this.failure = event.error ? { at: voice, text: event.error } : null;
    const recording = event.voice.startsWith("recording:") ? event.voice.slice("recording:".length) : null;
    this.message = event.error
      ? ""
      : recording !== null
        ? `Played ${recording}'s recording`
        : `Previewed ${event.voice}; first sound after ${Math.round(event.firstSoundMs ?? 0)} ms`;
    this.changed();
  }

  private preview(voice: string): void {
    const recording = voice.startsWith("recording:") ? voice.slice("recording:".length) : null;
    const at = recording ?? voice;
    this.playing = voice;
    this.failure = null;
    this.message = recording !== null ? "Playing the recording…" : `Speaking a sample in ${voice}… (the first preview loads the model)`;
    this.previewAt = at;
    this.changed();
    const start = () => (recording !== null ? engine.playVoiceRecording(recording) : engine.previewVoice(voice));
    this.previewWait.run(recording !== null ? "The recording" : "The preview", start).then(
      (answer) => {
        if (answer !== STOPPED) return;
        this.playing = null;
        this.message = "";
        this.changed();
      },
      (e) => {
        this.playing = null;
        this.message = "";
        actOn(e, { banner: (text) => (this.failure = { at, text }), refresh: () => this.load() });
        this.changed();
      },
    );
  }

  /** The field of the add form a refusal names: the name, the recording
   * (named by its path) or the consent (the voice refused for want of it). */
  private addField(error: EngineError, path: string, name: string): string | null {
    if (error.input?.startsWith("voice name ")) return "voice-name";
    if (error.input === path) return "voice-file";
    if (error.input === `voice ${JSON.stringify(name)}` && /consent/i.test(error.message)) return "voice-consent";
    return null;
  }

  /** Runs a library change for `at` (a voice's name, or "add") and reads
   * the library again (a voice that is gone is gone from it too); true
   * when it was made. `field` finds the form field a refusal names. */
  private async act(busy: string, at: string, action: Promise<unknown>, done: string, field?: (error: EngineError) => string | null): Promise<boolean> {
    this.busy = busy;
    this.failure = null;
    this.changed();
    let made = false;
    try {
      await action;
      this.message = done;
      made = true;
    } catch (e) {
      this.message = "";
      actOn(e, { banner: (text) => (this.failure = { at, text }), fields: this.refused, field });
    } finally {
      this.busy = null;
    }
    await this.load();
    return made;
  }

  template(): TemplateResult {
    return html`<section class="voices">
      <h1>Voices</h1>
      ${this.failureAt("page")}
      ${this.message ? html`<p class="muted" role="status" id="voices-status">${this.message}</p>` : nothing}
      ${this.addForm()}
      <h2>Your voices</h2>
      ${this.library.length
        ? html`<ul class="library-voices" id="library-voices">${this.library.map((v) => this.libraryCard(v))}</ul>`
        : html`<p class="muted">None yet: add a recording of someone who agreed to it, and the studio finds the stock voices closest to it.</p>`}
      <h2>Stock voices</h2>
      ${this.stockList()}
    </section>`;
  }

  /** The failure, where it belongs: next to the voice or form it came from;
   * or, while a preview of it waits for the engine, that it waits. */
  private failureAt(at: string): TemplateResult | typeof nothing {
    if (this.previewWait.waiting && this.previewAt === at) return html`<p class="inline-error">${this.previewWait.template()}</p>`;
    return this.failure?.at === at ? html`<p class="status-error inline-error" role="alert">${this.failure.text}</p>` : nothing;
  }

  private addForm(): TemplateResult {
    const form = this.form;
    // Each keystroke is kept and drawn, so what lit last wrote is what the
    // field shows, and clearing the form after an add does clear it.
    // Typing in a refused field takes its mark away.
    const ids = { path: "voice-file", name: "voice-name", consent: "voice-consent", description: "voice-description" } as const;
    const field = (key: keyof typeof form) => (e: Event) => {
      form[key] = (e.currentTarget as HTMLInputElement).value;
      this.refused.clear(ids[key]);
      this.changed();
    };
    const add = () => {
      const path = form.path.trim();
      const name = form.name.trim();
      if (!path || !name) {
        this.failure = { at: "add", text: "Choose a recording and give the voice a name." };
        return this.changed();
      }
      this.refused.clear();
      const added = engine.addLibraryVoice(name, path, form.consent, form.description, "");
      void this.act("add", "add", added, `Added ${name}`, (error) => this.addField(error, path, name)).then((added) => {
        if (!added) return;
        Object.assign(form, { path: "", name: "", consent: "", description: "" });
        this.changed();
      });
    };
    return html`<div class="new-project">
      <h2>Add a voice from a recording</h2>
      <p class="muted">1.5 s of clear speech or more. The recording is matched against the stock voices: the new voice speaks with a blend of the closest ones. It does not clone the recording.</p>
      <div class="row"><input type="text" id="voice-file" placeholder="/path/to/recording.wav (or drop it on the window)" aria-label="Recording" .value=${form.path} @input=${field("path")} @change=${field("path")} ${this.refused.on("voice-file")} />${browseButton(
        "audio",
        (path) => this.dropped(path),
      )}<input type="text" id="voice-name" placeholder="Name" aria-label="Voice name" .value=${form.name} @input=${field("name")} @change=${field("name")} ${this.refused.on("voice-name")} /></div>${this.refused.note("voice-file")}${this.refused.note("voice-name")}
      <div class="row"><input type="text" id="voice-consent" placeholder="Who agreed to this voice being used, and when" aria-label="Consent" .value=${form.consent} @input=${field("consent")} @change=${field("consent")} ${this.refused.on("voice-consent")} /><input type="text" id="voice-description" placeholder="Description (optional)" aria-label="Description" .value=${form.description} @input=${field("description")} @change=${field("description")} /><button class="button" id="add-voice" ?disabled=${this.busy !== null} @click=${add}>${this.busy === "add" ? "Matching…" : "Add voice"}</button></div>${this.refused.note("voice-consent")}${this.failureAt("add")}
    </div>`;
  }

  private libraryCard(v: LibraryVoice): TemplateResult {
    const q = v.quality;
    const quality = q
      ? `${q.seconds.toFixed(1)} s (${q.speech_seconds.toFixed(1)} s of speech) · peak ${q.peak_dbfs.toFixed(1)} dBFS · noise ${q.noise_floor_dbfs.toFixed(0)} dBFS · SNR ${q.snr_db.toFixed(0)} dB${q.clipped_fraction > 0 ? ` · ${(q.clipped_fraction * 100).toFixed(2)} % clipped` : ""}`
      : "Quality report unreadable";
    const rename = () => {
      const next = window.prompt(`New name for ${v.name} (speakers using it follow)`, v.name);
      if (next && next.trim() && next.trim() !== v.name) void this.act("rename", v.name, engine.renameLibraryVoice(v.name, next.trim()), `Renamed ${v.name} to ${next.trim()}`);
    };
    const remove = () => {
      if (window.confirm(`Delete the voice "${v.name}" and its recording? Speakers using it will need another voice.`)) void this.act("delete", v.name, engine.deleteLibraryVoice(v.name), `Deleted ${v.name}`);
    };
    return html`<li class="voice-card" data-voice=${v.name}>
      <div class="voice-card-head"><strong>${v.name}</strong><button class="link-button" aria-label="Preview ${v.name}" @click=${() => this.preview(v.name)}>${this.playing === v.name ? "Speaking…" : "▶ Preview"}</button><button class="link-button" @click=${rename}>Rename</button><button class="link-button danger" @click=${remove}>Delete</button></div>
      ${v.description ? html`<p class="muted">${v.description}</p>` : nothing}
      <p class="quality">${quality}</p>
      ${(q?.warnings ?? []).map((w) => html`<p class="status-warning">${w}</p>`)}
      <p class="matches">Closest stock voices (a match, not a clone): ${v.matches.map((m, i) => html`<span class="match">${`${i ? ", " : ""}${m.voice} ${(m.similarity * 100).toFixed(0)} %`}</span>`)}</p>
      ${this.fitSection(v)}
      ${this.compareRow(v)}
      ${this.failureAt(v.name)}
      <p class="muted">Consent: ${v.consent} · ${(v.fileSize / 1024).toFixed(0)} KiB ${v.mimeType} · added ${v.createdAt.slice(0, 10)}</p>
    </li>`;
  }

  /** What speaks in each language (the blend, or a fitted voice), each
   * fit's meters, the fits running with their progress and cancel, and a
   * fit for another language. */
  private fitSection(v: LibraryVoice): TemplateResult {
    const meter = (label: string, similarity: number, id: string) =>
      html`<div class="fit-meter" data-meter=${id}><span class="fit-label">${label}</span><span class="fit-bar"><span class="fit-fill ${id}" style="width: ${Math.max(0, Math.min(1, similarity)) * 100}%"></span></span><span class="fit-value">${similarity.toFixed(2)}</span></div>`;
    // How natural the fitted voice sounds beside its best stock voice, where the fit listened for it.
    const naturalness = (f: FitFigures) =>
      f.fittedNaturalness === null
        ? nothing
        : html`<p class="muted" data-naturalness>Naturalness on the same sentences (DNSMOS, 1 to 5): the fitted voice ${f.fittedNaturalness.toFixed(2)}${f.bestStockNaturalness === null ? "" : `, the best stock voice ${f.bestStockNaturalness.toFixed(2)}`}.</p>`;
    const name = (language: string) => LANGUAGES[language] ?? language;
    // Until its own language is fitted (or being fitted), it speaks as the blend there.
    const ownDone = v.fits.some((f) => f.language === v.language) || v.fitting.some((f) => f.language === v.language);
    const matched = ownDone
      ? nothing
      : html`<div class="fit" data-fit="matched">
          <p class="muted">Speaks as a blend of the closest stock voices. A fit searches Kokoro's voices for one that sounds more like the recording (a few minutes: the budget is in Settings).</p>
          <button class="button" ?disabled=${this.busy !== null} @click=${() => void this.act("fit", v.name, engine.fitLibraryVoice(v.name, null), `Fitting ${v.name}`)}>Fit voice</button>
        </div>`;
    const fitted = v.fits.map(
      (f) => html`<div class="fit" data-fit="fitted" data-fit-language=${f.language}>
        <p>Speaks ${name(f.language)} as a <strong>fitted voice</strong>: a Kokoro style found by search to sound like the recording (not a clone). Similarity to the recording on sentences the fit never heard:</p>
        ${meter(`Best stock voice (${f.bestStock})`, f.bestStockSimilarity, "stock")}${meter("Blend of stock voices", f.blendSimilarity, "blend")}${f.styleOnlySimilarity === null ? nothing : meter("Fitted style, no tone match", f.styleOnlySimilarity, "style")}${meter("Fitted voice", f.fittedSimilarity, "fitted")}
        ${naturalness(f)}
        <p class="muted">${f.toneLargestDb === null ? "" : `Tone matched to the recording's microphone and room (up to ${f.toneLargestDb.toFixed(1)} dB). `}${f.generations} generations in ${f.seconds < 60 ? `${Math.round(f.seconds)} s` : `${Math.round(f.seconds / 60)} min`}</p>
      </div>`,
    );
    // One cancel for the voice (it stops all its fits), in the last running block.
    const several = v.fitting.length > 1;
    const cancel = html`<button class="link-button" @click=${() => void this.act("fit", v.name, engine.cancelLibraryVoiceFit(v.name), `Stopping the ${several ? "fits" : "fit"} of ${v.name}; fitting again resumes ${several ? "them" : "it"}`)}>${several ? "Cancel fits" : "Cancel fit"}</button>`;
    const running = v.fitting.map((f, i) => {
      const left = Math.round(f.secondsLeft);
      const doing = `Fitting a voice to the recording to speak ${name(f.language)}`;
      return html`<div class="fit fit-running" data-fit="running" data-fit-language=${f.language}>
        <p>${f.generation === null ? `${doing}: waiting for its turn…` : `${doing}: generation ${f.generation}, about ${Math.floor(left / 60)} min ${left % 60} s left`}</p>
        ${f.generation === null ? nothing : html`${meter("Start", f.startSimilarity, "start")}${meter("Best so far", f.bestSimilarity, "best")}`}
        ${i === v.fitting.length - 1 ? cancel : nothing}
      </div>`;
    });
    return html`${matched}${fitted}${running}${this.fitOtherLanguage(v)}`;
  }

  /** A fit of the voice for a language it is not fitted (or being fitted) to speak. */
  private fitOtherLanguage(v: LibraryVoice): TemplateResult | typeof nothing {
    const taken = new Set([...v.fits, ...v.fitting].map((f) => f.language));
    const open = FIT_LANGUAGES.filter((l) => !taken.has(l));
    if (!open.length) return nothing;
    const picked = this.fitLanguage.get(v.name);
    const chosen = picked !== undefined && open.includes(picked) ? picked : open[0]!;
    const pick = (e: Event) => {
      this.fitLanguage.set(v.name, (e.currentTarget as HTMLSelectElement).value);
      this.changed();
    };
    const fit = () => void this.act("fit", v.name, engine.fitLibraryVoice(v.name, chosen), `Fitting ${v.name} to speak ${LANGUAGES[chosen] ?? chosen}`);
    return html`<div class="fit fit-other">
      <select class="fit-language" aria-label="Language to fit" @change=${pick}>${open.map((l) => html`<option value=${l} .selected=${l === chosen}>${LANGUAGES[l] ?? l}</option>`)}</select>
      <button class="link-button" ?disabled=${this.busy !== null} @click=${fit}>Fit for language</button>
    </div>`;
  }

  /** A/B: the recording, the voice that speaks for it, and the stock
   * voices it is measured against, each a click away (the voices say the
   * same sample sentence). */
  private compareRow(v: LibraryVoice): TemplateResult {
    const button = (voice: string, label: string) =>
      html`<button class="link-button" data-compare=${voice} aria-label="Hear ${label}" @click=${() => this.preview(voice)}>${this.playing === voice ? "Playing…" : `▶ ${label}`}</button>`;
    // The fit for the voice's own language, if it has one.
    const fit = v.fits.find((f) => f.language === v.language);
    // The blend's first part is the closest stock voice of the voice's language.
    const stock = fit?.bestStock ?? parseBlend(v.blend)[0]?.voice;
    return html`<p class="compare" data-compare-for=${v.name}>Hear side by side: ${button(`recording:${v.name}`, "Recording")} ${button(v.name, fit ? "Fitted voice" : "This voice (blend)")}${
      fit ? html` ${button(v.blend, "Blend")}` : nothing
    }${stock ? html` ${button(stock, `Best stock voice (${stock})`)}` : nothing}</p>`;
  }

  private stockList(): TemplateResult {
    const byLanguage = new Map<string, VoiceChoice[]>();
    for (const v of this.stock) byLanguage.set(v.language, [...(byLanguage.get(v.language) ?? []), v]);
    return html`<div class="stock-voices" id="stock-voices">${[...byLanguage].map(
      ([language, voices]) =>
        html`<section><h3>${LANGUAGES[language] ?? language}</h3><ul class="stock-list">${voices.map(
          (v) =>
            html`<li data-voice=${v.name}><button class="link-button" aria-label="Preview ${v.name}" @click=${() => this.preview(v.name)}>${this.playing === v.name ? "Speaking…" : "▶"}</button> ${v.name} <span class="muted">${v.gender}</span>${this.failureAt(v.name)}</li>`,
        )}</ul></section>`,
    )}</div>`;
  }
}
