// Remote engines in words: the add form's URL list, and a check's report
// (each server, and what the engine can do) as the Settings page says it.
// Pure: the page (settings.ts) draws these and talks to the engine.
import type { Capabilities, EngineReport, NodeReport } from "../engine";

/** The URLs typed into the add form: separated by spaces, commas or new
 * lines, each once, in the order typed. Whether each is a URL the engine
 * says when it saves them. */
export function parseUrls(text: string): string[] {
  const urls: string[] = [];
  for (const url of text.split(/[\s,]+/)) if (url && !urls.includes(url)) urls.push(url);
  return urls;
}

/** As the engine says it: `wav, pcm, mp3; batch, streaming, voice upload, cloning from ref_audio`. */
export function capabilitiesText(c: Capabilities): string {
  const abilities: [boolean, string][] = [
    [c.batch, "batch"],
    [c.streaming, "streaming"],
    [c.voiceUpload, "voice upload"],
    [c.cloning, "cloning from ref_audio"],
  ];
  const can = abilities
    .filter(([has]) => has)
    .map(([, what]) => what);
  const formats = c.formats.length ? c.formats.join(", ") : "no format";
  return can.length ? `${formats}; ${can.join(", ")}` : formats;
}

export type NodeState = "ready" | "not ready" | "unreachable";

export function nodeState(n: NodeReport): NodeState {
  return n.ready ? "ready" : n.reachable ? "not ready" : "unreachable";
}

/** One server checked, after its URL: `ready · version 0.3.0 · model kokoro · says Hi. in 412 ms`,
 * `not ready · its model is still loading`, `unreachable · Connection refused`. */
export function nodeSummary(n: NodeReport): string {
  const state = nodeState(n);
  const parts: string[] = [state];
  if (n.version) parts.push(`version ${n.version}`);
  if (n.model) parts.push(`model ${n.model}`);
  if (n.speakMs !== null) parts.push(`says Hi. in ${Math.round(n.speakMs)} ms`);
  if (n.problem) parts.push(state === "unreachable" ? n.problem.replace(/^not reachable: /, "") : n.problem);
  return parts.join(" · ");
}

/** The engine checked: how many of its servers are ready, and what every ready one can do. */
export function engineSummary(r: EngineReport): string {
  const ready = r.nodes.filter((n) => n.ready).length;
  const servers = `${ready} of ${r.nodes.length} ${r.nodes.length === 1 ? "server" : "servers"} ready`;
  return ready ? `${servers}. The engine can do: ${capabilitiesText(r.capabilities)}.` : `${servers}: the engine can do nothing until one is.`;
}
