// The render panel under the timeline: for each track (language) how many
// lines are ready (rendered with no flag), flagged, queued, rendering and
// failed, with a bar; the lines waiting next; every failed line with its
// error and a retry; every line flagged for its fit (doesn't fit, cut,
// overlapping: known before any render); every line
// that failed when heard back, with what was heard; and a button to listen
// back to every rendered line not heard yet; and, when lines go to remote
// engines, each server: in rotation or out and why, lines done, pace. It
// reads the project as the engine reports it: nothing here decides a state.
import { html, nothing, type TemplateResult } from "lit-html";
import type { EngineStatus } from "../engine-types";
import type { Project, Segment } from "../model";
import { fitProblems, isShippable, problemSentence } from "../timeline/fit-problems";

export interface RenderPanelActions {
  select(trackId: number, segmentId: number): void;
  retry(segmentIds: number[]): void;
  cancel(): void;
  listen(): void;
}

/** Line counts by state for one track. */
export function stateCounts(segments: Segment[]): Record<Segment["state"], number> {
  const counts = { stale: 0, queued: 0, rendering: 0, ready: 0, failed: 0 };
  for (const s of segments) counts[s.state] += 1;
  return counts;
}

function clip(text: string, n = 48): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** One line per remote server: where it stands and how it has done. */
export function serverLines(engines: EngineStatus[]): TemplateResult | typeof nothing {
  const rows = engines.flatMap((e) =>
    e.servers.map((s) => {
      const pace = s.msPerLine != null ? ` · ${Math.round(s.msPerLine)} ms a line` : "";
      const busy = s.inFlight ? ` · ${s.inFlight} in flight` : "";
      const faults = s.failures ? ` · ${s.failures} fault${s.failures === 1 ? "" : "s"}` : "";
      const state = s.up ? html`<span class="server-up">in rotation</span>` : html`<span class="status-error">out: ${s.problem ?? "failed"}</span>`;
      const last = s.up && s.lastFault ? html`<div class="muted">last fault: ${s.lastFault}</div>` : nothing;
      return html`<li data-server=${s.url}><strong>${e.name}</strong> ${s.url} · ${state}<span class="muted">${` · ${s.linesDone} lines${pace}${busy}${faults}`}</span>${last}</li>`;
    }),
  );
  return rows.length ? html`<div id="render-servers"><h4>Servers</h4><ul class="render-servers">${rows}</ul></div>` : nothing;
}

export function renderPanel(project: Project, running: boolean, actions: RenderPanelActions, servers: EngineStatus[] = []): TemplateResult {
  const tracks = project.tracks.map((track) => {
    const c = stateCounts(track.segments);
    const total = track.segments.length;
    const flaggedCount = track.segments.filter((s) => s.flags.length > 0).length;
    const shippable = track.segments.filter(isShippable).length;
    const parts = [
      `${shippable}/${total} ready`,
      flaggedCount ? `${flaggedCount} flagged` : "",
      c.rendering ? `${c.rendering} rendering` : "",
      c.queued ? `${c.queued} queued` : "",
      c.stale ? `${c.stale} to render` : "",
      c.failed ? `${c.failed} failed` : "",
    ].filter(Boolean);
    return html`<div class="render-track" data-track=${String(track.id)}><strong>${track.language}</strong><progress max=${String(Math.max(1, total))} value=${String(shippable)} aria-label="${track.language} ready"></progress><span class="muted">${parts.join(" · ")}</span></div>`;
  });
  const lineButton = (trackId: number, s: Segment, extra: string) =>
    html`<button class="link-button" @click=${() => actions.select(trackId, s.id)}>${`${s.start.toFixed(1)} s · ${clip(s.text)}${extra}`}</button>`;
  const waiting = project.tracks.flatMap((t) => t.segments.filter((s) => s.state === "rendering" || s.state === "queued").map((s) => ({ t, s })));
  const failed = project.tracks.flatMap((t) => t.segments.filter((s) => s.state === "failed").map((s) => ({ t, s })));
  const cancel = html`<button class="link-button" id="panel-cancel" @click=${() => actions.cancel()}>Cancel render</button>`;
  const retryAll = html`<button class="link-button" id="retry-failed" @click=${() => actions.retry(failed.map(({ s }) => s.id))}>Retry ${failed.length} failed</button>`;
  const next = waiting.length
    ? html`<div><h4>Next</h4><ol class="render-queue" id="render-queue">${waiting
        .slice(0, 8)
        .map(({ t, s }) => html`<li>${lineButton(t.id, s, s.state === "rendering" ? " (rendering)" : "")}</li>`)}</ol>${waiting.length > 8 ? html`<p class="muted">and ${waiting.length - 8} more</p>` : nothing}</div>`
    : nothing;
  const unheard = project.tracks.reduce((n, t) => n + t.segments.filter((s) => s.fit && !s.check).length, 0);
  const heardBadly = project.tracks.flatMap((t) => t.segments.filter((s) => s.check && !s.check.passed).map((s) => ({ t, s })));
  const listen = unheard && !running ? html`<button class="link-button" id="listen-back" title="Whisper hears each rendered line as it plays on the timeline" @click=${() => actions.listen()}>Listen back to ${unheard} line${unheard === 1 ? "" : "s"} not heard yet</button>` : nothing;
  const qc = heardBadly.length
    ? html`<div id="check-failures"><h4>Failed when heard back</h4><ul class="render-failures">${heardBadly.map(
        ({ t, s }) => html`<li>${lineButton(t.id, s, "")}<div class="status-error">${`Heard “${s.check?.heard ?? ""}”: ${s.check?.problems.join("; ") ?? ""}`}</div></li>`,
      )}</ul></div>`
    : nothing;
  // Lines flagged for their fit (doesn't fit, cut, overlapping), known before any render.
  const misfits = project.tracks.flatMap((t) =>
    t.segments.flatMap((s, i) => {
      const problems = fitProblems(s, t.segments[i + 1] ?? null).filter((p) => p.kind !== "heard");
      return problems.length ? [{ t, s, problems }] : [];
    }),
  );
  const fitList = misfits.length
    ? html`<div id="fit-problems"><h4>Flagged for their fit (${misfits.length})</h4><ul class="render-failures">${misfits.slice(0, 50).map(
        ({ t, s, problems }) => html`<li data-segment=${String(s.id)}>${lineButton(t.id, s, "")}<div class="status-error">${problems.map(problemSentence).join("; ")}</div></li>`,
      )}</ul>${misfits.length > 50 ? html`<p class="muted">and ${misfits.length - 50} more</p>` : nothing}</div>`
    : nothing;
  const failures = failed.length
    ? html`<div id="render-failures"><h4>Failed ${running ? nothing : retryAll}</h4><ul class="render-failures">${failed.map(
        ({ t, s }) => html`<li>${lineButton(t.id, s, "")}<div class="status-error">${s.error ?? "failed"}</div></li>`,
      )}</ul></div>`
    : nothing;
  return html`<section class="render-panel" aria-label="Render"><h3>Render${running ? cancel : nothing}</h3>${tracks}${serverLines(servers)}${next}${failures}${fitList}${qc}${listen}</section>`;
}
