import { svg } from '../dom.ts';

/** A flame (drawn: an emoji needs a font that a system may lack). */
export function flame(): SVGElement {
  return svg('svg', { class: 'flame', viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', focusable: 'false' },
    svg('path', { class: 'flame-outer', d: 'M8 .5c.6 2.7 4.5 4.6 4.5 9a4.5 4.5 0 0 1-9 0c0-2.4 1.3-3.6 2-5.3.7 1 .9 2 .8 3 1.8-1.3 2.3-3.8 1.7-6.7z' }),
    svg('path', { class: 'flame-inner', d: 'M8 8c.3 1.3 2 2.2 2 4a2 2 0 0 1-4 0c0-1.1.6-1.6.9-2.4.3.4.4.9.4 1.3.6-.6.8-1.6.7-2.9z' }));
}
