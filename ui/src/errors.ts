// The engine's refusals as the window acts on them. Every rejected command
// is an EngineError: the engine's message as people read it, its kind, and
// the input it names. By kind, a view shows a busy engine as waiting and asks
// again (BusyRetry), marks the field a bad input names (FieldErrors),
// reads itself again when the thing is gone, and shows anything else in
// its banner (actOn).
import { html, nothing, type TemplateResult } from "lit-html";
import { Directive, directive, PartType, type ElementPart, type PartInfo } from "lit-html/directive.js";
import type { ErrorKind, ErrorReport } from "./engine-types";

const KINDS: readonly ErrorKind[] = ["notFound", "invalidInput", "conflict", "busy", "cancelled", "internal"];

/** A refusal from the engine. `message` (and `String(error)`) is the
 * engine's text, unchanged; `input` is what it names as rejected or
 * missing (`segment 12`, `voice name "A/B"`, `[dub] segment_store_mb`). */
export class EngineError extends Error {
  readonly kind: ErrorKind;
  readonly input: string | null;

  constructor(report: ErrorReport) {
    super(report.message);
    this.name = "EngineError";
    this.kind = report.kind;
    this.input = report.input;
  }

  /** The engine's message, as the views show it (no "Error: " before it). */
  override toString(): string {
    return this.message;
  }
}

function isReport(value: unknown): value is ErrorReport {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return KINDS.includes(v.kind as ErrorKind) && typeof v.message === "string" && (v.input === null || v.input === undefined || typeof v.input === "string");
}

/** Any rejection as an EngineError: an engine's report keeps its kind and
 * input; anything else (Tauri's own text, a thrown Error) is internal. */
export function engineError(rejection: unknown): EngineError {
  if (rejection instanceof EngineError) return rejection;
  if (isReport(rejection)) return new EngineError({ kind: rejection.kind, message: rejection.message, input: rejection.input ?? null });
  const message = rejection instanceof Error ? rejection.message : String(rejection);
  return new EngineError({ kind: "internal", message, input: null });
}

// ---- busy: shown as waiting, asked again ----------------------------------

/** How often a busy engine is asked again, and for how long. */
export const BUSY_RETRY_MS = 1500;
export const BUSY_PATIENCE_MS = 60_000;

/** What `BusyRetry.run` answers when the person stopped the waiting. */
export const STOPPED: unique symbol = Symbol("stopped waiting");

/** One kind of work (a preview, a render) that the engine may answer busy
 * (the model is still loading): while it does, the view shows the
 * engine's message as waiting, with a spinner and Stop, and the work is
 * asked for again every `every` ms until it starts, for up to `patience`
 * ms. A new `run` replaces the one waiting. */
export class BusyRetry {
  /** The work asked for now (its message once the engine answered busy). */
  private current: { what: string; message: string | null; stop: () => void } | null = null;

  /** `changed` draws the view again (the waiting starts, changes or ends). */
  constructor(
    private readonly changed: () => void,
    private readonly every = BUSY_RETRY_MS,
    private readonly patience = BUSY_PATIENCE_MS,
  ) {}

  /** Whether work is waiting for the engine now. */
  get waiting(): boolean {
    return this.current?.message != null;
  }

  /** Runs `action` (what it is, in words: "The preview", "The render"),
   * asking again while the engine is busy. Its answer, or STOPPED when
   * Stop was pressed or another `run` replaced it; rejects with any other
   * refusal, or with the busy one once the patience is spent. */
  run<T>(what: string, action: () => Promise<T>): Promise<T | typeof STOPPED> {
    this.stop();
    const tries = Math.max(1, Math.floor(this.patience / this.every) + 1);
    return new Promise<T | typeof STOPPED>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | null = null;
      let over = false;
      const end = () => {
        over = true;
        if (timer !== null) clearTimeout(timer);
        if (this.current !== me) return;
        const shown = this.waiting;
        this.current = null;
        if (shown) this.changed();
      };
      const me = {
        what,
        message: null as string | null,
        stop: () => {
          if (over) return;
          end();
          resolve(STOPPED);
        },
      };
      this.current = me;
      const attempt = (tried: number) => {
        action().then(
          (answer) => {
            if (over) return;
            end();
            resolve(answer);
          },
          (rejection: unknown) => {
            if (over) return;
            const error = engineError(rejection);
            if (error.kind !== "busy" || tried >= tries) {
              end();
              reject(error);
              return;
            }
            me.message = error.message;
            this.changed();
            timer = setTimeout(() => attempt(tried + 1), this.every);
          },
        );
      };
      attempt(1);
    });
  }

  /** Stops the work asked for (its `run` answers STOPPED). */
  stop(): void {
    this.current?.stop();
  }

  /** The waiting as the view shows it: a spinner, what waits and the
   * engine's message, and Stop; nothing while nothing waits. */
  template(): TemplateResult | typeof nothing {
    const wait = this.current;
    if (!wait || wait.message === null) return nothing;
    const seconds = (this.every / 1000).toLocaleString("en", { maximumFractionDigits: 1 });
    return html`<span class="busy-wait" role="status" aria-busy="true" data-busy=${wait.what}><span class="spinner" aria-hidden="true"></span><span class="busy-message">${wait.what} is waiting: ${wait.message}. Asking again every ${seconds} s…</span><button class="link-button busy-stop" @click=${() => wait.stop()}>Stop</button></span>`;
  }
}

// ---- invalid input: the field it names is marked ---------------------------

/** The class a refused field takes (a red outline). */
export const INVALID_FIELD = "field-invalid";

/** A form's refused fields by element id, each with the engine's message:
 * a marked field has `aria-invalid="true"` and the red outline
 * (`fieldMark`), its message beside it (`note`), and takes the focus once
 * it is drawn. */
export class FieldErrors {
  private readonly marked = new Map<string, string>();
  private focusNext: string | null = null;

  /** Marks `field` with `message`; it takes the focus when next drawn. */
  mark(field: string, message: string): void {
    this.marked.set(field, message);
    this.focusNext = field;
  }

  /** Clears one field's mark, or every mark. */
  clear(field?: string): void {
    if (field === undefined) this.marked.clear();
    else this.marked.delete(field);
    if (field === undefined || this.focusNext === field) this.focusNext = null;
  }

  /** The message `field` is marked with, or null. */
  message(field: string): string | null {
    return this.marked.get(field) ?? null;
  }

  /** Whether `field` should take the focus now (once per mark). */
  takeFocus(field: string): boolean {
    if (this.focusNext !== field) return false;
    this.focusNext = null;
    return true;
  }

  /** The binding that marks a field's element: `<input ${errors.on("line-speed")} …>`. */
  on(field: string): ReturnType<typeof fieldMark> {
    return fieldMark(this, field);
  }

  /** The message beside a marked field (nothing when it is not marked). */
  note(field: string): TemplateResult | typeof nothing {
    const message = this.message(field);
    return message === null ? nothing : html`<span class="field-error" id=${`${field}-error`} role="alert">${message}</span>`;
  }
}

/** Sets a field element's refusal state from its FieldErrors on each draw. */
class FieldMark extends Directive {
  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error("a field mark goes on the field's element");
  }

  render(_errors: FieldErrors, _field: string): typeof nothing {
    return nothing;
  }

  override update(part: ElementPart, [errors, field]: [FieldErrors, string]): typeof nothing {
    const element = part.element as HTMLElement;
    const message = errors.message(field);
    const described = `${field}-error`;
    element.classList.toggle(INVALID_FIELD, message !== null);
    if (message !== null) {
      element.setAttribute("aria-invalid", "true");
      element.setAttribute("aria-describedby", described);
      // Focused once drawn: lit puts a new element in the document after its parts are set.
      if (errors.takeFocus(field)) queueMicrotask(() => element.isConnected && element.focus());
    } else {
      element.removeAttribute("aria-invalid");
      if (element.getAttribute("aria-describedby") === described) element.removeAttribute("aria-describedby");
    }
    return nothing;
  }
}

const fieldMark = directive(FieldMark);

// ---- acting on a refusal by its kind ---------------------------------------

/** What a view does with a refusal. */
export interface Refusal {
  /** The banner (or status line): every refusal the view has no better place for. */
  banner: (message: string) => void;
  /** A form's fields, and the field an invalid input names in it (its
   * element id), or null when the form does not show that input. */
  fields?: FieldErrors;
  field?: (error: EngineError) => string | null;
  /** The thing is gone: the view reads itself again. */
  refresh?: () => unknown;
}

/** Acts on a refusal by its kind: an invalid input the form shows marks
 * its field; a thing not found reads the view again, with the message in
 * the banner; anything else goes to the banner. The refusal as an EngineError. */
export function actOn(rejection: unknown, on: Refusal): EngineError {
  const error = engineError(rejection);
  const field = error.kind === "invalidInput" && on.fields && on.field ? on.field(error) : null;
  if (field !== null && on.fields) {
    on.fields.mark(field, error.message);
    return error;
  }
  on.banner(error.message);
  if (error.kind === "notFound" && on.refresh) void on.refresh();
  return error;
}
