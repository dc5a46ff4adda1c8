// Boots the editor: the home screen (tabs: projects with the engine's
// health report and the API switch, the voice library, settings) and the
// project editor, switching between them; the status bar stays. Engine
// events go to the open editor or the voice library.
import "./styles.css";
import * as engine from "./engine";
import type { Diagnosis } from "./engine";
import { Editor } from "./views/editor";
import { renderEnginePanel } from "./views/engine-panel";
import { renderApiSwitch, type ApiSwitchState } from "./views/api-switch";
import { renderProjects, type ProjectsState } from "./views/projects";
import { renderStatusBar } from "./views/status-bar";
import { SettingsPage } from "./views/settings";
import { VoiceLibrary } from "./views/voices";
import { el } from "./dom";
import { getCurrentWebview } from "@tauri-apps/api/webview";

interface ShellState {
  report: Diagnosis | null;
  error: string | null;
  busy: boolean;
}

const shell: ShellState = { report: null, error: null, busy: false };
const home: ProjectsState = { projects: [], busy: false, error: null, droppedPath: null };
const api: ApiSwitchState = { url: null, busy: false, error: null };
const workspace = document.getElementById("workspace")!;
const statusBar = document.getElementById("status-bar")!;
let editor: Editor | null = null;
type Tab = "projects" | "voices" | "settings";
let tab: Tab = "projects";
let voices: VoiceLibrary | null = null;
const tabBody = document.createElement("div");

function tabs(): HTMLElement {
  const names: [Tab, string][] = [["projects", "Projects"], ["voices", "Voices"], ["settings", "Settings"]];
  return el(
    "nav",
    { class: "tabs", role: "tablist" },
    ...names.map(([name, label]) => {
      const button = el("button", { class: `tab${tab === name ? " tab--active" : ""}`, role: "tab", id: `tab-${name}`, "aria-selected": String(tab === name) }, label);
      button.addEventListener("click", () => showTab(name));
      return button;
    }),
  );
}

function showTab(name: Tab): void {
  tab = name;
  voices = null;
  if (name === "voices") voices = new VoiceLibrary(tabBody);
  if (name === "settings") new SettingsPage(tabBody);
  render();
}

function renderHome(): void {
  if (editor) return;
  workspace.replaceChildren(tabs(), tabBody);
  if (tab !== "projects") return;
  const projects = document.createElement("div");
  const apiSwitch = document.createElement("div");
  const panel = document.createElement("div");
  tabBody.replaceChildren(projects, apiSwitch, panel);
  renderProjects(projects, home, { open: openEditor, rename, remove, createFromScript });
  renderApiSwitch(apiSwitch, api, (on) => void toggleApi(on));
  renderEnginePanel(panel, shell, { checkAgain, openDataDir: revealDataDir });
}

function render(): void {
  renderHome();
  renderStatusBar(statusBar, shell);
}

async function refreshProjects(): Promise<void> {
  try {
    home.projects = await engine.listProjects();
    home.error = null;
  } catch (e) {
    home.error = String(e);
  }
  render();
}

async function openEditor(id: number): Promise<void> {
  try {
    const project = await engine.openProject(id);
    editor?.destroy();
    // The editor owns its element; the home screen's are gone meanwhile.
    const host = document.createElement("section");
    workspace.replaceChildren(host);
    editor = new Editor(host, project, () => {
      editor?.destroy();
      editor = null;
      void refreshProjects();
    });
  } catch (e) {
    home.error = String(e);
    render();
  }
}

async function rename(id: number, name: string): Promise<void> {
  await guard(engine.renameProject(id, name));
}

async function remove(id: number): Promise<void> {
  await guard(engine.deleteProject(id));
}

async function createFromScript(name: string, path: string, language: string): Promise<void> {
  home.busy = true;
  render();
  try {
    const project = await engine.createProject(name, language);
    try {
      await engine.importScript(project.id, path);
    } catch (e) {
      // A script that does not parse leaves no empty project behind.
      await engine.deleteProject(project.id);
      throw e;
    }
    home.droppedPath = null;
    await openEditor(project.id);
  } catch (e) {
    home.error = String(e);
  } finally {
    home.busy = false;
    render();
  }
}

async function guard(action: Promise<unknown>): Promise<void> {
  try {
    await action;
  } catch (e) {
    home.error = String(e);
  }
  await refreshProjects();
}

async function toggleApi(on: boolean): Promise<void> {
  api.busy = true;
  render();
  try {
    api.url = await engine.setApiRunning(on);
    api.error = null;
  } catch (e) {
    api.error = String(e);
    api.url = await engine.apiStatus().catch(() => null);
  } finally {
    api.busy = false;
    render();
  }
}

async function checkAgain(): Promise<void> {
  if (shell.busy) return;
  shell.busy = true;
  render();
  try {
    shell.report = await engine.diagnose();
    shell.error = null;
  } catch (e) {
    shell.error = String(e);
  } finally {
    shell.busy = false;
    render();
  }
}

async function revealDataDir(): Promise<void> {
  try {
    await engine.openDataDir();
  } catch (e) {
    shell.error = String(e);
    render();
  }
}

void engine.onStudioEvent((event) => {
  editor?.handle(event);
  voices?.handle(event);
});
void engine.onCheckEngineRequested(() => void checkAgain());
void engine.onMenuError((message) => {
  shell.error = message;
  render();
});
// A script dropped on the window starts a new project from it; a
// recording dropped on the voice library goes into its add form.
void getCurrentWebview().onDragDropEvent((event) => {
  if (event.payload.type !== "drop" || !event.payload.paths.length || editor) return;
  if (tab === "voices" && voices) {
    voices.droppedPath = event.payload.paths[0];
    voices.draw();
  } else {
    home.droppedPath = event.payload.paths[0];
    render();
  }
});
void checkAgain();
void refreshProjects();
void engine.apiStatus().then((url) => {
  api.url = url;
  render();
});
