// The settings view: where the studio keeps its data, which output device
// plays, how many lines render together, how much the caches may hold, and
// the local speech API's port. Saved into config.toml; the engine reads it
// when it starts, so the view says when a restart is needed.
import { el } from "../dom";
import * as engine from "../engine";
import type { SettingsEdit, SettingsView } from "../engine";

export class SettingsPage {
  private view: SettingsView | null = null;
  private error: string | null = null;
  private message = "";

  constructor(private readonly root: HTMLElement) {
    this.draw();
    void engine.settings().then(
      (v) => {
        this.view = v;
        this.draw();
      },
      (e) => {
        this.error = String(e);
        this.draw();
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
    this.draw();
  }

  private number(id: string, label: string, value: number, min: number, max: number, help: string, edit: (n: number) => SettingsEdit): HTMLElement {
    const input = el("input", { type: "number", id, min: String(min), max: String(max), step: "1", "aria-label": label });
    input.value = String(value);
    input.addEventListener("change", () => {
      const n = Number(input.value);
      if (!Number.isInteger(n) || n < min || n > max) {
        this.error = `${label} must be a whole number from ${min} to ${max}.`;
        return this.draw();
      }
      void this.save(edit(n));
    });
    return el("label", { class: "setting" }, el("span", {}, label), input, el("span", { class: "muted" }, help));
  }

  private draw(): void {
    const v = this.view;
    const body: (HTMLElement | null)[] = [];
    if (v) {
      const device = el("select", { id: "setting-device", "aria-label": "Output device" }, el("option", { value: "" }, "The system's default output"));
      for (const [id, name, isDefault] of v.devices) {
        const option = el("option", { value: id }, `${name}${isDefault ? " (default)" : ""}`);
        if (id === v.outputDevice) option.setAttribute("selected", "");
        device.append(option);
      }
      if (v.outputDevice && !v.devices.some(([id]) => id === v.outputDevice)) {
        device.append(el("option", { value: v.outputDevice, selected: "" }, `${v.outputDevice} (not connected now)`));
      }
      device.addEventListener("change", () => void this.save({ outputDevice: device.value }));
      const reveal = el("button", { class: "link-button" }, "Show in file manager");
      reveal.addEventListener("click", () => void engine.openDataDir().catch((e) => ((this.error = String(e)), this.draw())));
      body.push(
        el("div", { class: "setting" }, el("span", {}, "Data folder"), el("div", { class: "setting-value" }, el("code", { id: "setting-data-dir" }, v.dataDir), reveal), el("span", { class: "muted" }, `Projects, voices, rendered lines and models. Start the studio with --data-dir to use another. Settings file: ${v.configFile}`)),
        el("label", { class: "setting" }, el("span", {}, "Audio output"), device, v.devicesError ? el("span", { class: "status-error" }, v.devicesError) : el("span", { class: "muted" }, "Where playback and previews play.")),
        this.number("setting-batch-width", "Batch width", v.batchWidth, 0, 64, "Lines rendered together. 0: the width measured best on this machine (revoice bench engine).", (n) => ({ batchWidth: n })),
        this.number("setting-segment-store", "Rendered lines on disk (MiB)", v.segmentStoreMb, 1, 1 << 20, "Past this, lines no take uses are removed first.", (n) => ({ segmentStoreMb: n })),
        this.number("setting-render-cache", "Render cache in memory (MiB)", v.renderCacheMb, 1, 1 << 16, "Rendered rows kept while the studio runs.", (n) => ({ renderCacheMb: n })),
        this.number("setting-api-port", "Speech API port", v.apiPort, 1, 65535, "The local OpenAI-compatible API listens on 127.0.0.1 at this port (switch it on on the Projects page).", (n) => ({ apiPort: n })),
      );
      if (v.restartNeeded) body.push(el("p", { class: "status-warning", id: "settings-restart" }, "Saved. Restart the studio for these settings to take effect."));
    }
    this.root.replaceChildren(
      el(
        "section",
        { class: "settings" },
        el("h1", {}, "Settings"),
        this.error ? el("div", { class: "error-banner", role: "alert" }, this.error) : null,
        this.message && !this.error ? el("p", { class: "muted", role: "status" }, this.message) : null,
        ...(v ? body : [el("p", { class: "muted" }, "Reading the settings…")]),
      ),
    );
  }
}
