// The local speech API's switch on the home screen: whether other apps on
// this computer can use the studio's voices (OpenAI-compatible, on
// 127.0.0.1), its address while on, and why it did not start if it failed.
import { el } from "../dom";

export interface ApiSwitchState {
  url: string | null;
  busy: boolean;
  error: string | null;
}

export function renderApiSwitch(root: HTMLElement, state: ApiSwitchState, toggle: (on: boolean) => void): void {
  const on = state.url !== null;
  const input = el("input", { type: "checkbox", id: "api-switch", role: "switch", "aria-label": "Local speech API" });
  input.checked = on;
  if (state.busy) input.disabled = true;
  input.addEventListener("change", () => toggle(input.checked));
  const detail = state.busy
    ? (on ? "Stopping…" : "Starting: loading the voice model (the first time, the stock voices are also measured for voice matching, a minute or more)…")
    : on
      ? el("span", {}, "On at ", el("code", { id: "api-url" }, state.url ?? ""), " (OpenAI-compatible: /v1/audio/speech)")
      : "Off. Other apps on this computer can use the studio's voices when it is on.";
  root.replaceChildren(
    el(
      "section",
      { class: "api-switch" },
      el("h2", {}, "Local speech API"),
      el("label", { class: "switch-row" }, input, el("span", { id: "api-detail" }, detail)),
      state.error ? el("div", { class: "error-banner", role: "alert" }, state.error) : null,
    ),
  );
}
