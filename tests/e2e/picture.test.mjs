// End to end: a project's picture in the real app window. A video is
// attached from the editor (its audio becomes the original dialogue); the
// picture loads in the web view; a click on the timeline's ruler moves the
// picture to that frame; and while the engine plays (its null device held
// to real time), with the original heard under the dub, the picture
// follows its playhead. The drift between the picture and the playhead is
// measured over 30 s of playback and printed. Then a second bed stem is
// added in the music-and-effects dialog. A screenshot goes to
// target/e2e-picture.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { startTauriDriver, openApp, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
const app = process.env.REVOICE_APP ?? join(root, "target/debug/revoice-studio");
const installed = process.env.REVOICE_TEST_DATA_DIR ?? join(root, "target/test-data");
const FPS = 25;

let driver;
let session;
let dataDir;

/** Starts the app on a fresh data folder (the installed models linked in). */
async function openStudio() {
  dataDir = mkdtempSync(join(tmpdir(), "revoice-e2e-picture-"));
  symlinkSync(join(installed, "models"), join(dataDir, "models"));
  session = await openApp(driver.url, app, ["--data-dir", dataDir]);
}

/** Ends the app and removes its data folder. */
async function closeStudio() {
  if (session) await session.close().catch(() => {});
  session = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

before(async () => {
  assert.ok(process.env.DISPLAY, "the end-to-end test needs a display (run it through scripts/test)");
  assert.ok(existsSync(join(installed, "models")), `the models are not installed in ${installed} (run scripts/test)`);
  driver = await startTauriDriver();
  await openStudio();
});

after(async () => {
  await closeStudio();
  driver?.stop();
});

/** The picture's time, the playhead it follows, and its state, read at
 * one moment. The pane writes the playhead once per animation frame (a
 * few a second under Xvfb); a playing picture's playhead is carried on
 * to the moment of reading. */
async function picture() {
  return session.execute(
    "const v = document.querySelector('#picture'); if (!v) return null; const since = v.paused ? 0 : (performance.now() - Number(v.dataset.targetAt)) / 1000; return [v.currentTime, Number(v.dataset.target) + since, v.dataset.state, v.paused];",
  );
}

// WebKitGTK 2.50's web process, painting through Skia on Mesa's software
// GL (Xvfb has no GPU), now and then dies while the video plays: SIGILL
// on a release assertion, on one of its run-loop threads, in what the
// disassembly shows as Skia's GPU resource bookkeeping. Two core dumps of
// this test (7 s and 25 s into playback) crashed at the same address; 2
// crashes in 26 runs here, none in 15 with WEBKIT_SKIA_ENABLE_CPU_RENDERING=1.
// The studio logs the crash and reloads the editor, but WebDriver drops
// the session ("page crash"), or, when a script was running as the page
// died, answers it with "Could not parse script result" (seen once, with
// the studio's crash log line beside it). The crash is WebKit's, not the
// follower's, so the measurement runs once more in a fresh window; a
// second crash fails.
test("the picture lands on the frame a seek asks for and stays in sync while the dub plays", async () => {
  try {
    await pictureFollowsThePlayhead();
  } catch (e) {
    if (!/page crash|Could not parse script result/.test(e.message)) throw e;
    console.log(`WebKit's renderer crashed during the picture test (${e.message}); measuring again in a fresh window`);
    await closeStudio();
    await openStudio();
    await pictureFollowsThePlayhead();
  }
});

/** The test's body, on the open session. */
async function pictureFollowsThePlayhead() {
  // 45 s of a moving test card with its sound, H.264 and AAC at 25 fps, as a camera file would be.
  const video = join(dataDir, "card.mp4");
  execFileSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", `testsrc2=size=320x240:rate=${FPS}`, "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000",
    "-t", "45", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", String(FPS), "-c:a", "aac", video]);
  const script = join(dataDir, "card.srt");
  writeFileSync(script, "1\n00:00:00,500 --> 00:00:02,000\n[Ana] The card is up.\n\n2\n00:00:40,000 --> 00:00:42,000\n[Ana] And it ends.\n");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"), 60000);
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Card");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Card");

  await session.click("#attach-video");
  await session.type("#attach-video-path", video);
  await session.click("#run-attach-video");
  await waitFor("the picture to load", async () => ((await picture())?.[2] === "ready" ? true : null), 60000, 200);
  await session.execute("document.querySelector('.dialog')?.remove();");

  // A click on the ruler: the picture moves to that time, within a frame.
  const rect = await session.execute("const r = document.querySelector('.editor-timeline canvas').getBoundingClientRect(); return [r.left, r.top, r.width];");
  const [x, y] = [Math.round(rect[0] + rect[2] * 0.55), Math.round(rect[1] + 12)];
  await session.cmd("POST", "/actions", {
    actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", origin: "viewport", x, y }, { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 }] }],
  });
  await session.cmd("DELETE", "/actions");
  const landed = await waitFor("the picture to land on the seek", async () => {
    const [time, target] = await picture();
    return target > 1 && Math.abs(time - target) <= 1 / FPS ? [time, target] : null;
  }, 20000, 100);
  console.log(`seek to ${landed[1].toFixed(3)} s: the picture shows ${landed[0].toFixed(3)} s (${(1000 * (landed[0] - landed[1])).toFixed(1)} ms off)`);

  // The original dialogue (the video's sound) is heard under the dub.
  await session.execute("const s = document.querySelector('#original-monitor'); s.value = 'under'; s.dispatchEvent(new Event('change'));");
  await waitFor("the original's level", async () => ((await session.execute("return !!document.querySelector('#original-level');")) ? true : null), 10000, 100);

  // Play from the start; sample the picture against the playhead for 30 s.
  await session.press("j"); // back 5 s
  await session.execute("document.querySelector('#play-pause').click();");
  await waitFor("playback to start", async () => ((await picture())?.[3] === false ? true : null), 20000, 100);
  await new Promise((r) => setTimeout(r, 1000)); // the first second lets the picture catch up
  // From here on, every correction the picture makes is counted: a jump (a seek), a wait (a pause), a change of rate.
  await session.execute(
    "const v = document.querySelector('#picture'); window.__corrections = { seeks: 0, pauses: 0, rates: 0 }; for (const [event, key] of [['seeking', 'seeks'], ['pause', 'pauses'], ['ratechange', 'rates']]) v.addEventListener(event, () => window.__corrections[key]++);",
  );
  const drifts = [];
  const frames = [];
  const started = Date.now();
  while (Date.now() - started < 30000) {
    const [time, target, , paused] = await picture();
    if (!paused) {
      drifts.push(time - target);
      // The frame on screen against the playhead's frame (a shown frame's time is its start).
      frames.push(Math.floor(time * FPS + 1e-3) - Math.floor(target * FPS + 1e-3));
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const corrections = await session.execute("return window.__corrections;");
  await session.execute("document.querySelector('#play-pause').click();");
  mkdirSync(join(root, "target"), { recursive: true });
  writeFileSync(join(root, "target/e2e-picture.png"), await session.screenshot());
  const abs = drifts.map(Math.abs).sort((a, b) => a - b);
  const at = (q) => abs[Math.min(abs.length - 1, Math.floor(q * abs.length))];
  const mean = drifts.reduce((a, b) => a + b, 0) / drifts.length;
  console.log(
    `picture drift over 30 s of playback (${drifts.length} samples): median ${(1000 * at(0.5)).toFixed(1)} ms, p95 ${(1000 * at(0.95)).toFixed(1)} ms, max ${(1000 * abs[abs.length - 1]).toFixed(1)} ms, mean signed ${(1000 * mean).toFixed(1)} ms (a frame is ${1000 / FPS} ms)`,
  );
  const onFrame = frames.filter((f) => f === 0).length / frames.length;
  const withinOne = frames.filter((f) => Math.abs(f) <= 1).length / frames.length;
  console.log(`the playhead's own frame on screen in ${(100 * onFrame).toFixed(0)} % of samples, within one frame in ${(100 * withinOne).toFixed(0)} %`);
  console.log(`corrections over 30 s: ${corrections.seeks} jumps, ${corrections.pauses} waits, ${corrections.rates} rate changes`);
  assert.ok(drifts.length > 50, `the picture played: ${drifts.length} samples`);
  // Each jump stalls the picture, and a rate change is a seek inside the web view's player: a steady picture needs few of either.
  assert.equal(corrections.rates, 0, "the picture never changes its rate");
  // On an idle machine it makes 0 or 1. A loaded one (CI's two cores)
  // slows the engine's clock and the window's frames, and the picture
  // waits and jumps now and then: up to 8 jumps in 30 s were measured with
  // one core kept busy (0 to 3 with the current follower). A picture that
  // fights the playhead jumps every few frames (about 100 in 30 s); one
  // jump in 2.5 s is still far from that.
  assert.ok(corrections.seeks <= 12, `the picture jumps rarely once it has caught up: ${corrections.seeks} jumps in 30 s`);

  // Music and effects: a second stem, that does not duck, added in the dialog.
  const effects = join(dataDir, "rain.wav");
  execFileSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.05:sample_rate=24000", "-t", "20", effects]);
  await session.click("#open-beds");
  await session.type("#bed-add-path", effects);
  await session.execute("const c = document.querySelector('#bed-add-ducked'); if (c.checked) c.click();");
  await session.click("#bed-add");
  await session.waitForText(".dialog", (t) => t.includes("rain.wav"));
  await waitFor("the header to count the stem", async () => (/\b1 stem\b/.test(await session.execute("return document.querySelector('#open-beds').title;")) ? true : null), 10000, 100);
  assert.ok(withinOne >= 0.5, `the picture keeps to the playhead within a frame most of the time: ${withinOne}`);
}
