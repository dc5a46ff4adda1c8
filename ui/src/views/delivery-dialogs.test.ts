// @vitest-environment happy-dom
// The editor's delivery dialogs in a DOM, with the engine replaced by a
// stand-in: the dictionary lists entries (global ones marked), saves and
// removes them (handing the editor the project and listing again), hears a
// typed entry and shows its phonemes, and shows the engine's refusals;
// saving a cast starts from the project's sheet and says what was saved;
// attaching a video sends the path and says what its audio became.
import { afterEach, describe, expect, it, vi } from "vitest";
import { html } from "lit-html";
import type { Pronunciation } from "../engine";
import type { Project } from "../model";

const engine = vi.hoisted(() => ({
  pronunciations: vi.fn(),
  setPronunciation: vi.fn(),
  removePronunciation: vi.fn(),
  previewPronunciation: vi.fn(),
  saveCast: vi.fn(),
  attachVideo: vi.fn(),
}));
vi.mock("../engine", () => engine);
vi.mock("../pick", () => ({ browseButton: () => html`<button type="button">Browse…</button>` }));

const { attachVideoDialog, dictionaryDialog, saveCastDialog } = await import("./delivery-dialogs");

function project(): Project {
  return {
    id: 7,
    name: "Harbour",
    strategy: "natural",
    bed: null,
    original: null,
    video: null,
    cast: null,
    length: 10,
    speakers: [{ id: 1, name: "Ana", voice: "af_heart", languageVoices: {} }],
    tracks: [{ id: 1, language: "en-US", segments: [] }],
    canUndo: false,
    canRedo: false,
  };
}

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
