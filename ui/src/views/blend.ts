// The blend builder: up to three stock voices mixed by weight with
// sliders, previewed aloud, and given to a speaker. A blend is a voice
// spec the engine reads (`af_heart:0.700,af_bella:0.300`).
import { el } from "../dom";
import type { VoiceChoice } from "../engine";

export interface BlendPart {
  voice: string;
  weight: number;
}

/** The spec of a blend: weights normalised to sum to one, empty and zero
 * parts dropped, one voice alone by its plain name; null when nothing is left. */
export function blendSpec(parts: BlendPart[]): string | null {
  const kept = parts.filter((p) => p.voice && p.weight > 0);
  const total = kept.reduce((sum, p) => sum + p.weight, 0);
  if (!kept.length || total <= 0) return null;
  if (kept.length === 1) return kept[0].voice;
  return kept.map((p) => `${p.voice}:${(p.weight / total).toFixed(3)}`).join(",");
}

/** The parts of a spec (the inverse of blendSpec, weights as given). */
export function parseBlend(spec: string): BlendPart[] {
  return spec
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [voice, weight] = part.split(":");
      return { voice: voice.trim(), weight: weight === undefined ? 1 : Number(weight) };
    });
}

/** The builder, starting from `current` (a spec); calls back with the spec. */
export function blendBuilder(voices: VoiceChoice[], current: string, actions: { preview(spec: string): void; use(spec: string): void }): HTMLElement {
  const stock = voices.filter((v) => v.language !== "library");
  const start = parseBlend(current).filter((p) => stock.some((v) => v.name === p.voice));
  const parts: BlendPart[] = [0, 1, 2].map((i) => start[i] ?? { voice: "", weight: i === 0 ? 1 : 0 });
  const summary = el("code", { class: "blend-spec", id: "blend-spec" });
  const update = () => {
    summary.textContent = blendSpec(parts) ?? "choose a voice";
  };
  const rows = parts.map((part, i) => {
    const pick = el("select", { "aria-label": `Blend voice ${i + 1}` }, el("option", { value: "" }, "—"));
    for (const v of stock) {
      const option = el("option", { value: v.name }, v.name);
      if (v.name === part.voice) option.setAttribute("selected", "");
      pick.append(option);
    }
    const weight = el("input", { type: "range", min: "0", max: "100", step: "1", "aria-label": `Blend weight ${i + 1}` });
    weight.value = String(Math.round(part.weight * 100));
    pick.addEventListener("change", () => {
      part.voice = pick.value;
      if (part.voice && part.weight === 0) {
        part.weight = 0.5;
        weight.value = "50";
      }
      update();
    });
    weight.addEventListener("input", () => {
      part.weight = Number(weight.value) / 100;
      update();
    });
    return el("div", { class: "blend-row" }, pick, weight);
  });
  const listen = el("button", { class: "link-button" }, "▶ Preview blend");
  listen.addEventListener("click", () => {
    const spec = blendSpec(parts);
    if (spec) actions.preview(spec);
  });
  const use = el("button", { class: "button", id: "use-blend" }, "Use this blend");
  use.addEventListener("click", () => {
    const spec = blendSpec(parts);
    if (spec) actions.use(spec);
  });
  update();
  return el("details", { class: "blend" }, el("summary", {}, "Blend stock voices…"), ...rows, summary, el("div", { class: "row" }, listen, use));
}
