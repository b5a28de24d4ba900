// Lines worth showing on any page until dismissed (a friend request, a declined challenge, the
// confirmation mail a signup sent): any page may add one, the frame (main.ts) draws them.

export type NewsItem = { text: string; link?: [label: string, href: string] };

const items: NewsItem[] = [];
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((fn) => fn());

export const news = {
  items: (): readonly NewsItem[] => items,
  /** The newest three stay. */
  add(text: string, link?: [string, string]): void {
    items.push({ text, link });
    if (items.length > 3) items.shift();
    changed();
  },
  dismiss(item: NewsItem): void {
    const i = items.indexOf(item);
    if (i >= 0) items.splice(i, 1);
    changed();
  },
  onChange(fn: () => void): void {
    listeners.add(fn);
  },
};
