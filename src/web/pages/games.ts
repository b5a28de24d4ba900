// My games: the signed-in user's games in progress, then their finished games, newest first, with
// the result, a link to the board and the analysis, and the PGN. Challenges declined or cancelled,
// seeks cancelled and games aborted before they began are not games played: they are not listed.

import { download, get, plainError, request } from '../api.ts';
import { fill, formatDate, h, userLink } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { describeKind } from '../timeControl.ts';
import type { GameSummary } from '../types/api.ts';

export async function gamesPage(ctx: PageContext): Promise<void> {
  const me = session.user()!;
  const page = Math.max(1, Number(ctx.query.get('page')) || 1);
  const status = h('p', { class: 'status', role: 'status' });
  const [active, { data: games, pagination }] = await Promise.all([
    page === 1 ? get<GameSummary[]>(`/games?player_id=${me.id}&status=active&limit=20`) : Promise.resolve([]),
    request<GameSummary[]>('GET', `/games?player_id=${me.id}&status=finished&page=${page}&limit=20`),
  ]);
  const outcome = (g: GameSummary) => {
    if (!g.result) return '';
    if (g.result === '1/2-1/2') return '½–½ draw';
    const mine = g.white_player?.id === me.id ? 'white' : 'black';
    return `${g.result} ${g.winner === mine ? 'won' : 'lost'}`;
  };
  const row = (g: GameSummary) =>
    h('tr', null,
      h('td', null, formatDate(g.created_at)),
      h('td', null, userLink(g.white_player?.username)),
      h('td', null, userLink(g.black_player?.username)),
      h('td', null, g.status === 'active' ? 'playing' : outcome(g)),
      h('td', null, describeKind(g)),
      h('td', { class: 'actions' },
        h('a', { href: `/play/${g.id}` }, g.status === 'active' ? 'Resume' : 'View'),
        g.status === 'finished' ? [' · ', h('a', { href: `/analysis/${g.id}` }, 'Analysis'), ' · ',
          h('button', {
            type: 'button',
            class: 'link',
            'aria-label': `Download the PGN of ${g.white_player?.username ?? '?'} vs ${g.black_player?.username ?? '?'}`,
            onclick: () => void download(`/games/${g.id}/pgn`, `game-${g.id}.pgn`).catch((e) => (status.textContent = plainError(e))),
          }, 'PGN')] : null));
  const table = (rows: GameSummary[]) => h('div', { class: 'table-wrap' }, h('table', { class: 'games' },
    h('thead', null, h('tr', null, ['Date', 'White', 'Black', 'Result', 'Time', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, rows.map(row))));
  fill(
    ctx.root,
    h('h1', null, 'My games'),
    status,
    active.length ? [h('h2', null, 'In progress'), table(active)] : null,
    active.length ? h('h2', null, 'Finished') : null,
    games.length === 0
      ? h('p', { class: 'empty' }, 'No finished games yet. ', h('a', { href: '/' }, 'Find an opponent'), '.')
      : table(games),
    pagination && pagination.total_pages > 1
      ? h('nav', { class: 'pager', 'aria-label': 'Pages' },
        pagination.hasPrev ? h('a', { href: `/games?page=${page - 1}` }, '← Newer') : null, ` Page ${page} of ${pagination.total_pages} `,
        pagination.hasNext ? h('a', { href: `/games?page=${page + 1}` }, 'Older →') : null)
      : null,
  );
}
