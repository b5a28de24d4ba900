// The puzzle list (GET /puzzles): a theme, a rating range and an order, a page at a time. Each
// puzzle opens on its own board (/puzzles/{id}).

import { ApiError, request } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { Puzzle } from '../types/api.ts';
import { themeLabel } from './line.ts';

/** Lichess's themes a player looks for most (any theme works in the API; these are offered). */
const THEMES = [
  'mateIn1', 'mateIn2', 'mateIn3', 'mateIn4', 'mate', 'backRankMate', 'smotheredMate', 'fork', 'pin', 'skewer',
  'discoveredAttack', 'doubleCheck', 'sacrifice', 'deflection', 'attraction', 'hangingPiece', 'trappedPiece',
  'interference', 'intermezzo', 'xRayAttack', 'quietMove', 'defensiveMove', 'zugzwang', 'promotion', 'advancedPawn',
  'exposedKing', 'kingsideAttack', 'queensideAttack', 'opening', 'middlegame', 'endgame', 'rookEndgame', 'pawnEndgame',
  'oneMove', 'short', 'long', 'veryLong', 'crushing', 'advantage', 'equality',
];

const ORDERS = [
  ['rating', 'Rating, lowest first'],
  ['-rating', 'Rating, highest first'],
  ['-popularity', 'Most popular first'],
] as const;

const PAGE_SIZE = 20;

export function puzzleBrowser(signal: AbortSignal): HTMLElement {
  const theme = h('select', { id: 'pz-theme', name: 'theme' }, h('option', { value: '' }, 'Any theme'),
    [...THEMES].sort((a, b) => themeLabel(a).localeCompare(themeLabel(b))).map((t) => h('option', { value: t }, themeLabel(t))));
  const min = h('input', { id: 'pz-min', name: 'min_rating', type: 'number', min: 0, max: 9999, step: 1, inputmode: 'numeric', placeholder: 'any' });
  const max = h('input', { id: 'pz-max', name: 'max_rating', type: 'number', min: 0, max: 9999, step: 1, inputmode: 'numeric', placeholder: 'any' });
  const sort = h('select', { id: 'pz-sort', name: 'sort' }, ORDERS.map(([v, label]) => h('option', { value: v }, label)));
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const rows = h('tbody');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of puzzles' });
  const form = h('form', { class: 'filters' },
    h('p', null, h('label', { for: 'pz-theme' }, 'Theme'), theme),
    h('p', null, h('label', { for: 'pz-min' }, 'Lowest rating'), min),
    h('p', null, h('label', { for: 'pz-max' }, 'Highest rating'), max),
    h('p', null, h('label', { for: 'pz-sort' }, 'Order'), sort),
    h('p', null, h('button', { type: 'submit' }, 'Show puzzles')));

  let page = 1;
  // Only the latest request may fill the list: the first page's load, sent as the page opens, can
  // answer after a filter's, and would put the unfiltered list under the filtered count.
  let latest = 0;
  const load = async () => {
    const mine = ++latest;
    const q = new URLSearchParams({ sort: sort.value, page: String(page), limit: String(PAGE_SIZE) });
    if (theme.value) q.set('theme', theme.value);
    if (min.value.trim()) q.set('min_rating', min.value.trim());
    if (max.value.trim()) q.set('max_rating', max.value.trim());
    try {
      const { data, pagination } = await request<Puzzle[]>('GET', `/puzzles?${q}`);
      if (signal.aborted || mine !== latest) return;
      status.className = 'status';
      status.textContent = pagination ? `${pagination.total} puzzle${pagination.total === 1 ? '' : 's'}` : '';
      fill(rows, data.length
        ? data.map((pz) => h('tr', null,
          h('td', null, h('a', { href: `/puzzles/${encodeURIComponent(pz.id)}` }, pz.id)),
          h('td', null, String(pz.rating)),
          h('td', { class: 'themes' }, pz.themes.map(themeLabel).join(', '))))
        : h('tr', null, h('td', { colspan: 3, class: 'empty' }, 'No puzzle matches.')));
      fill(pager,
        pagination?.hasPrev ? h('button', { type: 'button', onclick: () => go(page - 1) }, '← Previous') : null,
        pagination && pagination.total_pages > 1 ? ` Page ${page} of ${pagination.total_pages} ` : null,
        pagination?.hasNext ? h('button', { type: 'button', onclick: () => go(page + 1) }, 'Next →') : null);
    } catch (e) {
      if (mine !== latest) return;
      status.className = 'status error';
      status.textContent = e instanceof ApiError ? e.lines().join(' ') : String(e);
    }
  };
  const go = (n: number) => {
    page = n;
    void load();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    go(1);
  });
  void load();

  return h('section', { class: 'card browse', 'aria-labelledby': 'browse-h' },
    h('h2', { id: 'browse-h' }, 'Browse puzzles'), form, status,
    h('div', { class: 'table-wrap' }, h('table', { class: 'puzzles' },
      h('thead', null, h('tr', null, ['Puzzle', 'Rating', 'Themes'].map((t) => h('th', { scope: 'col' }, t)))), rows)),
    pager);
}
