// The projects screen: recent projects (open, rename, delete with a
// confirmation), a new project from a script (SRT, WebVTT or plain
// text; its speakers' voices from a cast sheet when one is chosen), and a
// new project heard from a recording or video (Whisper times
// its lines and tells its speakers apart, with progress and a cancel), each
// by path or by dropping the file on the window; with no projects yet,
// the demo scene, ready to render. The form's fields
// are the caller's state, so a redraw keeps what is typed.
import { html, nothing, type TemplateResult } from "lit-html";
import type { CastSheet, ProjectSummary } from "../engine";
import { browseButton } from "../pick";

export interface ProjectsActions {
  open(id: number): void;
  rename(id: number, name: string): void;
  remove(id: number): void;
  /** `cast`: the cast sheet the speakers take their voices from, if any. */
  createFromScript(name: string, path: string, language: string, cast: string | null): void;
  createFromMedia(name: string, path: string): void;
  openDemo(): void;
  cancelHearing(): void;
  /** The form changed (in place): draw again. */
  changed(): void;
}

export interface ProjectsState {
  projects: ProjectSummary[];
  /** The cast sheets a new project can start from. */
  casts: CastSheet[];
  busy: boolean;
  error: string | null;
  /** The new-project form as typed (a dropped script fills `path`); `cast`
   * is a cast sheet's name, or empty for none. */
  form: { path: string; name: string; language: string; cast: string };
  /** The new-from-media form as typed (a dropped recording or video fills `path`). */
  media: { path: string; name: string };
  /** Seconds heard of the recording being heard into a project, while one is. */
  hearing: { seconds: number } | null;
}

export const emptyProjectForm = (): ProjectsState["form"] => ({ path: "", name: "", language: "en-US", cast: "" });
export const emptyMediaForm = (): ProjectsState["media"] => ({ path: "", name: "" });

/** An input handler that keeps what is typed (or chosen) in `form[key]` and asks for a draw. */
function typedInto<T extends Record<string, string>>(form: T, key: keyof T, changed: () => void): (e: Event) => void {
  return (e: Event) => {
    form[key] = (e.currentTarget as HTMLInputElement | HTMLSelectElement).value as T[keyof T];
    changed();
  };
}

function nameFromPath(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.[^.]+$/, "");
}

export function projectsView(state: ProjectsState, actions: ProjectsActions): TemplateResult {
  const form = state.form;
  const field = (key: keyof ProjectsState["form"]) => typedInto(form, key, actions.changed);
  const create = () => {
    const path = form.path.trim();
    if (!path) return;
    actions.createFromScript(form.name.trim() || nameFromPath(path), path, form.language.trim() || "en-US", form.cast || null);
  };
  // The file's name is the project's unless one is typed.
  const namePlaceholder = form.path.trim() ? nameFromPath(form.path.trim()) : "Project name";
  const row = (project: ProjectSummary) => {
    const rename = () => {
      const next = window.prompt("New name for the project", project.name);
      if (next && next.trim()) actions.rename(project.id, next.trim());
    };
    const remove = () => {
      if (window.confirm(`Delete "${project.name}" and everything rendered for it? This cannot be undone.`)) actions.remove(project.id);
    };
    return html`<li class="project-row"><button class="link-button project-open" data-project=${String(project.id)} @click=${() => actions.open(project.id)}>${project.name}</button><span class="muted">edited ${project.updatedAt.replace("T", " ").slice(0, 16)}</span><button class="link-button" @click=${rename}>Rename</button><button class="link-button danger" @click=${remove}>Delete</button></li>`;
  };
  return html`<section class="projects">
    <h1>Projects</h1>
    ${state.error ? html`<div class="error-banner" role="alert">${state.error}</div>` : nothing}
    <div class="new-project">
      <h2>New from a script</h2>
      <div class="row"><input type="text" id="new-script-path" placeholder="/path/to/script.srt (or drop the file here)" aria-label="Script file" .value=${form.path} @input=${field("path")} @change=${field("path")} />${browseButton(
        "script",
        (path) => {
          form.path = path;
          actions.changed();
        },
      )}<input type="text" id="new-project-name" placeholder=${namePlaceholder} aria-label="Project name" .value=${form.name} @input=${field("name")} @change=${field("name")} /><input type="text" id="new-project-language" aria-label="Dub language" .value=${form.language} @input=${field("language")} @change=${field("language")} />${castChoice(state, field("cast"))}<button class="button" id="create-from-script" ?disabled=${state.busy} @click=${create}>New project from script</button></div>
    </div>
    ${mediaForm(state, actions)}
    <h2>Recent</h2>
    ${state.projects.length
      ? html`<ul class="project-list" aria-label="Recent projects">${state.projects.map(row)}</ul>`
      : html`<div class="demo-offer" id="demo-offer"><p>No projects yet. Hear a dub first: the demo is a two-speaker scene (32 lines) with voices and a music bed, ready to render and play.</p><button class="button" id="open-demo" ?disabled=${state.busy} @click=${() => actions.openDemo()}>Open the demo</button><p class="muted">Or start one from a script or a recording above.</p></div>`}
  </section>`;
}

/** The cast sheet a new project's speakers take their voices from. */
function castChoice(state: ProjectsState, chosen: (e: Event) => void): TemplateResult {
  const form = state.form;
  return html`<select id="new-project-cast" aria-label="Cast sheet" title="Speakers take the sheet's voices as they appear in the script" @change=${chosen}><option value="" .selected=${!form.cast}>No cast sheet</option>${state.casts.map(
    (c) => html`<option value=${c.name} .selected=${c.name === form.cast}>${`${c.name} (${c.members.length} speaker${c.members.length === 1 ? "" : "s"})`}</option>`,
  )}</select>`;
}

function mediaForm(state: ProjectsState, actions: ProjectsActions): TemplateResult {
  const media = state.media;
  const field = (key: keyof ProjectsState["media"]) => typedInto(media, key, actions.changed);
  const create = () => {
    const path = media.path.trim();
    if (path) actions.createFromMedia(media.name.trim() || nameFromPath(path), path);
  };
  const hearing = state.hearing
    ? html`<p class="render-progress" id="media-progress" role="status"><progress></progress> Listening: ${state.hearing.seconds.toFixed(0)} s heard <button class="link-button" id="cancel-hearing" @click=${() => actions.cancelHearing()}>Cancel</button></p>`
    : nothing;
  return html`<div class="new-project">
      <h2>New from a recording or video</h2>
      <p class="muted">Whisper hears the dialogue into timed lines in the language spoken and tells the speakers apart (Speaker 1, 2…, renamable); the file stays with the project as its original dialogue.</p>
      <div class="row"><input type="text" id="new-media-path" placeholder="/path/to/scene.mp4 (or drop the file here)" aria-label="Recording or video" .value=${media.path} @input=${field("path")} @change=${field("path")} />${browseButton(
        "media",
        (path) => {
          media.path = path;
          actions.changed();
        },
      )}<input type="text" id="new-media-name" placeholder=${media.path.trim() ? nameFromPath(media.path.trim()) : "Project name"} aria-label="Project name (from media)" .value=${media.name} @input=${field("name")} @change=${field("name")} /><button class="button" id="create-from-media" ?disabled=${state.busy} @click=${create}>Hear it into a project</button></div>
      ${hearing}
    </div>`;
}
