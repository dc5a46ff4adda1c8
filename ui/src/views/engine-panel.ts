// The empty-project view: no project is open, so the window shows what the
// engine found on this computer (the same report as `revoice doctor`) with
// a button to check again.
import { html, nothing, type TemplateResult } from "lit-html";
import type { Check, Diagnosis } from "../engine";
import { checkedAtLabel, modelLabel, summarizeChecks, overallStatus } from "../report";

export interface EnginePanelActions {
  checkAgain: () => void;
  openDataDir: () => void;
}

const STATUS_WORD: Record<Check["status"], string> = {
  ok: "OK",
  warning: "Warning",
  problem: "Problem",
};

/** The view for a report, or for an engine that did not start. */
export function enginePanelView(
  state: { report: Diagnosis | null; error: string | null; busy: boolean },
  actions: EnginePanelActions,
): TemplateResult {
  const report = state.report;
  const checkButton = html`<button type="button" id="check-again" class="button" ?disabled=${state.busy} @click=${() => actions.checkAgain()}>${state.busy ? "Checking…" : "Check again"}</button>`;
  const summary = report
    ? html`<div class="summary summary--${overallStatus(report.checks)}" id="check-summary"><strong>${summarizeChecks(report.checks)}</strong><span class="muted" id="checked-at">${checkedAtLabel(report.checked_at)}</span>${checkButton}</div>`
    : html`<div class="summary" id="check-summary">${checkButton}</div>`;
  return html`<section class="empty-project" aria-labelledby="engine-heading">
    <header class="empty-project__header">
      <h1>No project open</h1>
      <p class="lede">Here is what the engine found on this computer.</p>
    </header>
    <h2 id="engine-heading">Engine</h2>
    ${summary}
    ${state.error ? html`<div class="error-banner" role="alert" id="engine-error">${state.error}</div>` : nothing}
    ${report ? checksView(report.checks) : nothing}
    ${report ? factsView(report, actions) : nothing}
    ${report ? audioView(report) : nothing}
    ${report ? modelsView(report) : nothing}
  </section>`;
}

function checksView(checks: Check[]): TemplateResult {
  return html`<ul class="checks" id="checks">${checks.map(
    (c) =>
      html`<li class="check check--${c.status}" data-check=${c.name}><span class="check__status">${STATUS_WORD[c.status]}</span><span class="check__name">${c.name}</span><span class="check__detail">${c.detail}</span>${
        c.fix ? html`<span class="check__fix">${c.fix}</span>` : nothing
      }</li>`,
  )}</ul>`;
}

function factsView(report: Diagnosis, actions: EnginePanelActions): TemplateResult {
  const fact = (label: string, value: string, id: string) => html`<dt>${label}</dt><dd id=${id}>${value}</dd>`;
  return html`<dl class="facts">
    ${fact("Engine version", report.engine_version, "fact-engine-version")}
    <dt>Data folder</dt>
    <dd id="fact-data-dir"><code>${report.data_dir}</code> <button type="button" class="link-button" id="open-data-dir" @click=${() => actions.openDataDir()}>Open folder</button></dd>
    ${fact("Config file", report.config_file, "fact-config-file")}
    ${fact("Logs", report.log_dir, "fact-log-dir")}
    ${fact("Database", report.database, "fact-database")}
    ${fact("SQLite", report.sqlite_version ?? "unavailable", "fact-sqlite-version")}
  </dl>`;
}

function audioView(report: Diagnosis): TemplateResult {
  const rows = report.audio.devices.map(
    (d) =>
      html`<tr class=${d.id === report.audio_output ? "is-chosen" : ""}><td><code>${d.id}</code></td><td>${d.name}</td><td>${d.default_format ?? "format not reported"}</td><td>${
        d.id === report.audio_output ? "playback" : d.is_default ? "default" : ""
      }</td></tr>`,
  );
  return html`<section class="subsection" id="audio-outputs">
    <h3>Audio outputs (${report.audio.host})</h3>
    ${rows.length
      ? html`<table><thead><tr><th>Id</th><th>Device</th><th>Format</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
      : html`<p class="muted">${report.audio.error ?? "No output devices found."}</p>`}
  </section>`;
}

function modelsView(report: Diagnosis): TemplateResult {
  return html`<section class="subsection" id="models">
    <h3>Models</h3>
    <ul class="models">${report.models.map(
      (m) => html`<li data-model=${m.asset.id}><strong>${m.asset.name}</strong> — ${modelLabel(m)}<span class="muted"> (${m.asset.purpose})</span></li>`,
    )}</ul>
  </section>`;
}
