// End to end: the picture in a window of its own. A video is attached, the
// picture is sent to its own window from the editor's picture pane, and
// that window follows the transport as the pane does: a seek made in the
// editor (typed timecode) lands within a frame, play keeps it within a
// frame or two of the playhead, pause stops it on the playhead's frame.
// Closing the window (the editor's button) brings the picture back into the editor. Screenshots:
// target/e2e-picture-window.png (the window, timecode burned in) and
// target/e2e-picture-window-editor.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { startStudio, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
const FPS = 25;
let studio;
let session;
let dataDir;

before(async () => {
  studio = await startStudio("picture-window", root);
  ({ session, dataDir } = studio);
});

after(async () => {
  await studio?.close();
});

/** The picture's time, the playhead it follows (carried on to the moment
 * of reading while it plays), its state and whether it is paused. */
const picture = () =>
  session.execute(
    "const v = document.querySelector('#picture'); if (!v) return null; const since = v.paused ? 0 : (performance.now() - Number(v.dataset.targetAt)) / 1000; return [v.currentTime, Number(v.dataset.target) + since, v.dataset.state, v.paused];",
  );

const handles = () => session.cmd("GET", "/window/handles");
const switchTo = (handle) => session.cmd("POST", "/window", { handle });

test("the picture detached to its own window follows seek, play and pause within a frame", async () => {
  const video = join(dataDir, "card.mp4");
  execFileSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", `testsrc2=size=320x240:rate=${FPS}`, "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000",
    "-t", "30", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", String(FPS), "-c:a", "aac", video]);
  const script = join(dataDir, "card.srt");
  writeFileSync(script, "1\n00:00:00,500 --> 00:00:02,000\n[Ana] The card is up.\n\n2\n00:00:25,000 --> 00:00:27,000\n[Ana] And it ends.\n");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"), 60000);
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Card");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Card");
  await session.click("#attach-video");
  await session.type("#attach-video-path", video);
  await session.click("#run-attach-video");
  await waitFor("the picture to load in its pane", async () => ((await picture())?.[2] === "ready" ? true : null), 60000, 200);
  await session.execute("document.querySelector('.dialog')?.remove();");

  // Timecode over the picture, then the picture to its own window.
  await session.click("#picture-timecode-toggle");
  const editor = await session.cmd("GET", "/window");
  await session.click("#picture-detach");
  await waitFor("the editor to say the picture is in its own window", async () => ((await session.execute("return !!document.querySelector('#picture-in-window') && !document.querySelector('#picture');")) ? true : null), 20000, 100);
  const own = await waitFor("a second window", async () => (await handles()).find((h) => h !== editor) ?? null, 20000, 200);
  await switchTo(own);
  await waitFor("the picture to load in its window", async () => ((await picture())?.[2] === "ready" ? true : null), 60000, 200);
  const page = await session.execute("return [location.pathname, document.title, document.querySelector('#picture-timecode')?.hidden];");
  assert.match(page[0], /picture\.html$/);
  assert.equal(page[2], false, "the timecode is burned in over the picture, as asked in the editor");

  // A seek typed in the editor: the window's picture lands on it within a frame.
  await switchTo(editor);
  await session.execute("const p = document.querySelector('#position'); p.focus(); p.textContent = '00:00:12:10'; p.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));");
  await switchTo(own);
  const landed = await waitFor("the window's picture to land on the seek", async () => {
    const [time, target] = await picture();
    return Math.abs(target - 12.4) < 1e-3 && Math.abs(time - target) <= 1 / FPS ? [time, target] : null;
  }, 20000, 100);
  console.log(`seek to 00:00:12:10: the window shows ${landed[0].toFixed(3)} s (${(1000 * (landed[0] - landed[1])).toFixed(1)} ms off)`);
  const timecode = await session.execute("return document.querySelector('#picture-timecode').textContent;");
  assert.equal(timecode, "00:00:12:10", "the burned-in timecode reads the playhead");

  // Play: the window's picture follows the engine's playhead.
  await switchTo(editor);
  await session.execute("document.querySelector('#play-pause').click();");
  await switchTo(own);
  await waitFor("the window's picture to play", async () => ((await picture())?.[3] === false ? true : null), 20000, 100);
  await new Promise((r) => setTimeout(r, 1000));
  const drifts = [];
  const started = Date.now();
  while (Date.now() - started < 6000) {
    const [time, target, , paused] = await picture();
    if (!paused) drifts.push(time - target);
    await new Promise((r) => setTimeout(r, 200));
  }
  const abs = drifts.map(Math.abs).sort((a, b) => a - b);
  const median = abs[Math.floor(abs.length / 2)];
  console.log(`the window's picture over 6 s of playback (${drifts.length} samples): median drift ${(1000 * median).toFixed(1)} ms, max ${(1000 * abs[abs.length - 1]).toFixed(1)} ms`);
  assert.ok(drifts.length > 10, `the picture played in its window: ${drifts.length} samples`);
  assert.ok(median <= 2 / FPS, `the window's picture follows the playhead: median drift ${(1000 * median).toFixed(1)} ms`);
  mkdirSync(join(root, "target"), { recursive: true });
  writeFileSync(join(root, "target/e2e-picture-window.png"), await session.screenshot());

  // Pause: the picture stops on the playhead's frame.
  await switchTo(editor);
  await session.execute("document.querySelector('#play-pause').click();");
  await switchTo(own);
  const still = await waitFor("the window's picture to stop on the playhead", async () => {
    const [time, target, , paused] = await picture();
    return paused && Math.abs(time - target) <= 1 / FPS ? [time, target] : null;
  }, 20000, 100);
  console.log(`paused at ${still[1].toFixed(3)} s: the window shows ${still[0].toFixed(3)} s`);

  // Closing the window (the editor's button) brings the picture back into the editor.
  await switchTo(editor);
  await session.click("#picture-detach");
  await waitFor("the picture back in the editor", async () => ((await picture())?.[2] === "ready" ? true : null), 30000, 200);
  writeFileSync(join(root, "target/e2e-picture-window-editor.png"), await session.screenshot());
});
