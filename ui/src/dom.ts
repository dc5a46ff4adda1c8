// A tiny element builder for the DOM made once and changed by hand: the
// timeline's chrome and the editor's one-shot dialogs (the views that redraw
// are lit-html templates).

type Child = Node | string | null | undefined | false;

/** Creates `<tag>` with attributes (`class`, `data-*`, aria) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}
