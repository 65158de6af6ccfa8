/** DOM helpers shared by the browser scripts. Text always goes in as textContent, never as markup. */

import type { BadgeSpan } from '../../shared/words.ts';

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found as T;
}

export interface ElOptions {
  className?: string;
  text?: string;
  attrs?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  opts: ElOptions = {},
  children: (Node | string | null)[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (opts.className) node.className = opts.className;
  if (opts.text !== undefined) node.textContent = opts.text;
  for (const [k, v] of Object.entries(opts.attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) if (c !== null) node.append(c);
  return node;
}

/** Replaces an element's children. */
export function fill(node: Element, children: (Node | string | null)[]): void {
  node.replaceChildren(...children.filter((c): c is Node | string => c !== null));
}

/** A badge the pages and the browser share (shared/words.ts, e.g. verdictSpans), as elements. */
export function spans(s: BadgeSpan): HTMLSpanElement {
  return el(
    'span',
    { className: s.className },
    s.parts.map((p) => (typeof p === 'string' ? p : spans(p))),
  );
}
