// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { closeModal, openModal, showModal } from "./modal";

const box = (label: string) => {
  const d = document.createElement("div");
  d.className = "dialog";
  d.setAttribute("aria-label", label);
  d.innerHTML = `<input id="${label}-field" />`;
  return d;
};
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("modal dialogs", () => {
  it("shows one dialog at a time over a backdrop and never stacks a second", () => {
    const root = document.createElement("section");
    document.body.replaceChildren(root);
    expect(showModal(root, box("first"))).toBe(true);
    expect(showModal(root, box("second"))).toBe(false);
    expect(root.querySelectorAll(".dialog").length).toBe(1);
    expect(root.querySelector(".modal-backdrop .dialog")?.getAttribute("aria-label")).toBe("first");
    expect(document.activeElement?.id).toBe("first-field");
  });

  it("goes with its backdrop when its box is removed, or on Escape", async () => {
    const root = document.createElement("section");
    document.body.replaceChildren(root);
    const first = box("first");
    showModal(root, first);
    first.remove();
    await settle();
    expect(openModal(root)).toBeNull();
    showModal(root, box("again"));
    root.querySelector("#again-field")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(openModal(root)).toBeNull();
    expect(closeModal(root)).toBe(false);
  });
});
