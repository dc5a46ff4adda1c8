// The status bar along the bottom of the window: engine state, speech model,
// audio output and data folder at a glance.
import type { Diagnosis } from "../engine";
import { el } from "../dom";
import { audioLabel, overallStatus, shortenPath, speechModelLabel, summarizeChecks } from "../report";

/** Renders the bar for a report, an engine error, or a check in progress. */
export function renderStatusBar(
  root: HTMLElement,
  state: { report: Diagnosis | null; error: string | null; busy: boolean },
): void {
  const report = state.report;
  if (!report) {
    root.replaceChildren(
      el(
        "span",
        { class: `status-item status--${state.error ? "problem" : "busy"}`, id: "status-engine" },
        state.error ? "Engine not running" : "Starting engine…",
      ),
    );
    return;
  }
  const overall = overallStatus(report.checks);
  root.replaceChildren(
    el(
      "span",
      { class: `status-item status--${overall}`, id: "status-engine", title: summarizeChecks(report.checks) },
      `Engine ${report.engine_version}`,
    ),
    el("span", { class: "status-item", id: "status-model" }, speechModelLabel(report)),
    el("span", { class: "status-item", id: "status-audio" }, audioLabel(report)),
    el(
      "span",
      { class: "status-item status-item--grow", id: "status-data-dir", title: report.data_dir },
      shortenPath(report.data_dir, 60),
    ),
    el("span", { class: "status-item", id: "status-checks" }, state.busy ? "Checking…" : summarizeChecks(report.checks)),
  );
}
