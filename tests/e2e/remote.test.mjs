// End to end: a remote engine in the real app window. A `revoice serve`
// process on loopback (its own data folder over the test install) is added
// as an engine in Settings; a speaker of a new project gets one of its
// voices from the voice picker (`fleet/af_bella`); the project renders,
// those lines through the server; and the render panel shows the server
// in rotation with the lines it rendered. A screenshot goes to
// target/e2e-remote.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { startTauriDriver, openApp, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
const app = process.env.REVOICE_APP ?? join(root, "target/debug/revoice-studio");
const cli = join(root, "target/debug/revoice");
const installed = process.env.REVOICE_TEST_DATA_DIR ?? join(root, "target/test-data");

let driver;
let session;
let dataDir;
let nodeDir;
let node;
let nodeUrl;

/** A `revoice serve` node on a free port; its URL once its model is loaded. */
async function startNode() {
  nodeDir = mkdtempSync(join(tmpdir(), "revoice-e2e-node-"));
  symlinkSync(join(installed, "models"), join(nodeDir, "models"));
  writeFileSync(join(nodeDir, "config.toml"), "[api]\nfit_uploaded_voices = false\n");
  node = spawn(cli, ["--data-dir", nodeDir, "serve", "--port", "0"], { stdio: ["ignore", "pipe", "ignore"] });
  const lines = createInterface({ input: node.stdout });
  const url = await new Promise((ok, fail) => {
    lines.on("line", (line) => {
      const at = line.indexOf("http://");
      if (at >= 0) ok(line.slice(at).trim());
    });
    node.on("exit", (code) => fail(new Error(`revoice serve stopped (${code}) before saying its address`)));
  });
  await waitFor("the node's model", async () => (await fetch(`${url}/health`).catch(() => ({ status: 0 }))).status === 200, 300000);
  return url;
}

before(async () => {
  assert.ok(process.env.DISPLAY, "the end-to-end test needs a display (run it through scripts/test)");
  assert.ok(existsSync(join(installed, "models")), `the models are not installed in ${installed} (run scripts/test)`);
  assert.ok(existsSync(cli), `${cli} is not built (run scripts/test)`);
  nodeUrl = await startNode();
  dataDir = mkdtempSync(join(tmpdir(), "revoice-e2e-remote-"));
  symlinkSync(join(installed, "models"), join(dataDir, "models"));
  driver = await startTauriDriver();
  session = await openApp(driver.url, app, ["--data-dir", dataDir]);
});

after(async () => {
  if (session) await session.close();
  driver?.stop();
  node?.kill("SIGKILL");
  for (const dir of [dataDir, nodeDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test("an engine added in Settings renders a speaker's lines, and the render panel shows its server", async () => {
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  await session.execute("document.querySelector('#tab-settings').click();");
  await session.type("#engine-name", "fleet");
  await session.type("#engine-urls", nodeUrl);
  await session.execute("document.querySelector('#engine-add').click();");
  await session.waitForText("#remote-engines", (t) => t.includes("fleet") && t.includes(nodeUrl));

  const script = join(dataDir, "harbour.srt");
  writeFileSync(script, "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Light the lamp.\n\n3\n00:00:05,500 --> 00:00:07,500\n[Ana] It is lit.\n");
  await session.execute("document.querySelector('#tab-projects').click();");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Harbour");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Harbour");

  // Ana's voice from the picker: a voice the engine has.
  const lineText = () => session.execute("return document.querySelector('#line-text')?.value ?? '';");
  await session.press("ArrowRight");
  await waitFor("Ana's line in the inspector", async () => (await lineText()) === "The boats are in.");
  await waitFor("the engine's voices in the picker", async () => session.execute("return !!document.querySelector('#speaker-voice option[value=\"fleet/af_bella\"]');"), 30000);
  assert.match(await session.execute("return document.querySelector('#speaker-voice option[value=\"fleet/af_bella\"]').textContent;"), /remote engine/);
  await session.execute("const s = document.querySelector('#speaker-voice'); s.value = 'fleet/af_bella'; s.dispatchEvent(new Event('change'));");
  await session.waitForText("#editor-status", (t) => t.includes("Ana now speaks with fleet/af_bella"));

  await session.click("#render-project");
  const rendered = await session.waitForText("#editor-status", (t) => t.startsWith("Rendered") || /error|failed/i.test(t), 600000);
  assert.equal(rendered, "Rendered 3 lines");
  const servers = await session.waitForText("#render-servers", (t) => t.includes(nodeUrl) && /\b2 lines\b/.test(t));
  assert.match(servers, /fleet/);
  assert.match(servers, /in rotation/);
  // The server rendered Ana's two lines (and nothing of Ben's, who speaks locally).
  const metrics = await (await fetch(`${nodeUrl}/metrics`)).text();
  assert.match(metrics, /revoice_api_requests_total\{route="speech(_batch)?"\} [1-9]/);
  mkdirSync(join(root, "target"), { recursive: true });
  writeFileSync(join(root, "target/e2e-remote.png"), await session.screenshot());
});
