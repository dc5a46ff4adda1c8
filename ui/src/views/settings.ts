// The settings view: where the studio keeps its data, which output device
// plays, how many lines render together, how much the caches may hold, whether renders are heard back, and
// the local speech API's port. Saved into config.toml; the engine reads it
// when it starts, so the view says when a restart is needed.
import { html, nothing, type TemplateResult } from "lit-html";
import { keyed } from "lit-html/directives/keyed.js";
import * as engine from "../engine";
import type { SettingsEdit, SettingsView } from "../engine";

export class SettingsPage {
  private view: SettingsView | null = null;
  private error: string | null = null;
  private message = "";
  /** Bumped with each answer to a save: the fields are made again from the
   * settings as saved (or as they stayed, when the save was refused). */
  private saves = 0;

  /** `changed` draws the page again (the caller renders `template()`). */
  constructor(private readonly changed: () => void) {
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
  }

  private async save(edit: SettingsEdit): Promise<void> {
    try {
      this.view = await engine.saveSettings(edit);
      this.error = null;
      this.message = "Saved";
    } catch (e) {
      this.error = String(e);
    }
    this.saves += 1;
    this.changed();
  }

  private number(id: string, label: string, value: number, min: number, max: number, help: string, edit: (n: number) => SettingsEdit): TemplateResult {
    const change = (e: Event) => {
      const n = Number((e.currentTarget as HTMLInputElement).value);
      if (!Number.isInteger(n) || n < min || n > max) {
        this.error = `${label} must be a whole number from ${min} to ${max}.`;
        return this.changed();
      }
      void this.save(edit(n));
    };
    return html`<label class="setting"><span>${label}</span><input type="number" id=${id} min=${String(min)} max=${String(max)} step="1" aria-label=${label} .value=${String(value)} @change=${change} /><span class="muted">${help}</span></label>`;
  }

  template(): TemplateResult {
    const v = this.view;
    return html`<section class="settings">
      <h1>Settings</h1>
      ${this.error ? html`<div class="error-banner" role="alert">${this.error}</div>` : nothing}
      ${this.message && !this.error ? html`<p class="muted" role="status">${this.message}</p>` : nothing}
      ${v ? keyed(this.saves, this.fields(v)) : html`<p class="muted">Reading the settings…</p>`}
    </section>`;
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
      <label class="setting"><span>Listen back after renders</span><span class="check"><input type="checkbox" id="setting-listen-back" aria-label="Listen back after renders" .checked=${v.listenBack} @change=${(e: Event) => void this.save({ listenBack: (e.currentTarget as HTMLInputElement).checked })} /> Hear every line rendered</span><span class="muted">Whisper hears each take as it plays on the timeline and marks lines that lost words, went silent or clip (QC); a line that fails is taken again once on a fresh seed.</span></label>
      ${this.number("setting-api-port", "Speech API port", v.apiPort, 1, 65535, "The local OpenAI-compatible API listens on 127.0.0.1 at this port (switch it on on the Projects page).", (n) => ({ apiPort: n }))}
      ${v.restartNeeded ? html`<p class="status-warning" id="settings-restart">Saved. Restart the studio for these settings to take effect.</p>` : nothing}`;
  }
}
