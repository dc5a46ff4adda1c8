// End to end: the real desktop app in a real window (Xvfb), driven through
// tauri-driver and WebKitWebDriver. Needs DISPLAY and a built app; the
// README's test command provides both.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTauriDriver, openApp } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
const app = process.env.REVOICE_APP ?? join(root, "target/debug/revoice-studio");
const cargoVersion = readFileSync(join(root, "Cargo.toml"), "utf8").match(/^version = "([^"]+)"/m)[1];

let driver;
let session;
let dataDir;

before(async () => {
  assert.ok(process.env.DISPLAY, "the end-to-end test needs a display (run it through scripts/test)");
  dataDir = mkdtempSync(join(tmpdir(), "revoice-e2e-"));
  driver = await startTauriDriver();
  session = await openApp(driver.url, app, ["--data-dir", dataDir]);
});

after(async (t) => {
  if (session) {
    try {
      mkdirSync(join(root, "target"), { recursive: true });
      writeFileSync(join(root, "target/e2e-last.png"), await session.screenshot());
    } catch {}
    await session.close();
  }
  driver?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("the window shows the engine report from Rust for the data folder it was given", async () => {
  const shown = await session.waitForText("#fact-data-dir", (t) => t.includes(dataDir));
  assert.match(shown, /Open folder/);
  assert.equal(await session.text("#fact-engine-version"), cargoVersion);
  assert.match(await session.text("#fact-sqlite-version"), /^3\.\d+\.\d+$/);
  assert.equal(await session.text("#status-engine"), `Engine ${cargoVersion}`);
  assert.equal(await session.text("#status-model"), "Kokoro-82M v1.0: not installed");
  const kokoro = await session.text('[data-check="Kokoro-82M v1.0"]');
  assert.match(kokoro, /^problem/i);
  assert.match(kokoro, /not installed/);
});

test("Check again asks the engine again and shows what changed on disk", async () => {
  // Put a complete model install into the data folder behind the app's back.
  const modelDir = join(dataDir, "models", "kokoro-82m-v1.0");
  mkdirSync(modelDir, { recursive: true });
  writeFileSync(join(modelDir, "weights.bin"), Buffer.alloc(2048, 7));
  writeFileSync(
    join(modelDir, "manifest.json"),
    JSON.stringify({ id: "kokoro-82m-v1.0", files: [{ path: "weights.bin", bytes: 2048, sha256: "" }] }),
  );

  await session.click("#check-again");
  const status = await session.waitForText("#status-model", (t) => t.includes("installed ("));
  assert.equal(status, "Kokoro-82M v1.0: installed (2.0 KiB)");
  assert.match(await session.text('[data-check="Kokoro-82M v1.0"]'), /^ok/i);
  assert.match(await session.text("#check-summary"), /problem|warning|All checks passed/);
});
