// The render panel under the timeline: for each track (language) how many
// lines are ready, queued, rendering and failed, with a bar; the lines
// waiting next; and every failed line with its error and a retry. It reads
// the project as the engine reports it: nothing here decides a state.
import { el } from "../dom";
import type { Project, Segment } from "../model";

export interface RenderPanelActions {
  select(trackId: number, segmentId: number): void;
  retry(segmentIds: number[]): void;
  cancel(): void;
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

export function renderRenderPanel(root: HTMLElement, project: Project, running: boolean, actions: RenderPanelActions): void {
  const tracks = project.tracks.map((track) => {
    const c = stateCounts(track.segments);
    const total = track.segments.length;
    const bar = el("progress", { max: String(Math.max(1, total)), value: String(c.ready), "aria-label": `${track.language} ready` });
    const parts = [`${c.ready}/${total} ready`, c.rendering ? `${c.rendering} rendering` : "", c.queued ? `${c.queued} queued` : "", c.stale ? `${c.stale} to render` : "", c.failed ? `${c.failed} failed` : ""].filter(Boolean);
    return el("div", { class: "render-track", "data-track": String(track.id) }, el("strong", {}, track.language), bar, el("span", { class: "muted" }, parts.join(" · ")));
  });
  const lineButton = (trackId: number, s: Segment, extra: string) => {
    const b = el("button", { class: "link-button" }, `${s.start.toFixed(1)} s · ${clip(s.text)}${extra}`);
    b.addEventListener("click", () => actions.select(trackId, s.id));
    return b;
  };
  const waiting = project.tracks.flatMap((t) => t.segments.filter((s) => s.state === "rendering" || s.state === "queued").map((s) => ({ t, s })));
  const failed = project.tracks.flatMap((t) => t.segments.filter((s) => s.state === "failed").map((s) => ({ t, s })));
  const retryAll = el("button", { class: "link-button", id: "retry-failed" }, `Retry ${failed.length} failed`);
  retryAll.addEventListener("click", () => actions.retry(failed.map(({ s }) => s.id)));
  const cancel = el("button", { class: "link-button", id: "panel-cancel" }, "Cancel render");
  cancel.addEventListener("click", () => actions.cancel());
  root.replaceChildren(
    el(
      "section",
      { class: "render-panel", "aria-label": "Render" },
      el("h3", {}, "Render", running ? cancel : null),
      ...tracks,
      waiting.length
        ? el("div", {}, el("h4", {}, "Next"), el("ol", { class: "render-queue", id: "render-queue" }, ...waiting.slice(0, 8).map(({ t, s }) => el("li", {}, lineButton(t.id, s, s.state === "rendering" ? " (rendering)" : "")))), waiting.length > 8 ? el("p", { class: "muted" }, `and ${waiting.length - 8} more`) : null)
        : null,
      failed.length
        ? el(
            "div",
            { id: "render-failures" },
            el("h4", {}, "Failed ", running ? null : retryAll),
            el("ul", { class: "render-failures" }, ...failed.map(({ t, s }) => el("li", {}, lineButton(t.id, s, ""), el("div", { class: "status-error" }, s.error ?? "failed")))),
          )
        : null,
    ),
  );
}
