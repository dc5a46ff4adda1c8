// Pure helpers that turn an engine report into what the shell shows:
// summaries, labels and the status bar's wording. No DOM here.
import type { Check, CheckStatus, Diagnosis, ModelAssetStatus } from "./engine";

const STATUS_RANK: Record<CheckStatus, number> = { ok: 0, warning: 1, problem: 2 };

/** The worst status among the checks; "ok" when there are none. */
export function overallStatus(checks: Check[]): CheckStatus {
  return checks.reduce<CheckStatus>(
    (worst, c) => (STATUS_RANK[c.status] > STATUS_RANK[worst] ? c.status : worst),
    "ok",
  );
}

/** "All checks passed", "1 problem, 2 warnings", "1 warning". */
export function summarizeChecks(checks: Check[]): string {
  const problems = checks.filter((c) => c.status === "problem").length;
  const warnings = checks.filter((c) => c.status === "warning").length;
  if (problems === 0 && warnings === 0) return "All checks passed";
  const parts: string[] = [];
  if (problems > 0) parts.push(plural(problems, "problem"));
  if (warnings > 0) parts.push(plural(warnings, "warning"));
  return parts.join(", ");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `1.5 GiB`, `320.0 MiB`, `17 B`: the same units as the CLI. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** One line for a model asset: "installed (88.1 MiB)", "not installed". */
export function modelLabel(model: ModelAssetStatus): string {
  switch (model.state) {
    case "installed":
      return `installed (${formatBytes(model.bytes ?? 0)})`;
    case "missing":
      return "not installed";
    case "damaged":
      return "damaged";
  }
}

/** Status bar text for the speech model. */
export function speechModelLabel(report: Diagnosis): string {
  const speech = report.models[0];
  return speech ? `${speech.asset.name}: ${modelLabel(speech)}` : "No speech model";
}

/** Status bar text for audio output. */
export function audioLabel(report: Diagnosis): string {
  if (report.audio_output) return `Audio: ${report.audio_output}`;
  return report.audio.error ? "Audio: unavailable" : "Audio: no output device";
}

/**
 * Shortens a long path from the middle, keeping its first folder and as many
 * of its last folders as fit: "/home/…/projects/revoice-studio".
 */
export function shortenPath(path: string, maxChars: number): string {
  const parts = path.split("/");
  if (path.length <= maxChars || parts.length <= 3) return path;
  const head = parts.slice(0, 2).join("/");
  let tail = parts[parts.length - 1];
  for (let i = parts.length - 2; i >= 2; i--) {
    const longer = `${parts[i]}/${tail}`;
    if (head.length + 3 + longer.length > maxChars) break;
    tail = longer;
  }
  return `${head}/…/${tail}`;
}

/** "checked 14:03:07" in the user's local time. */
export function checkedAtLabel(iso: string, locale?: string): string {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return "checked at an unknown time";
  return `checked ${when.toLocaleTimeString(locale, { hour12: false })}`;
}
