// Boots the editor: the home screen (tabs: projects with the engine's
// health report and the API switch, the voice library, settings) and the
// project editor, switching between them; the status bar stays. Engine
// events go to the open editor or the voice library. Views are lit-html
// templates drawn into the workspace and the status bar; the editor draws
// itself into its own element, which is placed in the workspace.
import "./styles.css";
import { html, render as renderTemplate, type TemplateResult } from "lit-html";
import * as engine from "./engine";
import type { Diagnosis } from "./engine";
import { Editor } from "./views/editor";
import { toggleShortcuts } from "./shortcuts";
import { enginePanelView } from "./views/engine-panel";
import { apiSwitchView, type ApiSwitchState } from "./views/api-switch";
import { emptyMediaForm, emptyProjectForm, projectsView, type ProjectsState } from "./views/projects";
import { isMedia } from "./pick";
import { statusBarView } from "./views/status-bar";
import { SettingsPage } from "./views/settings";
import { VoiceLibrary } from "./views/voices";
import { getCurrentWebview } from "@tauri-apps/api/webview";

interface ShellState {
  report: Diagnosis | null;
  error: string | null;
  busy: boolean;
}

const shell: ShellState = { report: null, error: null, busy: false };
const home: ProjectsState = { projects: [], casts: [], busy: false, error: null, form: emptyProjectForm(), media: emptyMediaForm(), hearing: null };
const api: ApiSwitchState = { url: null, busy: false, error: null };
const workspace = document.getElementById("workspace")!;
const statusBar = document.getElementById("status-bar")!;
/** The open editor and the element it draws into (placed in the workspace). */
let editor: { view: Editor; element: HTMLElement } | null = null;
type Tab = "projects" | "voices" | "settings";
let tab: Tab = "projects";
let voices: VoiceLibrary | null = null;
let settingsPage: SettingsPage | null = null;

function tabs(): TemplateResult {
  const names: [Tab, string][] = [["projects", "Projects"], ["voices", "Voices"], ["settings", "Settings"]];
  return html`<nav class="tabs" role="tablist">${names.map(
    ([name, label]) =>
      html`<button class=${`tab${tab === name ? " tab--active" : ""}`} role="tab" id="tab-${name}" aria-selected=${String(tab === name)} @click=${() => showTab(name)}>${label}</button>`,
  )}</nav>`;
}

function showTab(name: Tab): void {
  tab = name;
  voices = name === "voices" ? new VoiceLibrary(render) : null;
  settingsPage = name === "settings" ? new SettingsPage(render) : null;
  render();
}

function homeTemplate(): TemplateResult {
  const body =
    tab === "voices" && voices
      ? voices.template()
      : tab === "settings" && settingsPage
        ? settingsPage.template()
        : html`<div>${projectsView(home, { open: openEditor, rename, remove, createFromScript, createFromMedia, cancelHearing, openDemo, changed: render })}</div><div>${apiSwitchView(api, (on) => void toggleApi(on))}</div><div>${enginePanelView(shell, { checkAgain, openDataDir: revealDataDir })}</div>`;
  return html`${tabs()}<div>${body}</div>`;
}

/** Draws the workspace (the editor's element, or the home screen) and the status bar. */
function render(): void {
  renderTemplate(editor ? editor.element : homeTemplate(), workspace);
  renderTemplate(statusBarView(shell), statusBar);
}

async function refreshProjects(): Promise<void> {
  try {
    home.projects = await engine.listProjects();
    home.casts = await engine.castSheets();
    // A sheet chosen in the form and gone since is no longer offered.
    if (!home.casts.some((c) => c.name === home.form.cast)) home.form.cast = "";
    home.error = null;
  } catch (e) {
    home.error = String(e);
  }
  render();
}

async function openEditor(id: number): Promise<void> {
  try {
    const project = await engine.openProject(id);
    editor?.view.destroy();
    // The editor draws into its own element, in the document before it mounts.
    const element = document.createElement("section");
    editor = null;
    renderTemplate(element, workspace);
    const view = new Editor(element, project, () => {
      view.destroy();
      editor = null;
      void refreshProjects();
    });
    editor = { view, element };
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

/** Makes a project (the home screen busy meanwhile) and opens it; whether
 * it was made (an error stays on the home screen). */
async function makeAndOpen(make: () => Promise<{ id: number }>): Promise<boolean> {
  home.busy = true;
  render();
  try {
    const project = await make();
    home.error = null;
    await openEditor(project.id);
    return true;
  } catch (e) {
    home.error = String(e);
    return false;
  } finally {
    home.busy = false;
    render();
  }
}

async function createFromScript(name: string, path: string, language: string, cast: string | null): Promise<void> {
  const made = await makeAndOpen(async () => {
    const project = cast ? await engine.createProjectFromCast(name, language, cast) : await engine.createProject(name, language);
    try {
      await engine.importScript(project.id, path);
    } catch (e) {
      // A script that does not parse leaves no empty project behind.
      await engine.deleteProject(project.id);
      throw e;
    }
    return project;
  });
  if (made) home.form = emptyProjectForm();
}

async function createFromMedia(name: string, path: string): Promise<void> {
  home.hearing = { seconds: 0 };
  if (await makeAndOpen(() => engine.createProjectFromMedia(name, path))) home.media = emptyMediaForm();
  home.hearing = null;
  render();
}

function openDemo(): void {
  void makeAndOpen(() => engine.createDemoProject());
}

function cancelHearing(): void {
  void engine.cancelHearing();
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
  if (event.kind === "mediaHeard" && home.hearing) {
    home.hearing.seconds = event.seconds;
    if (!editor) render();
  }
  editor?.view.handle(event);
  voices?.handle(event);
});
void engine.onCheckEngineRequested(() => void checkAgain());
// Help → Keyboard Shortcuts: over the editor when one is open, else over the page.
void engine.onShortcutsRequested(() => (editor ? editor.view.toggleHelp() : toggleShortcuts(document.body)));
void engine.onMenuError((message) => {
  shell.error = message;
  render();
});
// A script dropped on the projects page goes into the new-project form,
// a recording or video into the new-from-media form; a recording dropped
// on the voice library goes into its add form.
void getCurrentWebview().onDragDropEvent((event) => {
  if (event.payload.type !== "drop" || !event.payload.paths.length || editor) return;
  if (tab === "voices" && voices) {
    voices.dropped(event.payload.paths[0]);
  } else {
    const path = event.payload.paths[0];
    if (isMedia(path)) home.media.path = path;
    else home.form.path = path;
    render();
  }
});
void checkAgain();
void refreshProjects();
void engine.apiStatus().then((url) => {
  api.url = url;
  render();
});
