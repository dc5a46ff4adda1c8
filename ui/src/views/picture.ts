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
import { formatTimecode, type FrameRate } from "../timecode";

/** Playing further than this from the playhead, the video jumps at once (seconds). */
const JUMP_DRIFT = 0.25;
/** Frames of drift the average takes in before the video is judged by it. */
const SETTLE_FRAMES = 15;
/** How much of each frame's drift goes into the average. */
const DRIFT_SMOOTHING = 0.1;
/** The least a jump lands ahead of the playhead (seconds): the video then
 * waits, paused, for the playhead to reach it. */
const MIN_JUMP_MARGIN = 0.3;
/** The most the video is started ahead of the playhead reaching it (seconds). */
const MAX_START_LEAD = 0.2;
/** When the video says nothing of its frame rate. */
const FALLBACK_FPS = 25;
/** `HTMLMediaElement.HAVE_METADATA`: its duration and size are known, so it can seek. */
const HAVE_METADATA = 1;

/** What the video is told on one frame: seek (or not), and play or be paused. */
export interface FollowStep {
  seekTo: number | null;
  play: boolean;
}

/** What one frame's correction is decided on. */
export interface FollowState {
  /** The video's time and whether it is paused. */
  videoTime: number;
  videoPaused: boolean;
  /** The playhead, and whether the engine plays. */
  target: number;
  playing: boolean;
  frameRate: number;
  /** The video's drift from the playhead (its time less the playhead's;
   * positive when ahead), averaged over its last frames of playing; null
   * until it has settled. */
  drift: number | null;
  /** How long before the playhead reaches a waiting video it is started
   * (its start-up time, learned). */
  startLead: number;
  /** How far ahead of the playhead a jump lands (longer than a seek takes). */
  jumpMargin: number;
  /** Whether this playback has jumped already: its starts since then used
   * the learned start-up time. */
  jumpedThisPlayback: boolean;
}

/** The correction for one frame: the video chases the playhead.
 *
 * Paused, the video seeks to the playhead whenever it shows another frame
 * (more than half a frame off). Playing, it plays at its own rate while
 * its averaged drift stays within half a frame ahead, and behind within
 * half a frame until the playback's first jump, a frame after it: the
 * first start comes late by the player's start-up time, not yet learned,
 * and one jump then puts the picture on the playhead's frame; later starts
 * use the learned time and vary by tens of milliseconds, which a jump (a
 * visible stall) would not improve. A video further ahead (short of
 * where a jump would land) pauses and waits for the playhead; one further
 * behind, or far off either way, jumps, paused, a little ahead of the
 * playhead and waits there. A waiting video starts `startLead` before the
 * playhead reaches it; one the playhead has just passed (its start came
 * late: frames and timers run late in a busy window) starts at once, and
 * its settled drift then teaches the next start; a waiting video the
 * playhead has left far behind, or moved back from, jumps again. The
 * playback rate is never nudged: the web view's player makes every rate
 * change a flushing seek, each a stall of the picture, and a stream of
 * them could crash its renderer; a pause, a wait and a play cost none. */
export function followStep(state: FollowState): FollowStep {
  const { videoTime, videoPaused, target, playing, drift } = state;
  const frame = 1 / (state.frameRate > 0 ? state.frameRate : FALLBACK_FPS);
  const jump = { seekTo: target + state.jumpMargin, play: false };
  if (!playing) return { seekTo: Math.abs(videoTime - target) > frame / 2 ? target : null, play: false };
  // Left far behind by the playhead, or further ahead than any jump lands
  // (the playhead moved back): jump, playing or waiting.
  if (videoTime < target - JUMP_DRIFT || videoTime > target + state.jumpMargin + JUMP_DRIFT) return jump;
  if (videoPaused) return { seekTo: null, play: target + state.startLead >= videoTime };
  // Ahead by less than a jump would land: a wait does what the jump would, without the seek's stall.
  if (videoTime > target + JUMP_DRIFT) return { seekTo: null, play: false };
  if (drift !== null && drift < (state.jumpedThisPlayback ? -frame : -frame / 2)) return jump;
  return { seekTo: null, play: drift === null || drift <= frame / 2 };
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
  /** The timer that starts a waiting video on time (animation frames can
   * be far apart: a few a second in a loaded or hidden window). */
  private startTimer: ReturnType<typeof setTimeout> | null = null;
  /** The video's drift from the playhead, averaged over the frames it has played since it last started. */
  private drift = 0;
  private driftFrames = 0;
  /** Whether the video started since its drift last settled (its start-up is then learned from it). */
  private started = false;
  /** See {@link FollowState}: learned as the video plays. */
  private startLead = 0;
  private jumpMargin = MIN_JUMP_MARGIN;
  /** Whether the picture has jumped since the engine started playing. */
  private jumpedThisPlayback = false;
  /** When the jump in flight was asked (`now()`), or null. */
  private jumpAt: number | null = null;
  /** Bumped by each load: an older answer arriving later is dropped. */
  private generation = 0;
  private disposed = false;
  /** The playhead's timecode over the picture, at this rate, when asked for. */
  private timecodeRate: FrameRate | null = null;
  private readonly timecode: HTMLElement;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.video = el("video", { id: "picture", muted: "", playsinline: "", preload: "auto", "aria-label": "Picture" });
    this.video.muted = true;
    this.video.defaultMuted = true;
    this.video.addEventListener("loadeddata", () => {
      if (this.source) this.show("ready", this.summary());
    });
    this.video.addEventListener("error", () => this.failed());
    this.video.addEventListener("seeked", () => this.seeked());
    this.statusHost = el("div", { class: "picture-status" });
    this.timecode = el("div", { class: "picture-timecode", id: "picture-timecode", "aria-hidden": "true" });
    this.timecode.hidden = true;
    const frame = el("div", { class: "picture-frame" }, this.video, this.timecode);
    this.element = el("section", { class: "picture-pane", id: "picture-pane" }, frame, this.statusHost);
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

  /** Shows the playhead's timecode over the picture at `rate` (null: none). */
  setTimecode(rate: FrameRate | null): void {
    this.timecodeRate = rate;
    this.timecode.hidden = rate === null;
    this.showTimecode(this.report.position);
  }

  private showTimecode(seconds: number): void {
    if (this.timecodeRate !== null) this.timecode.textContent = formatTimecode(seconds, this.timecodeRate);
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
    this.cancelStart();
  }

  private cancelStart(): void {
    if (this.startTimer !== null) clearTimeout(this.startTimer);
    this.startTimer = null;
  }

  /** The timed start of a waiting video: one step outside the frame loop. */
  private readonly startOnTime = (): void => {
    this.startTimer = null;
    if (this.source && !this.disposed) this.step(this.source);
  };

  private readonly tick = (): void => {
    this.frame = null;
    if (!this.source || this.disposed) return;
    this.step(this.source);
    this.startLoop();
  };

  /** One frame: the playhead (within the video), written to
   * `data-target` (and when, to `data-target-at`), and the video
   * corrected towards it. */
  private step(source: PictureSource): void {
    const video = this.video;
    const fps = source.info.frameRate > 0 ? source.info.frameRate : FALLBACK_FPS;
    const end = Number.isFinite(video.duration) && video.duration > 0 ? video.duration : source.info.durationS > 0 ? source.info.durationS : Infinity;
    const now = this.now();
    const target = Math.min(playheadAt(this.report, now), end);
    video.dataset.target = target.toFixed(3);
    video.dataset.targetAt = now.toFixed(1);
    this.showTimecode(target);
    if (video.readyState < HAVE_METADATA || video.seeking || video.error) return;
    // At the video's end it stays on its last frame (playing an ended video starts it again).
    const playing = this.report.playing && target < end - 0.5 / fps;
    const settled = this.settle(video, target, playing);
    const step = followStep({
      videoTime: video.currentTime,
      videoPaused: video.paused,
      target,
      playing,
      frameRate: fps,
      drift: settled,
      startLead: this.startLead,
      jumpMargin: this.jumpMargin,
      jumpedThisPlayback: this.jumpedThisPlayback,
    });
    this.jumpedThisPlayback = playing && (this.jumpedThisPlayback || step.seekTo !== null);
    if (step.seekTo !== null) {
      this.jumpAt = playing ? now : null;
      video.currentTime = step.seekTo;
    }
    if (step.play && video.paused) {
      this.started = true;
      video.play()?.catch(() => {});
    } else if (!step.play && !video.paused) video.pause();
    // Waiting for the playhead: a timer starts the video when it is due,
    // so the start does not wait for the next animation frame.
    this.cancelStart();
    if (playing && step.seekTo === null && !step.play && video.paused) {
      const due = video.currentTime - this.startLead - target;
      if (due > 0 && due < JUMP_DRIFT + this.jumpMargin) this.startTimer = setTimeout(this.startOnTime, 1000 * due);
    }
  }

  /** Takes this frame's drift into the average; returns the average once
   * it has settled (else null). The first settled average after a start
   * is how late (or early) that start was, and corrects the next. */
  private settle(video: HTMLVideoElement, target: number, playing: boolean): number | null {
    if (!playing || video.paused) {
      this.driftFrames = 0;
      return null;
    }
    const drift = video.currentTime - target;
    this.drift = this.driftFrames === 0 ? drift : this.drift + DRIFT_SMOOTHING * (drift - this.drift);
    this.driftFrames += 1;
    if (this.driftFrames < SETTLE_FRAMES) return null;
    if (this.started) {
      this.started = false;
      this.startLead = Math.min(Math.max(this.startLead - this.drift, 0), MAX_START_LEAD);
    }
    return this.drift;
  }

  /** A seek landed: a jump made while playing tells how long jumps take. */
  private seeked(): void {
    if (this.jumpAt !== null) this.jumpMargin = Math.max(MIN_JUMP_MARGIN, (2 * (this.now() - this.jumpAt)) / 1000);
    this.jumpAt = null;
  }
}
