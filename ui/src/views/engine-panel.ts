// The empty-project view: no project is open, so the window shows what the
// engine found on this computer (the same report as `revoice doctor`) with
// a button to check again.
import type { Check, Diagnosis } from "../engine";
import { el } from "../dom";
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

/** Renders the view for a report, or for an engine that did not start. */
export function renderEnginePanel(
  root: HTMLElement,
  state: { report: Diagnosis | null; error: string | null; busy: boolean },
  actions: EnginePanelActions,
): void {
  const checkButton = el(
    "button",
    { type: "button", id: "check-again", class: "button" },
    state.busy ? "Checking…" : "Check again",
  );
  if (state.busy) checkButton.setAttribute("disabled", "");
  checkButton.addEventListener("click", actions.checkAgain);

  const report = state.report;
  const header = el(
    "header",
    { class: "empty-project__header" },
    el("h1", {}, "No project open"),
    el(
      "p",
      { class: "lede" },
      "Here is what the engine found on this computer.",
    ),
  );

  const summary = report
    ? el(
        "div",
        { class: `summary summary--${overallStatus(report.checks)}`, id: "check-summary" },
        el("strong", {}, summarizeChecks(report.checks)),
        el("span", { class: "muted", id: "checked-at" }, checkedAtLabel(report.checked_at)),
        checkButton,
      )
    : el("div", { class: "summary", id: "check-summary" }, checkButton);

  const error = state.error
    ? el("div", { class: "error-banner", role: "alert", id: "engine-error" }, state.error)
    : null;

  root.replaceChildren(
    el(
      "section",
      { class: "empty-project", "aria-labelledby": "engine-heading" },
      header,
      el("h2", { id: "engine-heading" }, "Engine"),
      summary,
      error,
      report ? renderChecks(report.checks) : null,
      report ? renderFacts(report, actions) : null,
      report ? renderAudio(report) : null,
      report ? renderModels(report) : null,
    ),
  );
}

function renderChecks(checks: Check[]): HTMLElement {
  return el(
    "ul",
    { class: "checks", id: "checks" },
    ...checks.map((c) =>
      el(
        "li",
        { class: `check check--${c.status}`, "data-check": c.name },
        el("span", { class: "check__status" }, STATUS_WORD[c.status]),
        el("span", { class: "check__name" }, c.name),
        el("span", { class: "check__detail" }, c.detail),
        c.fix ? el("span", { class: "check__fix" }, c.fix) : null,
      ),
    ),
  );
}

function fact(label: string, value: string, id: string): HTMLElement[] {
  return [el("dt", {}, label), el("dd", { id }, value)];
}

function renderFacts(report: Diagnosis, actions: EnginePanelActions): HTMLElement {
  const open = el("button", { type: "button", class: "link-button", id: "open-data-dir" }, "Open folder");
  open.addEventListener("click", actions.openDataDir);
  const dataDir = el("dd", { id: "fact-data-dir" }, el("code", {}, report.data_dir), " ", open);
  return el(
    "dl",
    { class: "facts" },
    ...fact("Engine version", report.engine_version, "fact-engine-version"),
    el("dt", {}, "Data folder"),
    dataDir,
    ...fact("Config file", report.config_file, "fact-config-file"),
    ...fact("Logs", report.log_dir, "fact-log-dir"),
    ...fact("Database", report.database, "fact-database"),
    ...fact("SQLite", report.sqlite_version ?? "unavailable", "fact-sqlite-version"),
  );
}

function renderAudio(report: Diagnosis): HTMLElement {
  const rows = report.audio.devices.map((d) =>
    el(
      "tr",
      { class: d.id === report.audio_output ? "is-chosen" : "" },
      el("td", {}, el("code", {}, d.id)),
      el("td", {}, d.name),
      el("td", {}, d.default_format ?? "format not reported"),
      el("td", {}, d.id === report.audio_output ? "playback" : d.is_default ? "default" : ""),
    ),
  );
  return el(
    "section",
    { class: "subsection", id: "audio-outputs" },
    el("h3", {}, `Audio outputs (${report.audio.host})`),
    rows.length
      ? el(
          "table",
          {},
          el("thead", {}, el("tr", {}, el("th", {}, "Id"), el("th", {}, "Device"), el("th", {}, "Format"), el("th", {}, ""))),
          el("tbody", {}, ...rows),
        )
      : el("p", { class: "muted" }, report.audio.error ?? "No output devices found."),
  );
}

function renderModels(report: Diagnosis): HTMLElement {
  return el(
    "section",
    { class: "subsection", id: "models" },
    el("h3", {}, "Models"),
    el(
      "ul",
      { class: "models" },
      ...report.models.map((m) =>
        el(
          "li",
          { "data-model": m.asset.id },
          el("strong", {}, m.asset.name),
          ` — ${modelLabel(m)}`,
          el("span", { class: "muted" }, ` (${m.asset.purpose})`),
        ),
      ),
    ),
  );
}
