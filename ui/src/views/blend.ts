// The blend builder: up to three stock voices mixed by weight with
// sliders, previewed aloud, and given to a speaker. A blend is a voice
// spec the engine reads (`af_heart:0.700,af_bella:0.300`). The parts being
// set are the caller's to keep between draws (startingParts makes them), so
// a redraw never moves a slider under the pointer.
import { html, type TemplateResult } from "lit-html";
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

function stockOf(voices: VoiceChoice[]): VoiceChoice[] {
  return voices.filter((v) => v.language !== "library" && v.language !== "remote");
}

/** The builder's three parts, starting from `current` (a spec): its stock
 * voices, then empty parts. */
export function startingParts(voices: VoiceChoice[], current: string): BlendPart[] {
  const stock = stockOf(voices);
  const start = parseBlend(current).filter((p) => stock.some((v) => v.name === p.voice));
  return [0, 1, 2].map((i) => start[i] ?? { voice: "", weight: i === 0 ? 1 : 0 });
}

export interface BlendActions {
  /** A part changed (the builder changed it in place): draw again. */
  changed(): void;
  preview(spec: string): void;
  use(spec: string): void;
}

/** The builder for `parts`, which it changes in place as the person sets them. */
export function blendBuilder(voices: VoiceChoice[], parts: BlendPart[], actions: BlendActions): TemplateResult {
  const stock = stockOf(voices);
  const rows = parts.map((part, i) => {
    const pick = (e: Event) => {
      part.voice = (e.currentTarget as HTMLSelectElement).value;
      if (part.voice && part.weight === 0) part.weight = 0.5;
      actions.changed();
    };
    const weigh = (e: Event) => {
      part.weight = Number((e.currentTarget as HTMLInputElement).value) / 100;
      actions.changed();
    };
    return html`<div class="blend-row"><select aria-label="Blend voice ${i + 1}" @change=${pick}><option value="" .selected=${part.voice === ""}>—</option>${stock.map(
      (v) => html`<option value=${v.name} .selected=${v.name === part.voice}>${v.name}</option>`,
    )}</select><input type="range" min="0" max="100" step="1" aria-label="Blend weight ${i + 1}" .value=${String(Math.round(part.weight * 100))} @input=${weigh} /></div>`;
  });
  const withSpec = (action: (spec: string) => void) => () => {
    const spec = blendSpec(parts);
    if (spec) action(spec);
  };
  return html`<details class="blend"><summary>Blend stock voices…</summary>${rows}<code class="blend-spec" id="blend-spec">${blendSpec(parts) ?? "choose a voice"}</code><div class="row"><button class="link-button" @click=${withSpec((s) => actions.preview(s))}>▶ Preview blend</button><button class="button" id="use-blend" @click=${withSpec((s) => actions.use(s))}>Use this blend</button></div></details>`;
}
