// One draw per animation frame: callers ask for a redraw as often as they
// like (every engine event does), and the draw runs once, on the next
// animation frame. Pure apart from the frame source it is given.

/** Asks for `callback` on the next frame; returns a handle for `cancel`. */
export type RequestFrame = (callback: () => void) => number;
export type CancelFrame = (handle: number) => void;

export class FrameScheduler {
  private handle: number | null = null;

  constructor(
    private readonly draw: () => void,
    private readonly request: RequestFrame = (callback) => requestAnimationFrame(() => callback()),
    private readonly cancelRequest: CancelFrame = (handle) => cancelAnimationFrame(handle),
  ) {}

  /** Asks for a draw on the next frame; a draw already asked for covers it. */
  schedule(): void {
    if (this.handle !== null) return;
    this.handle = this.request(() => {
      this.handle = null;
      this.draw();
    });
  }

  /** Whether a draw is waiting for its frame. */
  get pending(): boolean {
    return this.handle !== null;
  }

  /** Draws now if a draw is waiting (and not again on the frame). */
  flush(): void {
    if (this.handle === null) return;
    this.cancel();
    this.draw();
  }

  /** Forgets a waiting draw. */
  cancel(): void {
    if (this.handle === null) return;
    this.cancelRequest(this.handle);
    this.handle = null;
  }
}
