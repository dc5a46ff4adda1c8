// The local speech API's switch on the home screen: whether other apps on
// this computer can use the studio's voices (OpenAI-compatible, on
// 127.0.0.1), its address while on, and why it did not start if it failed.
import { html, nothing, type TemplateResult } from "lit-html";
import { live } from "lit-html/directives/live.js";

export interface ApiSwitchState {
  url: string | null;
  busy: boolean;
  error: string | null;
}

export function apiSwitchView(state: ApiSwitchState, toggle: (on: boolean) => void): TemplateResult {
  const on = state.url !== null;
  const detail = state.busy
    ? on
      ? "Stopping…"
      : "Starting: loading the voice model…"
    : on
      ? html`<span>On at <code id="api-url">${state.url ?? ""}</code> (OpenAI-compatible: /v1/audio/speech)</span>`
      : "Off. Other apps on this computer can use the studio's voices when it is on.";
  // Live: the box shows where the API is going (the other way while busy),
  // also when a start fails and the API stays off.
  const shown = state.busy ? !on : on;
  return html`<section class="api-switch">
    <h2>Local speech API</h2>
    <label class="switch-row"><input type="checkbox" id="api-switch" role="switch" aria-label="Local speech API" .checked=${live(shown)} ?disabled=${state.busy} @change=${(e: Event) => toggle((e.currentTarget as HTMLInputElement).checked)} /><span id="api-detail">${detail}</span></label>
    ${state.error ? html`<div class="error-banner" role="alert">${state.error}</div>` : nothing}
  </section>`;
}
