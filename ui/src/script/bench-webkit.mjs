// Runs a bench page in WebKitGTK (the engine the studio's window uses on
// Linux) through WebKitWebDriver and its MiniBrowser, for machines with no
// Chromium: opens the URL, calls window.scriptBench.measure(frames) and
// prints `SCRIPT_BENCH {json}`. Needs a display (bench-headless.sh wraps
// it in xvfb-run when there is none).
// Usage: node bench-webkit.mjs URL FRAMES [SCREENSHOT.png]
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";

const [url, frames = "600", screenshot] = process.argv.slice(2);
const driver = process.env.WEBKIT_DRIVER ?? "/usr/bin/WebKitWebDriver";
const browser =
  process.env.WEBKIT_BROWSER ??
  ["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser", "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser", "/usr/libexec/webkit2gtk-4.1/MiniBrowser"].find(existsSync);
if (!url || !existsSync(driver) || !browser) {
  console.error("needs a URL, WebKitWebDriver and MiniBrowser (set WEBKIT_DRIVER / WEBKIT_BROWSER)");
  process.exit(2);
}

const port = await new Promise((resolve, reject) => {
  const server = createServer();
  server.once("error", reject);
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const child = spawn(driver, [`--port=${port}`], { stdio: "ignore" });
const base = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(method, path, body) {
  const res = await fetch(base + path, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.value?.message ?? ""}`);
  return json.value;
}

let session = null;
let code = 0;
try {
  for (let i = 0; ; i++) {
    try {
      await call("GET", "/status");
      break;
    } catch (e) {
      if (i > 50) throw e;
      await sleep(200);
    }
  }
  const { sessionId } = await call("POST", "/session", {
    capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: browser, args: ["--automation"] } } },
  });
  session = sessionId;
  await call("POST", `/session/${session}/window/rect`, { width: 1600, height: 1000 }).catch(() => {});
  await call("POST", `/session/${session}/url`, { url });
  await call("POST", `/session/${session}/timeouts`, { script: 300_000 });
  for (let i = 0; !(await call("POST", `/session/${session}/execute/sync`, { script: "return Boolean(window.scriptBench)", args: [] })); i++) {
    if (i > 100) throw new Error("the page did not start");
    await sleep(100);
  }
  const stats = await call("POST", `/session/${session}/execute/async`, {
    script: "const done = arguments[arguments.length - 1]; window.scriptBench.measure(Number(arguments[0])).then((s) => done({ ok: s }), (e) => done({ error: String(e) }));",
    args: [Number(frames)],
  });
  if (stats.error) throw new Error(stats.error);
  const lines = new URL(url).searchParams.get("lines") ?? "2000";
  console.log(`SCRIPT_BENCH ${JSON.stringify({ lines: Number(lines), ...stats.ok, browser: "webkitgtk" })}`);
  if (screenshot) writeFileSync(screenshot, Buffer.from(await call("GET", `/session/${session}/screenshot`), "base64"));
} catch (e) {
  console.error(`the bench did not run in WebKit: ${e.message}`);
  code = 1;
} finally {
  if (session) await call("DELETE", `/session/${session}`).catch(() => {});
  child.kill("SIGTERM");
}
process.exit(code);
