// End to end: edits made while the timeline plays change what is heard
// next. A four-line scene of two speakers is rendered and played in a
// loop; then, in the window as a dubber works (the arrow keys select a
// line, Delete, Ctrl+Z, Ctrl+Shift+Z, the Undo button, the timeline's
// Merge and Insert buttons), a line is deleted, brought back, deleted
// again and brought back again, two lines are merged and a line is
// inserted. After each edit the playing programme is read from the engine
// (`playing_programme`: each line it holds, with a fingerprint of its
// samples) until it holds what the edit says: the deleted line gone, the
// undone delete's very samples back, the merged-away line gone, the
// inserted line (no take yet) changing nothing, and the untouched lines'
// samples the same throughout. Screenshot: target/e2e-playback-edits.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startStudio, waitFor } from "./webdriver.mjs";

const root = resolve(import.meta.dirname, "../..");
let studio;
let session;
let dataDir;

before(async () => {
  studio = await startStudio("playback-edits", root);
  ({ session, dataDir } = studio);
});

after(async () => {
  await studio?.close();
});

/** Calls a Tauri command in the page; a refusal comes back as `{ error }`. */
const invoke = (command, args = {}) => session.invoke(command, args);

/** What the playing programme holds now: [{ segmentId, start, seconds, peak, fingerprint }], in time order. */
async function programme() {
  const clips = await invoke("playing_programme");
  assert.ok(Array.isArray(clips), `playing_programme answered ${JSON.stringify(clips)}`);
  return clips;
}

const ids = (clips) => clips.map((c) => c.segmentId);
const sounds = (clips) => Object.fromEntries(clips.map((c) => [c.segmentId, c.fingerprint]));
const describe = (clips) => (clips.length ? clips.map((c) => `${c.segmentId}@${c.start.toFixed(2)}s ${c.fingerprint}`).join(", ") : "nothing");

/** Polls the programme until `accept` takes it (~15 s); fails naming what it holds. */
async function heardNext(what, accept, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  let clips = [];
  while (Date.now() < deadline) {
    clips = await programme();
    if (accept(clips)) return clips;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the playing programme never held ${what}: it holds ${describe(clips)}`);
}

/** Playback still runs (the loop keeps it going through the edits). */
async function stillPlaying(when) {
  const state = await invoke("playback_state");
  assert.equal(state.playing, true, `playing ${when}: ${JSON.stringify(state)}`);
}

/** Real key presses in the window (WebDriver actions): `key` with the modifiers held. */
async function keys(key, { ctrl = false, shift = false } = {}) {
  const held = [...(ctrl ? ["\uE009"] : []), ...(shift ? ["\uE008"] : [])];
  const actions = [
    ...held.map((value) => ({ type: "keyDown", value })),
    { type: "keyDown", value: key },
    { type: "keyUp", value: key },
    ...held.reverse().map((value) => ({ type: "keyUp", value })),
  ];
  await session.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
  await session.cmd("DELETE", "/actions");
}
const DELETE = "\uE017";
const RIGHT = "\uE014";
const LEFT = "\uE012";

/** The line selected (on the timeline, shown in the script): its segment id, 0 for none. */
const selected = () => session.execute("return Number(document.querySelector('.script-row[aria-selected=\"true\"]')?.dataset.segmentId ?? 0);");

/** Selects line `id` from the keyboard (← / →), as `order` (the ids in time order) says. */
async function selectLine(id, order) {
  for (let tries = 0; tries < 12; tries++) {
    const now = await selected();
    if (now === id) return;
    const from = order.indexOf(now);
    await keys(from === -1 || from < order.indexOf(id) ? RIGHT : LEFT);
    await waitFor("the selection to move", async () => ((await selected()) !== now ? true : null), 5000, 50).catch(() => {});
  }
  assert.equal(await selected(), id, `line ${id} selected from the keyboard`);
}

async function segments(projectId) {
  const view = await invoke("open_project", { projectId });
  return view.tracks[0].segments;
}

test("while the timeline plays, deleting, undoing, redoing, merging and inserting lines change what is heard next", async () => {
  const started = Date.now();
  const script = join(dataDir, "quay.srt");
  // Slots with room to spare: each line is heard whole in its own, whoever its neighbours.
  writeFileSync(
    script,
    "1\n00:00:01,000 --> 00:00:03,500\n[Ana] The tide is out.\n\n2\n00:00:04,000 --> 00:00:06,500\n[Ben] Then we walk across.\n\n3\n00:00:07,000 --> 00:00:09,500\n[Ana] Bring the lamp.\n\n4\n00:00:10,000 --> 00:00:12,500\n[Ben] It is dark already.\n",
  );
  await session.waitForText("#create-from-script", (t) => t.includes("New project"), 60000);
  await session.type("#new-script-path", script);
  await session.type("#new-project-name", "Quay");
  await session.click("#create-from-script");
  await session.waitForText("#project-name", (t) => t === "Quay");
  const project = (await invoke("list_projects")).find((p) => p.name === "Quay");
  const opened = await invoke("open_project", { projectId: project.id });
  const track = opened.tracks[0];
  const [one, two, three, four] = [...track.segments].sort((a, b) => a.start - b.start).map((s) => s.id);
  const order = [one, two, three, four];

  // Render (the model may still be loading: the window asks again by itself), then let Whisper hear it
  // back: a line it fails is taken again, and that must not land in the middle of the edits.
  await session.click("#render-project");
  await session.waitForText("#render-project", (t) => t === "All lines rendered", 600000);
  const listened = await session.waitForText("#editor-status", (t) => t.startsWith("Listened back") || /error|stopped|cannot/i.test(t), 300000);
  assert.match(listened, /^Listened back to 4 lines/);
  await waitFor("listening back to finish", async () => (await session.execute("return document.querySelector('#listen-progress') === null;")) || null, 60000);
  const rendered = Date.now();

  // Play the whole scene in a loop, so it is still playing through every edit (the window's Play
  // button has no loop: the engine's play command is asked for one, as the window would call it).
  const playing = await invoke("play", { projectId: project.id, trackId: track.id, from: 0, loopFrom: 0, loopTo: opened.length });
  assert.equal(playing.error ?? null, null, JSON.stringify(playing));
  await session.waitForText("#play-pause", (t) => t.includes("Pause"));
  const whole = await heardNext("every line laid", (clips) => ids(clips).join() === order.join());
  assert.ok(whole.every((c) => c.peak > 0.01 && /^[0-9a-f]{16}$/.test(c.fingerprint) && c.seconds > 0.3), describe(whole));
  await stillPlaying("before the edits");
  const sound = sounds(whole);
  assert.equal(new Set(Object.values(sound)).size, 4, `four lines, four sounds: ${describe(whole)}`);

  // Delete line 2 from the keyboard: it leaves what plays; the others play on, the same samples.
  await session.execute("document.activeElement?.blur();");
  await selectLine(two, order);
  await keys(DELETE);
  const deleted = await heardNext(`lines ${[one, three, four]} without ${two}`, (clips) => ids(clips).join() === [one, three, four].join());
  await session.waitForText("#editor-status", (t) => t.startsWith("Deleted the line"));
  for (const c of deleted) assert.equal(c.fingerprint, sound[c.segmentId], `line ${c.segmentId} untouched by the delete`);
  await stillPlaying("after the delete");

  // Ctrl+Z: the line is back, and it is the very audio it was.
  await keys("z", { ctrl: true });
  const undone = await heardNext(`line ${two} back`, (clips) => ids(clips).join() === order.join());
  assert.deepEqual(sounds(undone), sound, "the undone delete brings back the very samples");
  await session.waitForText("#editor-status", (t) => t === "Undid: delete a line");
  await stillPlaying("after the undo");

  // Ctrl+Shift+Z: gone again; the Undo button: back again, the same samples.
  await keys("z", { ctrl: true, shift: true });
  await heardNext(`line ${two} gone again on redo`, (clips) => ids(clips).join() === [one, three, four].join());
  await session.waitForText("#editor-status", (t) => t.startsWith("Redid"));
  await session.click("#undo");
  const back = await heardNext(`line ${two} back again`, (clips) => ids(clips).join() === order.join());
  assert.deepEqual(sounds(back), sound, "undone again: the very samples");
  await stillPlaying("after redo and undo");

  // Merge line 1 (Ana) with her next line (3) with the timeline's Merge button: line 3 leaves what
  // plays, line 1 plays its take until it is rendered again, Ben's lines are as they were.
  await session.execute("document.activeElement?.blur();");
  await selectLine(one, order);
  await session.click('.timeline__button[data-action="merge"]');
  const merged = await heardNext(`line ${three} merged away`, (clips) => ids(clips).join() === [one, two, four].join());
  await session.waitForText("#editor-status", (t) => t.startsWith("Merged two lines"));
  assert.equal(merged.find((c) => c.segmentId === two).fingerprint, sound[two], "Ben's line 2 untouched by the merge");
  assert.equal(merged.find((c) => c.segmentId === four).fingerprint, sound[four], "Ben's line 4 untouched by the merge");
  const afterMerge = await segments(project.id);
  assert.deepEqual(afterMerge.map((s) => s.id).sort((a, b) => a - b), [one, two, four].sort((a, b) => a - b));
  assert.match(afterMerge.find((s) => s.id === one).text, /The tide is out\.? Bring the lamp\./);
  await stillPlaying("after the merge");

  // Insert a line at the playhead with the timeline's Insert button: a new line has no take, so what
  // plays is unchanged, every line's samples the same.
  const heldBefore = await programme();
  await session.click('.timeline__button[data-action="insert"]');
  await session.waitForText("#editor-status", (t) => t.startsWith("Added a line"));
  const afterInsert = await segments(project.id);
  const inserted = afterInsert.find((s) => ![one, two, four].includes(s.id));
  assert.ok(inserted, `a new line among ${JSON.stringify(afterInsert.map((s) => [s.id, s.text]))}`);
  // Playback asks about edits every 150 ms: over a second and a half it has seen the insert many times.
  for (let i = 0; i < 8; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const now = await programme();
    assert.equal(ids(now).join(), ids(heldBefore).join(), `the insert changes no line that plays: ${describe(now)}`);
    assert.deepEqual(sounds(now), sounds(heldBefore), `the insert leaves every line's samples alone: ${describe(now)}`);
  }
  await stillPlaying("after the insert");
  assert.doesNotMatch(await session.text("#editor-status"), /error|cannot|refused/i);
  mkdirSync(join(root, "target"), { recursive: true });
  writeFileSync(join(root, "target/e2e-playback-edits.png"), await session.screenshot());

  // Pause from the window, then leave the editor: playback stops, the programme is let go.
  await session.click("#play-pause");
  await waitFor("playback paused", async () => ((await invoke("playback_state")).playing === false ? true : null), 10000, 100);
  await session.click(".editor-header .link-button");
  await session.waitForText("#create-from-script", (t) => t.includes("New project"));
  await heardNext("nothing, once stopped", (clips) => clips.length === 0);
  console.log(`playback edits: rendered and heard back in ${((rendered - started) / 1000).toFixed(1)} s, edits checked in ${((Date.now() - rendered) / 1000).toFixed(1)} s`);
});
