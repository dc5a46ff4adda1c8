// Boots the editor shell: asks the engine for its report, draws the
// empty-project view and the status bar, and keeps them current when the
// user (button or menu) asks for another check.
import "./styles.css";
import { diagnose, onCheckEngineRequested, onMenuError, openDataDir, type Diagnosis } from "./engine";
import { renderEnginePanel } from "./views/engine-panel";
import { renderStatusBar } from "./views/status-bar";

interface ShellState {
  report: Diagnosis | null;
  error: string | null;
  busy: boolean;
}

const state: ShellState = { report: null, error: null, busy: false };
const workspace = document.getElementById("workspace")!;
const statusBar = document.getElementById("status-bar")!;

function render(): void {
  renderEnginePanel(workspace, state, { checkAgain, openDataDir: revealDataDir });
  renderStatusBar(statusBar, state);
}

async function checkAgain(): Promise<void> {
  if (state.busy) return;
  state.busy = true;
  render();
  try {
    state.report = await diagnose();
    state.error = null;
  } catch (e) {
    state.error = String(e);
  } finally {
    state.busy = false;
    render();
  }
}

async function revealDataDir(): Promise<void> {
  try {
    await openDataDir();
  } catch (e) {
    state.error = String(e);
    render();
  }
}

void onCheckEngineRequested(() => void checkAgain());
void onMenuError((message) => {
  state.error = message;
  render();
});
void checkAgain();
