// The editor's picture: the project's video in a muted <video> that
// follows the engine's playhead. The sound is always the engine's; the
// picture never drives the transport. This module owns the pane (the
// video, its status line and the offer to make a playable proxy), its own
// animation-frame loop while a source is loaded, and the two pure rules
// the loop applies: where the playhead is now (from the engine's last
// report) and how the video is corrected towards it each frame.
import { html, nothing, render } from "lit-html";
import * as engine from "../engine";
import type { PictureSource, VideoInfo } from "../engine";
import { el } from "../dom";
import { videoSummary } from "./delivery";

/** Playing further than this from the playhead, the video seeks (seconds). */
const SEEK_DRIFT = 0.25;
/** The rates a playing video is nudged to when it runs a frame ahead or behind. */
const RATE_SLOWER = 0.95;
const RATE_FASTER = 1.05;
/** When the video says nothing of its frame rate. */
const FALLBACK_FPS = 25;
/** `HTMLMediaElement.HAVE_METADATA`: its duration and size are known, so it can seek. */
const HAVE_METADATA = 1;

/** What the video is told on one frame: seek (or not), its playback rate, and play or stay paused. */
export interface FollowStep {
  seekTo: number | null;
  rate: number;
  play: boolean;
}

/** The correction for one frame. Paused, the video seeks to the playhead
 * whenever it shows another frame (more than half a frame off). Playing,
 * it seeks when more than 0.25 s off; otherwise the frame on screen (whose
 * middle is half a frame past its time, which is its start) is kept on the
 * playhead's frame: once it drifts more than half a frame the video plays
 * a little slower or faster (`rate`, the rate it plays at now) until it is
 * back within a quarter frame. The rate changes only at those two marks:
 * every change of rate is a seek inside the web view's player, and
 * changing it every frame stalled the page. */
export function followStep(videoTime: number, target: number, playing: boolean, frameRate: number, rate = 1): FollowStep {
  const frame = 1 / (frameRate > 0 ? frameRate : FALLBACK_FPS);
  if (!playing) return { seekTo: Math.abs(videoTime - target) > frame / 2 ? target : null, rate: 1, play: false };
  const drift = videoTime + frame / 2 - target;
  if (Math.abs(drift) > SEEK_DRIFT) return { seekTo: target, rate: 1, play: true };
  const correcting = rate !== 1 && Math.abs(drift) > frame / 4;
  if (!correcting && Math.abs(drift) <= frame / 2) return { seekTo: null, rate: 1, play: true };
  return { seekTo: null, rate: drift > 0 ? RATE_SLOWER : RATE_FASTER, play: true };
}

/** The engine's last word on its transport, and when it came (`performance.now()`). */
export interface TransportReport {
  position: number;
  playing: boolean;
  length: number;
  looping: [number, number] | null;
  at: number;
}

/** Where the engine's playhead is at `now` (ms, as `at`): while playing,
 * the reported position moved on by the time since, but not past the end
 * (nor the loop's end while it loops: the engine's next report wraps it);
 * otherwise the reported position. */
export function playheadAt(report: TransportReport, now: number): number {
  if (!report.playing) return report.position;
  let at = report.position + Math.max(0, now - report.at) / 1000;
  if (report.looping && report.position <= report.looping[1]) at = Math.min(at, report.looping[1]);
  return Math.max(0, Math.min(at, report.length));
}

/** The MIME type (with codecs) to ask `canPlayType` about, when the
 * container and codec are ones it can be asked about; else null. */
export function mediaType(info: VideoInfo): string | null {
  const codec = info.codec.toLowerCase();
  const container = info.container.toLowerCase();
  const webm = container.includes("webm") && ["vp8", "vp9", "av1"].includes(codec);
  const mime = webm ? "video/webm" : container.includes("matroska") ? "video/x-matroska" : /\b(mp4|mov)\b/.test(container) ? "video/mp4" : null;
  const codecs: Record<string, string> = webm
    ? { vp8: "vp8", vp9: "vp9", av1: "av01.0.05M.08" }
    : { h264: "avc1.42E01E", hevc: "hvc1.1.6.L93.B0", vp9: "vp09.00.10.08", av1: "av01.0.05M.08", mpeg4: "mp4v.20.9" };
  return mime && codecs[codec] ? `${mime}; codecs="${codecs[codec]}"` : null;
}

type State = "loading" | "ready" | "error";

/** The pane: a resizable box with the muted video and its status line.
 * `element` goes where the editor lays it out; `load` fetches the
 * project's picture, `follow` takes each engine report (and each seek). */
export class PicturePane {
  readonly element: HTMLElement;
  readonly video: HTMLVideoElement;
  private readonly statusHost: HTMLElement;
  private projectId: number | null = null;
  private name = "";
  /** The source playing (null while none is loaded or it cannot play). */
  private source: PictureSource | null = null;
  private report: TransportReport = { position: 0, playing: false, length: 0, looping: null, at: 0 };
  private frame: number | null = null;
  /** Bumped by each load: an older answer arriving later is dropped. */
  private generation = 0;
  private disposed = false;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.video = el("video", { id: "picture", muted: "", playsinline: "", preload: "auto", "aria-label": "Picture" });
    this.video.muted = true;
    this.video.defaultMuted = true;
    this.video.addEventListener("loadeddata", () => {
      if (this.source) this.show("ready", this.summary());
    });
    this.video.addEventListener("error", () => this.failed());
    this.statusHost = el("div", { class: "picture-status" });
    this.element = el("section", { class: "picture-pane", id: "picture-pane" }, this.video, this.statusHost);
    this.show("loading", "Loading the picture…");
  }

  /** Loads the project's picture (`name`: its file name, for the status line). */
  load(projectId: number, name: string): Promise<void> {
    this.projectId = projectId;
    this.name = name;
    return this.open(engine.pictureSource(projectId, false), "Loading the picture…", "The picture cannot be loaded", false);
  }

  /** The engine's transport now (an event, or a seek the editor made). */
  follow(position: number, playing: boolean, length: number, looping: [number, number] | null = null): void {
    this.report = { position, playing, length, looping, at: this.now() };
  }

  /** Stops the loop and lets the video go. */
  dispose(): void {
    this.disposed = true;
    this.generation += 1;
    this.unload();
  }

  // ---- loading -----------------------------------------------------------

  private async open(answer: Promise<PictureSource | null>, waiting: string, failure: string, offerProxy: boolean): Promise<void> {
    const generation = ++this.generation;
    this.unload();
    this.show("loading", waiting);
    let source: PictureSource | null;
    try {
      source = await answer;
    } catch (e) {
      if (generation === this.generation) this.show("error", `${failure}: ${e}`, offerProxy);
      return;
    }
    if (generation !== this.generation) return;
    if (!source) return this.show("error", "The project has no picture.");
    const type = mediaType(source.info);
    if (!source.proxy && type && this.video.canPlayType(type) === "") return this.unplayable(source.info.codec);
    this.source = source;
    this.show("loading", this.summary());
    this.video.src = source.url;
    this.startLoop();
  }

  private makeProxy(): void {
    if (this.projectId === null) return;
    void this.open(engine.pictureSource(this.projectId, true), "Making a proxy…", "The proxy could not be made", true);
  }

  /** Forgets the source: the loop stops and the video lets its file go. */
  private unload(): void {
    this.stopLoop();
    this.source = null;
    if (this.video.hasAttribute("src")) {
      this.video.pause();
      this.video.removeAttribute("src");
      this.video.load();
    }
  }

  private unplayable(codec: string): void {
    this.unload();
    this.show("error", `This window cannot play the picture's codec (${codec}).`, true);
  }

  /** The video element's error: a codec it cannot decode offers a proxy. */
  private failed(): void {
    const source = this.source;
    if (!source || this.disposed) return;
    const error = this.video.error;
    const detail = error?.message ? ` (${error.message})` : "";
    if (!source.proxy && (error?.code === 3 || error?.code === 4)) return this.unplayable(source.info.codec);
    this.unload();
    this.show("error", source.proxy ? `This window cannot play the picture's proxy either${detail}.` : `The picture cannot be loaded${detail}.`);
  }

  private summary(): string {
    const source = this.source;
    return source ? `Picture: ${this.name} (${videoSummary(source.info)})${source.proxy ? ", as a playable proxy" : ""}` : "";
  }

  private show(state: State, text: string, offerProxy = false): void {
    this.video.dataset.state = state;
    const error = state === "error";
    render(
      html`<span id="picture-status" class=${error ? "status-error" : "muted"} role=${error ? "alert" : "status"}>${text}</span>${
        offerProxy ? html`<button class="link-button" id="picture-proxy" @click=${() => this.makeProxy()}>Make a playable proxy</button>` : nothing
      }`,
      this.statusHost,
    );
  }

  // ---- following the playhead ---------------------------------------------

  private startLoop(): void {
    if (this.frame === null && !this.disposed) this.frame = requestAnimationFrame(this.tick);
  }

  private stopLoop(): void {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
  }

  private readonly tick = (): void => {
    this.frame = null;
    if (!this.source || this.disposed) return;
    this.step(this.source);
    this.startLoop();
  };

  /** One frame: the playhead (within the video), written to
   * `data-target`, and the video corrected towards it. */
  private step(source: PictureSource): void {
    const video = this.video;
    const fps = source.info.frameRate > 0 ? source.info.frameRate : FALLBACK_FPS;
    const end = Number.isFinite(video.duration) && video.duration > 0 ? video.duration : source.info.durationS > 0 ? source.info.durationS : Infinity;
    const target = Math.min(playheadAt(this.report, this.now()), end);
    video.dataset.target = target.toFixed(3);
    if (video.readyState < HAVE_METADATA || video.seeking || video.error) return;
    // At the video's end it stays on its last frame (playing an ended video starts it again).
    const playing = this.report.playing && target < end - 0.5 / fps;
    const step = followStep(video.currentTime, target, playing, fps, video.playbackRate);
    if (step.seekTo !== null) video.currentTime = step.seekTo;
    if (video.playbackRate !== step.rate) video.playbackRate = step.rate;
    if (step.play && video.paused) video.play()?.catch(() => {});
    else if (!step.play && !video.paused) video.pause();
  }
}
