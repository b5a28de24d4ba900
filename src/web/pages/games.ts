// My games: every game of the signed-in user but pending ones, newest first, with its result,
// a link to the board and the analysis, and the PGN to download.

import { download, request } from '../api.ts';
import { fill, formatDate, h } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { formatTimeControl } from '../timeControl.ts';
import type { GameSummary } from '../types/api.ts';

export async function gamesPage(ctx: PageContext): Promise<void> {
  const me = session.user()!;
  const page = Math.max(1, Number(ctx.query.get('page')) || 1);
  const status = h('p', { class: 'status', role: 'status' });
  const { data: games, pagination } = await request<GameSummary[]>('GET', `/games?player_id=${me.id}&page=${page}&limit=20`);
  const result = (g: GameSummary) =>
    g.status === 'active' ? 'playing' : g.status === 'abandoned' ? 'aborted' : (g.result ?? '');
  fill(
    ctx.root,
    h('h1', null, 'My games'),
    status,
    games.length === 0
      ? h('p', { class: 'empty' }, 'No games yet. ', h('a', { href: '/' }, 'Find an opponent'), '.')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'games' },
        h('thead', null, h('tr', null, ['Date', 'White', 'Black', 'Result', 'Time', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', null, games.map((g) =>
          h('tr', null,
            h('td', null, formatDate(g.created_at)),
            h('td', null, g.white_player?.username ?? '?'),
            h('td', null, g.black_player?.username ?? '?'),
            h('td', null, result(g)),
            h('td', null, `${formatTimeControl(g.initial_time, g.increment)} ${g.time_control}`),
            h('td', { class: 'actions' },
              h('a', { href: `/play/${g.id}` }, g.status === 'active' ? 'Resume' : 'View'),
              g.status === 'finished' ? [' · ', h('a', { href: `/analysis/${g.id}` }, 'Analysis')] : null,
              ' · ',
              h('button', {
                type: 'button',
                class: 'link',
                'aria-label': `Download the PGN of ${g.white_player?.username ?? '?'} vs ${g.black_player?.username ?? '?'}`,
                onclick: () => void download(`/games/${g.id}/pgn`, `game-${g.id}.pgn`).catch((e: Error) => (status.textContent = e.message)),
              }, 'PGN'))))))),
    pagination && pagination.total_pages > 1
      ? h('nav', { class: 'pager', 'aria-label': 'Pages' },
        pagination.hasPrev ? h('a', { href: `/games?page=${page - 1}` }, '← Newer') : null, ` Page ${page} of ${pagination.total_pages} `,
        pagination.hasNext ? h('a', { href: `/games?page=${page + 1}` }, 'Older →') : null)
      : null,
  );
}
