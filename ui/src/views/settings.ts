// The settings view: where the studio keeps its data, which output device
// plays, how many lines render together, how much the caches may hold,
// whether renders are heard back, how long a voice fit may search, and the
// local speech API's port. Saved into config.toml; the engine reads it
// when it starts, so the view says when a restart is needed. Below them, the
// remote engines kept there (servers that speak the studio's speech API, one
// or several URLs each): listed, added, checked server by server, removed.
// Renders do not go through them yet, and the page says so. Then the
// translation engines (translators.ts). A setting the engine refuses is
// marked where it is typed, with the engine's reason.
import { html, nothing, type TemplateResult } from "lit-html";
import { keyed } from "lit-html/directives/keyed.js";
import * as engine from "../engine";
import type { EngineReport, RemoteEngineSettings, SettingsEdit, SettingsView } from "../engine";
import { actOn, FieldErrors, type EngineError } from "../errors";
import { engineSummary, nodeState, nodeSummary, parseUrls } from "./remote-engines";
import { TranslatorsSection } from "./translators";

/** The page's fields by the setting the engine names when it refuses one
 * (config.toml's `[section] key`, as its checks write it). */
const SETTING_FIELDS: Record<string, string> = {
  "[scheduler] batch_width": "setting-batch-width",
  "[dub] segment_store_mb": "setting-segment-store",
  "[dub] render_cache_mb": "setting-render-cache",
  "[dub] resynthesize_max_speed": "setting-resynthesize-max-speed",
  "[voices] fit_minutes": "setting-fit-minutes",
  "[api] port": "setting-api-port",
};

/** The field of the page a refused setting names, if the page shows it. */
export function settingField(error: EngineError): string | null {
  return (error.input && SETTING_FIELDS[error.input]) || null;
}

export class SettingsPage {
  private view: SettingsView | null = null;
  private error: string | null = null;
  /** Settings refused, marked on their fields. */
  private readonly refused = new FieldErrors();
  private message = "";
  /** Bumped with each answer to a save: the fields are made again from the
   * settings as saved (or as they stayed, when the save was refused). */
  private saves = 0;
  /** The remote engines in config.toml (null until read). */
  private engines: RemoteEngineSettings[] | null = null;
  /** Each engine's last check by name, or "checking" while it runs. */
  private readonly checks = new Map<string, EngineReport | "checking">();
  /** The engine change running: "add" or "remove". */
  private engineBusy: string | null = null;
  /** The add form as typed (kept here, so a redraw keeps it). */
  private readonly engineForm = { name: "", urls: "", apiKey: "", model: "" };
  /** The translation engines' section (it reads and changes them itself). */
  private readonly translators: TranslatorsSection;

  /** `changed` draws the page again (the caller renders `template()`). */
  constructor(private readonly changed: () => void) {
    this.translators = new TranslatorsSection(changed);
    void engine.settings().then(
      (v) => {
        this.view = v;
        this.changed();
      },
      (e) => {
        this.error = String(e);
        this.changed();
      },
    );
    void engine.remoteEngines().then(
      (engines) => {
        this.engines = engines;
        this.changed();
      },
      (e) => {
        this.error = String(e);
        this.changed();
      },
    );
  }

  private async save(edit: SettingsEdit): Promise<void> {
    try {
      this.view = await engine.saveSettings(edit);
      this.error = null;
      this.refused.clear();
      this.message = "Saved";
    } catch (e) {
      this.error = null;
      this.message = "";
      actOn(e, { banner: (message) => (this.error = message), fields: this.refused, field: settingField });
    }
    this.saves += 1;
    this.changed();
  }

  /** The remote engines read again (one named was not found: it is gone). */
  private async readEngines(): Promise<void> {
    try {
      this.engines = await engine.remoteEngines();
    } catch (e) {
      this.error = String(e);
    }
    this.changed();
  }

  /** A refusal of a remote engine change or check: in the banner; a gone engine reads the list again. */
  private engineRefused(e: unknown): void {
    actOn(e, { banner: (message) => (this.error = message), refresh: () => this.readEngines() });
  }

  private number(id: string, label: string, value: number, min: number, max: number, help: string, edit: (n: number) => SettingsEdit): TemplateResult {
    const change = (e: Event) => {
      const n = Number((e.currentTarget as HTMLInputElement).value);
      if (!Number.isInteger(n) || n < min || n > max) {
        this.refused.mark(id, `${label} must be a whole number from ${min} to ${max}.`);
        return this.changed();
      }
      this.refused.clear(id);
      void this.save(edit(n));
    };
    return html`<label class="setting"><span>${label}</span><input type="number" id=${id} min=${String(min)} max=${String(max)} step="1" aria-label=${label} .value=${String(value)} @change=${change} ${this.refused.on(id)} />${this.refused.note(id)}<span class="muted">${help}</span></label>`;
  }

  /** How fast fit-by-re-synthesis may make a line speak: ×1.00 to ×2.00. */
  private resynthesisCap(value: number): TemplateResult {
    const label = "Fit by re-synthesis: fastest speed";
    const id = "setting-resynthesize-max-speed";
    const change = (e: Event) => {
      const n = Number((e.currentTarget as HTMLInputElement).value);
      if (!Number.isFinite(n) || n < 1 || n > 2) {
        this.refused.mark(id, `${label} must be from 1.00 to 2.00.`);
        return this.changed();
      }
      this.refused.clear(id);
      void this.save({ resynthesizeMaxSpeed: n });
    };
    return html`<label class="setting"><span>${label}</span><input type="number" id=${id} min="1" max="2" step="0.05" aria-label=${label} .value=${value.toFixed(2)} @change=${change} ${this.refused.on(id)} />${this.refused.note(id)}<span class="muted">A line re-rendered to fill its slot speaks no faster than this (×1.25 by default); one that would need more is placed whole past its slot and flagged, never cut.</span></label>`;
  }

  /** How long a background voice fit may search: 0.1 to 120 minutes. */
  private fitBudget(value: number): TemplateResult {
    const label = "Voice fit budget (minutes)";
    const id = "setting-fit-minutes";
    const change = (e: Event) => {
      const n = Number((e.currentTarget as HTMLInputElement).value);
      if (!Number.isFinite(n) || n < 0.1 || n > 120) {
        this.refused.mark(id, `${label} must be from 0.1 to 120.`);
        return this.changed();
      }
      this.refused.clear(id);
      void this.save({ fitMinutes: n });
    };
    // Shown to two decimals at most (the engine keeps it as a 32-bit float).
    return html`<label class="setting"><span>${label}</span><input type="number" id=${id} min="0.1" max="120" step="0.1" aria-label=${label} .value=${String(Math.round(value * 100) / 100)} @change=${change} ${this.refused.on(id)} />${this.refused.note(id)}<span class="muted">How long a voice fit searches for a voice like the recording (5 minutes by default); a longer search may sound closer. Fits run in the background.</span></label>`;
  }

  template(): TemplateResult {
    const v = this.view;
    return html`<section class="settings">
      <h1>Settings</h1>
      ${this.error ? html`<div class="error-banner" role="alert">${this.error}</div>` : nothing}
      ${this.message && !this.error ? html`<p class="muted" role="status">${this.message}</p>` : nothing}
      ${v ? keyed(this.saves, this.fields(v)) : html`<p class="muted">Reading the settings…</p>`}
      ${this.remoteEngines()}
      ${this.translators.template()}
    </section>`;
  }

  /** Runs a change to the remote engine `name`; true when it was made. */
  private async changeEngines(busy: string, name: string, change: Promise<RemoteEngineSettings[]>, done: string): Promise<boolean> {
    this.engineBusy = busy;
    this.changed();
    let made = false;
    try {
      const engines = await change;
      this.engines = engines;
      // A check of an engine no longer listed, or saved anew, says nothing now.
      for (const checked of [...this.checks.keys()]) {
        if (checked.toLowerCase() === name.toLowerCase() || !engines.some((e) => e.name === checked)) this.checks.delete(checked);
      }
      this.error = null;
      this.message = done;
      made = true;
    } catch (e) {
      this.engineRefused(e);
    } finally {
      this.engineBusy = null;
    }
    this.changed();
    return made;
  }

  private async check(name: string): Promise<void> {
    this.checks.set(name, "checking");
    this.changed();
    try {
      const report = await engine.checkRemoteEngine(name);
      if (this.checks.get(name) === "checking") this.checks.set(name, report);
      this.error = null;
    } catch (e) {
      this.checks.delete(name);
      this.engineRefused(e);
    }
    this.changed();
  }

  private remoteEngines(): TemplateResult {
    const engines = this.engines;
    return html`<h2>Remote engines</h2>
      <p class="muted">Servers that speak the studio's speech API: another studio's <code>revoice serve</code>, or a cloning server. Several URLs for one engine make a fleet.</p>
      <p class="muted" id="remote-engines-note">A speaker speaks through an engine with a voice written <code>ENGINE/VOICE</code> (a voice the engine has) or <code>ENGINE/@Name</code> (your library voice's recording, uploaded once to each server and cloned there: a true clone only where the engine's model clones). Lines go to the least busy server; one that fails is taken out and its lines resent. The render panel shows each server while a render runs.</p>
      ${engines === null
        ? html`<p class="muted">Reading the engines…</p>`
        : engines.length
          ? html`<ul class="remote-engines" id="remote-engines">${engines.map((e) => this.engineRow(e))}</ul>`
          : html`<p class="muted" id="remote-engines">None yet.</p>`}
      ${this.engineAddForm()}`;
  }

  private engineRow(e: RemoteEngineSettings): TemplateResult {
    const check = this.checks.get(e.name);
    const remove = () => {
      if (window.confirm(`Remove the engine "${e.name}" from config.toml?`)) void this.changeEngines("remove", e.name, engine.removeRemoteEngine(e.name), `Removed ${e.name}`);
    };
    return html`<li class="remote-engine" data-engine=${e.name}>
      <div class="remote-engine-head"><strong>${e.name}</strong><span class="remote-engine-urls">${e.urls.map((url) => html`<code>${url}</code>`)}</span>${
        e.api_key ? html`<span class="muted">with an API key</span>` : nothing
      }<span class="muted">${e.model ? `model ${e.model}` : "the server's default model"}</span><button class="link-button" id=${`check-engine-${e.name}`} ?disabled=${check === "checking"} @click=${() => void this.check(e.name)}>${
        check === "checking" ? "Checking…" : "Check"
      }</button><button class="link-button danger" id=${`remove-engine-${e.name}`} ?disabled=${this.engineBusy !== null} @click=${remove}>Remove</button></div>
      ${check === "checking"
        ? html`<p class="muted">Checking… (each server speaks a word in every format)</p>`
        : check
          ? html`<div class="engine-report" data-report=${e.name}>
              <p>${engineSummary(check)}</p>
              <ul>${check.nodes.map((n) => html`<li class=${`engine-node engine-node--${nodeState(n).replace(" ", "-")}`} data-url=${n.url}><code>${n.url}</code> ${nodeSummary(n)}</li>`)}</ul>
            </div>`
          : nothing}
    </li>`;
  }

  private engineAddForm(): TemplateResult {
    const form = this.engineForm;
    const field = (key: keyof typeof form) => (e: Event) => {
      form[key] = (e.currentTarget as HTMLInputElement).value;
      this.changed();
    };
    const add = () => {
      const name = form.name.trim();
      const urls = parseUrls(form.urls);
      if (!name) {
        this.error = "Give the engine a name.";
        return this.changed();
      }
      if (!urls.length) {
        this.error = "Give the engine at least one server URL (http://host:8880).";
        return this.changed();
      }
      const remote: RemoteEngineSettings = { name, urls, api_key: form.apiKey.trim(), model: form.model.trim() };
      void this.changeEngines("add", name, engine.saveRemoteEngine(remote), `Saved the engine ${name}`).then((saved) => {
        if (!saved) return;
        Object.assign(form, { name: "", urls: "", apiKey: "", model: "" });
        this.changed();
      });
    };
    return html`<div class="remote-engine-form">
      <h3>Add an engine</h3>
      <div class="row"><input type="text" id="engine-name" placeholder="Name (voices on it: name/voice)" aria-label="Engine name" .value=${form.name} @input=${field("name")} @change=${field("name")} /><input type="text" id="engine-urls" placeholder="http://host:8880 (several: spaces or commas between)" aria-label="Server URLs" .value=${form.urls} @input=${field("urls")} @change=${field("urls")} /></div>
      <div class="row"><input type="password" id="engine-api-key" placeholder="API key (if its servers ask for one)" aria-label="API key" autocomplete="off" .value=${form.apiKey} @input=${field("apiKey")} @change=${field("apiKey")} /><input type="text" id="engine-model" placeholder="Model (empty: the server's default)" aria-label="Model" .value=${form.model} @input=${field("model")} @change=${field("model")} /><button class="button" id="engine-add" ?disabled=${this.engineBusy !== null} @click=${add}>${this.engineBusy === "add" ? "Saving…" : "Add engine"}</button></div>
      <p class="muted">An engine of the same name is replaced.</p>
    </div>`;
  }

  private fields(v: SettingsView): TemplateResult {
    const connected = v.devices.some(([id]) => id === v.outputDevice);
    const reveal = () =>
      void engine.openDataDir().catch((e) => {
        this.error = String(e);
        this.changed();
      });
    return html`<div class="setting"><span>Data folder</span><div class="setting-value"><code id="setting-data-dir">${v.dataDir}</code><button class="link-button" @click=${reveal}>Show in file manager</button></div><span class="muted">Projects, voices, rendered lines and models. Start the studio with --data-dir to use another. Settings file: ${v.configFile}</span></div>
      <label class="setting"><span>Audio output</span><select id="setting-device" aria-label="Output device" @change=${(e: Event) => void this.save({ outputDevice: (e.currentTarget as HTMLSelectElement).value })}><option value="" .selected=${v.outputDevice === ""}>The system's default output</option>${v.devices.map(
        ([id, name, isDefault]) => html`<option value=${id} .selected=${id === v.outputDevice}>${`${name}${isDefault ? " (default)" : ""}`}</option>`,
      )}${v.outputDevice && !connected ? html`<option value=${v.outputDevice} .selected=${true}>${v.outputDevice} (not connected now)</option>` : nothing}</select>${
        v.devicesError ? html`<span class="status-error">${v.devicesError}</span>` : html`<span class="muted">Where playback and previews play.</span>`
      }</label>
      ${this.number("setting-batch-width", "Batch width", v.batchWidth, 0, 64, "Lines rendered together. 0: the width measured best on this machine (revoice bench engine).", (n) => ({ batchWidth: n }))}
      ${this.number("setting-segment-store", "Rendered lines on disk (MiB)", v.segmentStoreMb, 1, 1 << 20, "Past this, lines no take uses are removed first.", (n) => ({ segmentStoreMb: n }))}
      ${this.number("setting-render-cache", "Render cache in memory (MiB)", v.renderCacheMb, 1, 1 << 16, "Rendered rows kept while the studio runs.", (n) => ({ renderCacheMb: n }))}
      ${this.resynthesisCap(v.resynthesizeMaxSpeed)}
      ${this.fitBudget(v.fitMinutes)}
      <label class="setting"><span>Listen back after renders</span><span class="check"><input type="checkbox" id="setting-listen-back" aria-label="Listen back after renders" .checked=${v.listenBack} @change=${(e: Event) => void this.save({ listenBack: (e.currentTarget as HTMLInputElement).checked })} /> Hear every line rendered</span><span class="muted">Whisper hears each take as it plays on the timeline and marks lines that lost words, went silent or clip (QC); a line that fails is taken again once on a fresh seed.</span></label>
      ${this.number("setting-api-port", "Speech API port", v.apiPort, 1, 65535, "The local OpenAI-compatible API listens on 127.0.0.1 at this port (switch it on on the Projects page).", (n) => ({ apiPort: n }))}
      ${v.restartNeeded ? html`<p class="status-warning" id="settings-restart">Saved. Restart the studio for these settings to take effect.</p>` : nothing}`;
  }
}
