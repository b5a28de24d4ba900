// The time-control fields the lobby's forms and the arena form share: minutes, increment, and
// the category they make, shown as the user types (the API refuses a category that does not
// match, so the app always sends the one categoryOf gives).

import { h } from './dom.ts';
import { categoryOf } from './timeControl.ts';
import type { TimeControl } from './types/api.ts';

export type TimeFields = {
  /** The three paragraphs: minutes, increment, the category. */
  nodes: HTMLElement[];
  read: () => { initial: number; increment: number; category: TimeControl };
};

export function timeControlFields(prefix: string, o: { minutes?: number; increment?: number } = {}): TimeFields {
  const id = (name: string) => `${prefix}-${name}`;
  const minutes = h('input', { id: id('minutes'), name: 'minutes', type: 'number', min: 0, max: 180, step: 'any', value: o.minutes ?? 5, required: true });
  const increment = h('input', { id: id('increment'), name: 'increment', type: 'number', min: 0, max: 180, step: 1, value: o.increment ?? 3, required: true });
  const category = h('output', { for: `${id('minutes')} ${id('increment')}`, class: 'category' });
  const read = () => {
    const initial = Math.round(Number(minutes.value) * 60);
    const inc = Number(increment.value);
    return { initial, increment: inc, category: categoryOf(initial, inc) };
  };
  const showCategory = () => {
    const { initial, increment: inc, category: c } = read();
    category.textContent = Number.isFinite(initial) && Number.isFinite(inc) ? `= ${c} (${initial} s + 40 × ${inc} s)` : '';
  };
  minutes.addEventListener('input', showCategory);
  increment.addEventListener('input', showCategory);
  showCategory();
  return {
    nodes: [
      h('p', null, h('label', { for: id('minutes') }, 'Minutes'), minutes),
      h('p', null, h('label', { for: id('increment') }, 'Increment (seconds)'), increment),
      h('p', null, category),
    ],
    read,
  };
}
