// @vitest-environment happy-dom
// The picture's rules (the correction each frame, the playhead between the
// engine's reports, the type asked of the webview) and its pane in a DOM,
// with the engine replaced by a stand-in.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PictureSource, VideoInfo } from "../engine";
import type { FollowState } from "./picture";

const engine = vi.hoisted(() => ({ answers: [] as (() => Promise<unknown>)[] }));
vi.mock("../engine", () => ({
  pictureSource: vi.fn(() => (engine.answers.shift() ?? (async () => null))()),
}));

const { followStep, mediaType, playheadAt, PicturePane } = await import("./picture");
const api = await import("../engine");

const info: VideoInfo = { container: "mov,mp4,m4a,3gp,3g2,mj2", codec: "h264", width: 1920, height: 1080, frameRate: 25, durationS: 60, audio: [] };
const source = (over: Partial<PictureSource> = {}): PictureSource => ({ url: "http://127.0.0.1:4000/picture/a.mp4", info, proxy: false, ...over });

describe("followStep", () => {
  const at = (over: Partial<FollowState>): FollowState => ({
    videoTime: 10,
    videoPaused: false,
    target: 10,
    playing: true,
    frameRate: 25,
    drift: 0,
    startLead: 0,
    jumpMargin: 0.3,
    jumpedThisPlayback: false,
    ...over,
  });

  it("paused: seeks to the playhead when more than half a frame off, and stays paused", () => {
    expect(followStep(at({ playing: false, videoPaused: true, target: 10.019 }))).toEqual({ seekTo: null, play: false });
    expect(followStep(at({ playing: false, videoPaused: true, target: 10.021 }))).toEqual({ seekTo: 10.021, play: false });
    expect(followStep(at({ playing: false, videoPaused: false, target: 3, videoTime: 12 }))).toEqual({ seekTo: 3, play: false });
  });

  it("playing: plays on while its averaged drift is within half a frame, or not yet settled", () => {
    expect(followStep(at({ drift: 0.019 }))).toEqual({ seekTo: null, play: true });
    expect(followStep(at({ drift: -0.019 }))).toEqual({ seekTo: null, play: true });
    // One frame's drift does not count: only the average does.
    expect(followStep(at({ target: 10.15, drift: 0 }))).toEqual({ seekTo: null, play: true });
    expect(followStep(at({ target: 10.15, drift: null }))).toEqual({ seekTo: null, play: true });
  });

  it("playing: a video ahead pauses and waits; one behind jumps ahead, paused", () => {
    expect(followStep(at({ drift: 0.021 }))).toEqual({ seekTo: null, play: false });
    const behind = followStep(at({ drift: -0.021, target: 10.05 }));
    expect(behind.play).toBe(false);
    expect(behind.seekTo).toBeCloseTo(10.35, 9);
  });

  it("playing: after the playback's first jump, a video behind jumps only past a frame", () => {
    expect(followStep(at({ drift: -0.039, jumpedThisPlayback: true }))).toEqual({ seekTo: null, play: true });
    expect(followStep(at({ drift: -0.041, jumpedThisPlayback: true })).seekTo).toBeCloseTo(10.3, 9);
    // Ahead, the limit stays half a frame.
    expect(followStep(at({ drift: 0.021, jumpedThisPlayback: true }))).toEqual({ seekTo: null, play: false });
  });

  it("playing: a video far behind, or further ahead than a jump lands, jumps at once; one a little further ahead waits", () => {
    expect(followStep(at({ target: 12, drift: null }))).toEqual({ seekTo: 12.3, play: false });
    expect(followStep(at({ target: 9, drift: null, jumpMargin: 0.5 }))).toEqual({ seekTo: 9.5, play: false });
    // Ahead by less than a jump would land (a playhead whose clock runs slow): it waits, it does not seek.
    expect(followStep(at({ target: 9.7, drift: 0 }))).toEqual({ seekTo: null, play: false });
    expect(followStep(at({ target: 9.5, drift: null, jumpMargin: 0.3 }))).toEqual({ seekTo: null, play: false });
  });

  it("playing: a waiting video starts when the playhead is within its start-up time of it", () => {
    expect(followStep(at({ videoPaused: true, videoTime: 10.3, target: 10.2 }))).toEqual({ seekTo: null, play: false });
    expect(followStep(at({ videoPaused: true, videoTime: 10.3, target: 10.2, startLead: 0.15 }))).toEqual({ seekTo: null, play: true });
    expect(followStep(at({ videoPaused: true, videoTime: 10.3, target: 10.3 }))).toEqual({ seekTo: null, play: true });
    // The playhead moved back while the video waited: it does not wait for it, it jumps.
    const back = followStep(at({ videoPaused: true, videoTime: 14, target: 10 }));
    expect(back.play).toBe(false);
    expect(back.seekTo).toBeCloseTo(10.3, 9);
    // A waiting video the playhead has just passed (its start came late) starts at once;
    // one the playhead left far behind jumps ahead of it first.
    expect(followStep(at({ videoPaused: true, videoTime: 10, target: 10.2 }))).toEqual({ seekTo: null, play: true });
    const passed = followStep(at({ videoPaused: true, videoTime: 10, target: 10.3 }));
    expect(passed.play).toBe(false);
    expect(passed.seekTo).toBeCloseTo(10.6, 9);
  });

  it("takes a missing frame rate as 25 fps", () => {
    expect(followStep(at({ playing: false, frameRate: 0, target: 10.019 })).seekTo).toBeNull();
    expect(followStep(at({ playing: false, frameRate: 0, target: 10.021 })).seekTo).toBe(10.021);
  });
});

describe("playheadAt", () => {
  const report = { position: 4, playing: true, length: 10, looping: null, at: 1000 };

  it("moves on from the last report while playing, and holds it while paused", () => {
    expect(playheadAt(report, 1000)).toBe(4);
    expect(playheadAt(report, 1250)).toBeCloseTo(4.25, 9);
    expect(playheadAt({ ...report, playing: false }, 5000)).toBe(4);
    // A clock that reads earlier than the report never moves it back.
    expect(playheadAt(report, 900)).toBe(4);
  });

  it("stops at the end, and at the loop's end while looping", () => {
    expect(playheadAt(report, 100_000)).toBe(10);
    expect(playheadAt({ ...report, looping: [2, 5] }, 3000)).toBe(5);
    expect(playheadAt({ ...report, looping: [2, 5] }, 1500)).toBeCloseTo(4.5, 9);
    // Past the loop (played from after it), only the length bounds it.
    expect(playheadAt({ ...report, position: 6, looping: [2, 5] }, 2000)).toBe(7);
  });
});

describe("mediaType", () => {
  it("names the container and codec the webview is asked about, or nothing it can be asked", () => {
    expect(mediaType(info)).toBe('video/mp4; codecs="avc1.42E01E"');
    expect(mediaType({ ...info, container: "matroska,webm", codec: "vp8" })).toBe('video/webm; codecs="vp8"');
    expect(mediaType({ ...info, container: "matroska,webm", codec: "h264" })).toBe('video/x-matroska; codecs="avc1.42E01E"');
    expect(mediaType({ ...info, codec: "prores" })).toBeNull();
    expect(mediaType({ ...info, container: "avi" })).toBeNull();
  });
});

describe("the picture pane", () => {
  let frames: (() => void)[] = [];
  let clock = 0;
  let playable = "probably";

  beforeEach(() => {
    frames = [];
    clock = 0;
    playable = "probably";
    engine.answers = [];
    vi.stubGlobal("requestAnimationFrame", (callback: () => void) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    vi.spyOn(HTMLMediaElement.prototype, "canPlayType").mockImplementation(() => playable as CanPlayTypeResult);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    vi.clearAllMocks();
  });

  function frame(): void {
    const now = frames;
    frames = [];
    for (const callback of now) callback();
  }

  /** A pane in the document, its video given a readiness, duration and clock the test controls. */
  function pane() {
    const p = new PicturePane(() => clock);
    document.body.replaceChildren(p.element);
    const video = p.video;
    const media = { readyState: 0, currentTime: 0, paused: true, duration: NaN, seeking: false, error: null as MediaError | null, seeks: 0 };
    Object.defineProperties(video, {
      readyState: { get: () => media.readyState },
      duration: { get: () => media.duration },
      seeking: { get: () => media.seeking },
      paused: { get: () => media.paused },
      error: { get: () => media.error },
      currentTime: { get: () => media.currentTime, set: (t: number) => ((media.currentTime = t), media.seeks++) },
    });
    video.play = vi.fn(async () => void (media.paused = false));
    video.pause = vi.fn(() => void (media.paused = true));
    return { p, video, media };
  }

  const status = () => document.querySelector("#picture-status")?.textContent;

  it("loads the source muted, says what it is, and follows the playhead each frame", async () => {
    engine.answers.push(async () => source());
    const { p, video, media } = pane();
    await p.load(7, "scene.mp4");
    expect(api.pictureSource).toHaveBeenCalledWith(7, false);
    expect(video.id).toBe("picture");
    expect(video.muted).toBe(true);
    expect(video.getAttribute("src")).toBe("http://127.0.0.1:4000/picture/a.mp4");
    expect(video.dataset.state).toBe("loading");
    expect(status()).toBe("Picture: scene.mp4 (h264 1920×1080, 25 fps)");
    media.readyState = 4;
    media.duration = 60;
    video.dispatchEvent(new Event("loadeddata"));
    expect(video.dataset.state).toBe("ready");

    // Nothing plays: a seek moves the paused picture.
    p.follow(12.5, false, 30);
    frame();
    expect(video.dataset.target).toBe("12.500");
    expect(media.currentTime).toBe(12.5);
    expect(media.paused).toBe(true);

    // Playing: the target moves on between reports, the video plays.
    clock = 1000;
    p.follow(12.5, true, 30);
    clock = 1010;
    frame();
    expect(video.dataset.target).toBe("12.510");
    expect(media.paused).toBe(false);
    expect(media.currentTime).toBe(12.5);

    // Paused again: the video pauses where the engine stopped.
    p.follow(13, false, 30);
    frame();
    expect(media.paused).toBe(true);
    expect(media.currentTime).toBe(13);
    expect(video.muted).toBe(true);

    // Disposed: the loop ends (no frame asks for another) and the video lets its file go.
    p.dispose();
    frame();
    expect(frames.length).toBe(0);
    expect(video.hasAttribute("src")).toBe(false);
  });

  it("playing, chases the playhead without a rate change: waits when ahead, jumps when behind, and learns its start-up", async () => {
    engine.answers.push(async () => source());
    const { p, video, media } = pane();
    await p.load(7, "scene.mp4");
    media.readyState = 4;
    media.duration = 60;
    clock = 0;
    p.follow(5, true, 60);
    /** Up to `frames` frames at 60 Hz; a playing video starts `startUp` frames after it is told, then keeps time. */
    let waitFrames = 0;
    const run = (frames: number, until: () => boolean, startUp = 0) => {
      for (let i = 0; i < frames && !until(); i++) {
        clock += 1000 / 60;
        if (!media.paused) {
          if (waitFrames > 0) waitFrames -= 1;
          else media.currentTime += 1 / 60;
        }
        const wasPaused = media.paused;
        frame();
        if (wasPaused && !media.paused) waitFrames = startUp;
      }
    };
    media.currentTime = 5;
    frame(); // starts the video where the playhead is
    expect(media.paused).toBe(false);

    // In step with the playhead: ten seconds without a seek or a pause.
    run(600, () => media.seeks > 0 || media.paused);
    expect(media.seeks).toBe(0);
    expect(media.paused).toBe(false);

    // A video that runs ahead (here, moved on by a frame and a half) pauses and waits for the playhead.
    media.currentTime += 0.06;
    run(60, () => media.paused);
    expect(media.paused).toBe(true);
    const waitingAt = media.currentTime;
    run(60, () => !media.paused);
    expect(media.paused).toBe(false);
    expect(Number(video.dataset.target)).toBeGreaterThanOrEqual(waitingAt - 1e-9);
    expect(media.seeks).toBe(0);

    // A video that falls behind jumps, paused, ahead of the playhead: the jump takes 0.2 s.
    media.currentTime -= 0.06;
    run(60, () => media.seeks > 0);
    expect(media.seeks).toBe(1);
    expect(media.paused).toBe(true);
    expect(media.currentTime - Number(video.dataset.target)).toBeCloseTo(0.3, 2);
    media.seeking = true;
    clock += 200;
    frame();
    media.seeking = false;
    video.dispatchEvent(new Event("seeked"));

    // It waits there and starts when the playhead reaches it; this start takes 6 frames (0.1 s),
    // which leaves the video behind once: the next start is that much earlier.
    run(60, () => !media.paused, 6);
    expect(media.paused).toBe(false);
    run(120, () => media.seeks > 1 || media.paused, 6);
    run(120, () => !media.paused, 6);
    run(120, () => false, 6);
    const drift = media.currentTime - Number(video.dataset.target);
    expect(Math.abs(drift)).toBeLessThanOrEqual(0.02);
    expect(video.playbackRate).toBe(1);
    expect(media.seeks).toBeLessThanOrEqual(2);

    // The jump took 0.2 s: the next lands twice that ahead of the playhead.
    const seeks = media.seeks;
    media.currentTime -= 0.5;
    run(5, () => media.seeks > seeks);
    expect(media.currentTime - Number(video.dataset.target)).toBeCloseTo(0.4, 2);
    p.dispose();
  });

  it("offers a proxy when the window cannot play the codec, and plays the proxy it makes", async () => {
    playable = "";
    let made!: (s: PictureSource) => void;
    engine.answers.push(async () => source({ info: { ...info, codec: "hevc" } }));
    engine.answers.push(() => new Promise((resolve) => (made = resolve)));
    const { p, video } = pane();
    await p.load(7, "scene.mp4");
    expect(status()).toBe("This window cannot play the picture's codec (hevc).");
    expect(video.dataset.state).toBe("error");
    expect(video.hasAttribute("src")).toBe(false);

    document.querySelector<HTMLButtonElement>("#picture-proxy")!.click();
    expect(api.pictureSource).toHaveBeenLastCalledWith(7, true);
    expect(status()).toBe("Making a proxy…");
    expect(video.dataset.state).toBe("loading");
    expect(document.querySelector("#picture-proxy")).toBeNull();
    made(source({ url: "http://127.0.0.1:4000/picture/p.webm", info: { ...info, codec: "hevc" }, proxy: true }));
    await new Promise((r) => setTimeout(r, 0));
    expect(video.getAttribute("src")).toBe("http://127.0.0.1:4000/picture/p.webm");
    expect(status()).toBe("Picture: scene.mp4 (hevc 1920×1080, 25 fps), as a playable proxy");
    p.dispose();
  });

  it("offers a proxy when the video reports a decode error, and shows the engine's refusal", async () => {
    engine.answers.push(async () => source({ info: { ...info, codec: "prores" } }));
    engine.answers.push(async () => Promise.reject("ffmpeg is not installed"));
    const { p, video, media } = pane();
    await p.load(7, "scene.mov");
    expect(video.dataset.state).toBe("loading");
    media.error = { code: 4, message: "no decoder" } as MediaError;
    video.dispatchEvent(new Event("error"));
    expect(status()).toBe("This window cannot play the picture's codec (prores).");
    expect(video.dataset.state).toBe("error");
    document.querySelector<HTMLButtonElement>("#picture-proxy")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(status()).toBe("The proxy could not be made: ffmpeg is not installed");
    expect(document.querySelector("#picture-proxy")).not.toBeNull();
    p.dispose();
  });
});
