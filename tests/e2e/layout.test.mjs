// End to end: the editor's layout holds with a picture attached, at
// 1280×720 and 1920×1080. The demo's lines are selected one by one and a
// line's timing is switched to strict slot and back: the timeline never
// falls below half of the window's width and nothing pushes it aside.
// Screenshots of the editor with its picture, timeline and inspector go to
// target/e2e-layout-WxH.png for a person to look at.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { startStudio, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
let studio;
let session;
let dataDir;

before(async () => {
  studio = await startStudio("layout", root);
  ({ session, dataDir } = studio);
});

after(async () => {
  await studio?.close();
});

/** The window's inner width and the timeline's and inspector's widths, px. */
const widths = () =>
  session.execute(
    "const w = (s) => document.querySelector(s)?.getBoundingClientRect().width ?? 0; return { window: window.innerWidth, timeline: w('.editor-timeline'), inspector: w('.inspector'), picture: w('.picture-column') };",
  );

test("with a picture attached the timeline keeps half the window as lines are selected and timings switched", async () => {
  const video = join(dataDir, "scene.mp4");
  execFileSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=220:sample_rate=48000", "-t", "20", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", video]);
  await session.waitForText("#open-demo", (t) => t.length > 0, 60000);
  await session.click("#open-demo");
  await session.waitForText("#project-name", (t) => t === "The lighthouse (demo)");
  await session.click("#attach-video");
  await session.type("#attach-video-path", video);
  await session.click("#run-attach-video");
  await waitFor("the picture pane", async () => ((await session.execute("return !!document.querySelector('#picture');")) ? true : null), 60000, 200);
  await session.execute("document.querySelector('.dialog')?.remove();");

  for (const [width, height] of [[1280, 720], [1920, 1080]]) {
    await session.cmd("POST", "/window/rect", { x: 0, y: 0, width, height });
    await waitFor(`the window at ${width}×${height}`, async () => ((await session.execute("return window.innerWidth;")) <= width ? true : null), 10000, 100);
    const lineText = () => session.execute("return document.querySelector('#line-text')?.value ?? '';");
    let narrowest = Infinity;
    // From no selection, line by line (the last press may find no line after it).
    await session.press("Escape");
    await waitFor("no line selected", async () => ((await lineText()) === "" ? true : null), 10000, 20);
    for (let i = 0; i < 32; i++) {
      const before = await lineText();
      await session.press("ArrowRight");
      await waitFor(`line ${i + 1} in the inspector`, async () => ((await lineText()) !== before ? true : null), 3000, 20).catch(() => assert.ok(before !== "", "a line is selected"));
      const w = await widths();
      narrowest = Math.min(narrowest, w.timeline / w.window);
      assert.ok(w.timeline >= w.window / 2 - 1, `line ${i + 1} at ${width}×${height}: the timeline is ${w.timeline} px of ${w.window}`);
      if (i === 2) {
        // Strict slot and back on the third line: a long fit readout must not push the timeline aside.
        for (const strategy of ["strict_slot", ""]) {
          await session.execute("const s = document.querySelector('#line-strategy'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));", [strategy]);
          await session.waitForText("#editor-status", (t) => t.includes("timing"));
          await waitFor("the inspector to show the timing", async () => ((await session.execute("return document.querySelector('#line-strategy').value;")) === strategy ? true : null), 10000, 50);
          await new Promise((r) => setTimeout(r, 300));
          const after = await widths();
          assert.ok(after.timeline >= after.window / 2 - 1, `timing ${strategy || "the project's"} at ${width}×${height}: ${JSON.stringify(after)}`);
        }
      }
    }
    console.log(`${width}×${height}: the timeline kept at least ${(100 * narrowest).toFixed(1)} % of the window over 32 selections`);
    mkdirSync(join(root, "target"), { recursive: true });
    writeFileSync(join(root, `target/e2e-layout-${width}x${height}.png`), await session.screenshot());
  }
});

test("the toolbar's controls keep their places while a render and playback start and stop", async () => {
  await session.cmd("POST", "/window/rect", { x: 0, y: 0, width: 1280, height: 720 });
  const boxes = () =>
    session.execute(
      "return ['#play-pause', '#project-strategy', '#undo', '#redo', '#open-export', '#render-project'].map((s) => { const r = document.querySelector(s).getBoundingClientRect(); return [s, Math.round(r.left), Math.round(r.top), Math.round(r.width)]; });",
    );
  await new Promise((r) => setTimeout(r, 500));
  const still = await boxes();
  await session.click("#render-project");
  await session.waitForText("#render-project", (t) => t.startsWith("Rendering"), 60000);
  assert.deepEqual(await boxes(), still, "a render started");
  await session.click("#play-pause");
  await session.waitForText("#play-pause", (t) => t.includes("Pause"), 30000);
  assert.deepEqual(await boxes(), still, "playback started while rendering");
  await session.click("#play-pause");
  await session.click("#cancel-render");
  await session.waitForText("#editor-status", (t) => t.startsWith("Rendered") || /cancel/i.test(t), 120000);
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(await boxes(), still, "the render and playback stopped");
  writeFileSync(join(root, "target/e2e-layout-after-render.png"), await session.screenshot());
});
