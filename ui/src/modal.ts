// Modal dialogs: one at a time over a backdrop that takes the clicks meant
// for the page behind it. Asking for a second while one is open brings the
// open one forward instead of stacking another. The dialog closes itself by
// removing its box (as every dialog's Close button does), or with Escape;
// either way the backdrop goes with it.
import { el } from "./dom";

/** The open modal's backdrop under `root`, if there is one. */
export function openModal(root: HTMLElement): HTMLElement | null {
  return root.querySelector<HTMLElement>(".modal-backdrop");
}

/** Shows `box` as `root`'s modal dialog; false (and the open one focused)
 * when a dialog is open already. */
export function showModal(root: HTMLElement, box: HTMLElement): boolean {
  const open = openModal(root);
  if (open) {
    focusFirst(open);
    return false;
  }
  const backdrop = el("div", { class: "modal-backdrop" }, box);
  // The box gone (its Close, its own work done): the backdrop goes too.
  const watch = new MutationObserver(() => {
    if (!backdrop.contains(box)) {
      watch.disconnect();
      backdrop.remove();
    }
  });
  watch.observe(backdrop, { childList: true });
  backdrop.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      closeModal(root);
    }
  });
  root.append(backdrop);
  focusFirst(box);
  return true;
}

/** Closes the open modal, if any; true when one was open. */
export function closeModal(root: HTMLElement): boolean {
  const open = openModal(root);
  open?.remove();
  return open !== null;
}

function focusFirst(container: HTMLElement): void {
  container.querySelector<HTMLElement>("input, select, textarea, button")?.focus();
}
