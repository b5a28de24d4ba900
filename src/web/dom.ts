// Building the page: elements are created, never parsed from strings, and every text goes in as
// text (a username or club name can hold `<script>`; it stays text). No innerHTML anywhere.

type Listener = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | null | undefined | Listener>;
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** `h('button', {class: 'primary', onclick: go}, 'Play')`; `on*` keys add listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key === 'className' ? 'class' : key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** An SVG element (the evaluation graph). */
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Node[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  el.append(...children);
  return el;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the content of `el`. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** Sets a text only when it changed (clocks tick ten times a second). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export const formatDate = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** A username, linking to the player's profile page. */
export const userLink = (username: string | undefined | null): Child =>
  username ? h('a', { class: 'user-link', href: `/@/${encodeURIComponent(username)}` }, username) : '?';

/**
 * A form's own error line, shown beside its controls (where the person is looking), scrolled into
 * view and announced.
 */
export function fieldError(): { el: HTMLElement; show: (text: string) => void; clear: () => void } {
  const el = h('p', { class: 'form-error', role: 'alert', hidden: true });
  return {
    el,
    show(text) {
      el.textContent = text;
      el.hidden = false;
      el.scrollIntoView?.({ block: 'nearest' });
    },
    clear() {
      el.textContent = '';
      el.hidden = true;
    },
  };
}

/**
 * The '?' after a provisional rating (the profile's `provisional`: Glicko-2 deviation above 110,
 * Lichess's line), as Lichess shows it: such a rating still moves by large steps.
 */
export const provisionalMark = (user: { provisional?: readonly string[] }, kind: string): Child =>
  user.provisional?.includes(kind) ? h('span', { class: 'provisional', title: 'Provisional rating: it is not established yet and moves by large steps' }, '?') : null;
