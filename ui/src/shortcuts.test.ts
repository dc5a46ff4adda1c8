// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { SHORTCUTS, toggleShortcuts } from "./shortcuts";

describe("the keyboard shortcuts list", () => {
  it("opens with every shortcut, closes on a second ask or a click", () => {
    const root = document.createElement("section");
    document.body.replaceChildren(root);
    toggleShortcuts(root);
    const rows = root.querySelectorAll(".help-overlay tr");
    expect(rows.length).toBe(SHORTCUTS.length);
    expect(root.querySelector(".help-overlay")?.textContent).toContain("Deselect the line");
    toggleShortcuts(root);
    expect(root.querySelector(".help-overlay")).toBeNull();
    toggleShortcuts(root);
    root.querySelector<HTMLElement>(".help-overlay")!.click();
    expect(root.querySelector(".help-overlay")).toBeNull();
  });
});
