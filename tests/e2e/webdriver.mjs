// A small W3C WebDriver client over fetch, enough to drive the studio's
// window through tauri-driver: sessions, elements, clicks, text, screenshots.
// Closing a session also ends the app it started, should the app outlive
// the session (busy with background work, it can): a leftover app would
// hold the test runner's output open, and CI would wait on it.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** A free TCP port on loopback. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor(what, probe, timeoutMs = 20000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${lastError.message}` : ""}`);
}

/** Starts tauri-driver (with WebKitWebDriver underneath) on a free port. */
export async function startTauriDriver({ driver = "tauri-driver", nativeDriver = "/usr/bin/WebKitWebDriver" } = {}) {
  const port = await freePort();
  const nativePort = await freePort();
  const child = spawn(
    driver,
    ["--port", String(port), "--native-port", String(nativePort), "--native-driver", nativeDriver],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor("tauri-driver to listen", async () => (await fetch(`${url}/status`)).ok, 30000, 200);
  return { url, stop: () => child.kill("SIGTERM") };
}

async function call(url, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    const v = json.value ?? {};
    throw new Error(`${method} ${path}: ${res.status} ${v.error ?? ""} ${v.message ?? ""}`.trim());
  }
  return json.value;
}

/** Opens the app at `application` with `args` and returns a session. */
export async function openApp(driverUrl, application, args = []) {
  const value = await call(driverUrl, "POST", "/session", {
    capabilities: { alwaysMatch: { "tauri:options": { application, args } } },
  });
  return new Session(driverUrl, value.sessionId, [application, ...args]);
}

/** Pids of processes running `command`: its program, with its arguments among theirs. */
function processesRunning([program, ...args]) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (argv[0] === program && args.every((a) => argv.includes(a))) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

export class Session {
  constructor(url, id, command = []) {
    this.url = url;
    this.id = id;
    this.command = command;
  }

  cmd(method, path, body) {
    return call(this.url, method, `/session/${this.id}${path}`, body);
  }

  async find(css) {
    const value = await this.cmd("POST", "/element", { using: "css selector", value: css });
    return value[ELEMENT];
  }

  /** Text of the first element matching `css`. */
  async text(css) {
    return this.cmd("GET", `/element/${await this.find(css)}/text`);
  }

  /** Waits until the element matching `css` exists and its text passes `accept`. */
  async waitForText(css, accept, timeoutMs = 20000) {
    return waitFor(`${css} to show the expected text`, async () => {
      const text = await this.text(css);
      return accept(text) ? text : null;
    }, timeoutMs);
  }

  async click(css) {
    await this.cmd("POST", `/element/${await this.find(css)}/click`, {});
  }

  /** Clears the field matching `css` and types `text` into it. */
  async type(css, text) {
    const element = await this.find(css);
    await this.cmd("POST", `/element/${element}/clear`, {});
    await this.cmd("POST", `/element/${element}/value`, { text });
  }

  /** Runs `script` (a function body; `arguments` holds `args`) in the page. */
  async execute(script, args = []) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  /** Calls the app's command `command` in the page, as the window does;
   * a refusal comes back as `{ error }` with its message. */
  async invoke(command, args = {}) {
    await this.cmd("POST", "/timeouts", { script: 60000 });
    return this.cmd("POST", "/execute/async", {
      script:
        "const done = arguments[arguments.length - 1]; window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then(done, (e) => done({ error: String(e?.message ?? JSON.stringify(e)) }));",
      args: [command, args],
    });
  }

  /** Presses `key` (a KeyboardEvent key such as "ArrowRight") on the page. */
  async press(key, modifiers = {}) {
    await this.execute("document.dispatchEvent(new KeyboardEvent('keydown', Object.assign({ key: arguments[0], bubbles: true }, arguments[1])));", [key, modifiers]);
  }

  /** A PNG of the window, as bytes. */
  async screenshot() {
    return Buffer.from(await this.cmd("GET", "/screenshot"), "base64");
  }

  /** Ends the session, then the app if it is still running two seconds later. */
  async close() {
    await this.cmd("DELETE", "").catch(() => {});
    if (!this.command.length) return;
    const deadline = Date.now() + 2000;
    while (processesRunning(this.command).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const pid of processesRunning(this.command)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
}

/** The app on a fresh data folder (named `revoice-e2e-NAME-…`, the
 * installed models linked in, and `config` as its `config.toml` when
 * given), driven through its own tauri-driver. Returns the session, the
 * folder and `close()`, which ends both and removes the folder. Refuses
 * without a display or installed models. */
export async function startStudio(name, root, { config } = {}) {
  const { mkdtempSync, rmSync, symlinkSync, existsSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const app = process.env.REVOICE_APP ?? join(root, "target/debug/revoice-studio");
  const installed = process.env.REVOICE_TEST_DATA_DIR ?? join(root, "target/test-data");
  if (!process.env.DISPLAY) throw new Error("the end-to-end test needs a display (run it through scripts/test)");
  if (!existsSync(join(installed, "models"))) throw new Error(`the models are not installed in ${installed} (run scripts/test)`);
  const dataDir = mkdtempSync(join(tmpdir(), `revoice-e2e-${name}-`));
  symlinkSync(join(installed, "models"), join(dataDir, "models"));
  if (config) writeFileSync(join(dataDir, "config.toml"), config);
  const driver = await startTauriDriver();
  const session = await openApp(driver.url, app, ["--data-dir", dataDir]);
  return {
    session,
    dataDir,
    async close() {
      await session.close().catch(() => {});
      driver.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
