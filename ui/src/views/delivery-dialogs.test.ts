// @vitest-environment happy-dom
// The editor's delivery dialogs in a DOM, with the engine replaced by a
// stand-in: the dictionary lists entries (global ones marked), saves and
// removes them (handing the editor the project and listing again), hears a
// typed entry and shows its phonemes, and shows the engine's refusals;
// saving a cast starts from the project's sheet and says what was saved;
// attaching a video sends the path and says what its audio became; the
// bed lists its stems, saves a stem's level and ducking when changed,
// removes and adds stems (handing the editor the project each time), and
// shows the engine's refusals; the export's delivery fields start at
// 48 kHz, 24-bit without speaker tags, say what is chosen, and leave the
// depth out of use for MP3.
import { afterEach, describe, expect, it, vi } from "vitest";
import { html } from "lit-html";
import type { BedStem, Pronunciation } from "../engine";
import type { Project } from "../model";
import { testProject } from "./test-project";

const engine = vi.hoisted(() => ({
  pronunciations: vi.fn(),
  setPronunciation: vi.fn(),
  removePronunciation: vi.fn(),
  previewPronunciation: vi.fn(),
  saveCast: vi.fn(),
  attachVideo: vi.fn(),
  addBedStem: vi.fn(),
  editBedStem: vi.fn(),
  removeBedStem: vi.fn(),
}));
vi.mock("../engine", () => engine);
vi.mock("../pick", () => ({ browseButton: () => html`<button type="button">Browse…</button>` }));

const { attachVideoDialog, bedDialog, deliveryFields, dictionaryDialog, saveCastDialog } = await import("./delivery-dialogs");

const project = (): Project => testProject();

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}

function mount(dialog: HTMLElement): <T extends Element>(selector: string) => T {
  document.body.replaceChildren(dialog);
  return <T extends Element>(selector: string) => dialog.querySelector<T>(selector)!;
}

function type(input: HTMLInputElement | HTMLSelectElement, value: string): void {
  input.value = value;
  input.dispatchEvent(new Event("change"));
}

afterEach(() => {
  vi.clearAllMocks();
  document.body.replaceChildren();
});

describe("the dictionary", () => {
  const entries: Pronunciation[] = [
    { word: "Kip", saying: { phonemes: "kˈɪp" }, global: false },
    { word: "Siobhan", saying: { respelling: "shiv awn" }, global: true },
  ];

  it("lists the project's entries and the global ones, marked", async () => {
    engine.pronunciations.mockResolvedValue(entries);
    const $ = mount(dictionaryDialog(project(), "af_heart", vi.fn()));
    await settle();
    expect(engine.pronunciations).toHaveBeenCalledWith(7);
    const rows = [...document.querySelectorAll(".dictionary-entry")];
    expect(rows.map((r) => r.getAttribute("data-word"))).toEqual(["Kip", "Siobhan"]);
    expect(rows[0].textContent).toBe("Kip/kˈɪp/Remove");
    expect(rows[1].querySelector(".dictionary-global")?.textContent).toBe("global");
    expect(rows[0].querySelector(".dictionary-global")).toBeNull();
    expect($("#dictionary-list").textContent).toContain("as “shiv awn”");
  });

  it("saves a typed entry, hands the editor the project and lists again", async () => {
    const changed = vi.fn();
    const after = { ...project(), name: "Harbour (stale lines)" };
    engine.pronunciations.mockResolvedValueOnce([]).mockResolvedValueOnce(entries);
    engine.setPronunciation.mockResolvedValue(after);
    const $ = mount(dictionaryDialog(project(), "af_heart", changed));
    await settle();
    expect($("#dictionary-list").textContent).toMatch(/No entries yet/);
    type($<HTMLInputElement>("#dictionary-word"), " Kip ");
    type($<HTMLSelectElement>("#dictionary-kind"), "phonemes");
    type($<HTMLInputElement>("#dictionary-saying"), "kˈɪp");
    $<HTMLInputElement>("#dictionary-global").checked = true;
    $<HTMLButtonElement>("#dictionary-save").click();
    await settle();
    expect(engine.setPronunciation).toHaveBeenCalledWith(7, "Kip", { phonemes: "kˈɪp" }, true);
    expect(changed).toHaveBeenCalledWith(after, "“Kip” is said /kˈɪp/ in every project");
    expect($("#dictionary-saved").textContent).toBe("“Kip” is said /kˈɪp/ in every project: lines using it need rendering again.");
    expect(document.querySelectorAll(".dictionary-entry").length).toBe(2);
  });

  it("removes an entry from the dictionary it is in", async () => {
    const changed = vi.fn();
    engine.pronunciations.mockResolvedValueOnce(entries).mockResolvedValueOnce(entries.slice(0, 1));
    engine.removePronunciation.mockResolvedValue(project());
    mount(dictionaryDialog(project(), "af_heart", changed));
    await settle();
    document.querySelector<HTMLButtonElement>('[aria-label="Remove Siobhan"]')!.click();
    await settle();
    expect(engine.removePronunciation).toHaveBeenCalledWith(7, "Siobhan", true);
    expect(changed).toHaveBeenCalledWith(project(), "Removed “Siobhan” from the global dictionary");
    expect([...document.querySelectorAll(".dictionary-entry")].map((r) => r.getAttribute("data-word"))).toEqual(["Kip"]);
  });

  it("hears the typed entry, the word as the sentence, in the given voice, and shows its phonemes", async () => {
    engine.pronunciations.mockResolvedValue([]);
    engine.previewPronunciation.mockResolvedValue("ʃɪvˈɔn");
    const $ = mount(dictionaryDialog(project(), "bm_george", vi.fn()));
    await settle();
    type($<HTMLInputElement>("#dictionary-word"), "Siobhan");
    type($<HTMLInputElement>("#dictionary-saying"), "shiv awn");
    $<HTMLButtonElement>("#dictionary-preview").click();
    await settle();
    expect(engine.previewPronunciation).toHaveBeenCalledWith(7, "Siobhan", "bm_george", "Siobhan", { respelling: "shiv awn" });
    expect($("#dictionary-phonemes").textContent).toBe("Said: /ʃɪvˈɔn/");
    expect(engine.setPronunciation).not.toHaveBeenCalled();
  });

  it("shows what is missing from the form, and the engine's refusal", async () => {
    engine.pronunciations.mockResolvedValue([]);
    engine.setPronunciation.mockImplementation(async () => {
      throw 'invalid dictionary word "K!p": must be a word or name';
    });
    const changed = vi.fn();
    const $ = mount(dictionaryDialog(project(), "af_heart", changed));
    await settle();
    $<HTMLButtonElement>("#dictionary-preview").click();
    await settle();
    expect($("[role=alert]").textContent).toBe("Type the word or name to say differently.");
    expect(engine.previewPronunciation).not.toHaveBeenCalled();
    type($<HTMLInputElement>("#dictionary-word"), "K!p");
    type($<HTMLInputElement>("#dictionary-saying"), "kip");
    $<HTMLButtonElement>("#dictionary-save").click();
    await settle();
    expect($("[role=alert]").textContent).toContain("must be a word or name");
    expect(changed).not.toHaveBeenCalled();
    expect($("#dictionary-save").hasAttribute("disabled")).toBe(false);
  });
});

describe("saving a cast", () => {
  it("starts from the project's sheet (else its name) and says what was saved", async () => {
    const saved = vi.fn();
    const sheet = { id: 3, name: "Keepers", members: [{ speaker: "Ana", voice: "af_heart", languageVoices: {} }, { speaker: "Ben", voice: "bm_george", languageVoices: {} }], updatedAt: "2026-01-01T00:00:00Z" };
    engine.saveCast.mockResolvedValue(sheet);
    expect(mount(saveCastDialog(project(), saved))<HTMLInputElement>("#save-cast-name").value).toBe("Harbour");
    const $ = mount(saveCastDialog({ ...project(), cast: "Keepers" }, saved));
    expect($<HTMLInputElement>("#save-cast-name").value).toBe("Keepers");
    $<HTMLButtonElement>("#run-save-cast").click();
    await settle();
    expect(engine.saveCast).toHaveBeenCalledWith(7, "Keepers");
    expect(saved).toHaveBeenCalledWith(sheet);
    expect($("#save-cast-summary").textContent).toBe("Cast sheet Keepers saved: 2 speakers");
  });

  it("shows the engine's refusal", async () => {
    engine.saveCast.mockImplementation(async () => {
      throw "project 7 has no speakers to put on a cast sheet";
    });
    const $ = mount(saveCastDialog(project(), vi.fn()));
    $<HTMLButtonElement>("#run-save-cast").click();
    await settle();
    expect($("[role=alert]").textContent).toContain("no speakers");
  });
});

describe("attaching a video", () => {
  it("sends the typed path (and whether it is the bed) and says what its audio became", async () => {
    const attached = vi.fn();
    const what = {
      path: "/films/scene.mp4",
      info: { container: "mov,mp4", codec: "h264", width: 1920, height: 1080, frameRate: 25, durationS: 60, audio: [{ codec: "aac", channels: 2, language: null }] },
      originalDialogue: true,
      bed: false,
    };
    const after = { ...project(), video: "/films/scene.mp4", original: "/films/scene.mp4" };
    engine.attachVideo.mockResolvedValue([what, after]);
    const $ = mount(attachVideoDialog(project(), attached));
    type($<HTMLInputElement>("#attach-video-path"), " /films/scene.mp4 ");
    $<HTMLButtonElement>("#run-attach-video").click();
    await settle();
    expect(engine.attachVideo).toHaveBeenCalledWith(7, "/films/scene.mp4", false);
    expect(attached).toHaveBeenCalledWith(what, after);
    expect($("#attach-video-summary").textContent).toBe("Picture: scene.mp4 (h264 1920×1080, 25 fps); its audio is now the original dialogue");
  });

  it("asks for a file before calling the engine", async () => {
    const $ = mount(attachVideoDialog(project(), vi.fn()));
    $<HTMLButtonElement>("#run-attach-video").click();
    await settle();
    expect($("[role=alert]").textContent).toBe("Choose a video file.");
    expect(engine.attachVideo).not.toHaveBeenCalled();
  });
});

describe("the bed's stems", () => {
  const stem = (id: number, file: string, gainDb = 0, ducked = true): BedStem => ({ id, projectId: 7, file, gainDb, ducked, position: id });
  const withBeds = (...beds: BedStem[]): Project => ({ ...project(), bed: beds[0]?.file ?? null, beds });
  const stems = () => [...document.querySelectorAll(".bed-stem")].map((r) => r.getAttribute("data-stem"));

  it("lists each stem with its level and ducking", () => {
    const $ = mount(bedDialog(withBeds(stem(1, "/music/theme.flac", -6), stem(2, "/fx/waves.wav", 0, false)), vi.fn()));
    expect(document.querySelector("[role=dialog]")!.getAttribute("aria-label")).toBe("Music and effects");
    expect(stems()).toEqual(["1", "2"]);
    expect($('[data-stem="1"] .bed-file').textContent).toBe("theme.flac");
    expect($<HTMLInputElement>("#bed-gain-1").value).toBe("-6");
    expect($<HTMLInputElement>("#bed-ducked-1").checked).toBe(true);
    expect($<HTMLInputElement>("#bed-ducked-2").checked).toBe(false);
    expect($<HTMLInputElement>("#bed-add-gain").value).toBe("0");
    expect($<HTMLInputElement>("#bed-add-ducked").checked).toBe(true);
    expect(mount(bedDialog(project(), vi.fn()))("#bed-list").textContent).toMatch(/No stems yet/);
  });

  it("saves a stem's level and ducking when changed, and hands the editor the project", async () => {
    const changed = vi.fn();
    const after = withBeds(stem(1, "/music/theme.flac", -9.5, false));
    engine.editBedStem.mockResolvedValue(after);
    const $ = mount(bedDialog(withBeds(stem(1, "/music/theme.flac", -6)), changed));
    const level = $<HTMLInputElement>("#bed-gain-1");
    $<HTMLInputElement>("#bed-ducked-1").checked = false;
    type(level, "-9.5");
    await settle();
    expect(engine.editBedStem).toHaveBeenCalledWith(7, 1, -9.5, false);
    expect(changed).toHaveBeenCalledWith(after, "Bed: theme.flac at -9.5 dB, not ducked");
    expect($("#bed-summary").textContent).toBe("Bed: theme.flac at -9.5 dB, not ducked");
    // The row stays (a field being worked in keeps its element).
    expect($("#bed-gain-1")).toBe(level);
  });

  it("puts a refused level back and says why", async () => {
    const $ = mount(bedDialog(withBeds(stem(1, "/music/theme.flac", -6)), vi.fn()));
    type($<HTMLInputElement>("#bed-gain-1"), "40");
    await settle();
    expect(engine.editBedStem).not.toHaveBeenCalled();
    expect($("[role=alert]").textContent).toBe("The level must be a number of dB from -60 to 24.");
    expect($<HTMLInputElement>("#bed-gain-1").value).toBe("-6");
  });

  it("removes a stem and lists the rest", async () => {
    const changed = vi.fn();
    const after = withBeds(stem(2, "/fx/waves.wav"));
    engine.removeBedStem.mockResolvedValue(after);
    const $ = mount(bedDialog(withBeds(stem(1, "/music/theme.flac"), stem(2, "/fx/waves.wav")), changed));
    $<HTMLButtonElement>("#bed-remove-1").click();
    await settle();
    expect(engine.removeBedStem).toHaveBeenCalledWith(7, 1);
    expect(changed).toHaveBeenCalledWith(after, "Removed theme.flac from the bed");
    expect(stems()).toEqual(["2"]);
  });

  it("adds a stem from the form, ducked at 0 dB unless changed", async () => {
    const changed = vi.fn();
    const after = withBeds(stem(1, "/music/theme.flac"), stem(3, "/fx/storm.ogg", -3, false));
    engine.addBedStem.mockResolvedValue(after);
    const $ = mount(bedDialog(withBeds(stem(1, "/music/theme.flac")), changed));
    type($<HTMLInputElement>("#bed-add-path"), " /fx/storm.ogg ");
    type($<HTMLInputElement>("#bed-add-gain"), "-3");
    $<HTMLInputElement>("#bed-add-ducked").checked = false;
    $<HTMLButtonElement>("#bed-add").click();
    await settle();
    expect(engine.addBedStem).toHaveBeenCalledWith(7, "/fx/storm.ogg", -3, false);
    expect(changed).toHaveBeenCalledWith(after, "Added to the bed: storm.ogg at -3 dB, not ducked");
    expect(stems()).toEqual(["1", "3"]);
    expect($<HTMLInputElement>("#bed-add-path").value).toBe("");
  });

  it("asks for a file, and shows the engine's refusal", async () => {
    const changed = vi.fn();
    engine.addBedStem.mockImplementation(async () => {
      throw "cannot read /fx/missing.wav: no such file";
    });
    const $ = mount(bedDialog(project(), changed));
    $<HTMLButtonElement>("#bed-add").click();
    await settle();
    expect($("[role=alert]").textContent).toBe("Choose a recording or video for the stem.");
    expect(engine.addBedStem).not.toHaveBeenCalled();
    type($<HTMLInputElement>("#bed-add-path"), "/fx/missing.wav");
    $<HTMLButtonElement>("#bed-add").click();
    await settle();
    expect(engine.addBedStem).toHaveBeenCalledWith(7, "/fx/missing.wav", 0, true);
    expect($("[role=alert]").textContent).toContain("no such file");
    expect(changed).not.toHaveBeenCalled();
    expect($("#bed-add").hasAttribute("disabled")).toBe(false);
  });
});

describe("the export's delivery fields", () => {
  const formatSelect = () => {
    const format = document.createElement("select");
    for (const value of ["wav", "flac", "mp3"]) format.append(Object.assign(document.createElement("option"), { value, textContent: value }));
    return format;
  };

  it("start at 48 kHz, 24-bit, without speaker tags, and read what is chosen", () => {
    const fields = deliveryFields(formatSelect());
    document.body.replaceChildren(fields.audio, fields.speakerTags);
    const rate = document.querySelector<HTMLSelectElement>("#export-sample-rate")!;
    const bits = document.querySelector<HTMLSelectElement>("#export-bits")!;
    expect([...rate.options].map((o) => o.textContent)).toEqual(["48 kHz (film, TV, streaming)", "44.1 kHz (music services, CD)"]);
    expect([...bits.options].map((o) => o.textContent)).toEqual(["24-bit", "16-bit"]);
    expect(fields.read()).toEqual({ sampleRate: 48000, bits: 24, speakerTags: false });
    rate.value = "44100";
    bits.value = "16";
    document.querySelector<HTMLInputElement>("#export-speaker-tags")!.checked = true;
    expect(fields.read()).toEqual({ sampleRate: 44100, bits: 16, speakerTags: true });
  });

  it("leave the depth out of use while the format is MP3", () => {
    const format = formatSelect();
    const fields = deliveryFields(format);
    const bits = fields.audio.querySelector<HTMLSelectElement>("#export-bits")!;
    expect(bits.disabled).toBe(false);
    type(format, "mp3");
    expect([bits.disabled, bits.title]).toEqual([true, "MP3 has no bit depth"]);
    type(format, "flac");
    expect(bits.disabled).toBe(false);
  });
});
