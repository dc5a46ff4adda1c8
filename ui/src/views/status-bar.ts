// The status bar along the bottom of the window: engine state, speech model,
// audio output and data folder at a glance.
import { html, type TemplateResult } from "lit-html";
import type { Diagnosis } from "../engine";
import { audioLabel, overallStatus, shortenPath, speechModelLabel, summarizeChecks } from "../report";

/** The bar for a report, an engine error, or a check in progress. */
export function statusBarView(state: { report: Diagnosis | null; error: string | null; busy: boolean }): TemplateResult {
  const report = state.report;
  if (!report) {
    return html`<span class="status-item status--${state.error ? "problem" : "busy"}" id="status-engine">${state.error ? "Engine not running" : "Starting engine…"}</span>`;
  }
  return html`<span class="status-item status--${overallStatus(report.checks)}" id="status-engine" title=${summarizeChecks(report.checks)}>Engine ${report.engine_version}</span><span class="status-item" id="status-model">${speechModelLabel(report)}</span><span class="status-item" id="status-audio">${audioLabel(report)}</span><span class="status-item status-item--grow" id="status-data-dir" title=${report.data_dir}>${shortenPath(report.data_dir, 60)}</span><span class="status-item" id="status-checks">${state.busy ? "Checking…" : summarizeChecks(report.checks)}</span>`;
}
