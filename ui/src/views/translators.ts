// Settings → Translation engines: the translators kept in config.toml (any
// server that speaks OpenAI's chat API: llama.cpp's server, Ollama, vLLM,
// LM Studio, a hosted API), each with where a track's lines go when it
// translates them (this machine, or another one: the script leaves this
// computer); checked one by one, added from a form, removed. The settings
// page (settings.ts) draws this section; the editor's Translate dialog
// (translate-dialog.ts) says where lines go in the same words.
import { html, nothing, type TemplateResult } from "lit-html";
import * as engine from "../engine";
import type { TranslatorCheck, TranslatorSettings, TranslatorView } from "../engine";
import { actOn, engineError, FieldErrors, type EngineError } from "../errors";

/** Where a translator's lines go: `lines go to 127.0.0.1:8080 — this machine`. */
export function whereLinesGo(host: string, local: boolean): string {
  return local ? `lines go to ${host} — this machine` : `lines go to ${host} — another machine: the script leaves this computer`;
}

/** A check in words: `Answered “Buenos días.” in 3.2 s; models: gemma-3-270m`. */
export function checkWords(check: TranslatorCheck): string {
  const models = check.models.length ? `models: ${check.models.join(", ")}` : "it lists no models";
  return `Answered “${check.answered}” in ${check.seconds.toFixed(1)} s; ${models}`;
}

/** The add form's field a refused translator names (its name, or its URL), if any. */
export function translatorField(error: EngineError): string | null {
  if (!error.input?.startsWith("translator")) return null;
  if (/http:\/\/ or https:\/\//.test(error.message)) return "translator-url";
  if (/\bname\b/.test(error.message)) return "translator-name";
  return null;
}

type Check = TranslatorCheck | { error: string } | "checking";

export class TranslatorsSection {
  /** The translators in config.toml (null until read). */
  private list: TranslatorView[] | null = null;
  /** A refusal the form's fields do not show. */
  private error: string | null = null;
  private message = "";
  private readonly refused = new FieldErrors();
  /** Each translator's last check by name, or "checking" while it runs. */
  private readonly checks = new Map<string, Check>();
  /** The change running: "add" or "remove". */
  private busy: "add" | "remove" | null = null;
  /** The add form as typed (kept here, so a redraw keeps it). */
  private readonly form = { name: "", url: "", model: "", apiKey: "" };

  /** `changed` draws the page again. */
  constructor(private readonly changed: () => void) {
    void this.read();
  }

  private async read(): Promise<void> {
    try {
      this.list = await engine.translators();
    } catch (e) {
      this.error = engineError(e).message;
    }
    this.changed();
  }

  /** Saves or removes a translator; true when the engine took it. */
  private async change(busy: "add" | "remove", name: string, change: Promise<TranslatorView[]>, done: string): Promise<boolean> {
    this.busy = busy;
    this.changed();
    let made = false;
    try {
      this.list = await change;
      // A check of a translator saved anew, or gone, says nothing now.
      for (const checked of [...this.checks.keys()]) {
        if (checked.toLowerCase() === name.toLowerCase() || !this.list.some((t) => t.name === checked)) this.checks.delete(checked);
      }
      this.error = null;
      this.refused.clear();
      this.message = done;
      made = true;
    } catch (e) {
      this.message = "";
      actOn(e, { banner: (message) => (this.error = message), fields: this.refused, field: translatorField, refresh: () => this.read() });
    } finally {
      this.busy = null;
    }
    this.changed();
    return made;
  }

  private async check(name: string): Promise<void> {
    this.checks.set(name, "checking");
    this.changed();
    try {
      const check = await engine.checkTranslator(name);
      this.checks.set(name, check);
    } catch (e) {
      const error = actOn(e, { banner: () => {}, refresh: () => this.read() });
      this.checks.set(name, { error: error.message });
    }
    this.changed();
  }

  template(): TemplateResult {
    const list = this.list;
    return html`<h2>Translation engines</h2>
      <p class="muted" id="translators-help">
        The editor's <em>Translate…</em> sends a track's lines to a chat server that speaks OpenAI's API. On this machine: llama.cpp's
        <code>llama-server -m model.gguf --port 8080</code>, then the URL <code>http://127.0.0.1:8080</code>; or Ollama, at
        <code>http://127.0.0.1:11434</code> with a model it has pulled (such as <code>qwen2.5:3b</code>). A hosted API takes its URL and an API
        key, and the script goes to it.
      </p>
      ${list === null
        ? this.error
          ? nothing
          : html`<p class="muted">Reading the translation engines…</p>`
        : list.length
          ? html`<ul class="remote-engines translators" id="translators">${list.map((t) => this.row(t))}</ul>`
          : html`<p class="muted" id="translators">None yet.</p>`}
      ${this.addForm()}`;
  }

  private row(t: TranslatorView): TemplateResult {
    const check = this.checks.get(t.name);
    const remove = () => {
      if (window.confirm(`Remove the translation engine "${t.name}" from config.toml?`)) void this.change("remove", t.name, engine.removeTranslator(t.name), `Removed ${t.name}`);
    };
    return html`<li class="remote-engine translator" data-translator=${t.name}>
      <div class="remote-engine-head"><strong>${t.name}</strong><code>${t.url}</code><span class="muted">${t.model ? `model ${t.model}` : "the server's default model"}</span>${
        t.hasApiKey ? html`<span class="muted">with an API key</span>` : nothing
      }<button class="link-button" id=${`check-translator-${t.name}`} ?disabled=${check === "checking"} @click=${() => void this.check(t.name)}>${
        check === "checking" ? "Checking…" : "Check"
      }</button><button class="link-button danger" id=${`remove-translator-${t.name}`} ?disabled=${this.busy !== null} @click=${remove}>Remove</button></div>
      <p class=${t.local ? "muted translator-where" : "status-warning translator-where"}>${whereLinesGo(t.host, t.local)}</p>
      ${check === undefined
        ? nothing
        : check === "checking"
          ? html`<p class="muted translator-check">Checking… (a small model on a CPU may take a minute)</p>`
          : "error" in check
            ? html`<p class="status-error translator-check" role="alert">${check.error}</p>`
            : html`<p class="translator-check">${checkWords(check)}</p>`}
    </li>`;
  }

  private addForm(): TemplateResult {
    const form = this.form;
    const refused = this.refused;
    const field = (key: keyof typeof form) => (e: Event) => {
      form[key] = (e.currentTarget as HTMLInputElement).value;
      this.changed();
    };
    const add = () => {
      const name = form.name.trim();
      const url = form.url.trim();
      this.error = null;
      this.message = "";
      refused.clear();
      if (!name) refused.mark("translator-name", "Give the translation engine a name.");
      else if (!url) refused.mark("translator-url", "Give its URL (http://127.0.0.1:8080).");
      if (!name || !url) return this.changed();
      const translator: TranslatorSettings = { name, url, model: form.model.trim(), api_key: form.apiKey.trim() };
      void this.change("add", name, engine.saveTranslator(translator), `Saved the translation engine ${name}`).then((saved) => {
        if (!saved) return;
        Object.assign(form, { name: "", url: "", model: "", apiKey: "" });
        this.changed();
      });
    };
    return html`<div class="remote-engine-form translator-form">
      <h3>Add a translation engine</h3>
      ${this.error ? html`<div class="error-banner" id="translator-error" role="alert">${this.error}</div>` : nothing}
      ${this.message ? html`<p class="muted" id="translators-message" role="status">${this.message}</p>` : nothing}
      <div class="row"><input type="text" id="translator-name" placeholder="Name (letters, digits, - or _)" aria-label="Translation engine name" .value=${form.name} @input=${field("name")} @change=${field("name")} ${refused.on("translator-name")} /><input type="text" id="translator-url" placeholder="http://127.0.0.1:8080" aria-label="Translation engine URL" .value=${form.url} @input=${field("url")} @change=${field("url")} ${refused.on("translator-url")} /></div>
      ${refused.note("translator-name")}${refused.note("translator-url")}
      <div class="row"><input type="text" id="translator-model" placeholder="Model (empty: the server's default)" aria-label="Model" .value=${form.model} @input=${field("model")} @change=${field("model")} /><input type="password" id="translator-key" placeholder="API key (if the server asks for one)" aria-label="API key" autocomplete="off" .value=${form.apiKey} @input=${field("apiKey")} @change=${field("apiKey")} /><button class="button" id="add-translator" ?disabled=${this.busy !== null} @click=${add}>${this.busy === "add" ? "Saving…" : "Add translation engine"}</button></div>
      <p class="muted">A translation engine of the same name is replaced.</p>
    </div>`;
  }
}
