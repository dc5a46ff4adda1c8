// End to end: a dub made in the real app window, on the real model and a
// null audio device. A project from an SRT, a voice, a render heard back, playback,
// one line edited and only that line rendered again, undo, an export
// whose files are checked on disk, a line deleted and brought back; takes;
// the voice library (a voice from a recording, renamed, deleted), the
// settings, and a video heard into a project. Screenshots of each view are written to target/e2e-*.png for a
// person to look at.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync, existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { startTauriDriver, openApp, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
const app = process.env.REVOICE_APP ?? join(root, "target/debug/revoice-studio");
const installed = process.env.REVOICE_TEST_DATA_DIR ?? join(root, "target/test-data");

let driver;
let session;
let dataDir;

async function shot(name) {
  mkdirSync(join(root, "target"), { recursive: true });
  writeFileSync(join(root, `target/e2e-${name}.png`), await session.screenshot());
}

before(async () => {
  assert.ok(process.env.DISPLAY, "the end-to-end test needs a display (run it through scripts/test)");
  assert.ok(existsSync(join(installed, "models")), `the models are not installed in ${installed} (run scripts/test)`);
  dataDir = mkdtempSync(join(tmpdir(), "revoice-e2e-dub-"));
  // The models come from the test install (the stock voices' embeddings ship with the engine).
  symlinkSync(join(installed, "models"), join(dataDir, "models"));
  driver = await startTauriDriver();
  session = await openApp(driver.url, app, ["--data-dir", dataDir]);
});

after(async () => {
  if (session) {
    try {
      await shot("editor-last");
    } catch {}
    await session.close();
  }
  driver?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("a dub from an SRT: render, play, edit one line, only it re-renders, undo, export", async () => {
  const script = join(dataDir, "harbour.srt");
  writeFileSync(
    script,
    "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Light the lamp.\n\n3\n00:00:05,500 --> 00:00:07,500\n[Ana] It is lit.\n",
  );
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  await shot("projects");
  // A first start offers the demo: a voiced scene over its bed, ready to render.
  await session.click("#open-demo");
  await session.waitForText("#project-name", (t) => t === "The lighthouse (demo)");
  assert.match(await session.text("#render-project"), /Render 32 lines/);
  await shot("demo");
  await session.click(".editor-header .link-button");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Harbour");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Harbour");
  assert.match(await session.text("#render-project"), /Render 3 lines/);

  // Ben speaks with a British voice (his line selected from the keyboard, one line at a time).
  const lineText = () => session.execute("return document.querySelector('#line-text')?.value ?? '';");
  await session.press("ArrowRight");
  await waitFor("the first line in the inspector", async () => (await lineText()) === "The boats are in.");
  await session.press("ArrowRight");
  await waitFor("Ben's line in the inspector", async () => (await lineText()) === "Light the lamp.");
  await session.waitForText("#line-state", (t) => t.startsWith("Not rendered"));
  await session.execute("const s = document.querySelector('#speaker-voice'); s.value = 'bm_george'; s.dispatchEvent(new Event('change'));");
  await session.waitForText("#editor-status", (t) => t.includes("Ben now speaks with bm_george"));
  // A Spanish voice for an English track is refused, in the engine's words.
  await session.execute("const s = document.querySelector('#speaker-voice'); s.value = 'ef_dora'; s.dispatchEvent(new Event('change'));");
  await session.waitForText("#editor-status", (t) => t.includes("ef_dora speaks es, not en-US"));
  assert.equal(await session.execute("return document.querySelector('#speaker-voice').value;"), "bm_george");

  await session.click("#render-project");
  const rendered = await session.waitForText("#editor-status", (t) => t.startsWith("Rendered"), 600000);
  assert.equal(rendered, "Rendered 3 lines");
  assert.match(await session.text("#line-state"), /^Ready/);
  assert.equal(await session.text("#render-project"), "All lines rendered");
  assert.match(await session.text(".render-track"), /^en-US\s*3\/3 ready$/);
  // Then every line just rendered is heard back (Whisper), and the inspector says what was heard.
  const listened = await session.waitForText("#editor-status", (t) => t.startsWith("Listened back") || /error|stopped/i.test(t), 600000);
  assert.equal(listened, "Listened back to 3 lines: all passed");
  const heard = await session.waitForText("#line-check", (t) => t.startsWith("✓"));
  assert.match(heard, /^✓ Heard: “Light the lamp\.?”$/i);
  await shot("editor-rendered");

  // Play: the position moves (a null device plays faster than real time).
  await session.click("#play-pause");
  // (The position is a field one can type a timecode into: WebDriver's element text of it is empty, so its text is read in the page.)
  const timecode = () => session.execute("return document.querySelector('#position').textContent;");
  await waitFor("the position to move", async () => {
    const t = await timecode();
    return /^\d\d:\d\d:\d\d[:;]\d\d$/.test(t) && !/^00:00:00[:;]00$/.test(t) ? t : null;
  });
  assert.doesNotMatch(await session.text("#editor-status"), /error|cannot/i);

  // Edit the selected line: it alone is stale, and it alone renders.
  await session.type("#line-text", "Light the lamp, quickly.");
  await session.click("#save-line");
  await session.waitForText("#line-state", (t) => t.startsWith("Not rendered"));
  assert.equal(await session.text("#render-project"), "Render 1 line");
  await session.click("#render-project");
  const again = await session.waitForText("#editor-status", (t) => t.startsWith("Rendered"), 600000);
  assert.equal(again, "Rendered 1 line (2 already current)");

  // Undo brings the old text back.
  await session.click("#undo");
  await session.waitForText("#editor-status", (t) => t.startsWith("Undid"));
  const text = await session.execute("return document.querySelector('#line-text').value;");
  assert.equal(text, "Light the lamp.");

  // Another take of the line, then the first one picked back: no render needed.
  await session.click("#new-take");
  const another = await session.waitForText("#editor-status", (t) => t.startsWith("Rendered") || /error|cannot/i.test(t), 600000);
  assert.equal(another, "Rendered 1 line");
  await session.waitForText("#take-list", (t) => t.includes("Take 3"));
  await shot("editor-takes");
  await session.execute("document.querySelector('[aria-label=\"Use take 1\"]').click();");
  await session.waitForText("#editor-status", (t) => t.startsWith("Using take 1"));
  await session.waitForText("#line-state", (t) => t.startsWith("Ready"));
  // The take list reloads after the status line says so.
  await session.waitForText(".take--active", (t) => /^Take 1/.test(t));

  // Export: mix, stems and subtitles land in the folder, whole.
  await session.click("#open-export");
  const out = join(dataDir, "export");
  await session.type("#export-folder", out);
  await session.click("#run-export");
  const listed = await session.waitForText("#export-result", (t) => t.includes(".wav") || /error|cannot/i.test(t), 300000);
  await shot("export");
  assert.match(listed, /Harbour\.en-US\.wav/);
  // The mix's loudness against the delivery (EBU R128 by default), shown and written beside it.
  assert.match(await session.text(".export-loudness"), /LUFS integrated, range .* LU, true peak .* dBTP, short-term max .*: meets EBU R128/);
  for (const file of ["Harbour.en-US.wav", "Harbour.en-US.voice.wav", "Harbour.en-US.loudness.json", "Harbour.en-US.srt"]) {
    assert.ok(existsSync(join(out, file)) && statSync(join(out, file)).size > 0, file);
  }
  await session.execute("document.querySelector('.dialog')?.remove();");

  // Delete the selected line from the keyboard; Ctrl+Z brings it back.
  // (Listening back to the render finishes first: its summary would take the status line.)
  await waitFor("listening back to finish", async () => (await session.execute("return document.querySelector('#listen-progress') === null;")) || null, 300000);
  await session.press("Delete");
  await session.waitForText("#editor-status", (t) => t.startsWith("Deleted the line"));
  assert.match(await session.text(".inspector"), /Select a line/);
  await session.press("z", { ctrlKey: true });
  await session.waitForText("#editor-status", (t) => t === "Undid: delete a line");
  await session.press("ArrowRight");
  await session.waitForText("#line-state", (t) => t.length > 0);
});

test("text typed into a line survives playback and a render, keeps its focus, and saves", async () => {
  // The Harbour project from the test before is open; select its second line.
  await session.waitForText("#project-name", (t) => t === "Harbour");
  await session.press("ArrowRight");
  await session.press("ArrowRight");
  await session.waitForText("#line-state", (t) => t.length > 0);
  const invoke = (command, args) => session.invoke(command, args);
  const project = (await invoke("list_projects", {})).find((p) => p.name === "Harbour");
  const opened = await invoke("open_project", { projectId: project.id });
  const track = opened.tracks[0];
  // Loop the programme: the null device plays fast, so playback events keep coming (20 a second).
  const playing = await invoke("play", { projectId: project.id, trackId: track.id, from: 0, loopFrom: 0, loopTo: 7 });
  assert.equal(playing.error ?? null, null, JSON.stringify(playing));
  const position = () => session.execute("return document.querySelector('#position').textContent;");
  const first = await position();
  await waitFor("the playhead to move", async () => ((await position()) !== first ? true : null), 20000);

  const field = () => session.execute("const t = document.querySelector('#line-text'); return { focused: document.activeElement === t, value: t.value };");
  const textarea = await session.find("#line-text");
  await session.cmd("POST", `/element/${textarea}/clear`, {});
  await session.cmd("POST", `/element/${textarea}/value`, { text: "Light the lamp" });
  // While it plays: the text and the focus stay through many redraws.
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(await field(), { focused: true, value: "Light the lamp" }, `while playing, check ${i}`);
  }
  assert.notEqual(await position(), first, "still playing");
  assert.match(await session.text("#line-unsaved"), /Unsaved/);

  // While a render runs (another line edited behind the editor's back, so it renders).
  const selected = Number((await session.text(".inspector h2")).replace(/\D+/g, ""));
  const other = track.segments.find((s) => s.id !== selected);
  await invoke("edit_segment", { segmentId: other.id, edit: { text: "It is lit at last." } });
  const started = await invoke("render_project", { projectId: project.id, segmentIds: null });
  assert.equal(started?.error ?? null, null, JSON.stringify(started));
  await session.cmd("POST", `/element/${textarea}/value`, { text: " for the boats." });
  const during = await session.waitForText("#editor-status", (t) => t.startsWith("Rendered") || /error|cannot/i.test(t), 600000);
  assert.match(during, /^Rendered 1 line/);
  assert.deepEqual(await field(), { focused: true, value: "Light the lamp for the boats." }, "after the render and the reload it brought");
  await shot("editor-typing");

  // Saving keeps what was typed; the line is stale until rendered.
  await session.click("#save-line");
  await session.waitForText("#editor-status", (t) => t.startsWith("Changed the text"));
  await session.waitForText("#line-state", (t) => t.startsWith("Not rendered"));
  assert.equal((await field()).value, "Light the lamp for the boats.");
  const saved = await invoke("open_project", { projectId: project.id });
  assert.equal(saved.tracks[0].segments.filter((s) => s.text === "Light the lamp for the boats.").length, 1, "the line typed into holds the text");
  await invoke("stop", {});
});

test("a line too long for its slot is flagged at import and after an edit, before any render, and is never called ready", async () => {
  await session.click(".editor-header .link-button");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  const script = join(dataDir, "tight.srt");
  // The second slot is a second long, the third line follows at once: its words cannot fit at x1.25.
  writeFileSync(
    script,
    "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The boats are in.\n\n2\n00:00:02,600 --> 00:00:03,600\n[Ben] Good morning. Is the shop open yet, or do we wait outside?\n\n3\n00:00:03,700 --> 00:00:06,000\n[Ana] We wait.\n",
  );
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Tight");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Tight");
  // Flagged before any render: once the lengths are predicted the render panel lists it.
  const flaggedList = await session.waitForText("#fit-problems", (t) => /Doesn't fit/.test(t), 120000);
  assert.match(flaggedList, /Good morning/);
  assert.doesNotMatch(flaggedList, /The boats are in|We wait/);
  const lineText = () => session.execute("return document.querySelector('#line-text')?.value ?? '';");
  await session.press("ArrowRight");
  await session.press("ArrowRight");
  await waitFor("the long line in the inspector", async () => (await lineText()).startsWith("Good morning"));
  assert.match(await session.text("#line-state"), /^Not rendered.*doesn't fit/);
  assert.match(await session.text("#line-spoken"), /^Spoken \d+\.\d\d s in a 1\.00 s slot \(needs ×\d\.\d\d\)/);
  assert.match(await session.text("#line-flags"), /Doesn't fit: \d\.\d\d s too long/);
  await shot("editor-doesnt-fit");

  // After an edit, before any render: the first line made too long is flagged too.
  await session.press("ArrowLeft");
  await waitFor("the first line in the inspector", async () => (await lineText()) === "The boats are in.");
  await session.waitForText("#line-state", (t) => t.startsWith("Not rendered") && !t.includes("flagged"));
  await session.type("#line-text", "The boats are in, all of them, and the harbour master wants to see you now.");
  await session.click("#save-line");
  await session.waitForText("#line-state", (t) => t.includes("doesn't fit"), 60000);
  assert.match(await session.text("#fit-problems"), /The boats are in, all of them/);

  // Rendered, the long lines are placed whole and stay flagged: never "Ready".
  await session.click("#render-project");
  await session.waitForText("#editor-status", (t) => t.startsWith("Rendered"), 600000);
  await session.waitForText("#line-state", (t) => t.startsWith("Rendered, flagged:"));
  assert.doesNotMatch(await session.text("#line-state"), /^Ready/);
  assert.match(await session.text(".render-track"), /^en-US\s*1\/3 ready · 2 flagged/);
  await shot("editor-flagged-rendered");
});

test("a 2,000-line project opens and scrolls smoothly (measured, reported)", async () => {
  const lines = [];
  for (let i = 0; i < 2000; i++) {
    const start = 1 + i * 3;
    const ts = (s) => {
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
      return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(sec).padStart(2, "0")},000`;
    };
    lines.push(`${i + 1}\n${ts(start)} --> ${ts(start + 2)}\n[${["Ana", "Ben", "Cleo"][i % 3]}] Line ${i + 1} of the long programme.\n`);
  }
  const script = join(dataDir, "long.srt");
  writeFileSync(script, lines.join("\n"));
  await session.click(".editor-header .link-button").catch(() => {}); // back home, when in the editor
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Long");
  const started = Date.now();
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Long", 120000);
  const interactive = Date.now() - started;
  assert.match(await session.text("#render-project"), /Render 2000 lines/);
  // 300 frames take ~30 s under Xvfb's software WebKit on a busy machine.
  await session.cmd("POST", "/timeouts", { script: 300000 });
  const stats = await session.cmd("POST", "/execute/async", {
    script: "const done = arguments[arguments.length - 1]; window.revoiceMeasureTimeline(300).then(done, (e) => done(String(e)));",
    args: [],
  });
  await shot("long-project");
  const ratio = (stats.interval.meanMs / stats.idleInterval.meanMs).toFixed(2);
  console.log(`2,000 lines: import + open to interactive ${interactive} ms (through WebDriver); timeline frame interval ${stats.interval.meanMs} ms (p95 ${stats.interval.p95Ms} ms) vs ${stats.idleInterval.meanMs} ms with nothing drawn (${ratio}x), draw p95 ${stats.draw.p95Ms} ms; ${JSON.stringify(stats)}`);
  assert.equal(stats.frames, 300);
  assert.ok(stats.draw.meanMs > 0 && stats.interval.meanMs > 0 && stats.firstPaintMs !== null, JSON.stringify(stats));
  // The script scrolled through the same 2,000 lines, a frame at a time.
  const scrolled = await session.cmd("POST", "/execute/async", {
    script: "const done = arguments[arguments.length - 1]; window.revoiceMeasureScript(300).then(done, (e) => done(String(e)));",
    args: [],
  });
  console.log(`2,000 lines in the script: frame interval ${scrolled.interval.meanMs} ms (p95 ${scrolled.interval.p95Ms} ms), draw ${scrolled.draw.meanMs} ms (p95 ${scrolled.draw.p95Ms} ms), at most ${scrolled.maxDomRows} rows in the page; ${JSON.stringify(scrolled)}`);
  assert.equal(scrolled.frames, 300, JSON.stringify(scrolled));
  assert.equal(scrolled.rows, 2000);
  assert.ok(scrolled.maxDomRows < 100, `the script keeps only the rows in view in the page: ${scrolled.maxDomRows}`);
});

test("the speech API switch starts the API on the app's engine and remembers the choice", async () => {
  await session.click(".editor-header .link-button");
  await session.waitForText("#api-detail", (t) => t.startsWith("Off"));
  await session.click("#api-switch");
  const url = await session.waitForText("#api-url", (t) => t.startsWith("http://127.0.0.1:"), 900000);
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  const speech = await fetch(`${url}/v1/audio/speech`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "kokoro", input: "Hello from the app.", voice: "af_heart", response_format: "wav" }),
  });
  assert.equal(speech.status, 200);
  assert.equal(speech.headers.get("content-type"), "audio/wav");
  const { readFileSync } = await import("node:fs");
  assert.match(readFileSync(join(dataDir, "config.toml"), "utf8"), /\[api\][^[]*enabled = true/);
  await shot("home-api-on");
  await session.click("#api-switch");
  await session.waitForText("#api-detail", (t) => t.startsWith("Off"));
  assert.match(readFileSync(join(dataDir, "config.toml"), "utf8"), /\[api\][^[]*enabled = false/);
});

test("the voice library makes a voice from a recording, renames and deletes it; settings are saved", async () => {
  await session.click(".editor-header .link-button").catch(() => {});
  await session.click("#tab-voices");
  await session.waitForText("#stock-voices", (t) => t.includes("af_heart") && t.includes("ef_dora"));
  const recording = join(root, "tests/fixtures/audio/bella-speech.opus");
  await session.type("#voice-file", recording);
  await session.type("#voice-name", "Bella ref");
  await session.type("#voice-consent", "a rendered stock voice, for the test");
  await session.click("#add-voice");
  const card = await session.waitForText("#library-voices", (t) => t.includes("Bella ref") || /error|cannot/i.test(t), 300000);
  assert.match(card, /Closest stock voices \(a match, not a clone\): af_bella \d+ %/);
  assert.match(card, /8\.\d s \(\d+\.\d s of speech\)/);
  // Until fitted, it speaks as the blend, and offers a fit (not run here: minutes of Kokoro).
  assert.match(card, /Speaks as a blend of the closest stock voices/);
  assert.equal(await session.execute("return document.querySelector('[data-voice=\"Bella ref\"] [data-fit=\"matched\"] button').textContent;"), "Fit voice");
  // A/B: the recording itself plays beside the voice and its closest stock voice.
  assert.match(await session.text('[data-compare-for="Bella ref"]'), /Recording.*This voice \(blend\).*Best stock voice \(af_bella\)/);
  await session.execute("document.querySelector('[data-compare=\"recording:Bella ref\"]').click();");
  await session.waitForText("#voices-status", (t) => t === "Played Bella ref's recording" || /error|cannot/i.test(t), 60000);
  assert.equal(await session.text("#voices-status"), "Played Bella ref's recording");
  await shot("voices");

  await session.execute("window.prompt = () => 'Bella two'; window.confirm = () => true;");
  await session.execute("document.querySelector('[data-voice=\"Bella ref\"] .voice-card-head button:nth-of-type(2)').click();");
  await session.waitForText("#voices-status", (t) => t === "Renamed Bella ref to Bella two");
  await session.execute("document.querySelector('[data-voice=\"Bella two\"] .danger').click();");
  await session.waitForText("#voices-status", (t) => t === "Deleted Bella two");
  assert.equal(await session.execute("return document.querySelectorAll('.voice-card').length;"), 0);
  assert.match(await session.text(".voices"), /None yet: add a recording/);

  await session.click("#tab-settings");
  await session.waitForText("#setting-data-dir", (t) => t === dataDir);
  await session.execute("const i = document.querySelector('#setting-batch-width'); i.value = '2'; i.dispatchEvent(new Event('change'));");
  await session.waitForText("#settings-restart", (t) => t.includes("Restart the studio"));
  await shot("settings");
  const { readFileSync } = await import("node:fs");
  assert.match(readFileSync(join(dataDir, "config.toml"), "utf8"), /\[scheduler\][^[]*batch_width = 2/);
  await session.click("#tab-projects");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
});

test("a video is heard into a project that keeps its original dialogue and cuts each speaker's clip from it", async () => {
  // Two spoken phrases (alsa-utils' own recordings) in a small video.
  const video = join(dataDir, "phrases.mp4");
  const sounds = "/usr/share/sounds/alsa";
  execFileSync("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=black:s=160x90:r=10", "-i", `${sounds}/Front_Center.wav`, "-i", `${sounds}/Rear_Center.wav`,
    "-filter_complex", "[1:a]apad=pad_dur=1[a1];[a1][2:a]concat=n=2:v=0:a=1[a]", "-map", "0:v", "-map", "[a]", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", video]);
  await session.waitForText("#create-from-media", (t) => t.includes("Hear it"));
  await session.type("#new-media-path", video);
  await session.click("#create-from-media");
  await session.waitForText("#project-name", (t) => t === "phrases", 300000);
  const invoke = (command, args) => session.invoke(command, args);
  const id = (await invoke("list_projects", {})).find((p) => p.name === "phrases").id;
  const heard = await invoke("open_project", { projectId: id });
  assert.ok(heard.original?.endsWith("phrases.mp4"), `the video stays as the original dialogue: ${heard.original}`);
  const said = heard.tracks[0].segments.map((s) => s.text).join(" ");
  assert.match(said, /front,? center.*rear,? center/i);
  // The cast dialog cuts the speaker's clip from their own lines.
  await session.click("#open-cast");
  await session.click("#cast-from-original");
  const note = await session.waitForText("#cast-cut-note", (t) => /Cut \d+ clip|error|no original/i.test(t), 60000);
  assert.match(note, /Cut 1 clip from their own lines/);
  const clip = await session.execute("return document.querySelector('.cast-row input').value;");
  assert.match(clip, /originals\/project-\d+\/speaker-\d+\.wav$/);
  await shot("editor-from-media");
  await session.execute("document.querySelector('.dialog')?.remove();");
  await session.click(".editor-header .link-button");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
});

// Last: the fit it queues runs in the background until the app closes.
test("voice every speaker makes each speaker a voice from a clip and queues its fit", async () => {
  const script = join(dataDir, "quay.srt");
  writeFileSync(script, "1\n00:00:00,500 --> 00:00:02,500\n[Ana] The tide is turning.\n\n2\n00:00:03,000 --> 00:00:05,000\n[Ben] Then we go.\n");
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Quay");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Quay");
  await session.click("#open-cast");
  await session.waitForText(".dialog", (t) => t.includes("not a clone") && t.includes("Ana") && t.includes("Ben"));
  await session.type('.cast-row[data-speaker="Ana"] input', join(root, "tests/fixtures/audio/bella-speech.opus"));
  await session.type("#cast-consent", "a rendered stock voice, for the test");
  await session.click("#run-cast");
  const cast = await session.waitForText("#cast-result", (t) => t.includes("Ana") || /error|cannot/i.test(t), 300000);
  assert.match(cast, /Ana speaks with "Quay - Ana"; its fit is queued/);
  await shot("voice-every-speaker");
  await session.execute("document.querySelector('.dialog')?.remove();");
  // Ana's lines speak the new voice; the Voices page shows the fit running, and it can be cancelled.
  await session.press("ArrowRight");
  await session.waitForText("#line-state", (t) => t.length > 0);
  assert.equal(await session.execute("return document.querySelector('#speaker-voice').value;"), "Quay - Ana");
  await session.click(".editor-header .link-button");
  // The projects view draws on the next frame: its tabs are there then.
  await session.waitForText("#tab-voices", () => true);
  await session.click("#tab-voices");
  await session.waitForText('[data-voice="Quay - Ana"]', (t) => t.includes("Fitting a voice to the recording"), 60000);
  await session.execute("document.querySelector('[data-voice=\"Quay - Ana\"] [data-fit=\"running\"] button').click();");
  await session.waitForText("#voices-status", (t) => t.startsWith("Stopping the fit of Quay - Ana"));
});
