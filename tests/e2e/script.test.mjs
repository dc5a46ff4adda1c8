// End to end: the script beside the timeline and clip editing, as a
// dubber works. A three-line scene of two speakers is rendered; a line is
// edited in place in the script (Enter saves), undone and redone; a row
// picked in the script selects the line on the timeline and the reverse;
// the script is filtered to the stale line; a line's out edge is trimmed
// and the line nudged by a frame from the keyboard; a lane is soloed in its
// header and the exported mix holds only its lines' sound. Screenshot:
// target/e2e-script.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { startStudio, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
let studio;
let session;
let dataDir;

before(async () => {
  studio = await startStudio("script", root);
  ({ session, dataDir } = studio);
  await session.cmd("POST", "/window/rect", { x: 0, y: 0, width: 1280, height: 720 });
});

after(async () => {
  await studio?.close();
});

/** The script's rows as drawn: [number, in, out, speaker, text, state] by segment id. */
const rows = () =>
  session.execute(
    "return [...document.querySelectorAll('.script-row')].map((r) => [Number(r.dataset.segmentId), ...['number', 'in', 'out', 'speaker', 'text', 'state'].map((c) => r.querySelector(`.script-${c}`)?.textContent.trim() ?? null)]);",
  );
const selectedRow = () => session.execute("return Number(document.querySelector('.script-row[aria-selected=\"true\"]')?.dataset.segmentId ?? 0);");
const rowText = (id) => session.execute("return document.querySelector(`.script-row[data-segment-id='${arguments[0]}'] .script-text`)?.textContent ?? null;", [id]);
const heading = () => session.execute("return document.querySelector('.inspector h2')?.textContent ?? '';");
const slot = () => session.execute("return document.querySelector('#line-slot')?.textContent ?? '';");

/** Reads a 24-bit (or 16-bit) PCM WAV's first channel as numbers in -1..1, with its rate. */
function readWav(path) {
  const bytes = readFileSync(path);
  let at = 12;
  let format = null;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString("ascii", at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === "fmt ") format = { channels: bytes.readUInt16LE(at + 10), rate: bytes.readUInt32LE(at + 12), bits: bytes.readUInt16LE(at + 22) };
    if (id === "data") {
      const width = format.bits / 8;
      const frames = Math.floor(size / (width * format.channels));
      const samples = new Float32Array(frames);
      for (let i = 0; i < frames; i++) {
        const o = at + 8 + i * width * format.channels;
        samples[i] = width === 3 ? bytes.readIntLE(o, 3) / 8388608 : bytes.readInt16LE(o) / 32768;
      }
      return { rate: format.rate, samples };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

const peak = ({ rate, samples }, from, to) => {
  let most = 0;
  for (let i = Math.floor(from * rate); i < Math.min(samples.length, Math.floor(to * rate)); i++) most = Math.max(most, Math.abs(samples[i]));
  return most;
};

test("the script edits, selects, filters; a clip is trimmed and nudged by a frame; a soloed lane alone is heard", async () => {
  const script = join(dataDir, "scene.srt");
  writeFileSync(
    script,
    "1\n00:00:01,000 --> 00:00:03,000\n[Ana] The tide is out.\n\n2\n00:00:04,000 --> 00:00:06,000\n[Ben] Then we walk across.\n\n3\n00:00:07,000 --> 00:00:09,000\n[Ana] Bring the lamp.\n",
  );
  await session.waitForText("#create-from-script", (t) => t.includes("New project"), 60000);
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Tide");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Tide");
  const drawn = await waitFor("the script's rows", async () => ((await rows()).length === 3 ? await rows() : null), 20000, 100);
  assert.deepEqual(
    drawn.map((r) => r.slice(1, 6)),
    [
      ["1", "00:00:01:00", "00:00:03:00", "Ana", "The tide is out."],
      ["2", "00:00:04:00", "00:00:06:00", "Ben", "Then we walk across."],
      ["3", "00:00:07:00", "00:00:09:00", "Ana", "Bring the lamp."],
    ],
  );
  const [first, second, third] = drawn.map((r) => r[0]);

  // Render the scene, so that an edit makes one line stale.
  await session.click("#render-project");
  await session.waitForText("#render-project", (t) => t === "All lines rendered", 300000);

  // A row picked in the script selects the line on the timeline (and the inspector shows it).
  await session.execute("document.querySelector(`.script-row[data-segment-id='${arguments[0]}'] .script-text`).click();", [second]);
  await waitFor("line 2 in the inspector", async () => ((await heading()) === "Line 2" ? true : null), 10000, 100);
  // The reverse: the timeline's next line (→) is selected in the script.
  await session.execute("document.activeElement?.blur();");
  await session.press("ArrowRight");
  await waitFor("the script to select line 3", async () => ((await selectedRow()) === third ? true : null), 10000, 100);
  assert.equal(await heading(), "Line 3");

  // Edit line 1 in place: double-click, type, Enter saves.
  await session.execute("document.querySelector(`.script-row[data-segment-id='${arguments[0]}'] .script-text`).dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));", [first]);
  await waitFor("the script's edit box", async () => ((await session.execute("return !!document.querySelector('#script-edit');")) ? true : null), 10000, 100);
  await session.execute(
    "const area = document.querySelector('#script-edit'); area.value = arguments[0]; area.dispatchEvent(new Event('input', { bubbles: true })); area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));",
    ["The tide is far out."],
  );
  await waitFor("the edit saved", async () => ((await rowText(first)) === "The tide is far out." && !(await session.execute("return !!document.querySelector('#script-edit');")) ? true : null), 10000, 100);
  await session.waitForText("#editor-status", (t) => t.includes("saved"));

  // Filter to the stale lines: only the edited one.
  await session.execute("const s = document.querySelector('#script-filter-state'); s.value = 'stale'; s.dispatchEvent(new Event('change'));");
  await waitFor("only the stale line", async () => {
    const shown = await rows();
    return shown.length === 1 && shown[0][0] === first ? true : null;
  }, 10000, 100);
  await session.execute("const s = document.querySelector('#script-filter-state'); s.value = 'all'; s.dispatchEvent(new Event('change'));");

  // Undo and redo the edit.
  await session.click("#undo");
  await waitFor("the edit undone", async () => ((await rowText(first)) === "The tide is out." ? true : null), 10000, 100);
  // The row can show the undo before the toolbar offers the redo; a click on a disabled button is lost.
  await waitFor("redo offered", async () => ((await session.execute("return !document.querySelector('#redo').disabled;")) ? true : null), 10000, 100);
  await session.click("#redo");
  await waitFor("the edit redone", async () => ((await rowText(first)) === "The tide is far out." ? true : null), 10000, 100);

  // Trim line 3's out edge by a frame (Ctrl+.), then nudge the line a frame later (.).
  await session.execute("document.activeElement?.blur();");
  await session.press(".", { code: "Period", ctrlKey: true });
  await waitFor("the out edge a frame later", async () => ((await slot()).includes("00:00:07:00–00:00:09:01") ? true : null), 10000, 100);
  await session.press(".", { code: "Period" });
  await waitFor("the line a frame later", async () => ((await slot()).includes("00:00:07:01–00:00:09:02") ? true : null), 10000, 100);
  await waitFor("the script to show the new slot", async () => {
    const moved = (await rows()).find((r) => r[0] === third);
    return moved[2] === "00:00:07:01" && moved[3] === "00:00:09:02" ? true : null;
  }, 5000, 50);

  // Solo Ana's lane (the S in its header; lanes are in project order, Ana first).
  await session.execute("document.activeElement?.blur();");
  const rect = await session.execute("const r = document.querySelector('.editor-timeline canvas').getBoundingClientRect(); return [r.left, r.top];");
  const [x, y] = [Math.round(rect[0] + 20), Math.round(rect[1] + 28 + 34 + 8)];
  await session.cmd("POST", "/actions", {
    actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", origin: "viewport", x, y }, { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 }] }],
  });
  await session.cmd("DELETE", "/actions");
  await session.waitForText("#editor-status", (t) => t.includes("Soloed Ana"));
  mkdirSync(join(root, "target"), { recursive: true });
  writeFileSync(join(root, "target/e2e-script.png"), await session.screenshot());

  // Render what the edits made stale, then export: the mix holds Ana's lines and not Ben's.
  await session.click("#render-project");
  await session.waitForText("#render-project", (t) => t === "All lines rendered", 300000);
  const out = join(dataDir, "export");
  mkdirSync(out);
  await session.click("#open-export");
  await session.type("#export-folder", out);
  await session.click("#run-export");
  await waitFor("the export", async () => ((await session.execute("return document.querySelectorAll('.export-files li').length;")) > 0 ? true : null), 120000, 200);
  const mix = readdirSync(out, { recursive: true }).map(String).find((f) => /\.wav$/.test(f) && !/stem|voice|bed|handoff/i.test(f));
  assert.ok(mix, `a mix among ${readdirSync(out, { recursive: true })}`);
  const wav = readWav(join(out, mix));
  const [ana, ben, anaAgain] = [peak(wav, 1, 3), peak(wav, 4, 6), peak(wav, 7, 9.2)];
  console.log(`exported mix with Ana soloed (${mix}): peak ${ana.toFixed(3)} in Ana's line 1, ${ben.toFixed(4)} in Ben's line 2, ${anaAgain.toFixed(3)} in Ana's line 3`);
  assert.ok(ana > 0.05 && anaAgain > 0.05, "Ana's lines are heard");
  assert.ok(ben < 1e-4, "Ben's lane is silent while Ana's is soloed");
});
