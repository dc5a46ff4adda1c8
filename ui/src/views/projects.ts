// The projects screen: recent projects (open, rename, delete with a
// confirmation) and a new project from a script (SRT, WebVTT or plain
// text), by path or by dropping the file on the window.
import { el } from "../dom";
import type { ProjectSummary } from "../engine";
import { browseButton } from "../pick";

export interface ProjectsActions {
  open(id: number): void;
  rename(id: number, name: string): void;
  remove(id: number): void;
  createFromScript(name: string, path: string, language: string): void;
}

export interface ProjectsState {
  projects: ProjectSummary[];
  busy: boolean;
  error: string | null;
  /** A path dropped on the window, waiting to be used. */
  droppedPath: string | null;
}

function nameFromPath(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.[^.]+$/, "");
}

export function renderProjects(root: HTMLElement, state: ProjectsState, actions: ProjectsActions): void {
  const path = el("input", { type: "text", id: "new-script-path", placeholder: "/path/to/script.srt (or drop the file here)", "aria-label": "Script file" });
  path.value = state.droppedPath ?? "";
  const name = el("input", { type: "text", id: "new-project-name", placeholder: "Project name", "aria-label": "Project name" });
  if (state.droppedPath) name.placeholder = nameFromPath(state.droppedPath);
  const language = el("input", { type: "text", id: "new-project-language", "aria-label": "Dub language" });
  language.value = "en-US";
  // The file's name is the project's unless one is typed.
  path.addEventListener("input", () => {
    name.placeholder = path.value.trim() ? nameFromPath(path.value.trim()) : "Project name";
  });
  const create = el("button", { class: "button", id: "create-from-script" }, "New project from script");
  create.addEventListener("click", () => {
    const p = path.value.trim();
    if (!p) return;
    actions.createFromScript(name.value.trim() || nameFromPath(p), p, language.value.trim() || "en-US");
  });
  if (state.busy) create.setAttribute("disabled", "");

  const list = el("ul", { class: "project-list", "aria-label": "Recent projects" });
  for (const project of state.projects) {
    const open = el("button", { class: "link-button project-open", "data-project": String(project.id) }, project.name);
    open.addEventListener("click", () => actions.open(project.id));
    const rename = el("button", { class: "link-button" }, "Rename");
    rename.addEventListener("click", () => {
      const next = window.prompt("New name for the project", project.name);
      if (next && next.trim()) actions.rename(project.id, next.trim());
    });
    const remove = el("button", { class: "link-button danger" }, "Delete");
    remove.addEventListener("click", () => {
      if (window.confirm(`Delete "${project.name}" and everything rendered for it? This cannot be undone.`)) actions.remove(project.id);
    });
    list.append(el("li", { class: "project-row" }, open, el("span", { class: "muted" }, `edited ${project.updatedAt.replace("T", " ").slice(0, 16)}`), rename, remove));
  }

  root.replaceChildren(
    el(
      "section",
      { class: "projects" },
      el("h1", {}, "Projects"),
      state.error ? el("div", { class: "error-banner", role: "alert" }, state.error) : null,
      el("div", { class: "new-project" }, el("h2", {}, "New from a script"), el("div", { class: "row" }, path, browseButton(path, "script", () => path.dispatchEvent(new Event("input"))), name, language, create)),
      el("h2", {}, "Recent"),
      state.projects.length ? list : el("p", { class: "muted" }, "No projects yet: start one from an SRT, WebVTT or plain-text script."),
    ),
  );
}
